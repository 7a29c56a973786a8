//! FQ-CoDel (RFC 8290), as ns-3.37's `FqCoDelQueueDisc` runs it: the flow-queue scheduler
//! of [`super::fq`] (classification, DRR over new and old queues, fat-flow drop) with
//! CoDel ([`CodelVars`]) deciding each queue's head packets at dequeue.
//!
//! Unlike the FIFO disciplines, FQ-CoDel owns its packets: the queue wrapper
//! ([`super::queue::QueueDisc`]) hands arrivals to [`FqCodel::enqueue`] and asks
//! [`FqCodel::dequeue`] for departures. Its [`Aqm`] implementation serves the monitors
//! (`state`) and the idle notification (a dequeue call that finds nothing).
//!
//! Rules as ns-3.37 (the scheduler's are in [`super::fq`]; where Linux's
//! `sch_fq_codel.c` differs, it is said):
//! * a queue's CoDel refuses an arrival only when that queue alone holds `limit` packets;
//! * per-queue CoDel compares the queue's own bytes with `min_bytes` (Linux: its MTU);
//! * ECN marking is on by default (ns-3 and Linux).

use super::codel::{CodelParams, CodelVars};
use super::fq::{FlowAqm, FlowQueues, FqParams};
use super::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

pub use super::fq::Classify;

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// CoDel's parameters for every queue (ECN on by default here).
    pub codel: CodelParams,
    /// The flow-queue scheduler's own parameters (limit, flows, quantum, drop batch,
    /// classifier; `FqParams`'s defaults).
    pub fq: FqParams,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        let fq = FqParams::default();
        FqCodelParams {
            codel: CodelParams { ecn: true, ..CodelParams::default() },
            fq,
        }
    }
}

/// CoDel as a flow queue's AQM: no decision at arrival but the queue's own limit.
impl FlowAqm for CodelVars {
    type Cfg = CodelParams;
    fn create(_cfg: &CodelParams, _now: SimTime) -> Self {
        CodelVars::default()
    }
    fn on_arrival(&mut self, _cfg: &CodelParams, _pkt: &Packet, q: &QueueView, limit: u32, _now: SimTime, _rng: &mut Rng) -> Verdict {
        // the queue's own CoDel refuses a packet beyond MaxSize (the scheduler's)
        if q.len_pkts + 1 > limit {
            Verdict::Drop(Reason::Overflow)
        } else {
            Verdict::Enqueue
        }
    }
    #[inline]
    fn on_head(&mut self, cfg: &CodelParams, pkt: &Packet, q: &QueueView, now: SimTime, _rng: &mut Rng) -> FrontAction {
        CodelVars::on_head(self, cfg, pkt, q.len_bytes, now)
    }
    fn on_empty(&mut self, _cfg: &CodelParams, _now: SimTime) {
        CodelVars::on_empty(self)
    }
    fn state(&self) -> AqmState {
        AqmState { delay: self.last_sojourn_ns as f64 * 1e-9, count: self.count as f64, ..AqmState::default() }
    }
}

#[derive(Clone, Debug)]
pub struct FqCodel {
    pub params: FqCodelParams,
    pub(super) fq: FlowQueues<CodelVars>,
}

impl FqCodel {
    pub fn new(params: FqCodelParams) -> FqCodel {
        let fqp = params.fq.clone();
        FqCodel { fq: FlowQueues::new(fqp, params.codel.clone()), params }
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
    /// The queue (hash bucket) a flow's packets go to.
    pub fn bucket(&self, flow: u32) -> u32 {
        self.fq.bucket(flow)
    }
}

impl Aqm for FqCodel {
    /// Not used: the wrapper drives the scheduler as a [`super::PacketOwner`] (FQ-CoDel owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "FqCodel is driven as a PacketOwner");
        Verdict::Enqueue
    }
    /// A dequeue call that finds the scheduler empty: its lists are walked as ns-3 does
    /// (new queues become old, old ones inactive, each CoDel leaves its dropping state).
    fn on_idle(&mut self, now: SimTime) {
        self.fq.on_idle(now)
    }
    fn state(&self) -> AqmState {
        self.fq.state()
    }
}

#[cfg(test)]
#[path = "fq_codel_tests.rs"]
mod tests;
