//! PIE's per-queue state and arithmetic ([`PieVars`]), driven by a shared configuration
//! ([`PieCfg`]): the standalone discipline ([`super::pie::Pie`]) holds one of each, FQ-PIE
//! ([`super::fq_pie`]) one `PieVars` per flow queue, as CoDel has [`super::codel::CodelVars`].
//! The rules (ns-3.37's `PieQueueDisc`, the lazy timer and its tie rule) are written in
//! `pie.rs`'s module documentation.

use super::periodic::Periodic;
use super::pie_params::PieParams;
use super::{Reason, QueueView, Verdict};
use crate::packet::{ecn, Packet};
use crate::time::SimTime;

/// ns-3 `BURST_RESET_TIMEOUT`, seconds.
const BURST_RESET_TIMEOUT: f64 = 1.5;
/// ns-3 `DQCOUNT_INVALID`.
const DQCOUNT_INVALID: u64 = u64::MAX;

/// ns-3 `Time::GetSeconds` of an integer nanosecond count.
#[inline]
pub(super) fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// ns-3 `BurstStateT`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BurstState {
    NoBurst,
    InBurst,
    InBurstProtecting,
}

/// PIE's parameters with their times in integer ns (ns-3 `Time`).
#[derive(Clone, Debug)]
pub struct PieCfg {
    pub params: PieParams,
    pub(super) t_update: u64,
    pub(super) target: u64,
    pub(super) max_burst: u64,
    pub(super) active_threshold: Option<u64>,
    pub(super) burst_reset_limit: u32,
}

impl PieCfg {
    /// Panics on parameters [`PieParams::validate`] refuses.
    pub fn new(params: PieParams) -> PieCfg {
        if let Err(e) = params.validate() {
            panic!("{e}");
        }
        let ns = |s: f64| SimTime::from_secs(s).0;
        let t_update = ns(params.t_update);
        PieCfg {
            t_update,
            target: ns(params.target),
            max_burst: ns(params.max_burst),
            active_threshold: params.active_threshold.map(ns),
            burst_reset_limit: (BURST_RESET_TIMEOUT / secs(t_update)) as u32,
            params,
        }
    }
    fn bytes_mode(&self) -> bool {
        self.params.limit_bytes.is_some()
    }
}

/// One PIE's state (ns-3 `PieQueueDisc`'s members) and its lazily run timer.
#[derive(Clone, Debug)]
pub struct PieVars {
    /// The periodic update, run lazily and counted (the engine charges each against
    /// `max_events`, as an event of ns-3's timer).
    pub(super) timer: Periodic,
    /// An update due exactly at this time runs after the events at that time, not before
    /// (a flow queue's first update, scheduled by ns-3 while the creating arrival runs).
    pub(super) held: Option<SimTime>,
    /// p, ns-3 `m_dropProb`.
    pub(super) drop_prob: f64,
    /// Current and previous-update queueing delay, ns.
    pub(super) qdelay: u64,
    pub(super) qdelay_old: u64,
    pub(super) burst_allowance: u64,
    pub(super) burst_reset: u32,
    pub(super) burst_state: BurstState,
    pub(super) in_measurement: bool,
    pub(super) avg_dq_rate: f64,
    pub(super) dq_start: SimTime,
    pub(super) dq_count: u64,
    pub(super) accu_prob: f64,
    pub(super) active: bool,
    /// Bytes waiting after the last event (what an update at a later time sees).
    pub(super) bytes: u64,
}

impl PieVars {
    /// ns-3 `InitializeParams`, the first update due at `first_update`; `held`: that first
    /// update runs after the events at its own time (see [`PieVars::catch_up`]).
    pub fn new(first_update: SimTime, held: bool) -> PieVars {
        PieVars {
            timer: Periodic::new(first_update),
            held: held.then_some(first_update),
            // the burst allowance and delays start at Time() = 0
            drop_prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            burst_allowance: 0,
            burst_reset: 0,
            burst_state: BurstState::NoBurst,
            in_measurement: false,
            avg_dq_rate: 0.0,
            dq_start: SimTime::ZERO,
            dq_count: DQCOUNT_INVALID,
            accu_prob: 0.0,
            active: false,
            bytes: 0,
        }
    }

