//! Queue table of COBALT (`kind = "cobalt"`): ns-3.37's `CobaltQueueDisc` attributes,
//! named in aqmsim's style, with ns-3's defaults.

use super::units::{parse_time, Quantity};
use crate::aqm::{AnyAqm, Cobalt, CobaltParams};
use crate::error::{Result, ScenarioError};
use super::queue_fields::parse_as;
use serde::Deserialize;
use serde_json::{json, Value};

/// ns-3's `MaxSize` default: 1500 · `DEFAULT_COBALT_LIMIT` (1000) bytes.
pub const DEFAULT_LIMIT_BYTES: u64 = 1_500_000;
/// The control law keeps the interval in a u32 of ns (ns-3 `ReciprocalDivide`).
const MAX_INTERVAL_S: f64 = u32::MAX as f64 * 1e-9;

/// COBALT's fields (queue_spec's registry checks a table against them before building).
pub const COBALT_PARAMS: &[(&str, &str, &str)] = &[
    ("limit_bytes", "1500000", "bytes ≥ 1 waiting at most (ns-3 MaxSize, 1500·1000 bytes)"),
    ("limit", "—", "packets ≥ 1: limit the queue in packets instead of bytes"),
    ("target", "5ms", "s > 0: acceptable standing queue delay (Target)"),
    ("interval", "100ms", "s in (0, 4.294967295]: CoDel interval (Interval; ns-3 keeps it in 32 bits of ns)"),
    ("ecn", "false", "bool: mark ECN-capable packets instead of dropping them (UseEcn; BLUE always drops)"),
    ("ce_threshold", "none", "s > 0: mark every packet whose sojourn exceeds it; needs ecn or l4s (CeThreshold)"),
    ("l4s", "false", "bool: ECT(1)/CE packets skip CoDel and BLUE and see only ce_threshold (UseL4s)"),
    ("blue_threshold", "400ms", "s ≥ 0: a sojourn above it raises BLUE's probability (BlueThreshold)"),
    ("increment", "0.00390625", "[0, 1]: BLUE's step up, on overflow or above blue_threshold (Increment, 1/256)"),
    ("decrement", "0.000244140625", "[0, 1]: BLUE's step down, when a dequeue finds the queue empty (Decrement, 1/4096)"),
    ("p_drop", "0", "[0, 1]: BLUE's initial drop probability (Pdrop)"),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CobaltSpec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    limit_bytes: Option<u64>,
    target: Option<Quantity>,
    interval: Option<Quantity>,
    ecn: Option<bool>,
    ce_threshold: Option<Quantity>,
    l4s: Option<bool>,
    blue_threshold: Option<Quantity>,
    increment: Option<f64>,
    decrement: Option<f64>,
    p_drop: Option<f64>,
}

/// A time field in s (or `default`), refused naming `field` unless `ok(v)`.
fn time(q: &Option<Quantity>, default: f64, field: String, ok: impl Fn(f64) -> bool, what: &str) -> Result<f64> {
    let v = match q {
        Some(q) => parse_time(q).map_err(|e| ScenarioError::new(field.clone(), e))?,
        None => default,
    };
    if !(v.is_finite() && ok(v)) {
        return Err(ScenarioError::new(field, format!("must be {what}, got {v} s")));
    }
    Ok(v)
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

/// COBALT's own parameters from a table (also what a flow-queue scheduler running COBALT
/// per queue reads); the resolved values go into the returned JSON.
pub fn cobalt_params(m: &serde_json::Map<String, Value>, path: &str) -> Result<(CobaltParams, Option<u32>, Option<u64>, Value)> {
    let s: CobaltSpec = parse_as(m, path)?;
    let f = |name: &str| format!("{path}.{name}");
    let d = CobaltParams::default();
    let target = time(&s.target, 0.005, f("target"), |v| v > 0.0, "> 0 s")?;
    let interval = time(&s.interval, 0.1, f("interval"), |v| v > 0.0 && ns(v) <= u32::MAX as u64, &format!("in (0, {MAX_INTERVAL_S}] s"))?;
    let blue_threshold = time(&s.blue_threshold, 0.4, f("blue_threshold"), |v| v >= 0.0, "≥ 0 s")?;
    let ecn = s.ecn.unwrap_or(d.ecn);
    let l4s = s.l4s.unwrap_or(d.l4s);
    let ce = match &s.ce_threshold {
        None => None,
        Some(_) if !(ecn || l4s) => return Err(ScenarioError::new(f("ce_threshold"), "marks ECN-capable packets: it needs ecn = true or l4s = true")),
        Some(_) => Some(time(&s.ce_threshold, 0.0, f("ce_threshold"), |v| v > 0.0, "> 0 s")?),
    };
    let prob = |name: &str, v: Option<f64>, dv: f64| -> Result<f64> {
        let v = v.unwrap_or(dv);
        if !(0.0..=1.0).contains(&v) {
            return Err(ScenarioError::new(f(name), format!("must be in [0, 1], got {v}")));
        }
        Ok(v)
    };
    let increment = prob("increment", s.increment, d.increment)?;
    let decrement = prob("decrement", s.decrement, d.decrement)?;
    let p_drop = prob("p_drop", s.p_drop, d.p_drop)?;
    let (limit, limit_bytes) = match (s.limit, s.limit_bytes) {
        (Some(_), Some(_)) => return Err(ScenarioError::new(f("limit_bytes"), "give either limit or limit_bytes, not both")),
        (Some(0), _) => return Err(ScenarioError::new(f("limit"), "must be ≥ 1 packet, got 0")),
        (_, Some(0)) => return Err(ScenarioError::new(f("limit_bytes"), "must be ≥ 1 byte, got 0")),
        (Some(l), None) => (Some(l), None),
        (None, lb) => (None, Some(lb.unwrap_or(DEFAULT_LIMIT_BYTES))),
    };
    let p = CobaltParams {
        target_ns: ns(target),
        interval_ns: ns(interval),
        ecn,
        ce_threshold_ns: ce.map(ns),
        l4s,
        blue_threshold_ns: ns(blue_threshold),
        increment,
        decrement,
        p_drop,
        ..CobaltParams::default()
    };
    let mut j = json!({
        "target": target, "interval": interval, "ecn": ecn, "ce_threshold": ce, "l4s": l4s,
        "blue_threshold": blue_threshold, "increment": increment, "decrement": decrement, "p_drop": p_drop,
    });
    match (limit, limit_bytes) {
        (Some(l), _) => j["limit"] = json!(l),
        (_, Some(lb)) => j["limit_bytes"] = json!(lb),
        _ => {}
    }
    Ok((p, limit, limit_bytes, j))
}

pub fn build_cobalt(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let (p, limit, limit_bytes, mut j) = cobalt_params(m, path)?;
    j["kind"] = json!("cobalt");
    let c = Cobalt::new(p, limit.unwrap_or(u32::MAX), limit_bytes);
    Ok((AnyAqm::Cobalt(Box::new(c)), j))
}
