//! CoDel, Controlled Delay (RFC 8289), as ns-3.37's `CoDelQueueDisc` runs it.
//!
//! Decisions are taken at dequeue from the sojourn time of the head packet. After the
//! sojourn time has stayed at or above `target` for one `interval` (and at least
//! `min_bytes` remain queued), CoDel enters the dropping state and drops (or, with ECN,
//! marks) one head packet; while it stays above, the next drop comes `interval/√count`
//! after the previous one (the control law). On re-entering the dropping state soon after
//! leaving it, the count carries over (`count − lastcount`).
//!
//! Arithmetic is ns-3's (itself Linux's `codel.h`): time in 1024-ns units, 1/√count kept
//! as a 16-bit fixed-point number refined by one Newton step per count change, and the
//! control law `t + interval · rec_inv_sqrt` by a 32-bit reciprocal multiply. The same
//! packets are dropped as by ns-3 (the queue-level replay test asks for equality).
//!
//! Where ns-3.37 (and we) differ from RFC 8289's pseudo-code, on purpose:
//! * below-target test `sojourn < target || bytes_left < min_bytes` (RFC: `bytes <= MTU`);
//! * a dequeue on an empty queue leaves the dropping state but keeps `first_above_time`
//!   (as Linux; RFC's `dodequeue` also clears it);
//! * with ECN, a mark inside the dropping loop schedules the next one from `now`
//!   (ns-3), not from the previous `drop_next` (Linux);
//! * re-entry reuses the count only if `drop_next` is in the past and less than
//!   16 intervals ago (unsigned difference, ns-3; Linux's signed one also accepts a
//!   `drop_next` in the future);
//! * time is a 64-bit count of 1024 ns, so no wrap-around (ns-3's 32-bit one wraps after
//!   2^42 ns ≈ 73 min: runs longer than that diverge from ns-3, not from RFC 8289).
//!
//! RFC 8289's dequeue is a loop that pops, drops and pops again; aqmsim's queue asks the
//! discipline about one head packet at a time (`on_dequeue`), so the loop is kept as a
//! small state machine ([`Phase`]) that makes the same decisions in the same order
//! (checked against a literal transcription of the RFC loop in the tests).

use super::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;

/// CoDel clock: ns-3's `CODEL_SHIFT` (time in 1024-ns units).
pub const CODEL_SHIFT: u32 = 10;
const REC_INV_SQRT_SHIFT: u32 = 16;
const REC_INV_SQRT_ONE: u16 = 0xFFFF;

#[inline]
fn codel_time(ns: u64) -> u64 {
    ns >> CODEL_SHIFT
}

/// One Newton step towards 1/√count in 16-bit fixed point (ns-3 `NewtonStep`, Linux
/// `codel_Newton_step`).
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64);
    val >>= 2; // avoid overflow
    val = (val.wrapping_mul(invsqrt as u64)) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// `t + interval/√count`, with 1/√count as `rec_inv_sqrt` (ns-3 `ControlLaw`).
pub fn control_law(t: u64, interval: u64, rec_inv_sqrt: u16) -> u64 {
    let r = (rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
    // ns-3 keeps the interval in a u32 of 1024-ns units (≈ 73 min at most).
    t + ((interval as u32 as u64 * r as u64) >> 32)
}

/// CoDel's parameters, in nanoseconds and bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing queue delay (`Target`, 5 ms).
    pub target_ns: u64,
    /// Window over which the delay must stay above target (`Interval`, 100 ms).
    pub interval_ns: u64,
    /// No drop while fewer bytes than this remain queued (`MinBytes`, 1500).
    pub min_bytes: u64,
    /// Mark ECN-capable packets instead of dropping them (`UseEcn`).
    pub ecn: bool,
    /// With ECN, also mark every packet whose sojourn exceeds this (`CeThreshold`; None =
    /// never, ns-3's `Time::Max`).
    pub ce_threshold_ns: Option<u64>,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams { target_ns: 5_000_000, interval_ns: 100_000_000, min_bytes: 1500, ecn: false, ce_threshold_ns: None }
    }
}

/// Where the RFC's dequeue loop stands between two head packets of one dequeue call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// A new dequeue call.
    Fresh,
    /// The previous head was dropped inside the dropping-state loop.
    InLoop,
    /// The previous head was dropped on entering the dropping state.
    Entered,
}

/// The per-queue CoDel state machine (FQ-CoDel keeps one per flow queue).
#[derive(Clone, Debug)]
pub struct CodelVars {
    pub count: u32,
    pub last_count: u32,
    pub dropping: bool,
    rec_inv_sqrt: u16,
    /// 0 = the sojourn time is below target; else when it may first drop (CoDel time).
    first_above: u64,
    drop_next: u64,
    phase: Phase,
    /// Sojourn time of the last head packet seen, ns (for the monitors).
    pub last_sojourn_ns: u64,
}

impl Default for CodelVars {
    fn default() -> Self {
        CodelVars { count: 0, last_count: 0, dropping: false, rec_inv_sqrt: REC_INV_SQRT_ONE, first_above: 0, drop_next: 0, phase: Phase::Fresh, last_sojourn_ns: 0 }
    }
}

impl CodelVars {
    /// ns-3 `OkToDrop` for a popped packet with `bytes_left` still queued.
    fn ok_to_drop(&mut self, p: &CodelParams, sojourn_ns: u64, bytes_left: u64, now: u64) -> bool {
        if codel_time(sojourn_ns) < codel_time(p.target_ns) || bytes_left < p.min_bytes {
            self.first_above = 0;
            return false;
        }
        if self.first_above == 0 {
            self.first_above = now + codel_time(p.interval_ns);
            false
        } else {
            now > self.first_above
        }
    }

