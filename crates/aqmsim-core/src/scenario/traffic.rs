//! The traffic models RFC 7928 asks for beyond bulk TCP and CBR: web-like short transfers
//! (`app = "web"`), on/off UDP sources (`app = "onoff"`), and a link capacity that varies
//! over time (`rate_schedule`). Their schema, their checks (every error names the field and
//! the allowed range) and the distributions they draw from.
//!
//! Distributions are written as small tables and read from a `serde_json::Value` by hand,
//! so that a wrong one gets a message saying which forms are allowed (serde's untagged
//! enums only say "did not match any variant").

use super::units::{parse_rate, parse_time, Quantity};
use crate::error::{Result, ScenarioError};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Largest transfer, bytes (1 TB): a sender numbers packets in an i32.
pub const MAX_TRANSFER_BYTES: f64 = 1e12;
/// Most data packets in one transfer: its sender numbers them in an i32 (with room for the
/// SYN and the window beyond the last).
pub const MAX_TRANSFER_PACKETS: u64 = i32::MAX as u64 / 2;
/// Default and largest `max_transfers` per source.
pub const DEFAULT_MAX_TRANSFERS: u64 = 100_000;
/// Largest web `arrival_rate`, transfers per second per source.
pub const MAX_ARRIVAL_RATE: f64 = 1e6;

/// `web = { arrival_rate, size, max_transfers }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Transfers per second of each source (a Poisson process).
    pub arrival_rate: f64,
    /// The transfer size distribution, bytes.
    pub size: Value,
    /// At most this many transfers per source (later arrivals are not started).
    pub max_transfers: Option<u64>,
}

/// `onoff = { rate, packet_size, on, off }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// The sending rate during a burst.
    pub rate: Quantity,
    #[serde(default = "onoff_size")]
    pub packet_size: u64,
    pub on: Value,
    pub off: Value,
}

fn onoff_size() -> u64 {
    1000
}

/// `rate_schedule = [[time, rate], ...]`. Each entry is read as a list (not a pair) so
/// that one of another length is reported by `parse_schedule` in words, not by serde.
pub type RateSchedule = Vec<Vec<Quantity>>;

fn err<T>(field: impl Into<String>, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(field, msg))
}

