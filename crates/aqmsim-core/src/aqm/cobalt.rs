//! COBALT, CoDel and BLUE alternate (the AQM inside CAKE), as ns-3.37's `CobaltQueueDisc`
//! runs it.
//!
//! Decisions are taken at dequeue, in [`CobaltVars::should_drop`] (ns-3's
//! `CobaltShouldDrop`, itself Linux's `cobalt_should_drop`): CoDel's control law without
//! CoDel's "above target for one interval" wait (a sojourn time above `target` enters the
//! dropping state at once, the first drop comes one `interval` later), plus BLUE: a drop
//! probability `p_drop` raised by `increment` when the queue overflows or a packet's sojourn
//! time exceeds `blue_threshold`, lowered by `decrement` when a dequeue finds the queue
//! empty (each at most once per `target`), and applied to every dequeued packet with a
//! uniform draw. The count also *decays*: while not dropping, every due `drop_next` takes
//! one off `count` (CoDel's `count − lastcount` re-entry, made gradual).
//!
//! Arithmetic is ns-3's: time in ns (64-bit), 1/√count as a 32-bit fixed-point number,
//! looked up in a 16-entry cache (four Newton steps each) for count < 16 and refined by
//! one Newton step beyond, the control law `t + interval·rec_inv_sqrt >> 32` with the
//! interval in a u32 of ns. The same packets are dropped and marked as by ns-3 (the
//! queue-level replay test, tests/test_ns3_queues.py, asks for equality).
//!
//! ns-3.37's rules kept on purpose (docs/aqm/cobalt.md lists them with Linux's):
//! * BLUE's last-update time is a `uint32_t` of ns (`m_lastUpdateTimeBlue`): after
//!   2^32 ns ≈ 4.29 s the "once per target" limit no longer holds (the difference to a
//!   truncated time is always large), so BLUE moves on every event that asks for it;
//! * BLUE draws for every dequeued packet while `p_drop > 0`, even one CoDel already drops
//!   or marked (Linux draws only for a packet not yet dropped), and a packet CoDel marked
//!   can still be dropped by BLUE (it is then counted as marked and dropped);
//! * with ECN, a packet that cannot be marked (Not-ECT) is dropped instead;
//! * `l4s`: an ECT(1) or CE packet skips CoDel and BLUE; only the CE threshold applies.
//!
//! [`CobaltVars`] is the per-queue state a flow-queue scheduler (FQ-COBALT, CAKE) drives
//! per queue: [`CobaltVars::should_drop`] at each head packet, [`CobaltVars::queue_full`]
//! when the scheduler refuses a packet, [`CobaltVars::queue_empty`] when a dequeue finds it
//! empty. [`Cobalt`] is the single-queue discipline built on it; it holds its own FIFO
//! ([`PacketOwner`]) because BLUE draws at dequeue, where only the owner path has the RNG.

use super::owner::PacketOwner;
use super::queue::{Enqueued, FrontEvent};
use super::{Aqm, AqmState, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

/// ns-3's `REC_INV_SQRT_CACHE`: counts below it take 1/√count from the cache.
pub const REC_INV_SQRT_CACHE: usize = 16;

/// One Newton step towards 1/√count, 32-bit fixed point (ns-3 `CobaltQueueDisc::NewtonStep`,
/// Linux `cobalt_newton_step`).
pub const fn newton_step32(rec_inv_sqrt: u32, count: u32) -> u32 {
    let invsqrt = rec_inv_sqrt as u64;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let mut val = (3u64 << 32).wrapping_sub((count as u64).wrapping_mul(invsqrt2));
    val >>= 2; // avoid overflow
    val = val.wrapping_mul(invsqrt) >> (32 - 2 + 1);
    val as u32
}

/// ns-3's `CacheInit`: entry c is four Newton steps from the previous entry (entry 0 = ~0).
pub const REC_INV_SQRT: [u32; REC_INV_SQRT_CACHE] = {
    let mut c = [0u32; REC_INV_SQRT_CACHE];
    let mut r = !0u32;
    c[0] = r;
    let mut n = 1;
    while n < REC_INV_SQRT_CACHE {
        let mut k = 0;
        while k < 4 {
            r = newton_step32(r, n as u32);
            k += 1;
        }
        c[n] = r;
        n += 1;
    }
    c
};

/// `t + interval/√count` (ns-3 `ControlLaw`: `ReciprocalDivide(interval, rec_inv_sqrt)`
/// with the interval truncated to a u32 of ns).
#[inline]
pub fn control_law(t: i64, interval_ns: u64, rec_inv_sqrt: u32) -> i64 {
    t + ((interval_ns as u32 as u64 * rec_inv_sqrt as u64) >> 32) as u32 as i64
}

/// Whose COBALT: ns-3.37's `CobaltQueueDisc` or Linux's `sch_cake` (CAKE's queues).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// 32-bit BLUE clock; BLUE draws for every packet, dropped or not.
    Ns3,
    /// 64-bit BLUE clock; BLUE draws only for a packet CoDel did not drop; over target
    /// also needs a sojourn above 4 `mtu_time`.
    Linux,
}