    /// Decide about the head packet `pkt`, popped at `now` with `bytes_left` behind it.
    /// (Not inlined: it keeps the discipline dispatch of the RED family small.)
    #[inline(never)]
    pub fn on_head(&mut self, p: &CodelParams, pkt: &Packet, bytes_left: u64, now_t: SimTime) -> FrontAction {
        let now = codel_time(now_t.0);
        let sojourn = now_t.saturating_since(pkt.t_enq).0;
        self.last_sojourn_ns = sojourn;
        let interval = codel_time(p.interval_ns);
        let ect = pkt.ecn & ecn::ECT != 0;
        let ok = self.ok_to_drop(p, sojourn, bytes_left, now);
        let phase = std::mem::replace(&mut self.phase, Phase::Fresh);
        let marked = match phase {
            Phase::Entered => false, // popped after the entering drop: OkToDrop ran, it leaves
            Phase::InLoop if !ok => {
                self.dropping = false;
                false
            }
            Phase::InLoop => {
                self.drop_next = control_law(self.drop_next, interval, self.rec_inv_sqrt);
                if now >= self.drop_next {
                    return self.loop_drop(p, ect, now, interval);
                }
                false
            }
            Phase::Fresh if self.dropping => {
                if !ok {
                    self.dropping = false;
                    false
                } else if now >= self.drop_next {
                    return self.loop_drop(p, ect, now, interval);
                } else {
                    false
                }
            }
            Phase::Fresh if ok => {
                let marked = p.ecn && ect;
                self.dropping = true;
                let delta = self.count.wrapping_sub(self.last_count) as i32;
                if delta > 1 && now >= self.drop_next && now - self.drop_next < 16 * interval {
                    self.count = delta as u32;
                    self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
                } else {
                    self.count = 1;
                    self.rec_inv_sqrt = REC_INV_SQRT_ONE;
                }
                self.last_count = self.count;
                self.drop_next = control_law(now, interval, self.rec_inv_sqrt);
                if marked {
                    return FrontAction::Mark(Reason::Early);
                }
                self.phase = Phase::Entered;
                return FrontAction::Drop(Reason::Early);
            }
            Phase::Fresh => false,
        };
        debug_assert!(!marked);
        self.ce_threshold(p, ect, sojourn)
    }

    /// One turn of the dropping-state loop for the head packet: count it, then mark it
    /// (leaving the loop) or drop it (the loop goes on with the next head).
    fn loop_drop(&mut self, p: &CodelParams, ect: bool, now: u64, interval: u64) -> FrontAction {
        self.count = self.count.wrapping_add(1);
        self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        if p.ecn && ect {
            self.drop_next = control_law(now, interval, self.rec_inv_sqrt);
            return FrontAction::Mark(Reason::Early);
        }
        self.phase = Phase::InLoop;
        FrontAction::Drop(Reason::Early)
    }

    /// ns-3's CE-threshold mark of a packet that leaves unmarked.
    #[inline]
    fn ce_threshold(&self, p: &CodelParams, ect: bool, sojourn_ns: u64) -> FrontAction {
        match p.ce_threshold_ns {
            Some(th) if p.ecn && ect && codel_time(sojourn_ns) > codel_time(th) => FrontAction::Mark(Reason::Forced),
            _ => FrontAction::Pass,
        }
    }

    /// The queue had nothing to give: a dequeue call on an empty queue, or the pop after
    /// a drop found it empty.
    pub fn on_empty(&mut self) {
        match std::mem::replace(&mut self.phase, Phase::Fresh) {
            Phase::Fresh => self.dropping = false,
            Phase::InLoop => {
                self.first_above = 0;
                self.dropping = false;
            }
            Phase::Entered => self.first_above = 0,
        }
    }
}

/// CoDel on one FIFO.
#[derive(Clone, Debug)]
pub struct Codel {
    pub params: CodelParams,
    /// Packets waiting at most (ns-3 `MaxSize` in packets; Linux `limit`, 1000).
    pub limit: u32,
    /// Bytes waiting at most, when the limit is in bytes.
    pub limit_bytes: Option<u64>,
    pub vars: CodelVars,
}

impl Codel {
    pub fn new(params: CodelParams, limit: u32, limit_bytes: Option<u64>) -> Codel {
        Codel { params, limit, limit_bytes, vars: CodelVars::default() }
    }
}

impl Aqm for Codel {
    #[inline]
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        // ns-3 DoEnqueue: refuse when the queue would exceed MaxSize.
        let full = match self.limit_bytes {
            Some(lb) => q.len_bytes + pkt.size as u64 > lb,
            None => q.len_pkts + 1 > self.limit,
        };
        if full {
            Verdict::Drop(Reason::Overflow)
        } else {
            Verdict::Enqueue
        }
    }
    #[inline]
    fn on_idle(&mut self, _now: SimTime) {
        self.vars.on_empty();
    }
    #[inline]
    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, _rng: &mut Rng) -> FrontAction {
        self.vars.on_head(&self.params, pkt, q.len_bytes, now)
    }
    fn state(&self) -> AqmState {
        AqmState { delay: self.vars.last_sojourn_ns as f64 * 1e-9, count: self.vars.count as f64, ..AqmState::default() }
    }
}

#[cfg(test)]
#[path = "codel_tests.rs"]
mod tests;
