//! Queue tables of the delay-based disciplines deployed today: CoDel, FQ-CoDel and PIE.
//! Defaults are ns-3.37's (which are Linux's but where said), so a scenario agrees with
//! ns-3 unless it says otherwise.

use super::queue_fields::{parse_as, Param};
use super::units::{parse_time, Quantity};
use crate::aqm::codel::CodelParams;
use crate::aqm::fq::FqParams;
use crate::aqm::fq_codel::Classify;
use crate::aqm::pie::MIN_T_UPDATE;
use crate::aqm::{AnyAqm, Codel, FqCodel, FqCodelParams, Pie, PieParams};
use crate::error::{Result, ScenarioError};
use serde::Deserialize;
use serde_json::{json, Value};

pub const CODEL_PARAMS: &[Param] = &[
    ("limit", "1000", "packets ≥ 1 waiting (Linux's limit; ns-3's MaxSize is 1 500 000 bytes: use limit_bytes)"),
    ("limit_bytes", "—", "bytes ≥ 1: limit the queue in bytes instead"),
    ("target", "5ms", "s > 0: acceptable standing queue delay (Target)"),
    ("interval", "100ms", "s > target: how long the delay must stay above target before a drop (Interval)"),
    ("min_bytes", "1500", "bytes ≥ 0: no drop while fewer bytes remain queued (ns-3 MinBytes)"),
    ("ecn", "false", "bool: mark ECN-capable packets instead of dropping them (UseEcn)"),
    ("ce_threshold", "none", "s > 0: with ecn, also mark every packet whose sojourn exceeds it (CeThreshold)"),
];

pub const FQ_CODEL_PARAMS: &[Param] = &[
    ("limit", "10240", "packets ≥ 1 in all queues; beyond it drop from the fattest queue (MaxSize)"),
    ("flows", "1024", "queues in [1, 65536] (Flows)"),
    ("quantum", "1500", "bytes ≥ 1 of DRR credit per round (ns-3: the device MTU)"),
    ("drop_batch", "64", "packets ≥ 1 dropped from the fattest queue at most per overflow (DropBatchSize)"),
    ("target", "5ms", "s > 0: CoDel target of every queue"),
    ("interval", "100ms", "s > target: CoDel interval of every queue"),
    ("min_bytes", "1500", "bytes ≥ 0: CoDel MinBytes of every queue (against the queue's own bytes)"),
    ("ecn", "true", "bool: mark ECN-capable packets instead of dropping them (ns-3 and Linux default on)"),
    ("ce_threshold", "none", "s > 0: with ecn, also mark every packet whose sojourn exceeds it"),
    ("classify", "hash", "hash | flow: hash the flow number into a queue (collisions as in ns-3/Linux), or flow f → queue f mod flows"),
    ("perturbation", "0", "integer in [0, 2^32): the hash salt (ns-3 Perturbation)"),
];

