//! FQ-COBALT, as ns-3.37's `FqCobaltQueueDisc` runs it: the flow-queue scheduler of
//! [`super::fq`] with a COBALT ([`CobaltVars`], the arithmetic of `cobalt.rs`, ns-3's
//! flavour) in every flow queue, deciding each head packet as it leaves.
//! docs/aqm/fq-cobalt.md lists every departure from ns-3.37 and from Linux's CAKE.
//!
//! * Every flow queue's COBALT has the disc's parameters (ns-3 passes `MaxSize`,
//!   `Interval`, `Target`, `Pdrop`, `Increment`, `Decrement` through its child factory and
//!   sets `UseEcn`, `CeThreshold`, `UseL4s`, `BlueThreshold` on each child), its packet
//!   limit being the disc's `limit`.
//! * An arrival to a queue that alone holds `limit` packets is refused by that queue's
//!   COBALT (ns-3 `CobaltQueueDisc::DoEnqueue`): BLUE hears it (`queue_full`), the drop is
//!   an overflow, and it is not counted, so it never triggers the fat-flow drop.
//! * The fat-flow drop takes packets from the head of the fattest queue without its COBALT
//!   (ns-3 dequeues them from the child's internal queue).
//! * A dequeue that finds a queue empty leaves COBALT's dropping state and lowers BLUE
//!   (`queue_empty`); BLUE's uniform draws at dequeue come from the link's RNG.
//! * Monitors: the sojourn time and BLUE probability of the queue that last decided a head
//!   packet, COBALT counts summed over the queues.

use super::cobalt::{CobaltParams, CobaltVars};
pub use super::fq::Classify;
use super::fq::{FlowAqm, FlowQueues, FqParams};
use super::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

/// FQ-COBALT's parameters; `Default` is ns-3.37's `FqCobaltQueueDisc` defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct FqCobaltParams {
    /// COBALT's parameters for every queue (ns-3's flavour; `ecn` on by default here, the
    /// disc's `UseEcn`).
    pub cobalt: CobaltParams,
    /// The flow-queue scheduler's own parameters (limit, flows, quantum, drop batch,
    /// classifier; `FqParams`'s defaults).
    pub fq: FqParams,
}

impl Default for FqCobaltParams {
    fn default() -> Self {
        let fq = FqParams::default();
        FqCobaltParams {
            cobalt: CobaltParams { ecn: true, ..CobaltParams::default() },
            fq,
        }
    }
}

/// COBALT as a flow queue's AQM: the limit at arrival, the decisions at departure.
impl FlowAqm for CobaltVars {
    type Cfg = CobaltParams;
    fn create(cfg: &CobaltParams, _now: SimTime) -> Self {
        CobaltVars::new(cfg)
    }
    /// ns-3 `CobaltQueueDisc::DoEnqueue`: refuse a packet the queue has no room for.
    fn on_arrival(&mut self, cfg: &CobaltParams, _pkt: &Packet, q: &QueueView, limit: u32, now: SimTime, _rng: &mut Rng) -> Verdict {
        if q.len_pkts as u64 + 1 > limit as u64 {
            self.queue_full(cfg, now);
            return Verdict::Drop(Reason::Overflow);
        }
        Verdict::Enqueue
    }
    fn on_head(&mut self, cfg: &CobaltParams, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> FrontAction {
        match self.on_head_both(cfg, pkt, q, now, rng) {
            (_, Some(r)) => FrontAction::Drop(r),
            (Some(r), None) => FrontAction::Mark(r),
            (None, None) => FrontAction::Pass,
        }
    }
    fn on_head_both(&mut self, cfg: &CobaltParams, pkt: &Packet, _q: &QueueView, now: SimTime, rng: &mut Rng) -> (Option<Reason>, Option<Reason>) {
        let d = self.should_drop(cfg, pkt, now, rng);
        (d.mark, d.drop)
    }
    fn on_empty(&mut self, cfg: &CobaltParams, now: SimTime) {
        self.queue_empty(cfg, now);
    }
    fn state(&self) -> AqmState {
        AqmState { delay: self.last_sojourn_ns as f64 * 1e-9, count: self.count as f64, p: self.p_drop, ..AqmState::default() }
    }
}

#[derive(Clone, Debug)]
pub struct FqCobalt {
    pub params: FqCobaltParams,
    pub(super) fq: FlowQueues<CobaltVars>,
}

impl FqCobalt {
    pub fn new(params: FqCobaltParams) -> FqCobalt {
        let fqp = params.fq.clone();
        let cobalt = CobaltParams { flavor: super::cobalt::Flavor::Ns3, mtu_time_ns: 0, ..params.cobalt.clone() };
        FqCobalt { fq: FlowQueues::new(fqp, cobalt), params }
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
    /// The state of the queue flow `flow` is classified to, if it was created.
    pub fn queue_state(&self, flow: u32) -> Option<AqmState> {
        self.fq.queue_state(flow)
    }
}

impl Aqm for FqCobalt {
    /// Not used: the wrapper calls the [`PacketOwner`] side (FQ-COBALT owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "FqCobalt is driven as a PacketOwner");
        Verdict::Enqueue
    }
    /// A dequeue call that finds the scheduler empty walks its lists as ns-3 does (a queue
    /// still listed hears `queue_empty`; nothing draws).
    fn on_idle(&mut self, now: SimTime) {
        self.fq.on_idle(now)
    }
    fn state(&self) -> AqmState {
        self.fq.state()
    }
}

#[cfg(test)]
#[path = "fq_cobalt_tests.rs"]
mod tests;
