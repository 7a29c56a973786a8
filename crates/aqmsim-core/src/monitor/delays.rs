//! Delay distributions (`monitor.delays`): per-packet queueing delay at each monitored
//! queue and end-to-end delay per flow, kept as DDSketches (relative error ≤ 1 % on every
//! quantile, memory a few KB however many packets) with the exact maximum and the jitter.
//!
//! The sketch is the `sketches-ddsketch` crate (a port of Datadog's reference DDSketch):
//! a well-kept implementation of a published algorithm (Masson, Rim and Lee, VLDB 2019)
//! rather than a histogram of our own.

use sketches_ddsketch::{Config, DDSketch};

/// Relative accuracy of every quantile: the reported value is within ±1 % of a value
/// whose rank is the asked one.
pub const ALPHA: f64 = 0.01;
/// Delays below this (s) count as zero (a packet that did not wait).
const MIN_DELAY_S: f64 = 1e-9;

/// The quantile levels of the distribution tables (the CDF figures): every percent, then
/// the tail.
pub fn cdf_levels() -> Vec<f64> {
    let mut v: Vec<f64> = (0..=99).map(|i| i as f64 / 100.0).collect();
    v.extend([0.995, 0.999, 1.0]);
    v
}

/// One stream of delays: their sketch (which also keeps the exact minimum and maximum),
/// and the mean absolute difference of consecutive delays (the jitter: mean |IPDV|,
/// RFC 5481).
#[derive(Clone)]
pub struct DelayStats {
    sketch: DDSketch,
    last: f64,
    ipdv_sum: f64,
    ipdv_n: u64,
}

impl std::fmt::Debug for DelayStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DelayStats(n = {})", self.sketch.count())
    }
}

impl Default for DelayStats {
    fn default() -> Self {
        DelayStats { sketch: DDSketch::new(Config::new(ALPHA, 2048, MIN_DELAY_S)), last: f64::NAN, ipdv_sum: 0.0, ipdv_n: 0 }
    }
}

impl DelayStats {
    #[inline]
    pub fn add(&mut self, d: f64) {
        self.sketch.add(d);
        if !self.last.is_nan() {
            self.ipdv_sum += (d - self.last).abs();
            self.ipdv_n += 1;
        }
        self.last = d;
    }

    pub fn count(&self) -> usize {
        self.sketch.count()
    }

    /// The `q`-quantile (q in [0, 1]); NaN with no samples. The minimum and maximum are
    /// exact, and every quantile lies between them (a sketch bucket's value may lie up to
    /// 1 % beyond the samples in it).
    pub fn quantile(&self, q: f64) -> f64 {
        match (self.sketch.quantile(q.clamp(0.0, 1.0)).ok().flatten(), self.sketch.min(), self.sketch.max()) {
            (Some(v), Some(lo), Some(hi)) => v.clamp(lo, hi),
            _ => f64::NAN,
        }
    }

    /// The largest delay (exact); NaN with no samples.
    pub fn max(&self) -> f64 {
        self.sketch.max().unwrap_or(f64::NAN)
    }

    /// Mean |d(i) − d(i−1)| over consecutive samples; NaN with fewer than two.
    pub fn jitter(&self) -> f64 {
        if self.ipdv_n == 0 {
            f64::NAN
        } else {
            self.ipdv_sum / self.ipdv_n as f64
        }
    }

    /// Add `other`'s samples to the distribution (the jitter is not merged: it belongs to
    /// one stream).
    pub fn merge_from(&mut self, other: &DelayStats) {
        if other.count() > 0 {
            let _ = self.sketch.merge(&other.sketch);
        }
    }
}

/// The distribution tables: for each stream, its value at each of [`cdf_levels`].
#[derive(Clone, Debug, Default)]
pub struct DelayCdf {
    /// What the row describes: `"queue <link>"` or `"end-to-end"`.
    pub what: Vec<String>,
    pub q: Vec<f64>,
    pub delay_s: Vec<f64>,
}

impl DelayCdf {
    pub fn push(&mut self, what: &str, d: &DelayStats) {
        if d.count() == 0 {
            return;
        }
        for q in cdf_levels() {
            self.what.push(what.to_string());
            self.q.push(q);
            self.delay_s.push(d.quantile(q));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_one_percent_of_the_exact_ones() {
        let mut d = DelayStats::default();
        let xs: Vec<f64> = (1..=10_000).map(|i| 0.001 * (1.0 + (i as f64 * 0.618_033_988_7).fract() * 99.0)).collect();
        for &x in &xs {
            d.add(x);
        }
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        for q in [0.1, 0.5, 0.9, 0.99] {
            let exact = sorted[((q * (sorted.len() - 1) as f64).round()) as usize];
            assert!((d.quantile(q) - exact).abs() <= 0.0101 * exact, "q {q}: {} vs {exact}", d.quantile(q));
        }
        assert_eq!(d.max(), *sorted.last().unwrap());
    }

    #[test]
    fn jitter_by_hand_and_zero_delays() {
        let mut d = DelayStats::default();
        for x in [0.010, 0.012, 0.009, 0.009] {
            d.add(x);
        }
        assert!((d.jitter() - (0.002 + 0.003 + 0.0) / 3.0).abs() < 1e-15);
        let mut z = DelayStats::default();
        z.add(0.0);
        z.add(0.0);
        assert_eq!((z.quantile(0.5), z.max(), z.jitter()), (0.0, 0.0, 0.0));
        assert!(DelayStats::default().quantile(0.5).is_nan());
    }
}
