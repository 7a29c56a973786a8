//! The queue table of DualPI2 (RFC 9332 as Linux 6.18's sch_dualpi2): its fields, ranges
//! (Linux's netlink policy where it has one) and defaults (`tc-dualpi2(8)`). The registry
//! (`queue_spec`) checks that only these fields are given before calling
//! [`build_dualpi2`]; this file does not use it back (no module circle).

use super::units::{parse_time, Quantity};
use crate::aqm::dualpi2::{EcnMask, Step, ALPHA_BETA_MAX};
use crate::aqm::{AnyAqm, DualPi2, DualPi2Params};
use crate::error::{Result, ScenarioError};
use serde::Deserialize;
use serde_json::{json, Value};

/// Linux keeps target, t_update and the step threshold in 32-bit ns (given in µs).
const MAX_NS_TIME: f64 = u32::MAX as f64 * 1e-9;

/// (field, default, allowed values and meaning), as `queue_fields::Param`.
pub const DUALPI2_PARAMS: &[(&str, &str, &str)] = &[
    ("limit", "10000", "packets in [1, 2^32 − 1] in both queues; an arrival finding limit packets is dropped"),
    ("target", "15ms", "s in [0, 4.294967295]: PI2's target queueing delay"),
    ("t_update", "16ms", "s in [1 µs, 4.294967295]: period of the probability update (tupdate)"),
    ("alpha", "0.16", "Hz, round(alpha·256) in [1, 2^31 − 1] (Linux's units): integral gain"),
    ("beta", "3.2", "Hz, round(beta·256) in [1, 2^31 − 1]: proportional gain"),
    ("step_thresh", "1ms", "s in [0, 4.294967295]: L4S packets whose sojourn exceeds it are marked"),
    ("step_thresh_pkts", "—", "packets in [0, 2^32 − 1]: the step threshold on the L queue's length instead (not with step_thresh)"),
    ("min_qlen_step", "0", "packets ≥ 0: step marks only for packets that found at least this many in the L queue"),
    ("coupling", "2", "k, integer in [1, 255]: p_CL = k·p'"),
    ("drop_overload", "true", "bool: once k·p' > 1, drop L4S packets with p'^2 (false: keep marking)"),
    ("drop_early", "false", "bool: decide at enqueue instead of dequeue"),
    ("c_protection", "10", "integer in [0, 100]: the C queue's WRR weight, % (the L queue gets the rest)"),
    ("ecn_mask", "l4s_ect", "l4s_ect | cla_ect | any_ect: codepoints sent to the L queue (ECT(1)+CE, ECT(0)+CE, all ECT)"),
    ("mtu", "1500", "bytes in [1, 65535]: Linux's psched_mtu, the WRR credit unit and the 2-MTU no-drop floor"),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    target: Option<Quantity>,
    t_update: Option<Quantity>,
    alpha: Option<f64>,
    beta: Option<f64>,
    step_thresh: Option<Quantity>,
    step_thresh_pkts: Option<u32>,
    min_qlen_step: Option<u32>,
    coupling: Option<u32>,
    drop_overload: Option<bool>,
    drop_early: Option<bool>,
    c_protection: Option<u32>,
    ecn_mask: Option<String>,
    mtu: Option<u32>,
}

fn time(q: &Option<Quantity>, default: f64, field: String, min: f64, what: &str) -> Result<f64> {
    let v = match q {
        Some(q) => parse_time(q).map_err(|e| ScenarioError::new(&field, e))?,
        None => default,
    };
    if !(v.is_finite() && v >= min && v <= MAX_NS_TIME) {
        return Err(ScenarioError::new(field, format!("must be {what}, got {v} s")));
    }
    Ok(v)
}

