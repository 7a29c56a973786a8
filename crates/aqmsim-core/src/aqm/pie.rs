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

pub use super::pie_params::{PieParams, MIN_T_UPDATE};

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