/// COBALT's parameters (ns-3.37's attributes), times in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct CobaltParams {
    /// Acceptable standing queue delay (`Target`, 5 ms).
    pub target_ns: u64,
    /// CoDel interval (`Interval`, 100 ms); at most u32::MAX ns.
    pub interval_ns: u64,
    /// Mark ECN-capable packets instead of dropping them (`UseEcn`, false).
    pub ecn: bool,
    /// Mark packets whose sojourn exceeds it (`CeThreshold`; None = `Time::Max`).
    pub ce_threshold_ns: Option<u64>,
    /// L4S mode (`UseL4s`, false): ECT(1)/CE packets only see the CE threshold.
    pub l4s: bool,
    /// Sojourn above which BLUE raises its probability (`BlueThreshold`, 400 ms).
    pub blue_threshold_ns: u64,
    /// BLUE's step up (`Increment`, 1/256).
    pub increment: f64,
    /// BLUE's step down (`Decrement`, 1/4096).
    pub decrement: f64,
    /// BLUE's initial probability (`Pdrop`, 0).
    pub p_drop: f64,
    pub flavor: Flavor,
    /// Linux: serialisation time of an MTU at the shaper's rate (0 unshaped).
    pub mtu_time_ns: u64,
}

impl Default for CobaltParams {
    fn default() -> Self {
        CobaltParams {
            target_ns: 5_000_000,
            interval_ns: 100_000_000,
            ecn: false,
            ce_threshold_ns: None,
            l4s: false,
            blue_threshold_ns: 400_000_000,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            p_drop: 0.0,
            flavor: Flavor::Ns3,
            mtu_time_ns: 0,
        }
    }
}

/// What [`CobaltVars::should_drop`] decided about one head packet: a CE mark (set it, count
/// it) and/or a drop (a marked packet can still be dropped by BLUE, as in ns-3).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub mark: Option<Reason>,
    pub drop: Option<Reason>,
}

/// The per-queue COBALT state (CoDel's count and schedule, BLUE's probability).
#[derive(Clone, Debug, PartialEq)]
pub struct CobaltVars {
    pub count: u32,
    pub dropping: bool,
    pub rec_inv_sqrt: u32,
    /// Next drop time, ns; with count = 0 an activity timeout (ns-3 `m_dropNext`).
    pub drop_next: i64,
    /// BLUE's drop probability.
    pub p_drop: f64,
    /// BLUE's last update, ns (ns-3: truncated to 32 bits, `m_lastUpdateTimeBlue`).
    pub last_blue: i64,
    /// Sojourn time of the last head packet seen, ns (for the monitors).
    pub last_sojourn_ns: u64,
}

impl CobaltVars {
    pub fn new(p: &CobaltParams) -> CobaltVars {
        CobaltVars { count: 0, dropping: false, rec_inv_sqrt: !0, drop_next: 0, p_drop: p.p_drop, last_blue: 0, last_sojourn_ns: 0 }
    }

