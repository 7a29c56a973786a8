//! Transfer-size distributions (a web source's `size`): fixed, exponential, Pareto,
//! bounded, or an empirical CDF, each read from a small table by hand so that a wrong one
//! gets a message naming the forms allowed; and the value checks the other traffic models
//! share (`traffic.rs`).

use crate::error::{Result, ScenarioError};
use crate::rng::Rng;
use serde_json::{json, Value};

/// Largest transfer, bytes (1 TB): a sender numbers packets in an i32.
pub const MAX_TRANSFER_BYTES: f64 = 1e12;

pub(super) fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(field, msg))
}

/// Inverse of the standard exponential CDF with mean 1, for u in [0, 1).
pub(super) fn exp1(u: f64) -> f64 {
    -(1.0 - u).ln()
}

// ------------------------------------------------------------------ transfer sizes

/// A transfer-size distribution, bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Fixed(f64),
    Exponential { mean: f64 },
    /// Pareto of this mean and shape (> 1): scale `mean·(shape − 1)/shape`.
    Pareto { mean: f64, shape: f64 },
    /// Piecewise-linear CDF through `(bytes, cumulative probability)`, the last at 1.
    Empirical(Vec<(f64, f64)>),
}

/// A size distribution, optionally truncated to `[0, max]` (the distribution conditioned
/// on being ≤ max: a bounded Pareto for a Pareto).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeModel {
    pub dist: SizeDist,
    pub max: Option<f64>,
}

impl SizeModel {
    pub(super) fn cdf(&self, x: f64) -> f64 {
        match &self.dist {
            SizeDist::Fixed(v) => (x >= *v) as u8 as f64,
            SizeDist::Exponential { mean } => 1.0 - (-x / mean).exp(),
            SizeDist::Pareto { mean, shape } => {
                let xm = mean * (shape - 1.0) / shape;
                if x < xm {
                    0.0
                } else {
                    1.0 - (xm / x).powf(*shape)
                }
            }
            SizeDist::Empirical(pts) => {
                if x < pts[0].0 {
                    return 0.0;
                }
                for w in pts.windows(2) {
                    let ((x0, p0), (x1, p1)) = (w[0], w[1]);
                    if x < x1 {
                        return if x1 > x0 { p0 + (p1 - p0) * (x - x0) / (x1 - x0) } else { p0 };
                    }
                }
                1.0
            }
        }
    }

    /// The quantile of level `u` in [0, 1).
    pub(super) fn quantile(&self, u: f64) -> f64 {
        match &self.dist {
            SizeDist::Fixed(v) => *v,
            SizeDist::Exponential { mean } => mean * exp1(u),
            SizeDist::Pareto { mean, shape } => {
                let xm = mean * (shape - 1.0) / shape;
                xm * (1.0 - u).powf(-1.0 / shape)
            }
            SizeDist::Empirical(pts) => {
                if u <= pts[0].1 {
                    return pts[0].0;
                }
                for w in pts.windows(2) {
                    let ((x0, p0), (x1, p1)) = (w[0], w[1]);
                    if u <= p1 && p1 > p0 {
                        return x0 + (x1 - x0) * (u - p0) / (p1 - p0);
                    }
                }
                pts[pts.len() - 1].0
            }
        }
    }

    /// One draw, bytes (≥ 1).
    pub fn draw(&self, rng: &mut Rng) -> f64 {
        self.at_level(rng.uniform())
    }

    /// The draw of uniform level `u` in [0, 1).
    pub(super) fn at_level(&self, u: f64) -> f64 {
        // Truncation by inversion: a uniform level below F(max) gives the conditioned
        // distribution with one draw, no rejection loop.
        let u = match self.max {
            Some(m) => u * self.cdf(m),
            None => u,
        };
        self.quantile(u).clamp(1.0, MAX_TRANSFER_BYTES)
    }

    /// The largest transfer a draw can give, whole bytes: the draw at the highest level
    /// [`Rng::uniform`] returns (the quantile is non-decreasing in the level).
    pub fn largest(&self) -> u64 {
        const TOP: f64 = 1.0 - 1.0 / (1u64 << 53) as f64;
        self.at_level(TOP).ceil() as u64
    }

    /// The mean of one draw (before rounding up to whole bytes), for tests.
    #[cfg(test)]
    pub fn mean(&self) -> f64 {
        // ∫ (1 − F) over [0, max] (or the closed form without max).
        match (&self.dist, self.max) {
            (SizeDist::Fixed(v), _) => *v,
            (SizeDist::Exponential { mean }, None) | (SizeDist::Pareto { mean, .. }, None) => *mean,
            (_, m) => {
                let top = m.unwrap_or_else(|| self.quantile(1.0 - 1e-12));
                let fm = self.cdf(top);
                let n = 200_000;
                let h = top / n as f64;
                // the conditioned CDF is F/F(max) below max
                (0..n).map(|i| 1.0 - self.cdf((i as f64 + 0.5) * h) / fm).sum::<f64>() * h
            }
        }
    }

    pub fn to_json(&self) -> Value {
        let mut j = match &self.dist {
            SizeDist::Fixed(v) => json!({"fixed": v}),
            SizeDist::Exponential { mean } => json!({"exponential": {"mean": mean}}),
            SizeDist::Pareto { mean, shape } => json!({"pareto": {"mean": mean, "shape": shape}}),
            SizeDist::Empirical(pts) => json!({"empirical": pts.iter().map(|&(x, p)| json!([x, p])).collect::<Vec<_>>()}),
        };
        if let Some(m) = self.max {
            j["max"] = json!(m);
        }
        j
    }
}

