//! The agents' glue: packets delivered to TCP senders and sinks and UDP sources, what they
//! send in return, their timers (retransmission, delayed ACK, CBR sends), starts and stops.

use super::{Agent, Simulation};
use crate::packet::{Kind, Packet};
use crate::sched::Event;
use crate::time::Dur;

impl Simulation {
    // ------------------------------------------------------------------ agents

    #[inline(always)]
    pub(super) fn deliver(&mut self, pkt: Packet) {
        let now = self.now;
        let fi = pkt.flow as usize;
        let flow = &mut self.flows[fi];
        match (&mut flow.agent, pkt.kind) {
            (Agent::Tcp { sink, .. } | Agent::Linux { sink, .. }, Kind::Data) => {
                let dst = flow.dst;
                if self.delays.on {
                    self.delays.add_e2e(fi, now.saturating_since(pkt.t_sent).secs());
                }
                let ack = sink.recv(&pkt, now);
                let timer = ack.is_none() && sink.wants_timer();
                if sink.flushed.is_some() {
                    // DCTCP: the ACK a CE change released goes first
                    self.send_early_ack(fi, dst);
                }
                match ack {
                    Some(ack) => self.send_from(dst, ack),
                    None if timer => self.arm_delack(fi),
                    None => {}
                }
            }
            (Agent::Tcp { snd, .. }, Kind::Ack) => {
                let mut out = std::mem::take(&mut self.out);
                snd.recv_ack(&pkt, now, &mut out);
                if flow.transfer.is_some() {
                    self.check_transfer(fi);
                }
                self.flush(fi, out);
            }
            (Agent::Linux { snd, .. }, Kind::Ack) => {
                let mut out = std::mem::take(&mut self.out);
                snd.recv_ack(&pkt, now, &mut out);
                self.flush(fi, out);
            }
            (Agent::Cbr(c), Kind::Udp) => {
                if self.delays.on {
                    self.delays.add_e2e(fi, now.saturating_since(pkt.t_sent).secs());
                }
                c.received += 1;
                c.received_bytes += pkt.size as u64;
                c.delay_sum_ns += now.saturating_since(pkt.t_sent).0 as f64;
            }
            _ => debug_assert!(false, "packet kind does not match the flow's agent"),
        }
    }

    /// Send what a TCP sender produced and keep its timer event in step with its deadline.
    #[inline(always)]
    pub(super) fn flush(&mut self, fi: usize, mut out: Vec<Packet>) {
        let src = self.flows[fi].src;
        for p in out.drain(..) {
            self.send_from(src, p);
        }
        self.out = out;
        self.sync_timer(fi);
        if self.tracer.is_some() {
            self.trace_timer(fi);
        }
        if self.tcp_traced[fi] {
            self.watch_tcp(fi);
        }
    }

    #[inline(always)]
    pub(super) fn sync_timer(&mut self, fi: usize) {
        let flow = &mut self.flows[fi];
        let deadline = match &flow.agent {
            Agent::Tcp { snd, .. } => snd.rtx_deadline(),
            Agent::Linux { snd, .. } => snd.next_deadline(),
            Agent::Cbr(_) => None,
        };
        if let Some(d) = deadline {
            if flow.timer_at.map_or(true, |e| e > d) {
                flow.timer_at = Some(d);
                self.sched.schedule(d, Event::RtxTimer { flow: fi as u32, gen: 0 });
            }
        }
    }

    #[inline(always)]
    pub(super) fn rtx_timer(&mut self, f: u32) {
        let fi = f as usize;
        let now = self.now;
        let flow = &mut self.flows[fi];
        if flow.timer_at == Some(now) {
            flow.timer_at = None;
        }
        let fire = match &flow.agent {
            Agent::Tcp { snd, .. } => snd.rtx_deadline() == Some(now),
            Agent::Linux { snd, .. } => snd.next_deadline() == Some(now),
            Agent::Cbr(_) => false,
        };
        if fire {
            let mut out = std::mem::take(&mut self.out);
            match &mut self.flows[fi].agent {
                Agent::Tcp { snd, .. } => snd.on_timeout(now, &mut out),
                Agent::Linux { snd, .. } => snd.on_timer(now, &mut out),
                Agent::Cbr(_) => {}
            }
            self.flush(fi, out);
        } else {
            self.sync_timer(fi);
        }
    }

