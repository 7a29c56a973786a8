//! PIE, Proportional Integral controller Enhanced (RFC 8033), as ns-3.37's `PieQueueDisc`
//! does it (`src/traffic-control/model/pie-queue-disc.cc`, itself a port of ns-2.36's pie).
//!
//! Every `t_update` (`CalculateP`): with `d` the queueing delay and `d_old` the one of the
//! previous update,
//! `Δ = α·(d − target) + β·(d − d_old)`, divided by 2048, 512, 128, 32, 8 or 2 while
//! p < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1 (RFC 8033 §4.2 auto-tuning), capped at 0.02 when
//! p ≥ 0.1 (§5.5, `UseCapDropAdjustment`); `p ← p + Δ`, times 0.98 when d = d_old = 0,
//! clamped to [0, 1]. While burst allowance is left, p is set to 0 instead.
//! Per arrival (`DoEnqueue`): queue full → overflow drop; else, unless the burst allowance
//! is left or the safeguard holds (d_old < target/2 and p < 0.2; or at most 2 packets —
//! byte mode: 2 mean packets — waiting), drop with probability p (byte mode: p·size/mean),
//! or mark instead when ECN is on, the packet is ECN-capable and p < `mark_ecn_threshold`.
//!
//! **Lazy timer.** aqmsim gives a discipline no timer, so the updates ns-3 schedules at
//! `s_update + k·t_update` are run when the next event arrives: every `on_enqueue`,
//! `on_dequeue` and `on_idle` at time `now` first runs, in order, every update due at a
//! time ≤ `now`. This is exact, since the queue does not change between events and an
//! update reads nothing else. **Tie rule: an update due exactly at `now` runs before the
//! packet event at `now`.** (ns-3 runs same-time events in scheduling order: the update at
//! t is scheduled at t − t_update, so it also comes first for a departure, but not for an
//! arrival scheduled earlier than that.) Monitors that read [`Pie::state`] between events
//! should call [`Pie::catch_up`] first. Updates are counted ([`Pie::updates`]): the engine
//! counts them as events against `max_events` and stops them at what is left of it
//! ([`Pie::set_update_budget`]), so a long idle spell cannot spin uncounted.
//!
//! **Queueing delay.** Default (ns-3 `UseDequeueRateEstimator = false`): the sojourn time of
//! the last packet dequeued, set to 0 when the dequeue leaves the queue empty (`DoDequeue`;
//! RFC 8033 §5.3 per-packet timestamps). With the estimator: queue bytes / average dequeue
//! rate, computed at each update (RFC 8033 §4.3 / Appendix B, ns-3's measurement cycles of
//! `dq_threshold` bytes).
//!
//! **Where ns-3.37 differs from RFC 8033 (we follow ns-3.37):**
//! - burst allowance: ns-2's three-state machine (`NO_BURST` → `IN_BURST_PROTECTING` on the
//!   first arrival that reaches the random-drop test, allowance re-armed only after >100
//!   quiet updates, `BURST_RESET_TIMEOUT / t_update`), not the RFC's re-arm at every
//!   arrival with p = 0 and both delays < target/2; the allowance starts at 0;
//! - the random test drops when `u ≤ p` (RFC: `u < p`); ECN marks when `p < threshold`
//!   (RFC: `p ≤ 0.1`);
//! - the "few packets" safeguard counts packets in packet mode (RFC: 2 mean packets of bytes);
//! - the queue-full check is always active (RFC: only when PIE is active);
//! - the derandomisation accumulator is reset on any drop, overflow included, never on a mark;
//! - with `active_threshold` set, PIE turns on when the delay reaches it and off when p = 0 and
//!   both delays are below 1 ms (whole milliseconds, `Time::GetMilliSeconds`); RFC: on at
//!   half the buffer;
//! - times are integer nanoseconds (ns-3 `Time`), converted to seconds as `ns / 1e9` for the
//!   arithmetic; the estimator's delay is rounded to the nearest ns (`Seconds(double)`).
//!
//! Not modelled: ns-3.37's `UseL4s`/`CeThreshold` (they act only on ECT(1) packets, which
//! aqmsim's one ECT bit cannot tell apart). ns-3.37 reads `Supdate` in the constructor,
//! before attributes are applied, so there the first update is always at the time the queue
//! disc is created whatever `Supdate` says; `s_update` (default 0, which matches) is honoured.