    /// The drop probability p.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
    /// The queueing delay PIE acts on, s.
    pub fn qdelay(&self) -> f64 {
        secs(self.qdelay)
    }

    /// Run every update due at a time ≤ `now` (the tie rule of `pie.rs`; a held first
    /// update due exactly at `now` waits for a later event), at most up to the update
    /// budget; past it, mark the state over budget.
    #[inline]
    pub fn catch_up(&mut self, c: &PieCfg, now: SimTime) {
        loop {
            if self.timer.next() == now && self.held == Some(now) {
                return;
            }
            if self.timer.take_due(now, c.t_update).is_none() {
                return;
            }
            self.calculate_p(c);
        }
    }

    /// Updates run so far.
    pub fn updates(&self) -> u64 {
        self.timer.count()
    }
    /// Allow updates until [`PieVars::updates`] reaches `total`.
    pub fn set_update_budget(&mut self, total: u64) {
        self.timer.set_budget(total)
    }
    /// When the first update beyond the budget was due (it was not run).
    pub fn over_budget(&self) -> Option<SimTime> {
        self.timer.over_budget()
    }

    /// ns-3 `CalculateP`.
    pub(super) fn calculate_p(&mut self, c: &PieCfg) {
        let mut missing_init = false;
        if c.params.use_dq_rate_estimator {
            self.qdelay = if self.avg_dq_rate > 0.0 {
                SimTime::from_secs(self.bytes as f64 / self.avg_dq_rate).0
            } else {
                missing_init = true;
                0
            };
        }
        let (qd, qd_old, target) = (secs(self.qdelay), secs(self.qdelay_old), secs(c.target));
        let mut p = 0.0;
        if self.burst_allowance > 0 {
            self.drop_prob = 0.0;
        } else {
            p = c.params.alpha * (qd - target) + c.params.beta * (qd - qd_old);
            let dp = self.drop_prob;
            p /= if dp < 0.000001 {
                2048.0
            } else if dp < 0.00001 {
                512.0
            } else if dp < 0.0001 {
                128.0
            } else if dp < 0.001 {
                32.0
            } else if dp < 0.01 {
                8.0
            } else if dp < 0.1 {
                2.0
            } else {
                1.0
            };
            if c.params.use_cap_drop_adjustment && dp >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        p += self.drop_prob;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            p *= 0.98;
        }
        self.drop_prob = p.clamp(0.0, 1.0);
        debug_assert!((0.0..=1.0).contains(&self.drop_prob));
        self.burst_allowance = self.burst_allowance.saturating_sub(c.t_update);
        let quiet = qd < 0.5 * target && qd_old < 0.5 * target && self.drop_prob == 0.0;
        if quiet && !missing_init {
            self.dq_count = DQCOUNT_INVALID;
            self.avg_dq_rate = 0.0;
        }
        if quiet && self.burst_allowance == 0 {
            match self.burst_state {
                BurstState::InBurstProtecting => {
                    self.burst_state = BurstState::InBurst;
                    self.burst_reset = 0;
                }
                BurstState::InBurst => {
                    self.burst_reset += 1;
                    if self.burst_reset > c.burst_reset_limit {
                        self.burst_reset = 0;
                        self.burst_state = BurstState::NoBurst;
                    }
                }
                BurstState::NoBurst => {}
            }
        } else if self.burst_state == BurstState::InBurst {
            self.burst_reset = 0;
        }
        self.qdelay_old = self.qdelay;
    }

    /// ns-3 `DropEarly`: should this arrival be dropped (or marked) at random?
    /// `qsize` is what waits, in packets (bytes in byte mode).
    fn drop_early(&mut self, c: &PieCfg, pkt: &Packet, qsize: u64, draw: &mut dyn FnMut() -> f64) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.burst_state == BurstState::NoBurst {
            self.burst_state = BurstState::InBurstProtecting;
            self.burst_allowance = c.max_burst;
        }
        let mean = c.params.mean_pktsize as u64;
        let mut p = self.drop_prob;
        if c.bytes_mode() {
            p = p * pkt.size as f64 / mean as f64;
        }
        // Safeguard to stay work conserving (RFC 8033 §4.1): qdelay_old < target / 2, in
        // integer ns (the same answer as ns-3's seconds: distinct ns stay distinct doubles)
        if 2 * self.qdelay_old < c.target && self.drop_prob < 0.2 {
            return false;
        }
        if qsize <= if c.bytes_mode() { 2 * mean } else { 2 } {
            return false;
        }
        if c.params.use_derandomization {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        draw() <= p
    }