    /// DCTCP: send the delayed ACK that a CE change released early (before the ACK of the
    /// packet that changed it, if any).
    #[cold]
    #[inline(never)]
    pub(super) fn send_early_ack(&mut self, fi: usize, dst: u32) {
        let (Agent::Tcp { sink, .. } | Agent::Linux { sink, .. }) = &mut self.flows[fi].agent else { return };
        if let Some(early) = sink.flushed.take() {
            self.send_from(dst, early);
        }
    }

    /// Arm flow `fi`'s delayed-ACK timer for the packet its sink just held back.
    #[inline]
    pub(super) fn arm_delack(&mut self, fi: usize) {
        let (Agent::Tcp { sink, .. } | Agent::Linux { sink, .. }) = &self.flows[fi].agent else { return };
        let (interval, gen) = (sink.delack_interval, sink.delack_gen);
        let at = self.now + Dur::from_secs(interval);
        if let Some(t) = &mut self.tracer {
            t.delack_d[fi] = t.now_d + interval;
        }
        self.sched.schedule(at, Event::DelAck { flow: fi as u32, gen });
    }

    pub(super) fn delack(&mut self, f: u32, gen: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let dst = flow.dst;
        if let Agent::Tcp { sink, .. } | Agent::Linux { sink, .. } = &mut flow.agent {
            if let Some(ack) = sink.on_delack_timer(gen, now) {
                self.send_from(dst, ack);
            }
        }
    }

    pub(super) fn start(&mut self, f: u32) {
        let fi = f as usize;
        let now = self.now;
        let flow = &mut self.flows[fi];
        match &mut flow.agent {
            Agent::Tcp { snd, .. } => {
                let mut out = std::mem::take(&mut self.out);
                match &flow.transfer {
                    Some(t) => snd.advance(t.to_send(), now, &mut out),
                    None => snd.start_bulk(now, &mut out),
                }
                self.flush(fi, out);
            }
            Agent::Linux { snd, .. } => {
                let mut out = std::mem::take(&mut self.out);
                snd.start_bulk(now, &mut out);
                self.flush(fi, out);
            }
            Agent::Cbr(c) => {
                c.running = true;
                if c.is_onoff() {
                    // ns-2's TrafficGenerator::start: the first packet after the first gap
                    let (gap, gap_s) = c.next_gap();
                    self.sched.schedule(now + gap, Event::CbrSend { flow: f });
                    if let Some(t) = &mut self.tracer {
                        t.cbr_d[fi] = t.now_d + gap_s;
                    }
                } else {
                    self.cbr_send(f);
                }
            }
        }
    }

    pub(super) fn stop(&mut self, f: u32) {
        match &mut self.flows[f as usize].agent {
            Agent::Tcp { snd, .. } => snd.stop(),
            Agent::Linux { snd, .. } => snd.stop(),
            Agent::Cbr(c) => c.running = false,
        }
    }

    pub(super) fn cbr_send(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let (src, dst) = (flow.src, flow.dst);
        if let Agent::Cbr(c) = &mut flow.agent {
            if !c.running || now >= flow.stop {
                return;
            }
            let (gap, gap_s) = c.next_gap();
            self.sched.schedule(now + gap, Event::CbrSend { flow: f });
            if let Some(t) = &mut self.tracer {
                t.cbr_d[f as usize] = t.now_d + gap_s;
            }
            // a burst: its packets handed to the network at once, back to back
            let (first, burst, size) = (c.sent, c.burst() as u64, c.size);
            c.sent += burst;
            for k in 1..=burst {
                let pkt = Packet::new(Kind::Udp, f, (first + k) as i32, size, dst, now);
                self.send_from(src, pkt);
            }
        }
    }
}
