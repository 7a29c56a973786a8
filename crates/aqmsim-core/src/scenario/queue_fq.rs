//! Queue table of FQ-PIE (ns-3.37's `FqPieQueueDisc` defaults). The PIE fields are checked
//! by PIE's own builder (same names, ranges and messages), the scheduler's as FQ-CoDel's.

use super::queue_modern::build_pie;
use super::queue_fields::Param;
use crate::aqm::fq::{Classify, FqParams};
use crate::aqm::{AnyAqm, FqPie, FqPieParams};
use crate::error::{Result, ScenarioError};
use serde_json::{json, Value};

/// The fields that go to every queue's PIE (checked by `build_pie`).
const PIE_FIELDS: &[&str] =
    &["target", "t_update", "alpha", "beta", "max_burst", "dq_threshold", "dq_rate_estimator", "cap_drop_adjustment", "ecn", "mark_ecn_threshold", "derandomize"];

pub const FQ_PIE_PARAMS: &[Param] = &[
    ("limit", "10240", "packets ≥ 1 in all queues (and in any one); beyond it drop from the fattest queue (MaxSize)"),
    ("flows", "1024", "queues in [1, 65536] (Flows)"),
    ("quantum", "1500", "bytes ≥ 1 of DRR credit per round (ns-3: the device MTU)"),
    ("drop_batch", "64", "packets ≥ 1 dropped from the fattest queue at most per overflow (DropBatchSize)"),
    ("classify", "hash", "hash | flow: hash the flow number into a queue (collisions as in ns-3/Linux), or flow f → queue f mod flows"),
    ("perturbation", "0", "integer in [0, 2^32): the hash salt (ns-3 Perturbation)"),
    ("target", "15ms", "s ≥ 0: the queueing delay each queue's PIE steers to (QueueDelayReference)"),
    ("t_update", "15ms", "s in [1 ms, 1e6 s]: period of each queue's probability update, from the queue's creation (Tupdate)"),
    ("alpha", "0.125", "finite: weight of (delay − target), per s (A)"),
    ("beta", "1.25", "finite: weight of (delay − previous delay), per s (B)"),
    ("max_burst", "150ms", "s ≥ 0: burst allowance of each queue (MaxBurstAllowance)"),
    ("dq_threshold", "16384", "bytes ≥ 1: a queue's bytes that start a departure-rate measurement (DequeueThreshold)"),
    ("dq_rate_estimator", "false", "bool: delay from the departure-rate estimate instead of timestamps (UseDequeueRateEstimator)"),
    ("cap_drop_adjustment", "true", "bool: raise p by at most 0.02 per update once p ≥ 0.1 (UseCapDropAdjustment)"),
    ("ecn", "true", "bool: mark ECN-capable packets instead of dropping them while p < mark_ecn_threshold (UseEcn; ns-3's default on)"),
    ("mark_ecn_threshold", "0.1", "[0, 1]: above it PIE drops even ECN-capable packets (MarkEcnThreshold)"),
    ("derandomize", "false", "bool: RFC 8033's de-randomisation of drops (UseDerandomization)"),
];

/// A scheduler field: a non-negative integer that fits in u32 (`None` if absent).
fn uint(m: &serde_json::Map<String, Value>, path: &str, name: &str) -> Result<Option<u32>> {
    match m.get(name) {
        None => Ok(None),
        Some(v) => match v.as_u64().and_then(|x| u32::try_from(x).ok()) {
            Some(x) => Ok(Some(x)),
            None => Err(ScenarioError::new(format!("{path}.{name}"), format!("must be an integer in [0, 4294967295], got {v}"))),
        },
    }
}

/// The scheduler's fields (limit, flows, quantum, drop_batch, classify, perturbation),
/// checked with field-named errors: what FQ-PIE and FQ-COBALT share.
pub(super) fn scheduler_fields(m: &serde_json::Map<String, Value>, path: &str, d: &FqParams) -> Result<FqParams> {
    let f = |name: &str| format!("{path}.{name}");
    let limit = uint(m, path, "limit")?.unwrap_or(d.limit);
    let flows = uint(m, path, "flows")?.unwrap_or(d.flows);
    let quantum = uint(m, path, "quantum")?.unwrap_or(d.quantum);
    let drop_batch = uint(m, path, "drop_batch")?.unwrap_or(d.drop_batch);
    for (name, v) in [("limit", limit), ("quantum", quantum), ("drop_batch", drop_batch)] {
        if v == 0 {
            return Err(ScenarioError::new(f(name), "must be ≥ 1, got 0"));
        }
    }
    if !(1..=65536).contains(&flows) {
        return Err(ScenarioError::new(f("flows"), format!("must be in [1, 65536] queues, got {flows}")));
    }
    let perturbation = uint(m, path, "perturbation")?;
    let classify = match m.get("classify") {
        None => Classify::Hash { perturbation: perturbation.unwrap_or(0) },
        Some(Value::String(s)) if s == "hash" => Classify::Hash { perturbation: perturbation.unwrap_or(0) },
        Some(Value::String(s)) if s == "flow" && perturbation.is_some() => {
            return Err(ScenarioError::new(f("perturbation"), "salts the hash: it has no effect with classify = \"flow\""))
        }
        Some(Value::String(s)) if s == "flow" => Classify::Flow,
        Some(other) => return Err(ScenarioError::new(f("classify"), format!("unknown classification {other} (expected one of: hash, flow)"))),
    };
    Ok(FqParams { limit, flows, quantum, drop_batch, classify })
}

/// The resolved scheduler fields as the run's JSON reports them.
pub(super) fn scheduler_json(kind: &str, p: &FqParams) -> Value {
    let mut j = json!({"kind": kind, "limit": p.limit, "flows": p.flows, "quantum": p.quantum, "drop_batch": p.drop_batch});
    j["classify"] = json!(if p.classify == Classify::Flow { "flow" } else { "hash" });
    if let Classify::Hash { perturbation } = p.classify {
        j["perturbation"] = json!(perturbation);
    }
    j
}

pub fn build_fq_pie(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let d = FqPieParams::default();
    let fq = scheduler_fields(m, path, &d.fq)?;
    // every queue's PIE: PIE's own builder checks the fields (errors name `{path}.<field>`)
    let mut pm = serde_json::Map::new();
    pm.insert("kind".into(), json!("pie"));
    pm.insert("limit".into(), json!(fq.limit));
    pm.insert("ecn".into(), json!(d.pie.ecn));
    for &k in PIE_FIELDS {
        if let Some(v) = m.get(k) {
            pm.insert(k.into(), v.clone());
        }
    }
    let (AnyAqm::Pie(pie), pj) = build_pie(&pm, path)? else { unreachable!("build_pie builds a Pie") };
    let mut j = scheduler_json("fq_pie", &fq);
    for &k in PIE_FIELDS {
        j[k] = pj[k].clone();
    }
    let p = FqPieParams { pie: pie.params().clone(), fq };
    Ok((AnyAqm::FqPie(Box::new(FqPie::new(p))), j))
}