    /// ns-3 `DoEnqueue` of `pkt` to a queue that looks like `q` (before it), the uniform
    /// draw as a closure.
    pub fn arrive(&mut self, c: &PieCfg, pkt: &Packet, q: &QueueView, now: SimTime, draw: &mut dyn FnMut() -> f64) -> Verdict {
        self.catch_up(c, now);
        self.bytes = q.len_bytes;
        let full = match c.params.limit_bytes {
            Some(lb) => q.len_bytes + pkt.size as u64 > lb,
            None => q.len_pkts as u64 + 1 > c.params.limit as u64,
        };
        if full {
            self.accu_prob = 0.0;
            return Verdict::Drop(Reason::Overflow);
        }
        let qsize = if c.bytes_mode() { q.len_bytes } else { q.len_pkts as u64 };
        let mut verdict = Verdict::Enqueue;
        if (c.active_threshold.is_none() || self.active) && self.drop_early(c, pkt, qsize, draw) {
            // ns-3 `QueueDisc::Mark` fails on a packet that is not ECN-capable
            if !c.params.ecn || self.drop_prob >= c.params.mark_ecn_threshold || pkt.ecn & ecn::ECT == 0 {
                self.accu_prob = 0.0;
                return Verdict::Drop(Reason::Early);
            }
            verdict = Verdict::Mark(Reason::Early);
        }
        self.bytes += pkt.size as u64;
        if let Some(th) = c.active_threshold {
            if !self.active && self.qdelay >= th {
                self.active = true;
                self.qdelay_old = 0;
                self.drop_prob = 0.0;
                self.in_measurement = true;
                self.dq_count = 0;
                self.avg_dq_rate = 0.0;
                self.burst_allowance = c.max_burst;
                self.accu_prob = 0.0;
                self.dq_start = now;
            }
            // `GetMilliSeconds() == 0`: under one whole millisecond
            if self.drop_prob == 0.0 && self.qdelay_old < 1_000_000 && self.qdelay < 1_000_000 {
                self.active = false;
                self.in_measurement = false;
            }
        }
        verdict
    }

    /// ns-3 `DoDequeue` of `pkt`; `q` is the queue without it.
    pub fn depart(&mut self, c: &PieCfg, pkt: &Packet, q: &QueueView, now: SimTime) {
        self.catch_up(c, now);
        self.bytes = q.len_bytes;
        let thr = c.params.dq_threshold as u64;
        if c.params.use_dq_rate_estimator {
            if q.len_bytes >= thr && !self.in_measurement {
                self.dq_start = now;
                self.dq_count = 0;
                self.in_measurement = true;
            }
            if self.in_measurement {
                // ns-3 adds to a uint64_t that an update may have left at DQCOUNT_INVALID
                self.dq_count = self.dq_count.wrapping_add(pkt.size as u64);
                if self.dq_count >= thr {
                    let dq_time = now.saturating_since(self.dq_start).0;
                    if dq_time > 0 {
                        let rate = self.dq_count as f64 / secs(dq_time);
                        self.avg_dq_rate = if self.avg_dq_rate == 0.0 { rate } else { 0.5 * self.avg_dq_rate + 0.5 * rate };
                    }
                    self.dq_count = 0;
                    self.in_measurement = q.len_bytes > thr;
                    if self.in_measurement {
                        self.dq_start = now;
                    }
                }
            }
        } else {
            self.qdelay = if q.len_bytes == 0 { 0 } else { now.saturating_since(pkt.t_enq).0 };
        }
    }

    /// The queue now holds `bytes` (packets left it without a dequeue: FQ-PIE's fat-flow
    /// drop); updates due up to `now` ran with what it held before.
    pub fn set_bytes(&mut self, c: &PieCfg, bytes: u64, now: SimTime) {
        self.catch_up(c, now);
        self.bytes = bytes;
    }
}
