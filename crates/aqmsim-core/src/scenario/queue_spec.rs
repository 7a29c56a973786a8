//! Queue tables: `kind` selects the discipline; each discipline has its own parameter set,
//! checked with its own allowed fields and ranges.

use super::units::{parse_time, Quantity};
use crate::aqm::red_math;
use crate::aqm::{AnyAqm, DropTail, Red, RedParams};
use crate::error::{Result, ScenarioError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Disciplines and their parameters: (name, [(field, default, allowed)]).
pub const DISCIPLINES: &[(&str, &[(&str, &str, &str)])] = &[
    (
        "droptail",
        &[
            ("limit", "50", "packets ≥ 1; includes the packet in transmission (ns-2)"),
            ("limit_bytes", "—", "bytes ≥ 1; when set, the queue is limited in bytes"),
            ("drop_front", "false", "bool: on overflow drop the head packet, not the arrival (ns-2 drop_front_)"),
        ],
    ),
    (
        "red",
        &[
            ("limit", "50", "packets ≥ 1 (ns-2 limit_)"),
            ("min_th", "auto", "packets > 0, or \"auto\" = max(5, target_delay·ptc/2)"),
            ("max_th", "auto", "packets > min_th, or \"auto\" = 3·min_th"),
            ("max_p", "0.1", "(0, 1]"),
            ("w_q", "auto", "(0, 1], or \"auto\" (ns-2 q_weight_ -1)"),
            ("gentle", "true", "bool"),
            ("wait", "true", "bool"),
            ("ecn", "false", "bool (ns-2 setbit_)"),
            ("mark_p", "0.1", "> 0; with ECN, mark only while p < mark_p (2 = always mark)"),
            ("bytes", "true", "bool (ns-2 bytes_)"),
            ("queue_in_bytes", "true", "bool (ns-2 queue_in_bytes_)"),
            ("mean_pktsize", "500", "bytes > 0"),
            ("target_delay", "0.005", "s > 0"),
        ],
    ),
];

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum AutoNum {
    Num(f64),
    Word(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DropTailSpec {
    #[allow(dead_code)]
    kind: String,
    limit: Option<u32>,
    limit_bytes: Option<u64>,
    drop_front: Option<bool>,
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
}

fn parse_as<T: DeserializeOwned>(m: &serde_json::Map<String, Value>, path: &str) -> Result<T> {
    let v = Value::Object(m.clone());
    serde_path_to_error::deserialize(v).map_err(|e| {
        let p = e.path().to_string();
        let field = if p == "." || p.is_empty() { path.to_string() } else { format!("{path}.{p}") };
        ScenarioError::new(field, e.into_inner().to_string())
    })
}

/// The link a queue sits on (RED's automatic values need it).
#[derive(Copy, Clone, Debug)]
pub struct LinkInfo {
    pub rate_bps: f64,
    pub delay_s: f64,
}

fn auto_or(v: &Option<AutoNum>, path: &str) -> Result<Option<f64>> {
    match v {
        None => Ok(None),
        Some(AutoNum::Num(x)) => Ok(Some(*x)),
        Some(AutoNum::Word(w)) if w == "auto" => Ok(None),
        Some(AutoNum::Word(w)) => Err(ScenarioError::new(path, format!("must be a number or \"auto\", got {w:?}"))),
    }
}

/// Build a discipline from its table; returns it and its resolved parameters as JSON.
pub fn build_queue(spec: Option<&serde_json::Map<String, Value>>, path: &str, link: LinkInfo) -> Result<(AnyAqm, Value)> {
    let Some(m) = spec else {
        return Ok((AnyAqm::DropTail(DropTail::packets(50)), json!({"kind": "droptail", "limit": 50, "drop_front": false})));
    };
    let kind = match m.get("kind") {
        Some(Value::String(s)) => s.to_ascii_lowercase(),
        Some(other) => return Err(ScenarioError::new(format!("{path}.kind"), format!("must be a string, got {other}"))),
        None => return Err(ScenarioError::new(format!("{path}.kind"), format!("missing (one of: {})", names()))),
    };
    match kind.as_str() {
        "droptail" => {
            let s: DropTailSpec = parse_as(m, path)?;
            if let Some(lb) = s.limit_bytes {
                if s.limit.is_some() {
                    return Err(ScenarioError::new(format!("{path}.limit_bytes"), "give either limit or limit_bytes, not both"));
                }
                if lb == 0 {
                    return Err(ScenarioError::new(format!("{path}.limit_bytes"), "must be ≥ 1 byte"));
                }
                let mut d = DropTail::bytes(lb);
                d.drop_front = s.drop_front.unwrap_or(false);
                let j = json!({"kind": "droptail", "limit_bytes": lb, "drop_front": d.drop_front});
                return Ok((AnyAqm::DropTail(d), j));
            }
            let limit = s.limit.unwrap_or(50);
            if limit == 0 {
                return Err(ScenarioError::new(format!("{path}.limit"), "must be ≥ 1 packet, got 0"));
            }
            let mut d = DropTail::packets(limit);
            d.drop_front = s.drop_front.unwrap_or(false);
            let j = json!({"kind": "droptail", "limit": limit, "drop_front": d.drop_front});
            Ok((AnyAqm::DropTail(d), j))
        }
        "red" => {
            let s: RedSpec = parse_as(m, path)?;
            let f = |name: &str| format!("{path}.{name}");
            let limit = s.limit.unwrap_or(50);
            if limit == 0 {
                return Err(ScenarioError::new(f("limit"), "must be ≥ 1 packet, got 0"));
            }
            let mean_pktsize = s.mean_pktsize.unwrap_or(500.0);
            if !(mean_pktsize > 0.0) {
                return Err(ScenarioError::new(f("mean_pktsize"), format!("must be > 0 bytes, got {mean_pktsize}")));
            }
            let target_delay = match &s.target_delay {
                Some(q) => parse_time(q).map_err(|e| ScenarioError::new(f("target_delay"), e))?,
                None => 0.005,
            };
            let ptc = link.rate_bps / (8.0 * mean_pktsize);
            let min_th = match auto_or(&s.min_th, &f("min_th"))? {
                Some(v) => v,
                None => red_math::auto_min_th(ptc, target_delay),
            };
            let max_th = match auto_or(&s.max_th, &f("max_th"))? {
                Some(v) => v,
                None => 3.0 * min_th,
            };
            if !(min_th > 0.0) {
                return Err(ScenarioError::new(f("min_th"), format!("must be > 0 packets, got {min_th}")));
            }
            if !(max_th > min_th) {
                return Err(ScenarioError::new(f("max_th"), format!("must be > min_th ({min_th}), got {max_th}")));
            }
            let max_p = s.max_p.unwrap_or(0.1);
            if !(max_p > 0.0 && max_p <= 1.0) {
                return Err(ScenarioError::new(f("max_p"), format!("must be in (0, 1], got {max_p}")));
            }
            let mark_p = s.mark_p.unwrap_or(0.1);
            if !(mark_p > 0.0 && mark_p.is_finite()) {
                return Err(ScenarioError::new(f("mark_p"), format!("must be > 0 (≥ 1 marks at every probability), got {mark_p}")));
            }
            let w_q = match auto_or(&s.w_q, &f("w_q"))? {
                Some(v) => v,
                None => red_math::auto_w_q(ptc, link.delay_s),
            };
            if !(w_q > 0.0 && w_q <= 1.0) {
                return Err(ScenarioError::new(f("w_q"), format!("must be in (0, 1], got {w_q}")));
            }
            let p = RedParams {
                min_th,
                max_th,
                max_p,
                w_q,
                limit,
                gentle: s.gentle.unwrap_or(true),
                wait: s.wait.unwrap_or(true),
                ecn: s.ecn.unwrap_or(false),
                use_mark_p: true,
                mark_p,
                bytes: s.bytes.unwrap_or(true),
                queue_in_bytes: s.queue_in_bytes.unwrap_or(true),
                mean_pktsize,
                ptc,
            };
            let resolved = json!({
                "kind": "red", "limit": limit, "min_th": min_th, "max_th": max_th, "max_p": max_p,
                "w_q": w_q, "gentle": p.gentle, "wait": p.wait, "ecn": p.ecn, "mark_p": mark_p,
                "bytes": p.bytes, "queue_in_bytes": p.queue_in_bytes, "mean_pktsize": mean_pktsize,
                "target_delay": target_delay,
            });
            Ok((AnyAqm::Red(Red::new(p)), resolved))
        }
        other => Err(ScenarioError::new(format!("{path}.kind"), format!("unknown discipline {other:?} (expected one of: {})", names()))),
    }
}

fn names() -> String {
    DISCIPLINES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}