use super::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;

/// ns-3 `BURST_RESET_TIMEOUT`, seconds.
const BURST_RESET_TIMEOUT: f64 = 1.5;
/// ns-3 `DQCOUNT_INVALID`.
const DQCOUNT_INVALID: u64 = u64::MAX;
/// The finest `t_update` accepted, s: Linux's `sch_pie` runs its update timer in jiffies
/// (`usecs_to_jiffies`, rounded up), so it cannot update more often than once per jiffy,
/// 1 ms at the highest `HZ` (1000). ns-3 accepts any `Time`, but every scenario of its
/// test suite and of RFC 8033 (15 ms) is far above this.
pub const MIN_T_UPDATE: f64 = 1e-3;

/// ns-3 `Time::GetSeconds` of an integer nanosecond count.
#[inline]
fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// PIE's parameters; `Default` is ns-3.37's `PieQueueDisc` defaults. Times are seconds
/// (`f64`), rounded to whole nanoseconds by [`Pie::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// `MaxSize` in packets ("25p"): an arrival that would make more than `limit` packets
    /// wait is dropped (overflow). Ignored when `limit_bytes` is set.
    pub limit: u32,
    /// `MaxSize` in bytes: byte mode (drop probability scaled by size / `mean_pktsize`,
    /// safeguard at 2 · `mean_pktsize` bytes).
    pub limit_bytes: Option<u64>,
    /// `MeanPktSize`, bytes (1000).
    pub mean_pktsize: u32,
    /// `QueueDelayReference`, the target delay, s (0.015).
    pub target: f64,
    /// `Tupdate`, period of the probability update, s (0.015).
    pub t_update: f64,
    /// `Supdate`, time of the first update, s (0).
    pub s_update: f64,
    /// `A`, α, 1/s (0.125).
    pub alpha: f64,
    /// `B`, β, 1/s (1.25).
    pub beta: f64,
    /// `MaxBurstAllowance`, s (0.15).
    pub max_burst: f64,
    /// `DequeueThreshold`, bytes (16384): queue size that starts a rate measurement cycle.
    pub dq_threshold: u32,
    /// `UseDequeueRateEstimator` (false: timestamps).
    pub use_dq_rate_estimator: bool,
    /// `UseCapDropAdjustment` (true): increase of p at most 0.02 per update once p ≥ 0.1.
    pub use_cap_drop_adjustment: bool,
    /// `UseEcn` (false): mark ECN-capable packets instead of dropping them while
    /// p < `mark_ecn_threshold`.
    pub ecn: bool,
    /// `MarkEcnThreshold` (0.1), in [0, 1].
    pub mark_ecn_threshold: f64,
    /// `UseDerandomization` (false).
    pub use_derandomization: bool,
    /// `ActiveThreshold`, s (None = `Time::Max`, PIE always active).
    pub active_threshold: Option<f64>,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            limit: 25,
            limit_bytes: None,
            mean_pktsize: 1000,
            target: 0.015,
            t_update: 0.015,
            s_update: 0.0,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 0.15,
            dq_threshold: 16384,
            use_dq_rate_estimator: false,
            use_cap_drop_adjustment: true,
            ecn: false,
            mark_ecn_threshold: 0.1,
            use_derandomization: false,
            active_threshold: None,
        }
    }
}