pub const PIE_PARAMS: &[Param] = &[
    ("limit", "1000", "packets ≥ 1 waiting (Linux's limit; ns-3's MaxSize default is 25 packets)"),
    ("limit_bytes", "—", "bytes ≥ 1: limit in bytes instead, and byte mode (p scaled by size/mean_pktsize)"),
    ("mean_pktsize", "1000", "bytes in [1, 65535]: byte mode's reference size (MeanPktSize)"),
    ("target", "15ms", "s ≥ 0: the queueing delay PIE steers to (QueueDelayReference)"),
    ("t_update", "15ms", "s in [1 ms, 1e6 s] (1 ms: Linux's finest, one jiffy at HZ = 1000): period of the probability update (Tupdate)"),
    ("s_update", "0", "s ≥ 0: time of the first update (Supdate)"),
    ("alpha", "0.125", "finite: weight of (delay − target), per s (A)"),
    ("beta", "1.25", "finite: weight of (delay − previous delay), per s (B)"),
    ("max_burst", "150ms", "s ≥ 0: burst allowance (MaxBurstAllowance)"),
    ("dq_threshold", "16384", "bytes ≥ 1: queue that starts a departure-rate measurement (DequeueThreshold)"),
    ("dq_rate_estimator", "false", "bool: delay from the departure-rate estimate instead of timestamps (UseDequeueRateEstimator)"),
    ("cap_drop_adjustment", "true", "bool: raise p by at most 0.02 per update once p ≥ 0.1 (UseCapDropAdjustment)"),
    ("ecn", "false", "bool: mark ECN-capable packets instead of dropping them while p < mark_ecn_threshold (UseEcn)"),
    ("mark_ecn_threshold", "0.1", "[0, 1]: above it PIE drops even ECN-capable packets (MarkEcnThreshold)"),
    ("derandomize", "false", "bool: RFC 8033's de-randomisation of drops (UseDerandomization)"),
    ("active_threshold", "none", "s ≥ 0: PIE acts only once the delay has reached it (ActiveThreshold)"),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PieSpec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    limit_bytes: Option<u64>,
    mean_pktsize: Option<u32>,
    target: Option<Quantity>,
    t_update: Option<Quantity>,
    s_update: Option<Quantity>,
    alpha: Option<f64>,
    beta: Option<f64>,
    max_burst: Option<Quantity>,
    dq_threshold: Option<u32>,
    dq_rate_estimator: Option<bool>,
    cap_drop_adjustment: Option<bool>,
    ecn: Option<bool>,
    mark_ecn_threshold: Option<f64>,
    derandomize: Option<bool>,
    active_threshold: Option<Quantity>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CodelSpec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    limit_bytes: Option<u64>,
    target: Option<Quantity>,
    interval: Option<Quantity>,
    min_bytes: Option<u64>,
    ecn: Option<bool>,
    ce_threshold: Option<Quantity>,
    // FQ-CoDel only
    flows: Option<u32>,
    quantum: Option<u32>,
    drop_batch: Option<u32>,
    classify: Option<String>,
    perturbation: Option<u32>,
}

/// A time field in s (or `default`), refused naming `field` unless `ok(v)`; `what` says
/// the allowed range.
fn time_field(q: &Option<Quantity>, default: f64, field: &str, ok: fn(f64) -> bool, what: &str) -> Result<f64> {
    let v = match q {
        Some(q) => parse_time(q).map_err(|e| ScenarioError::new(field, e))?,
        None => default,
    };
    if !ok(v) {
        return Err(ScenarioError::new(field, format!("must be {what}, got {v} s")));
    }
    Ok(v)
}

fn positive(v: f64) -> bool {
    v > 0.0
}

fn non_negative(v: f64) -> bool {
    v >= 0.0
}