/// The table `m` (its fields already checked against [`DUALPI2_PARAMS`]) as a discipline
/// and its resolved form.
pub fn build_dualpi2(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let s: Spec = serde_path_to_error::deserialize(Value::Object(m.clone())).map_err(|e| {
        let p = e.path().to_string();
        let field = if p == "." || p.is_empty() { path.to_string() } else { format!("{path}.{p}") };
        ScenarioError::new(field, e.into_inner().to_string())
    })?;
    let f = |name: &str| format!("{path}.{name}");
    let d = DualPi2Params::default();
    let limit = s.limit.unwrap_or(d.limit);
    if limit == 0 {
        return Err(ScenarioError::new(f("limit"), "must be in [1, 2^32 − 1] packets, got 0"));
    }
    let target = time(&s.target, d.target, f("target"), 0.0, "a time in [0, 4.294967295] s")?;
    let t_update = time(&s.t_update, d.t_update, f("t_update"), 1e-6, "a time in [1 µs, 4.294967295 s]")?;
    let alpha = s.alpha.unwrap_or(d.alpha);
    let beta = s.beta.unwrap_or(d.beta);
    for (name, v) in [("alpha", alpha), ("beta", beta)] {
        let nl = (v * 256.0).round();
        if !(v.is_finite() && nl >= 1.0 && nl <= ALPHA_BETA_MAX as f64) {
            return Err(ScenarioError::new(f(name), format!("must be in [1/256, (2^31 − 1)/256] Hz (Linux takes round(Hz·256) in [1, 2^31 − 1]), got {v}")));
        }
    }
    let step = match (&s.step_thresh, s.step_thresh_pkts) {
        (Some(_), Some(_)) => return Err(ScenarioError::new(f("step_thresh_pkts"), "give either step_thresh (time) or step_thresh_pkts, not both")),
        (_, Some(n)) => Step::Packets(n),
        (q, None) => Step::Time(time(q, 0.001, f("step_thresh"), 0.0, "a time in [0, 4.294967295] s")?),
    };
    let coupling = s.coupling.unwrap_or(d.coupling as u32);
    if !(1..=255).contains(&coupling) {
        return Err(ScenarioError::new(f("coupling"), format!("must be an integer in [1, 255], got {coupling}")));
    }
    let c_protection = s.c_protection.unwrap_or(d.c_protection as u32);
    if c_protection > 100 {
        return Err(ScenarioError::new(f("c_protection"), format!("must be an integer in [0, 100] (%), got {c_protection}")));
    }
    let mask_s = s.ecn_mask.unwrap_or_else(|| d.ecn_mask.name().into());
    let ecn_mask = EcnMask::parse(&mask_s)
        .ok_or_else(|| ScenarioError::new(f("ecn_mask"), format!("unknown mask {mask_s:?} (expected one of: {})", EcnMask::NAMES)))?;
    let mtu = s.mtu.unwrap_or(d.mtu);
    if !(1..=65535).contains(&mtu) {
        return Err(ScenarioError::new(f("mtu"), format!("must be in [1, 65535] bytes, got {mtu}")));
    }
    let p = DualPi2Params {
        limit,
        target,
        t_update,
        alpha,
        beta,
        step,
        min_qlen_step: s.min_qlen_step.unwrap_or(d.min_qlen_step),
        coupling: coupling as u8,
        drop_overload: s.drop_overload.unwrap_or(d.drop_overload),
        drop_early: s.drop_early.unwrap_or(d.drop_early),
        c_protection: c_protection as u8,
        ecn_mask,
        mtu,
    };
    let mut j = json!({
        "kind": "dualpi2", "limit": limit, "target": target, "t_update": t_update,
        "alpha": alpha, "beta": beta,
        "min_qlen_step": p.min_qlen_step, "coupling": coupling, "drop_overload": p.drop_overload,
        "drop_early": p.drop_early, "c_protection": c_protection, "ecn_mask": ecn_mask.name(), "mtu": mtu,
    });
    match step {
        Step::Time(t) => j["step_thresh"] = json!(t),
        Step::Packets(n) => j["step_thresh_pkts"] = json!(n),
    }
    Ok((AnyAqm::DualPi2(Box::new(DualPi2::new(p))), j))
}
