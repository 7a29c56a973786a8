//! The event loop: run to the end (or an event/memory limit), and hand each event to the
//! part of the simulation that handles it.

use super::{RunResults, Simulation};
use crate::sched::Event;
use crate::time::SimTime;

impl Simulation {
    /// updates, run lazily but counted as ns-3's timer would count them).
    pub fn events(&self) -> u64 {
        self.sched.events_processed().saturating_add(self.timer_events())
    }

    /// Run to the end and collect the results.
    ///
    /// Panics if the run reached `max_events` (use [`Simulation::try_run`] for an error).
    pub fn run(self) -> RunResults {
        self.try_run().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Run to the end and collect the results, or fail if the run reached `max_events`.
    pub fn try_run(mut self) -> crate::error::Result<RunResults> {
        self.open_traces()?;
        self.run_until(self.end);
        // a discipline's timer events past the budget, or over max_events in all
        if self.has_timers && !self.truncated && self.overfull.is_none() {
            self.truncated = self.timers_over_budget() || self.events() > self.max_events;
        }
        if let Some(n) = self.overfull {
            return Err(crate::error::ScenarioError::new(
                "max_packets",
                format!(
                    "{n} packets were waiting in queues or on links at once at t = {} s, more than max_packets = {} (a memory guard: each takes about 100 bytes); lower the buffer limits or the offered load, or raise max_packets (an integer in [1, 2^64))",
                    self.now.secs(),
                    self.max_packets
                ),
            ));
        }
        if self.truncated {
            return Err(crate::error::ScenarioError::new(
                "max_events",
                format!(
                    "the run reached max_events = {} at t = {} s of duration {} s{}; raise max_events (an integer in [1, 2^64)) or shorten the run",
                    self.max_events,
                    self.timers_over_budget_at().unwrap_or(self.now).secs(),
                    self.duration,
                    match self.timer_events() {
                        0 => String::new(),
                        k => format!(" ({k} of them probability updates of PIE, FQ-PIE or DualPI2, one per t_update)"),
                    }
                ),
            ));
        }
        Ok(self.finish())
    }

    /// Process every event up to and including `t` (or the end of the run).
    pub fn run_until(&mut self, t: SimTime) {
        if !self.started {
            self.started = true;
            self.init();
        }
        let limit = t.min(self.end);
        while !self.ended {
            let n = self.sched.events_processed();
            // one compare per event: the next stop is the event limit or the memory check
            if n >= self.next_check && self.check_limits(n) {
                break;
            }
            // a merge decision that waits (sim/merge.rs) is taken once the events before it ran
            let Some((t, ev)) = self.sched.pop_until(limit.min(self.merge_due)) else {
                if self.merge_due < limit {
                    self.commit_merges();
                    continue;
                }
                break;
            };
            self.now = t;
            if !self.dispatch(ev) {
                self.ended = true;
            }
        }
    }

    pub(super) fn init(&mut self) {
        self.sched.schedule(self.end, Event::End);
        // before any other event: a rate change runs first of its instant (same-instant
        // events run in the order they were scheduled)
        self.schedule_rate_changes();
        for (i, f) in self.flows.iter().enumerate() {
            if f.start < self.end {
                self.sched.schedule(f.start, Event::Start { flow: i as u32 });
            }
            if f.stop < self.end {
                self.sched.schedule(f.stop, Event::Stop { flow: i as u32 });
            }
        }
        if !self.monitored.is_empty() {
            self.sched.schedule(SimTime::ZERO, Event::Sample);
            self.sched.schedule(SimTime::ZERO + self.link_dt, Event::LinkBin);
        }
        if self.tcp_dt.is_some() && !self.tcp_flows.is_empty() {
            self.sched.schedule(SimTime::ZERO, Event::TcpSample);
        }
    }

    /// Handle one event; false at the end of the run. (Inlined into the loop: a call per
    /// event cost about 36 instructions of each event, the registers it saved and restored;
    /// 4.4 % of the 100-flow BBR benchmark's, docs/performance.md.)
    #[inline(always)]
    pub(super) fn dispatch(&mut self, ev: Event) -> bool {
        if self.tracer.is_some() {
            self.trace_clock(&ev);
        }
        match ev {
            Event::TxDone { link } => self.tx_done(link),
            Event::Deliver { slot } => {
                let pkt = self.take(slot);
                if self.tracer.is_some() {
                    self.trace_receive(&pkt, true);
                }
                self.deliver(pkt);
            }
            Event::Forward { link, slot, counted } => self.forward(link, slot, counted),
            Event::RtxTimer { flow, .. } => self.rtx_timer(flow),
            Event::DelAck { flow, gen } => self.delack(flow, gen),
            Event::Start { flow } => self.start(flow),
            Event::Stop { flow } => self.stop(flow),
            Event::CbrSend { flow } => self.cbr_send(flow),
            Event::RateChange { link, idx } => self.rate_change(link, idx),
            Event::Sample => self.sample(),
            Event::LinkBin => self.link_bin(),
            Event::TcpSample => self.tcp_sample(),
            Event::End => return false,
        }
        true
    }
}
