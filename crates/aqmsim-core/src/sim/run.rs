//! The event loop: run to the end (or an event/memory limit), and hand each event to the
//! part of the simulation that handles it.

use super::{RunResults, Simulation, NETWORK, SENDERS};
use crate::sched::Event;
use crate::time::SimTime;

/// Why [`Simulation::run_events`] returned.
pub(super) enum Stop {
    /// The events count reached the given count.
    Count,
    /// No event left at or before the limit.
    Idle,
    /// The end of the run.
    Ended,
}

impl Simulation {
    /// updates, run lazily but counted as ns-3's timer would count them).
    pub fn events(&self) -> u64 {
        self.sched.events_processed().saturating_add(self.other_events).saturating_add(self.timer_events())
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
        self.try_run_finished()
    }

    /// The limits' errors, or the results, of a run that has run.
    pub(super) fn try_run_finished(mut self) -> crate::error::Result<RunResults> {
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
            match self.run_events(limit, self.next_check) {
                Stop::Count => {
                    // the event limit or the memory check
                    if self.check_limits(self.sched.events_processed()) {
                        break;
                    }
                }
                Stop::Idle if self.merge_due < limit => self.commit_merges(),
                Stop::Idle | Stop::Ended => break,
            }
        }
    }

    /// Handle the events up to `limit` (and up to the next merge decision that waits,
    /// `sim/merge.rs`, which is taken once the events before it ran) until the events count
    /// reaches `count`. This is the event loop itself, inlined into nothing else: its one
    /// copy of `dispatch` is the engine's hot code (two copies, one per caller, cost the
    /// ns-2 runs 5–10 %). A run on one thread calls it once per `guard_mask` events, a side
    /// of a run on two threads once per few events.
    #[inline(never)]
    pub(super) fn run_events(&mut self, limit: SimTime, count: u64) -> Stop {
        loop {
            // one compare per event
            if self.sched.events_processed() >= count {
                return Stop::Count;
            }
            let Some((t, ev)) = self.sched.pop_until(limit.min(self.merge_due)) else { return Stop::Idle };
            self.now = t;
            if !self.dispatch(ev) {
                self.ended = true;
                return Stop::Ended;
            }
        }
    }

    pub(super) fn init(&mut self) {
        self.init_push(self.end, Event::End);
        // before any other event: a rate change runs first of its instant (same-instant
        // events run in the order they were scheduled)
        self.schedule_rate_changes();
        for i in 0..self.flows.len() {
            let f = &self.flows[i];
            let (start, stop) = (f.start, f.stop);
            if start < self.end {
                self.init_push(start, Event::Start { flow: i as u32 });
            }
            if stop < self.end {
                self.init_push(stop, Event::Stop { flow: i as u32 });
            }
        }
        if !self.monitored.is_empty() {
            self.init_push(SimTime::ZERO, Event::Sample);
            self.init_push(SimTime::ZERO + self.link_dt, Event::LinkBin);
        }
        if self.tcp_dt.is_some() && !self.tcp_flows.is_empty() {
            self.init_push(SimTime::ZERO, Event::TcpSample);
        }
    }

    /// Schedule an event of the set-up. One side of a run on two threads keeps its own
    /// events only, numbered as the whole run numbers them (`parallel/`).
    pub(super) fn init_push(&mut self, at: SimTime, ev: Event) {
        let seq = self.sched.reserve();
        let mine = match ev {
            _ if self.role == 0 => true,
            Event::End => true,
            Event::Start { .. } | Event::Stop { .. } | Event::TcpSample => self.role == SENDERS,
            Event::Sample | Event::LinkBin => self.role == NETWORK,
            Event::RateChange { link, .. } => self.link_cls[link as usize] == self.role,
            _ => unreachable!("not an event of the set-up"),
        };
        if mine {
            self.sched.schedule_reserved(at, seq, ev);
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
            Event::TxDone { link } => {
                self.enter_link(link);
                self.tx_done(link)
            }
            Event::Deliver { slot } => {
                let pkt = self.take(slot);
                self.enter(super::class_of_packet(&pkt));
                if self.tracer.is_some() {
                    self.trace_receive(&pkt, true);
                }
                self.deliver(pkt);
            }
            Event::Forward { link, slot, counted } => {
                self.enter_link(link);
                self.forward(link, slot, counted)
            }
            Event::RtxTimer { flow, .. } => {
                self.enter(SENDERS);
                self.rtx_timer(flow)
            }
            Event::DelAck { flow, gen } => {
                self.enter(NETWORK);
                self.delack(flow, gen)
            }
            Event::Start { flow } => {
                self.enter(SENDERS);
                self.start(flow)
            }
            Event::Stop { flow } => {
                self.enter(SENDERS);
                self.stop(flow)
            }
            Event::CbrSend { flow } => {
                self.enter(SENDERS);
                self.cbr_send(flow)
            }
            Event::RateChange { link, idx } => {
                self.enter_link(link);
                self.rate_change(link, idx)
            }
            Event::Sample => {
                self.enter(NETWORK);
                self.sample()
            }
            Event::LinkBin => {
                self.enter(NETWORK);
                self.link_bin()
            }
            Event::TcpSample => {
                self.enter(SENDERS);
                self.tcp_sample()
            }
            Event::End => return false,
        }
        true
    }

    /// The event being handled is of class `c` (a linux-stack run numbers its events by
    /// class: `sched`'s module docs).
    #[inline(always)]
    fn enter(&mut self, c: u8) {
        if self.split {
            self.sched.enter(c as usize, self.now);
        }
    }

    #[inline(always)]
    fn enter_link(&mut self, l: u32) {
        if self.split {
            self.sched.enter(self.link_cls[l as usize] as usize, self.now);
        }
    }
}
