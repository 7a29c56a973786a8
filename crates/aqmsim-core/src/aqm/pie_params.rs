//! PIE's parameters (`pie.rs` holds the discipline, `pie_vars.rs` its state): what a
//! scenario's `kind = "pie"` table sets, checked field by field; FQ-PIE reuses them per
//! flow queue.

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
