//! FQ-PIE, as ns-3.37's `FqPieQueueDisc` runs it: the flow-queue scheduler of
//! [`super::fq`] with a PIE ([`PieVars`], the arithmetic of `pie.rs`) in every flow queue,
//! deciding arrivals to its queue from that queue's own delay. docs/aqm/fq-pie.md lists
//! every departure from ns-3.37 and from Linux's `sch_fq_pie`.
//!
//! * Every flow queue's PIE has the disc's parameters (ns-3 passes them through its
//!   `PieQueueDisc` factory), its packet limit being the disc's `limit`, and runs its own
//!   update timer from the time its queue is created: updates at `t_c + k·t_update`
//!   (ns-3.37 schedules a child's first `CalculateP` at creation, the `Supdate` it passes
//!   being read before it is set). The updates run lazily (`pie.rs`), with its tie rule but
//!   for the first update, at `t_c` itself, which runs after every packet event at `t_c`
//!   (ns-3 schedules it while the creating arrival runs). Each update counts as one event
//!   against the engine's `max_events`, over all queues.
//! * `mark_ecn_threshold` is applied to every queue (ns-3.37 declares the attribute but
//!   does not pass it to the children, which keep PIE's default 0.1: the two agree at the
//!   default).
//! * A refused arrival (PIE's early drop, or its queue alone holding `limit` packets) is
//!   an enqueue drop; the fat-flow drop takes packets from the head of the fattest queue
//!   without its PIE (ns-3 dequeues them from the child's internal queue), its next update
//!   seeing the bytes that are left.
//! * Monitors: `p` and `delay` of the queue that last dequeued a packet.

use super::fq::{FlowAqm, FlowQueues, FqParams};
pub use super::fq::Classify;
use super::pie_params::PieParams;
use super::pie_vars::{PieCfg, PieVars};
use super::{Aqm, AqmState, FrontAction, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

/// FQ-PIE's parameters; `Default` is ns-3.37's `FqPieQueueDisc` defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct FqPieParams {
    /// PIE's parameters for every queue: `target`, `t_update`, `alpha`, `beta`,
    /// `max_burst`, `dq_threshold`, the estimator, cap and derandomisation switches,
    /// `ecn` (on by default here, ns-3's `UseEcn`) and `mark_ecn_threshold`. Its `limit`
    /// is the disc's, `limit_bytes`, `s_update` and `active_threshold` are unused.
    pub pie: PieParams,
    /// The flow-queue scheduler's own parameters (limit, flows, quantum, drop batch,
    /// classifier; `FqParams`'s defaults).
    pub fq: FqParams,
}

impl Default for FqPieParams {
    fn default() -> Self {
        let fq = FqParams::default();
        FqPieParams {
            pie: PieParams { ecn: true, limit: fq.limit, ..PieParams::default() },
            fq,
        }
    }
}

/// PIE as a flow queue's AQM: decisions at arrival, delay measured at departure.
impl FlowAqm for PieVars {
    type Cfg = PieCfg;
    fn create(_cfg: &PieCfg, now: SimTime) -> Self {
        PieVars::new(now, true)
    }
    fn on_arrival(&mut self, cfg: &PieCfg, pkt: &Packet, q: &QueueView, _limit: u32, now: SimTime, rng: &mut Rng) -> Verdict {
        self.arrive(cfg, pkt, q, now, &mut || rng.uniform())
    }
    fn on_head(&mut self, cfg: &PieCfg, pkt: &Packet, q: &QueueView, now: SimTime, _rng: &mut Rng) -> FrontAction {
        self.depart(cfg, pkt, q, now);
        FrontAction::Pass
    }
    fn on_empty(&mut self, cfg: &PieCfg, now: SimTime) {
        self.set_bytes(cfg, 0, now);
    }
    fn on_purged(&mut self, cfg: &PieCfg, q: &QueueView, now: SimTime) {
        self.set_bytes(cfg, q.len_bytes, now);
    }
    fn advance(&mut self, cfg: &PieCfg, now: SimTime) {
        self.catch_up(cfg, now);
    }
    fn timer_events(&self) -> u64 {
        self.updates()
    }
    fn set_timer_budget(&mut self, total: u64) {
        self.set_update_budget(total);
    }
    fn over_budget(&self) -> Option<SimTime> {
        PieVars::over_budget(self)
    }
    fn state(&self) -> AqmState {
        AqmState { p: self.drop_prob(), delay: self.qdelay(), ..AqmState::default() }
    }
}

#[derive(Clone, Debug)]
pub struct FqPie {
    pub params: FqPieParams,
    pub(super) fq: FlowQueues<PieVars>,
}

impl FqPie {
    /// Panics on PIE parameters [`PieParams::validate`] refuses.
    pub fn new(params: FqPieParams) -> FqPie {
        let pie = PieParams { limit: params.fq.limit, limit_bytes: None, s_update: 0.0, active_threshold: None, ..params.pie.clone() };
        let fqp = params.fq.clone();
        FqPie { fq: FlowQueues::new(fqp, PieCfg::new(pie)), params }
    }
    #[inline]
    pub fn len(&self) -> u32 {
        self.fq.len()
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.fq.bytes()
    }
    /// Queues that have held a packet.
    pub fn queues_created(&self) -> usize {
        self.fq.queues_created()
    }
    /// p and delay of the queue flow `flow` is classified to, if it was created.
    pub fn queue_state(&self, flow: u32) -> Option<AqmState> {
        self.fq.queue_state(flow)
    }
    /// PIE updates run so far, over all queues.
    pub fn updates(&self) -> u64 {
        self.fq.timer_events()
    }
    pub fn set_update_budget(&mut self, total: u64) {
        self.fq.set_timer_budget(total)
    }
    pub fn over_budget(&self) -> Option<SimTime> {
        self.fq.over_budget()
    }
}

impl Aqm for FqPie {
    /// Not used: the wrapper calls the [`PacketOwner`] side (FQ-PIE owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "FqPie is driven as a PacketOwner");
        Verdict::Enqueue
    }
    /// A dequeue call that finds the scheduler empty walks its lists as ns-3 does.
    fn on_idle(&mut self, now: SimTime) {
        self.fq.on_idle(now)
    }
    fn advance(&mut self, now: SimTime) {
        self.fq.advance(now);
    }
    fn state(&self) -> AqmState {
        self.fq.state()
    }
}

#[cfg(test)]
#[path = "fq_pie_tests.rs"]
mod tests;
