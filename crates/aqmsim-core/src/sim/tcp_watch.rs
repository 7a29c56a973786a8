//! The TCP state monitor (`monitor.tcp_flows`): the traced senders' state after every
//! event that touched them (an ACK, a timeout, the start), or every `monitor.tcp_interval`,
//! and every RTT sample they take.

use super::{Agent, Simulation};
use crate::sched::Event;

impl Simulation {
    /// Log flow `fi`'s state if it changed (and its RTT sample, if it took one).
    #[cold]
    #[inline(never)]
    pub(super) fn watch_tcp(&mut self, fi: usize) {
        let t = self.now.secs();
        let every = self.tcp_dt.is_some();
        if let Agent::Tcp { snd, .. } = &mut self.flows[fi].agent {
            if let Some(rtt) = snd.take_rtt_sample() {
                self.rtt_log.push(t, fi as u32, rtt);
            }
            if !every {
                self.tcp_log.record(t, fi as u32, snd.snapshot(), false);
            }
        } else if let Agent::Linux { snd, .. } = &mut self.flows[fi].agent {
            if let Some(rtt) = snd.take_rtt_sample() {
                self.rtt_log.push(t, fi as u32, rtt);
            }
            if !every {
                self.tcp_log.record(t, fi as u32, snd.snapshot(), false);
            }
        }
    }

    /// `monitor.tcp_interval`: every traced flow's state now.
    pub(super) fn tcp_sample(&mut self) {
        let t = self.now.secs();
        for k in 0..self.tcp_flows.len() {
            let fi = self.tcp_flows[k] as usize;
            match &self.flows[fi].agent {
                Agent::Tcp { snd, .. } => self.tcp_log.record(t, fi as u32, snd.snapshot(), true),
                Agent::Linux { snd, .. } => self.tcp_log.record(t, fi as u32, snd.snapshot(), true),
                Agent::Cbr(_) => {}
            }
        }
        if let Some(dt) = self.tcp_dt {
            let next = self.now + dt;
            if next <= self.end {
                self.sched.schedule(next, Event::TcpSample);
            }
        }
    }
}
