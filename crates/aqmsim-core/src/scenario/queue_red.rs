//! The RED family's queue tables (`red`, `gentle`, `ared`, `ared_feng`, `rtred`, `qrtred`,
//! `red1`..`red5`): the common RED fields with their automatic values and ns-2 defaults, and
//! each variant's own, checked against its kind. The registry of every discipline and its
//! parameters is `queue_spec.rs`.

use super::queue_fields::parse_as;
use super::queue_fields::LinkInfo;
use super::units::{parse_time, Quantity, MAX_PACKET_BYTES};
use crate::aqm::red_math;
use crate::aqm::red_pktsize::red_k;
use crate::aqm::rtred::Between;
use crate::aqm::{AnyAqm, Ared, AredFeng, AredParams, Qrtred, Red, RedParams, Rtred};
use crate::error::{Result, ScenarioError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum AutoNum {
    Num(f64),
    Word(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RedSpec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    min_th: Option<AutoNum>,
    max_th: Option<AutoNum>,
    max_p: Option<f64>,
    w_q: Option<AutoNum>,
    gentle: Option<bool>,
    wait: Option<bool>,
    ecn: Option<bool>,
    mark_p: Option<f64>,
    bytes: Option<bool>,
    queue_in_bytes: Option<bool>,
    mean_pktsize: Option<f64>,
    target_delay: Option<Quantity>,
    ecn_mode: Option<String>,
    defaults: Option<String>,
    // variant parameters (checked against the kind)
    interval: Option<Quantity>,
    alpha: Option<f64>,
    beta: Option<f64>,
    top: Option<f64>,
    bottom: Option<AutoNum>,
    risk_th: Option<f64>,
    between: Option<String>,
    tau: Option<u32>,
    qrt_unit: Option<Quantity>,
    max_pktsize: Option<f64>,
}

fn auto_or(v: &Option<AutoNum>, path: &str) -> Result<Option<f64>> {
    match v {
        None => Ok(None),
        Some(AutoNum::Num(x)) => Ok(Some(*x)),
        Some(AutoNum::Word(w)) if w == "auto" => Ok(None),
        Some(AutoNum::Word(w)) => Err(ScenarioError::new(path, format!("must be a number or \"auto\", got {w:?}"))),
    }
}

/// Build a RED-family discipline from its table (whose fields `build_queue` has checked
/// against the kind's).
pub(super) fn build_red_family(kind: &str, m: &serde_json::Map<String, Value>, path: &str, link: LinkInfo) -> Result<(AnyAqm, Value)> {
    let s: RedSpec = parse_as(m, path)?;
    let f = |name: &str| format!("{path}.{name}");
    let is_k = kind.starts_with("red") && kind.len() == 4;
    let limit = s.limit.unwrap_or(50);
    if limit == 0 {
        return Err(ScenarioError::new(f("limit"), "must be ≥ 1 packet, got 0"));
    }
    let mean_pktsize = s.mean_pktsize.unwrap_or(500.0);
    // (ns-2's mean_pktsize_ is an int: byte-mode counts are whole mean-size packets)
    let size_range = 1.0..=MAX_PACKET_BYTES as f64;
    if !size_range.contains(&mean_pktsize) {
        return Err(ScenarioError::new(f("mean_pktsize"), format!("must be in [1, {MAX_PACKET_BYTES}] bytes, got {mean_pktsize}")));
    }
    let max_pktsize = s.max_pktsize.unwrap_or(1500.0);
    if !size_range.contains(&max_pktsize) {
        return Err(ScenarioError::new(f("max_pktsize"), format!("must be in [1, {MAX_PACKET_BYTES}] bytes, got {max_pktsize}")));
    }
    let target_delay = match &s.target_delay {
        Some(q) => parse_time(q).map_err(|e| ScenarioError::new(f("target_delay"), e))?,
        None => 0.005,
    };
    if !(target_delay > 0.0) {
        return Err(ScenarioError::new(f("target_delay"), format!("must be > 0 s, got {target_delay}")));
    }
    // Each kind's defaults are its paper's (packet mode, no wait_, gentle only for gentle
    // and ared); `defaults = "ns2"` makes gentle, wait, bytes and queue_in_bytes true, as
    // ns-2 2.35's ns-default.tcl has them (every other default is ns-2's already: limit,
    // max_p, the automatic thresholds and w_q, mark_p, mean_pktsize, target_delay).
    let ns2 = match s.defaults.as_deref() {
        None | Some("paper") => false,
        Some("ns2") => true,
        Some(other) => return Err(ScenarioError::new(f("defaults"), format!("unknown profile {other:?} (expected one of: paper, ns2)"))),
    };
    let queue_in_bytes = s.queue_in_bytes.unwrap_or(ns2);
    let bytes = if is_k { false } else { s.bytes.unwrap_or(ns2) };
    let ptc = link.rate_bps / (8.0 * mean_pktsize);
    let min_th = match auto_or(&s.min_th, &f("min_th"))? {
        Some(v) => v,
        None => red_math::auto_min_th(ptc, target_delay),
    };
    let max_th = match auto_or(&s.max_th, &f("max_th"))? {
        Some(v) => v,
        None => 3.0 * min_th,
    };
    if kind != "qrtred" {
        if !(min_th > 0.0) {
            return Err(ScenarioError::new(f("min_th"), format!("must be > 0 packets, got {min_th}")));
        }
        if !(max_th > min_th) {
            return Err(ScenarioError::new(f("max_th"), format!("must be > min_th ({min_th}), got {max_th}")));
        }
    } else if s.min_th.is_some() || s.max_th.is_some() {
        return Err(ScenarioError::new(f(if s.min_th.is_some() { "min_th" } else { "max_th" }), "qrtred computes its thresholds from QRT; remove this field"));
    }
    let max_p = s.max_p.unwrap_or(0.1);
    if !(max_p > 0.0 && max_p <= 1.0) {
        return Err(ScenarioError::new(f("max_p"), format!("must be in (0, 1], got {max_p}")));
    }
    let mark_p = s.mark_p.unwrap_or(0.1);
    if !(mark_p > 0.0 && mark_p.is_finite()) {
        return Err(ScenarioError::new(f("mark_p"), format!("must be > 0 (> 1 marks at every probability), got {mark_p}")));
    }
    let w_q = match auto_or(&s.w_q, &f("w_q"))? {
        Some(v) => v,
        None => red_math::auto_w_q(ptc, link.delay_s),
    };
    if !(w_q > 0.0 && w_q <= 1.0) {
        return Err(ScenarioError::new(f("w_q"), format!("must be in (0, 1], got {w_q}")));
    }
    let ecn_mode = s.ecn_mode.clone().unwrap_or_else(|| "mark_tail".into());
    let ecn_front = match ecn_mode.as_str() {
        "mark_tail" => false,
        "mark_front" => true,
        other => return Err(ScenarioError::new(f("ecn_mode"), format!("unknown ECN mode {other:?} (expected one of: mark_tail, mark_front)"))),
    };
    if ecn_front && !s.ecn.unwrap_or(false) {
        return Err(ScenarioError::new(f("ecn_mode"), "mark_front needs ecn = true (it says which packet carries the ECN mark)"));
    }
    let gentle = if kind == "gentle" {
        if s.gentle == Some(false) {
            return Err(ScenarioError::new(f("gentle"), "kind = \"gentle\" is RED with gentle = true; use kind = \"red\" for gentle = false"));
        }
        true
    } else {
        s.gentle.unwrap_or(ns2 || kind == "ared")
    };
    let p = RedParams {
        min_th,
        max_th,
        max_p,
        w_q,
        limit,
        gentle,
        wait: s.wait.unwrap_or(ns2),
        ecn: s.ecn.unwrap_or(false),
        use_mark_p: true,
        mark_p,
        bytes,
        queue_in_bytes,
        mean_pktsize,
        max_pktsize,
        ecn_front,
        ptc,
    };
    let mut resolved = json!({
        "kind": kind, "limit": limit, "max_p": max_p, "w_q": w_q, "gentle": p.gentle, "wait": p.wait,
        "ecn": p.ecn, "ecn_mode": ecn_mode, "mark_p": mark_p, "queue_in_bytes": p.queue_in_bytes,
        "mean_pktsize": mean_pktsize, "target_delay": target_delay,
    });
    if kind != "qrtred" {
        resolved["min_th"] = json!(min_th);
        resolved["max_th"] = json!(max_th);
    }
    if !is_k {
        resolved["bytes"] = json!(bytes);
    }
    if kind == "gentle" {
        resolved.as_object_mut().map(|o| o.remove("gentle"));
    }
    let red = Red::new(p);
    let aqm = match kind {
        "red" | "gentle" => AnyAqm::Red(red),
        "ared" => {
            let mut red = red;
            red.ns2_gentle_slope = true;
            let interval = match &s.interval {
                Some(q) => parse_time(q).map_err(|e| ScenarioError::new(f("interval"), e))?,
                None => 0.5,
            };
            if !(interval > 0.0) {
                return Err(ScenarioError::new(f("interval"), format!("must be > 0 s, got {interval}")));
            }
            let alpha = s.alpha.unwrap_or(0.01);
            let beta = s.beta.unwrap_or(0.9);
            let top = s.top.unwrap_or(0.5);
            let bottom = match auto_or(&s.bottom, &f("bottom"))? {
                Some(b) => b,
                None => 0.01f64.min(80000.0 / link.rate_bps),
            };
            if !(alpha > 0.0) {
                return Err(ScenarioError::new(f("alpha"), format!("must be > 0, got {alpha}")));
            }
            if !(beta > 0.0 && beta < 1.0) {
                return Err(ScenarioError::new(f("beta"), format!("must be in (0, 1), got {beta}")));
            }
            if !(top > 0.0 && top <= 1.0) {
                return Err(ScenarioError::new(f("top"), format!("must be in (0, 1], got {top}")));
            }
            if !(bottom > 0.0 && bottom <= top) {
                return Err(ScenarioError::new(f("bottom"), format!("must be in (0, top = {top}], got {bottom}")));
            }
            for (k, v) in [("interval", interval), ("alpha", alpha), ("beta", beta), ("top", top), ("bottom", bottom)] {
                resolved[k] = json!(v);
            }
            AnyAqm::Ared(Ared::new(red, AredParams { interval, alpha, beta, top, bottom }))
        }
        "ared_feng" => {
            let alpha = s.alpha.unwrap_or(2.0);
            let beta = s.beta.unwrap_or(3.0);
            if !(alpha > 1.0) {
                return Err(ScenarioError::new(f("alpha"), format!("must be > 1, got {alpha}")));
            }
            if !(beta > 1.0) {
                return Err(ScenarioError::new(f("beta"), format!("must be > 1, got {beta}")));
            }
            resolved["alpha"] = json!(alpha);
            resolved["beta"] = json!(beta);
            let mut red = red;
            red.ns2_gentle_slope = true;
            AnyAqm::AredFeng(AredFeng::new(red, alpha, beta))
        }
        "rtred" => {
            let Some(risk_th) = s.risk_th else {
                return Err(ScenarioError::new(f("risk_th"), "required for rtred (packets, max_th < risk_th ≤ limit)"));
            };
            if !(risk_th > max_th && risk_th <= limit as f64) {
                return Err(ScenarioError::new(f("risk_th"), format!("must be in (max_th = {max_th}, limit = {limit}], got {risk_th}")));
            }
            let b = s.between.clone().unwrap_or_else(|| "keep".into());
            let between = match b.as_str() {
                "keep" => Between::Keep,
                "half" => Between::Half,
                "initial" => Between::Initial,
                other => return Err(ScenarioError::new(f("between"), format!("unknown rule {other:?} (expected one of: keep, half, initial)"))),
            };
            resolved["risk_th"] = json!(risk_th);
            resolved["between"] = json!(b);
            AnyAqm::Rtred(Rtred::new(red, risk_th, between))
        }
        "qrtred" => {
            let tau = s.tau.unwrap_or(2);
            if tau == 0 {
                return Err(ScenarioError::new(f("tau"), "must be ≥ 1 cell, got 0"));
            }
            let unit = match &s.qrt_unit {
                Some(q) => parse_time(q).map_err(|e| ScenarioError::new(f("qrt_unit"), e))?,
                None => 1.0,
            };
            if !(unit > 0.0) {
                return Err(ScenarioError::new(f("qrt_unit"), format!("must be > 0 s, got {unit}")));
            }
            resolved["tau"] = json!(tau);
            resolved["qrt_unit"] = json!(unit);
            AnyAqm::Qrtred(Qrtred::new(red, tau, unit))
        }
        k if k.starts_with("red") && k.len() == 4 => {
            let n: usize = k[3..].parse().unwrap_or(1);
            resolved["max_pktsize"] = json!(max_pktsize);
            let mut r = red_k(n, red.params.clone());
            r.vars = red.vars;
            AnyAqm::Red(r)
        }
        other => unreachable!("discipline table lists {other} as RED family"),
    };
    Ok((aqm, resolved))
}

