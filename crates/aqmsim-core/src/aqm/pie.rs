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

use super::pie_vars::{PieCfg, PieVars};
use super::{Aqm, AqmState, FrontAction, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

pub use super::pie_vars::BurstState;

/// The finest `t_update` accepted, s: Linux's `sch_pie` runs its update timer in jiffies
/// (`usecs_to_jiffies`, rounded up), so it cannot update more often than once per jiffy,
/// 1 ms at the highest `HZ` (1000). ns-3 accepts any `Time`, but every scenario of its
/// test suite and of RFC 8033 (15 ms) is far above this.
pub const MIN_T_UPDATE: f64 = 1e-3;

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

/// PIE on one FIFO: a configuration and one [`PieVars`], its first update at `s_update`.
#[derive(Clone, Debug)]
pub struct Pie {
    pub(super) cfg: PieCfg,
    pub(super) v: PieVars,
}

impl Pie {
    /// Panics on parameters [`PieParams::validate`] refuses.
    pub fn new(params: PieParams) -> Pie {
        let first = SimTime::from_secs(params.s_update);
        Pie { cfg: PieCfg::new(params), v: PieVars::new(first, false) }
    }

    pub fn params(&self) -> &PieParams {
        &self.cfg.params
    }
    /// The drop probability p.
    pub fn drop_prob(&self) -> f64 {
        self.v.drop_prob()
    }
    /// The queueing delay PIE acts on, s.
    pub fn qdelay(&self) -> f64 {
        self.v.qdelay()
    }
    /// Run every update due at a time ≤ `now` (see the module's tie rule), at most up to
    /// the update budget ([`Pie::set_update_budget`]); past it, mark the queue over budget.
    #[inline]
    pub fn catch_up(&mut self, now: SimTime) {
        self.v.catch_up(&self.cfg, now)
    }
    /// Updates run so far.
    pub fn updates(&self) -> u64 {
        self.v.updates()
    }
    /// Allow updates until [`Pie::updates`] reaches `total`.
    pub fn set_update_budget(&mut self, total: u64) {
        self.v.set_update_budget(total)
    }
    /// When the first update beyond the budget was due (it was not run).
    pub fn over_budget(&self) -> Option<SimTime> {
        self.v.over_budget()
    }
    /// `on_enqueue` with the uniform draw as a closure (tests give fixed values).
    pub(crate) fn enqueue_with(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, draw: &mut dyn FnMut() -> f64) -> Verdict {
        self.v.arrive(&self.cfg, pkt, q, now, draw)
    }
}

impl Aqm for Pie {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        self.enqueue_with(pkt, q, now, &mut || rng.uniform())
    }

    fn on_idle(&mut self, now: SimTime) {
        self.v.set_bytes(&self.cfg, 0, now);
    }

    fn advance(&mut self, now: SimTime) {
        self.catch_up(now);
    }
    /// ns-3 `DoDequeue`: `q` is the queue without `pkt`.
    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, _rng: &mut Rng) -> FrontAction {
        self.v.depart(&self.cfg, pkt, q, now);
        FrontAction::Pass
    }

    fn state(&self) -> AqmState {
        AqmState { p: self.v.drop_prob, delay: self.v.qdelay(), ..AqmState::default() }
    }
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;