    /// ns-3 `InvSqrt`: the cache below 16, else one Newton step.
    #[inline]
    fn inv_sqrt(&mut self) {
        self.rec_inv_sqrt = match REC_INV_SQRT.get(self.count as usize) {
            Some(&r) => r,
            None => newton_step32(self.rec_inv_sqrt, self.count),
        };
    }

    /// More than `target` since BLUE last moved (ns-3's `CoDelTimeAfter(now − last, target)`).
    #[inline]
    fn blue_due(&self, p: &CobaltParams, now: i64) -> bool {
        now - self.last_blue - p.target_ns as i64 > 0
    }

    /// BLUE moved at `now`.
    #[inline]
    fn blue_moved(&mut self, p: &CobaltParams, now: i64) {
        self.last_blue = match p.flavor {
            Flavor::Ns3 => now as u32 as i64,
            Flavor::Linux => now,
        };
    }

    /// ns-3 `CobaltQueueFull`: an arrival was refused for want of room.
    pub fn queue_full(&mut self, p: &CobaltParams, now: SimTime) {
        let now = now.0 as i64;
        if self.blue_due(p, now) {
            self.p_drop = (self.p_drop + p.increment).min(1.0);
            self.blue_moved(p, now);
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
    }

    /// A dequeue found the queue empty: ns-3 `DoDequeue`'s `m_dropping = false` then
    /// `CobaltQueueEmpty`.
    pub fn queue_empty(&mut self, p: &CobaltParams, now: SimTime) {
        let now = now.0 as i64;
        if self.p_drop != 0.0 && self.blue_due(p, now) {
            self.p_drop = (self.p_drop - p.decrement).max(0.0);
            self.blue_moved(p, now);
        }
        self.dropping = false;
        if self.count != 0 && now - self.drop_next >= 0 {
            self.count -= 1;
            self.inv_sqrt();
            self.drop_next = control_law(self.drop_next, p.interval_ns, self.rec_inv_sqrt);
        }
    }

    /// ns-3 `CobaltShouldDrop` for the head packet `pkt`, popped at `now`; BLUE draws
    /// from `rng` while `p_drop > 0`.
    pub fn should_drop(&mut self, p: &CobaltParams, pkt: &Packet, now_t: SimTime, rng: &mut Rng) -> Decision {
        let now = now_t.0 as i64;
        let sojourn = now - pkt.t_enq.0 as i64;
        self.last_sojourn_ns = sojourn.max(0) as u64;
        let ce_over = |th: Option<u64>| th.is_some_and(|th| sojourn - th as i64 > 0);
        let markable = ecn::codepoint(pkt.ecn) != ecn::Codepoint::NotEct;
        let mut d = Decision::default();
        if p.l4s && ecn::is_l4s(pkt.ecn) {
            if ce_over(p.ce_threshold_ns) {
                d.mark = Some(Reason::Forced);
            }
            return d;
        }
        let mut schedule = now - self.drop_next;
        let over_target = sojourn - p.target_ns as i64 > 0 && (p.flavor == Flavor::Ns3 || sojourn > 4 * p.mtu_time_ns as i64);
        let mut next_due = self.count != 0 && schedule >= 0;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control_law(now, p.interval_ns, self.rec_inv_sqrt);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        let mut drop = false;
        if next_due && self.dropping {
            if p.ecn && markable {
                d.mark = Some(Reason::Early);
            } else {
                drop = true;
            }
            self.count = self.count.saturating_add(1);
            self.inv_sqrt();
            self.drop_next = control_law(self.drop_next, p.interval_ns, self.rec_inv_sqrt);
            schedule = now - self.drop_next;
        } else {
            while next_due {
                self.count -= 1;
                self.inv_sqrt();
                self.drop_next = control_law(self.drop_next, p.interval_ns, self.rec_inv_sqrt);
                schedule = now - self.drop_next;
                next_due = self.count != 0 && schedule >= 0;
            }
        }
        if d.mark.is_none() && !p.l4s && p.ecn && markable && ce_over(p.ce_threshold_ns) {
            d.mark = Some(Reason::Forced);
        }
        if sojourn > 0 && sojourn as u64 > p.blue_threshold_ns && self.blue_due(p, now) {
            self.p_drop = (self.p_drop + p.increment).min(1.0);
            self.blue_moved(p, now);
        }
        let mut blue = false;
        if self.p_drop != 0.0 && !(p.flavor == Flavor::Linux && drop) {
            blue = rng.uniform() < self.p_drop;
        }
        if self.count == 0 {
            self.drop_next = now + p.interval_ns as i64;
        } else if schedule > 0 && !(drop || blue) {
            self.drop_next = now;
        }
        d.drop = if drop {
            Some(Reason::Early)
        } else if blue {
            Some(Reason::Forced)
        } else {
            None
        };
        d
    }
}

/// COBALT on one FIFO (ns-3's `CobaltQueueDisc`).
#[derive(Clone, Debug)]
pub struct Cobalt {
    pub params: CobaltParams,
    /// Packets waiting at most (u32::MAX when limited in bytes).
    pub limit: u32,
    /// Bytes waiting at most (ns-3's default `MaxSize`: 1500·1000 bytes).
    pub limit_bytes: Option<u64>,
    pub vars: CobaltVars,
    buf: VecDeque<Packet>,
    bytes: u64,
}

impl Cobalt {
    pub fn new(params: CobaltParams, limit: u32, limit_bytes: Option<u64>) -> Cobalt {
        let vars = CobaltVars::new(&params);
        Cobalt { params, limit, limit_bytes, vars, buf: VecDeque::new(), bytes: 0 }
    }