/// Inverse of the standard exponential CDF with mean 1, for u in [0, 1).
fn exp1(u: f64) -> f64 {
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
    fn cdf(&self, x: f64) -> f64 {
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
    fn quantile(&self, u: f64) -> f64 {
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
    fn at_level(&self, u: f64) -> f64 {
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

fn number(v: &Value, at: &str, what: &str) -> Result<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => err(at, format!("expected {what}, got {v}")),
    }
}

fn positive_bytes(v: &Value, at: &str) -> Result<f64> {
    let x = number(v, at, "a number of bytes")?;
    if !(1.0..=MAX_TRANSFER_BYTES).contains(&x) {
        return err(at, format!("must be in [1, 1e12] bytes, got {x}"));
    }
    Ok(x)
}

fn shape(v: &Value, at: &str) -> Result<f64> {
    let s = number(v, at, "a number")?;
    if !(s > 1.0 && s <= 100.0) {
        return err(at, format!("must be > 1 (a finite mean) and ≤ 100, got {s}"));
    }
    Ok(s)
}

/// Only these keys in table `t` (at `at`).
fn only(t: &serde_json::Map<String, Value>, keys: &[&str], at: &str) -> Result<()> {
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

/// A web source resolved: arrival rate (per second), sizes, and the cap.
#[derive(Clone, Debug, PartialEq)]
pub struct WebModel {
    pub arrival_rate: f64,
    pub size: SizeModel,
    pub max_transfers: u64,
}

pub fn parse_web(w: &WebSpec, at: &str) -> Result<WebModel> {
    let r = w.arrival_rate;
    if !(r > 0.0 && r <= MAX_ARRIVAL_RATE) {
        return err(format!("{at}.arrival_rate"), format!("must be in (0, 1e6] transfers per second, got {r}"));
    }
    let size = parse_size(&w.size, &format!("{at}.size"))?;
    let max_transfers = w.max_transfers.unwrap_or(DEFAULT_MAX_TRANSFERS);
    if max_transfers == 0 || max_transfers > DEFAULT_MAX_TRANSFERS {
        return err(format!("{at}.max_transfers"), format!("must be in [1, {DEFAULT_MAX_TRANSFERS}], got {max_transfers}"));
    }
    Ok(WebModel { arrival_rate: r, size, max_transfers })
}

impl WebModel {
    /// The transfers of one source: (start time s, size bytes), a Poisson process of
    /// `arrival_rate` within `[from, until)`, at most `max_transfers`.
    pub fn transfers(&self, from: f64, until: f64, rng: &mut Rng) -> Vec<(f64, u64)> {
        let mut out = Vec::new();
        let mut t = from;
        while (out.len() as u64) < self.max_transfers {
            t += exp1(rng.uniform()) / self.arrival_rate;
            if t >= until {
                break;
            }
            let size = self.size.draw(rng).ceil() as u64;
            out.push((t, size));
        }
        out
    }

    pub fn to_json(&self) -> Value {
        json!({"arrival_rate": self.arrival_rate, "size": self.size.to_json(), "max_transfers": self.max_transfers})
    }
}

// ------------------------------------------------------------------ on/off

/// An on or off period's distribution, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PeriodDist {
    Fixed(f64),
    Exponential { mean: f64 },
    Pareto { mean: f64, shape: f64 },
}

impl PeriodDist {
    /// One draw of a quantity of this distribution's kind with mean `mean` (ns-2 draws the
    /// burst length in packets, mean `on / interval`, from the on distribution's kind).
    pub fn draw_scaled(&self, mean: f64, rng: &mut Rng) -> f64 {
        match *self {
            PeriodDist::Fixed(_) => mean,
            PeriodDist::Exponential { .. } => mean * exp1(rng.uniform()),
            // ns-2's Random::pareto(scale, shape) = scale · u^(−1/shape), scale = mean·(shape−1)/shape
            PeriodDist::Pareto { shape, .. } => mean * (shape - 1.0) / shape * (1.0 - rng.uniform()).powf(-1.0 / shape),
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            PeriodDist::Fixed(v) => v,
            PeriodDist::Exponential { mean } | PeriodDist::Pareto { mean, .. } => mean,
        }
    }

    pub fn draw(&self, rng: &mut Rng) -> f64 {
        self.draw_scaled(self.mean(), rng)
    }

    pub fn to_json(&self) -> Value {
        match *self {
            PeriodDist::Fixed(v) => json!(v),
            PeriodDist::Exponential { mean } => json!({"exponential": mean}),
            PeriodDist::Pareto { mean, shape } => json!({"pareto": {"mean": mean, "shape": shape}}),
        }
    }
}

const PERIOD_FORMS: &str = "a time (\"1s\"), { exponential = \"1s\" } (the mean) or { pareto = { mean = \"1s\", shape = 1.5 } }";

fn period_time(v: &Value, at: &str) -> Result<f64> {
    let q: Quantity = match v {
        Value::Number(n) => Quantity::Num(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Quantity::Text(s.clone()),
        other => return err(at, format!("expected a time (\"1s\" or seconds), got {other}")),
    };
    let t = parse_time(&q).map_err(|e| ScenarioError::new(at, e))?;
    if t <= 0.0 {
        return err(at, format!("must be a time in (0, 1e6] s, got {t}"));
    }
    Ok(t)
}

/// `onoff.on` / `onoff.off` (at `at`).
pub fn parse_period(v: &Value, at: &str) -> Result<PeriodDist> {
    match v {
        Value::Object(t) => {
            only(t, &["exponential", "pareto"], at)?;
            if t.len() != 1 {
                return err(at, format!("expected {PERIOD_FORMS}"));
            }
            if let Some(m) = t.get("exponential") {
                return Ok(PeriodDist::Exponential { mean: period_time(m, &format!("{at}.exponential"))? });
            }
            let p = format!("{at}.pareto");
            let e = &t["pareto"];
            let Some(e) = e.as_object() else { return err(p, format!("expected {{ mean = \"1s\", shape = 1.5 }}, got {e}")) };
            only(e, &["mean", "shape"], &p)?;
            let Some(m) = e.get("mean") else { return err(format!("{p}.mean"), "missing (a time)") };
            let Some(s) = e.get("shape") else { return err(format!("{p}.shape"), "missing (> 1)") };
            Ok(PeriodDist::Pareto { mean: period_time(m, &format!("{p}.mean"))?, shape: shape(s, &format!("{p}.shape"))? })
        }
        Value::Number(_) | Value::String(_) => Ok(PeriodDist::Fixed(period_time(v, at)?)),
        other => err(at, format!("expected {PERIOD_FORMS}, got {other}")),
    }
}

/// An on/off source resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffModel {
    pub rate_bps: f64,
    pub packet_size: u32,
    pub on: PeriodDist,
    pub off: PeriodDist,
}

impl OnOffModel {
    /// Seconds between packets within a burst.
    pub fn interval(&self) -> f64 {
        self.packet_size as f64 * 8.0 / self.rate_bps
    }

    pub fn to_json(&self) -> Value {
        json!({"rate": self.rate_bps, "packet_size": self.packet_size, "on": self.on.to_json(), "off": self.off.to_json()})
    }
}

pub fn parse_onoff(o: &OnOffSpec, at: &str, min_interval: f64) -> Result<OnOffModel> {
    let rate_bps = parse_rate(&o.rate).map_err(|e| ScenarioError::new(format!("{at}.rate"), e))?;
    let ps = o.packet_size;
    if ps == 0 || ps > super::units::MAX_PACKET_BYTES as u64 {
        return err(format!("{at}.packet_size"), format!("must be in [1, 65535] bytes, got {ps}"));
    }
    let m = OnOffModel {
        rate_bps,
        packet_size: ps as u32,
        on: parse_period(&o.on, &format!("{at}.on"))?,
        off: parse_period(&o.off, &format!("{at}.off"))?,
    };
    if m.interval() < min_interval {
        let max = ps as f64 * 8.0 / min_interval;
        return err(format!("{at}.rate"), format!("at most 1e7 packets/s: with packet_size {ps} the rate must be ≤ {max} b/s, got {rate_bps} b/s"));
    }
    Ok(m)
}

// ------------------------------------------------------------------ capacity

/// `rate_schedule` (at `at`): `(time s, rate b/s)` from time 0 on, times increasing.
pub fn parse_schedule(s: &RateSchedule, at: &str) -> Result<Vec<(f64, f64)>> {
    if s.is_empty() {
        return err(at, "needs at least one [time, rate] entry, the first at \"0s\"");
    }
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(s.len());
    for (i, entry) in s.iter().enumerate() {
        let [tq, rq] = entry.as_slice() else {
            return err(format!("{at}[{i}]"), format!("expected [time, rate], e.g. [\"0s\", \"10Mb\"], got a list of {} value(s)", entry.len()));
        };
        let t = parse_time(tq).map_err(|e| ScenarioError::new(format!("{at}[{i}][0]"), e))?;
        let r = parse_rate(rq).map_err(|e| ScenarioError::new(format!("{at}[{i}][1]"), e))?;
        match out.last() {
            None if t != 0.0 => return err(format!("{at}[0][0]"), format!("the first entry must be at time 0 (it gives the rate from the start), got {t} s")),
            Some(&(t0, _)) if t <= t0 => return err(format!("{at}[{i}][0]"), format!("times must increase, got {t} s after {t0} s")),
            _ => {}
        }
        out.push((t, r));
    }
    Ok(out)
}

/// ∫ rate dt over `[0, end]`, bits, of a schedule (non-empty, first entry at 0).
pub fn capacity_bits(schedule: &[(f64, f64)], end: f64) -> f64 {
    let mut bits = 0.0;
    for (i, &(t, r)) in schedule.iter().enumerate() {
        if t >= end {
            break;
        }
        let next = schedule.get(i + 1).map_or(end, |&(t1, _)| t1.min(end));
        bits += r * (next - t);
    }
    bits
}

#[cfg(test)]
#[path = "traffic_tests.rs"]
mod tests;
