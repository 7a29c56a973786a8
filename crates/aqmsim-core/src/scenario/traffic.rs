//! The traffic models RFC 7928 asks for beyond bulk TCP and CBR: web-like short transfers
//! (`app = "web"`), on/off UDP sources (`app = "onoff"`), and a link capacity that varies
//! over time (`rate_schedule`). Their schema, their checks (every error names the field and
//! the allowed range) and the distributions they draw from.
//!
//! Distributions are written as small tables and read from a `serde_json::Value` by hand,
//! so that a wrong one gets a message saying which forms are allowed (serde's untagged
//! enums only say "did not match any variant").

use super::traffic_size::{err, exp1, only, shape};
pub use super::traffic_size::{parse_size, SizeDist, SizeModel, MAX_TRANSFER_BYTES};
use super::units::{parse_rate, parse_time, Quantity};
use crate::error::{Result, ScenarioError};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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