impl PieParams {
    /// Ranges the engine accepts (ns-3 accepts any α, β; we ask for finite ones).
    pub fn validate(&self) -> Result<(), String> {
        let nonneg = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 { Ok(()) } else { Err(format!("pie: {name} must be a finite number ≥ 0, got {v}")) }
        };
        nonneg("target", self.target)?;
        nonneg("s_update", self.s_update)?;
        nonneg("max_burst", self.max_burst)?;
        if let Some(a) = self.active_threshold {
            nonneg("active_threshold", a)?;
        }
        if !(self.t_update.is_finite() && self.t_update >= MIN_T_UPDATE) {
            return Err(format!("pie: t_update must be a finite time ≥ 1 ms (Linux's finest), got {} s", self.t_update));
        }
        if !self.alpha.is_finite() || !self.beta.is_finite() {
            return Err("pie: alpha and beta must be finite".into());
        }
        if !(0.0..=1.0).contains(&self.mark_ecn_threshold) {
            return Err(format!("pie: mark_ecn_threshold must be in [0, 1], got {}", self.mark_ecn_threshold));
        }
        if self.mean_pktsize == 0 {
            return Err("pie: mean_pktsize must be ≥ 1".into());
        }
        if self.limit == 0 || self.limit_bytes == Some(0) {
            return Err("pie: the limit must be ≥ 1".into());
        }
        Ok(())
    }
}

/// ns-3 `BurstStateT`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BurstState {
    NoBurst,
    InBurst,
    InBurstProtecting,
}

#[derive(Clone, Debug)]
pub struct Pie {
    pub params: PieParams,
    // the parameters' times in ns
    t_update: u64,
    target: u64,
    max_burst: u64,
    active_threshold: Option<u64>,
    burst_reset_limit: u32,
    /// When the next update is due.
    next_update: SimTime,
    /// p, ns-3 `m_dropProb`.
    drop_prob: f64,
    /// Current and previous-update queueing delay, ns.
    qdelay: u64,
    qdelay_old: u64,
    burst_allowance: u64,
    burst_reset: u32,
    burst_state: BurstState,
    in_measurement: bool,
    avg_dq_rate: f64,
    dq_start: SimTime,
    dq_count: u64,
    accu_prob: f64,
    active: bool,
    /// Bytes waiting after the last event (what an update at a later time sees).
    bytes: u64,
    /// Updates run so far (each one an event of ns-3's timer: the engine counts them
    /// against `max_events`).
    updates: u64,
    /// Run no update past this many (`u64::MAX`: no limit); the engine sets it to what is
    /// left of `max_events`.
    update_budget: u64,
    /// The time of the first update that was due but not run, the budget being spent: the
    /// state is no longer exact from then on, the run must stop.
    over_budget: Option<SimTime>,
}

impl Pie {
    /// Panics on parameters [`PieParams::validate`] refuses.
    pub fn new(params: PieParams) -> Pie {
        if let Err(e) = params.validate() {
            panic!("{e}");
        }
        let ns = |s: f64| SimTime::from_secs(s).0;
        let t_update = ns(params.t_update);
        Pie {
            t_update,
            target: ns(params.target),
            max_burst: ns(params.max_burst),
            active_threshold: params.active_threshold.map(ns),
            burst_reset_limit: (BURST_RESET_TIMEOUT / secs(t_update)) as u32,
            next_update: SimTime(ns(params.s_update)),
            // ns-3 InitializeParams; the burst allowance and delays start at Time() = 0
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
            updates: 0,
            update_budget: u64::MAX,
            over_budget: None,
            params,
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

    /// Run every update due at a time ≤ `now` (see the module's tie rule), at most up to
    /// the update budget ([`Pie::set_update_budget`]); past it, mark the queue over budget.
    #[inline]
    pub fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            if self.updates >= self.update_budget {
                self.over_budget.get_or_insert(self.next_update);
                return;
            }
            self.calculate_p();
            self.updates += 1;
            self.next_update = SimTime(self.next_update.0 + self.t_update);
        }
    }

    /// Updates run so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }
    /// Allow updates until [`Pie::updates`] reaches `total`.
    pub fn set_update_budget(&mut self, total: u64) {
        self.update_budget = total;
    }
    /// When the first update beyond the budget was due (it was not run).
    pub fn over_budget(&self) -> Option<SimTime> {
        self.over_budget
    }

    fn bytes_mode(&self) -> bool {
        self.params.limit_bytes.is_some()
    }

