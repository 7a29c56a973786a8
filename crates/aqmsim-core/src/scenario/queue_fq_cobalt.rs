//! Queue table of FQ-COBALT (`kind = "fq_cobalt"`, ns-3.37's `FqCobaltQueueDisc` defaults).
//! The scheduler's fields are checked as FQ-PIE's, the COBALT fields by COBALT's own
//! parser (same names, ranges and messages).

use super::queue_cobalt::cobalt_params;
use super::queue_fields::Param;
use super::queue_fq::{scheduler_fields, scheduler_json};
use crate::aqm::{AnyAqm, FqCobalt, FqCobaltParams};
use crate::error::{Result, ScenarioError};
use serde_json::{json, Value};

/// The fields that go to every queue's COBALT (checked by `cobalt_params`).
const COBALT_FIELDS: &[&str] = &["target", "interval", "ecn", "ce_threshold", "l4s", "blue_threshold", "increment", "decrement", "p_drop"];

pub const FQ_COBALT_PARAMS: &[Param] = &[
    ("limit", "10240", "packets ≥ 1 in all queues (and in any one); beyond it drop from the fattest queue (MaxSize)"),
    ("flows", "1024", "queues in [1, 65536] (Flows)"),
    ("quantum", "1500", "bytes ≥ 1 of DRR credit per round (ns-3: the device MTU)"),
    ("drop_batch", "64", "packets ≥ 1 dropped from the fattest queue at most per overflow (DropBatchSize)"),
    ("classify", "hash", "hash | flow: hash the flow number into a queue (collisions as in ns-3/Linux), or flow f → queue f mod flows"),
    ("perturbation", "0", "integer in [0, 2^32): the hash salt (ns-3 Perturbation)"),
    ("set_associative_hash", "false", "false only: ns-3's EnableSetAssociativeHash (default false) is not supported (CAKE has its own)"),
    ("target", "5ms", "s > 0: acceptable standing queue delay of each queue (Target)"),
    ("interval", "100ms", "s in (0, 4.294967295]: CoDel interval of each queue (Interval; 32 bits of ns)"),
    ("ecn", "true", "bool: mark ECN-capable packets instead of dropping them (UseEcn; ns-3's default on; BLUE always drops)"),
    ("ce_threshold", "none", "s > 0: mark every packet whose sojourn exceeds it; needs ecn or l4s (CeThreshold)"),
    ("l4s", "false", "bool: ECT(1)/CE packets skip CoDel and BLUE and see only ce_threshold, which it needs (UseL4s)"),
    ("blue_threshold", "400ms", "s ≥ 0: a sojourn above it raises the queue's BLUE probability (BlueThreshold)"),
    ("increment", "0.00390625", "[0, 1]: BLUE's step up, on a queue's overflow or above blue_threshold (Increment, 1/256)"),
    ("decrement", "0.000244140625", "[0, 1]: BLUE's step down, when a dequeue finds the queue empty (Decrement, 1/4096)"),
    ("p_drop", "0", "[0, 1]: each queue's initial BLUE probability (Pdrop)"),
];

pub fn build_fq_cobalt(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let d = FqCobaltParams::default();
    let fq = scheduler_fields(m, path, &d.fq)?;
    match m.get("set_associative_hash") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => {
            return Err(ScenarioError::new(
                format!("{path}.set_associative_hash"),
                "not supported: only ns-3's default (false), the plain hash; CAKE (kind = \"cake\") has set-associative hashing",
            ))
        }
        Some(v) => return Err(ScenarioError::new(format!("{path}.set_associative_hash"), format!("must be false, got {v}"))),
    }
    // every queue's COBALT: COBALT's own parser checks the fields (errors name `{path}.<field>`)
    let mut cm = serde_json::Map::new();
    cm.insert("kind".into(), json!("cobalt"));
    cm.insert("limit".into(), json!(fq.limit));
    cm.insert("ecn".into(), json!(d.cobalt.ecn));
    for &k in COBALT_FIELDS {
        if let Some(v) = m.get(k) {
            cm.insert(k.into(), v.clone());
        }
    }
    let (cobalt, _, _, cj) = cobalt_params(&cm, path)?;
    if cobalt.l4s && cobalt.ce_threshold_ns.is_none() {
        return Err(ScenarioError::new(format!("{path}.ce_threshold"), "l4s = true needs a ce_threshold (s > 0): ns-3 refuses UseL4s without CeThreshold"));
    }
    let mut j = scheduler_json("fq_cobalt", &fq);
    for &k in COBALT_FIELDS {
        j[k] = cj[k].clone();
    }
    let p = FqCobaltParams { cobalt, fq };
    Ok((AnyAqm::FqCobalt(Box::new(FqCobalt::new(p))), j))
}