/// `limit` (packets, `default`) or `limit_bytes`, not both, each ≥ 1; the resolved field
/// goes into `j`. Returns the packet limit (u32::MAX when limited in bytes) and the byte one.
fn buffer_limit(limit: Option<u32>, limit_bytes: Option<u64>, default: u32, path: &str, j: &mut Value) -> Result<(u32, Option<u64>)> {
    match (limit, limit_bytes) {
        (Some(_), Some(_)) => Err(ScenarioError::new(format!("{path}.limit_bytes"), "give either limit or limit_bytes, not both")),
        (_, Some(0)) => Err(ScenarioError::new(format!("{path}.limit_bytes"), "must be ≥ 1 byte")),
        (Some(0), _) => Err(ScenarioError::new(format!("{path}.limit"), "must be ≥ 1 packet, got 0")),
        (_, Some(lb)) => {
            j["limit_bytes"] = json!(lb);
            Ok((u32::MAX, Some(lb)))
        }
        (l, None) => {
            let l = l.unwrap_or(default);
            j["limit"] = json!(l);
            Ok((l, None))
        }
    }
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

/// CoDel's own parameters from a table (shared by codel and fq_codel).
fn codel_params(s: &CodelSpec, path: &str, ecn_default: bool) -> Result<(CodelParams, Value)> {
    let f = |name: &str| format!("{path}.{name}");
    let target = time_field(&s.target, 0.005, &f("target"), positive, "> 0 s")?;
    let interval = time_field(&s.interval, 0.1, &f("interval"), positive, "> 0 s")?;
    if interval <= target {
        return Err(ScenarioError::new(f("interval"), format!("must be > target ({target} s), got {interval} s")));
    }
    // CoDel's clock is 32 bits of 1024 ns in ns-3: keep the interval within it
    if interval > 4000.0 {
        return Err(ScenarioError::new(f("interval"), format!("must be ≤ 4000 s, got {interval} s")));
    }
    let ecn = s.ecn.unwrap_or(ecn_default);
    let ce = match &s.ce_threshold {
        None => None,
        Some(_) if !ecn => return Err(ScenarioError::new(f("ce_threshold"), "marks ECN-capable packets: it needs ecn = true")),
        Some(_) => Some(time_field(&s.ce_threshold, 0.0, &f("ce_threshold"), positive, "> 0 s")?),
    };
    let min_bytes = s.min_bytes.unwrap_or(1500);
    let p = CodelParams { target_ns: ns(target), interval_ns: ns(interval), min_bytes, ecn, ce_threshold_ns: ce.map(ns) };
    let j = json!({"target": target, "interval": interval, "min_bytes": min_bytes, "ecn": ecn, "ce_threshold": ce});
    Ok((p, j))
}

pub fn build_codel(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let s: CodelSpec = parse_as(m, path)?;
    let (p, mut j) = codel_params(&s, path, false)?;
    let (limit, limit_bytes) = buffer_limit(s.limit, s.limit_bytes, 1000, path, &mut j)?;
    j["kind"] = json!("codel");
    Ok((AnyAqm::Codel(Codel::new(p, limit, limit_bytes)), j))
}

pub fn build_fq_codel(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let s: CodelSpec = parse_as(m, path)?;
    let f = |name: &str| format!("{path}.{name}");
    let (codel, mut j) = codel_params(&s, path, true)?;
    let d = FqCodelParams::default();
    let limit = s.limit.unwrap_or(d.fq.limit);
    let flows = s.flows.unwrap_or(d.fq.flows);
    let quantum = s.quantum.unwrap_or(d.fq.quantum);
    let drop_batch = s.drop_batch.unwrap_or(d.fq.drop_batch);
    for (name, v) in [("limit", limit), ("quantum", quantum), ("drop_batch", drop_batch)] {
        if v == 0 {
            return Err(ScenarioError::new(f(name), "must be ≥ 1, got 0"));
        }
    }
    if !(1..=65536).contains(&flows) {
        return Err(ScenarioError::new(f("flows"), format!("must be in [1, 65536] queues, got {flows}")));
    }
    let perturbation = s.perturbation.unwrap_or(0);
    let classify = match s.classify.as_deref().unwrap_or("hash") {
        "hash" => Classify::Hash { perturbation },
        "flow" if s.perturbation.is_some() => return Err(ScenarioError::new(f("perturbation"), "salts the hash: it has no effect with classify = \"flow\"")),
        "flow" => Classify::Flow,
        other => return Err(ScenarioError::new(f("classify"), format!("unknown classification {other:?} (expected one of: hash, flow)"))),
    };
    for (k, v) in [("limit", limit), ("flows", flows), ("quantum", quantum), ("drop_batch", drop_batch)] {
        j[k] = json!(v);
    }
    j["kind"] = json!("fq_codel");
    j["classify"] = json!(if classify == Classify::Flow { "flow" } else { "hash" });
    if classify != Classify::Flow {
        j["perturbation"] = json!(perturbation);
    }
    let p = FqCodelParams { codel, fq: FqParams { limit, flows, quantum, drop_batch, classify } };
    Ok((AnyAqm::FqCodel(Box::new(FqCodel::new(p))), j))
}

/// `t_update`'s range, as the error says it.
const T_UPDATE_RANGE: &str = "a time in [1 ms, 1e6 s] (PIE updates no more often than Linux's sch_pie can: once per jiffy, 1 ms at HZ = 1000)";

/// A time in s ≥ `min`.
pub fn build_pie(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let s: PieSpec = parse_as(m, path)?;
    let f = |name: &str| format!("{path}.{name}");
    let d = PieParams::default();
    let mut j = json!({"kind": "pie"});
    let (limit, limit_bytes) = buffer_limit(s.limit, s.limit_bytes, 1000, path, &mut j)?;
    let mean_pktsize = s.mean_pktsize.unwrap_or(d.mean_pktsize);
    if !(1..=65535).contains(&mean_pktsize) {
        return Err(ScenarioError::new(f("mean_pktsize"), format!("must be in [1, 65535] bytes, got {mean_pktsize}")));
    }
    let target = time_field(&s.target, d.target, &f("target"), non_negative, "≥ 0 s")?;
    let t_update = time_field(&s.t_update, d.t_update, &f("t_update"), |v| v.is_finite() && v >= MIN_T_UPDATE, T_UPDATE_RANGE)?;
    let s_update = time_field(&s.s_update, d.s_update, &f("s_update"), non_negative, "≥ 0 s")?;
    let max_burst = time_field(&s.max_burst, d.max_burst, &f("max_burst"), non_negative, "≥ 0 s")?;
    let active_threshold = match &s.active_threshold {
        None => None,
        Some(_) => Some(time_field(&s.active_threshold, 0.0, &f("active_threshold"), non_negative, "≥ 0 s")?),
    };
    let alpha = s.alpha.unwrap_or(d.alpha);
    let beta = s.beta.unwrap_or(d.beta);
    for (name, v) in [("alpha", alpha), ("beta", beta)] {
        if !v.is_finite() {
            return Err(ScenarioError::new(f(name), format!("must be a finite number, got {v}")));
        }
    }
    let mark_ecn_threshold = s.mark_ecn_threshold.unwrap_or(d.mark_ecn_threshold);
    if !(0.0..=1.0).contains(&mark_ecn_threshold) {
        return Err(ScenarioError::new(f("mark_ecn_threshold"), format!("must be in [0, 1], got {mark_ecn_threshold}")));
    }
    let dq_threshold = s.dq_threshold.unwrap_or(d.dq_threshold);
    if dq_threshold == 0 {
        return Err(ScenarioError::new(f("dq_threshold"), "must be ≥ 1 byte, got 0"));
    }
    let p = PieParams {
        limit,
        limit_bytes,
        mean_pktsize,
        target,
        t_update,
        s_update,
        alpha,
        beta,
        max_burst,
        dq_threshold,
        use_dq_rate_estimator: s.dq_rate_estimator.unwrap_or(d.use_dq_rate_estimator),
        use_cap_drop_adjustment: s.cap_drop_adjustment.unwrap_or(d.use_cap_drop_adjustment),
        ecn: s.ecn.unwrap_or(d.ecn),
        mark_ecn_threshold,
        use_derandomization: s.derandomize.unwrap_or(d.use_derandomization),
        active_threshold,
    };
    p.validate().map_err(|e| ScenarioError::new(path, e))?;
    let fields = json!({
        "mean_pktsize": mean_pktsize, "target": target, "t_update": t_update, "s_update": s_update,
        "alpha": alpha, "beta": beta, "max_burst": max_burst, "dq_threshold": dq_threshold,
        "dq_rate_estimator": p.use_dq_rate_estimator, "cap_drop_adjustment": p.use_cap_drop_adjustment,
        "ecn": p.ecn, "mark_ecn_threshold": mark_ecn_threshold, "derandomize": p.use_derandomization,
        "active_threshold": active_threshold,
    });
    if let (Some(o), Value::Object(add)) = (j.as_object_mut(), fields) {
        o.extend(add);
    }
    Ok((AnyAqm::Pie(Pie::new(p)), j))
}