    /// ns-3 `CalculateP`.
    fn calculate_p(&mut self) {
        let mut missing_init = false;
        if self.params.use_dq_rate_estimator {
            self.qdelay = if self.avg_dq_rate > 0.0 {
                SimTime::from_secs(self.bytes as f64 / self.avg_dq_rate).0
            } else {
                missing_init = true;
                0
            };
        }
        let (qd, qd_old, target) = (secs(self.qdelay), secs(self.qdelay_old), secs(self.target));
        let mut p = 0.0;
        if self.burst_allowance > 0 {
            self.drop_prob = 0.0;
        } else {
            p = self.params.alpha * (qd - target) + self.params.beta * (qd - qd_old);
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
            if self.params.use_cap_drop_adjustment && dp >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        p += self.drop_prob;
        if self.qdelay == 0 && self.qdelay_old == 0 {
            p *= 0.98;
        }
        self.drop_prob = p.clamp(0.0, 1.0);
        debug_assert!((0.0..=1.0).contains(&self.drop_prob));
        self.burst_allowance = self.burst_allowance.saturating_sub(self.t_update);
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
                    if self.burst_reset > self.burst_reset_limit {
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
    fn drop_early(&mut self, pkt: &Packet, qsize: u64, draw: &mut dyn FnMut() -> f64) -> bool {
        if self.burst_allowance > 0 {
            return false;
        }
        if self.burst_state == BurstState::NoBurst {
            self.burst_state = BurstState::InBurstProtecting;
            self.burst_allowance = self.max_burst;
        }
        let mean = self.params.mean_pktsize as u64;
        let mut p = self.drop_prob;
        if self.bytes_mode() {
            p = p * pkt.size as f64 / mean as f64;
        }
        // Safeguard to stay work conserving (RFC 8033 §4.1): qdelay_old < target / 2, in
        // integer ns (the same answer as ns-3's seconds: distinct ns stay distinct doubles)
        if 2 * self.qdelay_old < self.target && self.drop_prob < 0.2 {
            return false;
        }
        if qsize <= if self.bytes_mode() { 2 * mean } else { 2 } {
            return false;
        }
        if self.params.use_derandomization {
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

    /// `on_enqueue` with the uniform draw as a closure (tests give fixed values).
    pub(crate) fn enqueue_with(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, draw: &mut dyn FnMut() -> f64) -> Verdict {
        self.catch_up(now);
        self.bytes = q.len_bytes;
        let full = match self.params.limit_bytes {
            Some(lb) => q.len_bytes + pkt.size as u64 > lb,
            None => q.len_pkts as u64 + 1 > self.params.limit as u64,
        };
        if full {
            self.accu_prob = 0.0;
            return Verdict::Drop(Reason::Overflow);
        }
        let qsize = if self.bytes_mode() { q.len_bytes } else { q.len_pkts as u64 };
        let mut verdict = Verdict::Enqueue;
        if (self.active_threshold.is_none() || self.active) && self.drop_early(pkt, qsize, draw) {
            // ns-3 `QueueDisc::Mark` fails on a packet that is not ECN-capable
            if !self.params.ecn || self.drop_prob >= self.params.mark_ecn_threshold || pkt.ecn & ecn::ECT == 0 {
                self.accu_prob = 0.0;
                return Verdict::Drop(Reason::Early);
            }
            verdict = Verdict::Mark(Reason::Early);
        }
        self.bytes += pkt.size as u64;
        if let Some(th) = self.active_threshold {
            if !self.active && self.qdelay >= th {
                self.active = true;
                self.qdelay_old = 0;
                self.drop_prob = 0.0;
                self.in_measurement = true;
                self.dq_count = 0;
                self.avg_dq_rate = 0.0;
                self.burst_allowance = self.max_burst;
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
}

impl Aqm for Pie {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        self.enqueue_with(pkt, q, now, &mut || rng.uniform())
    }

    fn on_idle(&mut self, now: SimTime) {
        self.catch_up(now);
        self.bytes = 0;
    }

    /// ns-3 `DoDequeue`: `q` is the queue without `pkt`.
    fn advance(&mut self, now: SimTime) {
        self.catch_up(now);
    }
    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime) -> FrontAction {
        self.catch_up(now);
        self.bytes = q.len_bytes;
        let thr = self.params.dq_threshold as u64;
        if self.params.use_dq_rate_estimator {
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
        FrontAction::Pass
    }

    fn state(&self) -> AqmState {
        AqmState { p: self.drop_prob, delay: secs(self.qdelay), ..AqmState::default() }
    }
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;