    /// ns-3 `DoEnqueue`: refuse (and tell BLUE) when the packet would exceed the limit.
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime) -> Enqueued {
        let full = match self.limit_bytes {
            Some(lb) => self.bytes + pkt.size as u64 > lb,
            None => self.buf.len() as u32 + 1 > self.limit,
        };
        if full {
            self.vars.queue_full(&self.params, now);
            return Enqueued::Dropped(Reason::Overflow);
        }
        pkt.t_enq = now;
        self.bytes += pkt.size as u64;
        self.buf.push_back(pkt);
        Enqueued::Queued { marked: None }
    }

    /// ns-3 `DoDequeue`: pop until a packet COBALT keeps; marks and drops go to `events`.
    pub fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        loop {
            let Some(mut p) = self.buf.pop_front() else {
                self.vars.queue_empty(&self.params, now);
                return None;
            };
            self.bytes -= p.size as u64;
            let d = self.vars.should_drop(&self.params, &p, now, rng);
            let qlen = self.buf.len() as u32;
            if let Some(r) = d.mark {
                p.ecn |= ecn::CE;
                events.push(FrontEvent { flow: p.flow, reason: r, marked: true, qlen, pkt: p });
            }
            match d.drop {
                Some(r) => events.push(FrontEvent { flow: p.flow, reason: r, marked: false, qlen, pkt: p }),
                None => return Some(p),
            }
        }
    }
}

impl PacketOwner for Cobalt {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, _rng: &mut Rng, _events: &mut Vec<FrontEvent>) -> Enqueued {
        Cobalt::enqueue(self, pkt, now)
    }
    fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        Cobalt::dequeue(self, now, rng, events)
    }
    fn len(&self) -> u32 {
        self.buf.len() as u32
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Aqm for Cobalt {
    /// Not used: the wrapper calls [`Cobalt::enqueue`] (COBALT owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "Cobalt is driven through Cobalt::enqueue");
        Verdict::Enqueue
    }
    /// The link went idle at `now`: what ns-3's dequeue call on the empty queue does.
    fn on_idle(&mut self, now: SimTime) {
        debug_assert!(self.buf.is_empty());
        self.vars.queue_empty(&self.params, now);
    }
    fn state(&self) -> AqmState {
        AqmState { delay: self.vars.last_sojourn_ns as f64 * 1e-9, count: self.vars.count as f64, p: self.vars.p_drop, ..AqmState::default() }
    }
}

#[cfg(test)]
#[path = "cobalt_tests.rs"]
mod tests;