pub(super) fn number(v: &Value, at: &str, what: &str) -> Result<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => err(at, format!("expected {what}, got {v}")),
    }
}

pub(super) fn positive_bytes(v: &Value, at: &str) -> Result<f64> {
    let x = number(v, at, "a number of bytes")?;
    if !(1.0..=MAX_TRANSFER_BYTES).contains(&x) {
        return err(at, format!("must be in [1, 1e12] bytes, got {x}"));
    }
    Ok(x)
}

pub(super) fn shape(v: &Value, at: &str) -> Result<f64> {
    let s = number(v, at, "a number")?;
    if !(s > 1.0 && s <= 100.0) {
        return err(at, format!("must be > 1 (a finite mean) and ≤ 100, got {s}"));
    }
    Ok(s)
}

/// Only these keys in table `t` (at `at`).
pub(super) fn only(t: &serde_json::Map<String, Value>, keys: &[&str], at: &str) -> Result<()> {
    for k in t.keys() {
        if !keys.contains(&k.as_str()) {
            return err(format!("{at}.{k}"), format!("unknown field (expected: {})", keys.join(", ")));
        }
    }
    Ok(())
}

const SIZE_FORMS: &str = "{ pareto = { mean, shape } }, { exponential = { mean } }, { fixed = bytes }, { empirical = [[bytes, cumulative probability], ...] }, each with an optional max = bytes";

/// `web.size` (at `at`).
pub fn parse_size(v: &Value, at: &str) -> Result<SizeModel> {
    let Some(t) = v.as_object() else {
        return err(at, format!("expected one of {SIZE_FORMS}, got {v}"));
    };
    only(t, &["pareto", "exponential", "fixed", "empirical", "max"], at)?;
    let kinds: Vec<&String> = t.keys().filter(|k| *k != "max").collect();
    if kinds.len() != 1 {
        return err(at, format!("give exactly one distribution: {SIZE_FORMS}"));
    }
    let kind = kinds[0].as_str();
    let sub = &t[kind];
    let p = format!("{at}.{kind}");
    let dist = match kind {
        "fixed" => SizeDist::Fixed(positive_bytes(sub, &p)?),
        "exponential" => {
            let Some(e) = sub.as_object() else { return err(p, format!("expected {{ mean = bytes }}, got {sub}")) };
            only(e, &["mean"], &p)?;
            let Some(m) = e.get("mean") else { return err(format!("{p}.mean"), "missing (bytes)") };
            SizeDist::Exponential { mean: positive_bytes(m, &format!("{p}.mean"))? }
        }
        "pareto" => {
            let Some(e) = sub.as_object() else { return err(p, format!("expected {{ mean = bytes, shape }}, got {sub}")) };
            only(e, &["mean", "shape"], &p)?;
            let Some(m) = e.get("mean") else { return err(format!("{p}.mean"), "missing (bytes)") };
            let Some(s) = e.get("shape") else { return err(format!("{p}.shape"), "missing (> 1)") };
            let mean = positive_bytes(m, &format!("{p}.mean"))?;
            SizeDist::Pareto { mean, shape: shape(s, &format!("{p}.shape"))? }
        }
        _ => {
            let Some(rows) = sub.as_array() else { return err(p, format!("expected [[bytes, cumulative probability], ...], got {sub}")) };
            if rows.is_empty() {
                return err(p, "needs at least one [bytes, cumulative probability] point");
            }
            let mut pts: Vec<(f64, f64)> = Vec::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                let at_i = format!("{p}[{i}]");
                let pair = r.as_array().filter(|a| a.len() == 2);
                let Some(pair) = pair else { return err(at_i, format!("expected [bytes, cumulative probability], got {r}")) };
                let x = positive_bytes(&pair[0], &format!("{at_i}[0]"))?;
                let q = number(&pair[1], &format!("{at_i}[1]"), "a probability")?;
                if !(0.0..=1.0).contains(&q) {
                    return err(format!("{at_i}[1]"), format!("a cumulative probability must be in [0, 1], got {q}"));
                }
                if let Some(&(x0, q0)) = pts.last() {
                    if x <= x0 {
                        return err(format!("{at_i}[0]"), format!("sizes must increase, got {x} after {x0}"));
                    }
                    if q < q0 {
                        return err(format!("{at_i}[1]"), format!("cumulative probabilities must not decrease, got {q} after {q0}"));
                    }
                }
                pts.push((x, q));
            }
            let last = pts[pts.len() - 1].1;
            if last != 1.0 {
                return err(format!("{p}[{}][1]", pts.len() - 1), format!("the last cumulative probability must be 1, got {last}"));
            }
            SizeDist::Empirical(pts)
        }
    };
    let max = match t.get("max") {
        None => None,
        Some(m) => Some(positive_bytes(m, &format!("{at}.max"))?),
    };
    let model = SizeModel { dist, max };
    if let Some(m) = max {
        let lowest = model.quantile(0.0);
        if m < lowest {
            return err(format!("{at}.max"), format!("must be ≥ the smallest size the distribution gives ({lowest} bytes), got {m}"));
        }
    }
    Ok(model)
}
