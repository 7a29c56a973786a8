//! Queue table of CAKE (`kind = "cake"`): `tc-cake(8)`'s options that apply to one
//! best-effort tin, with Linux's defaults.

use super::queue_fields::parse_as;
use super::units::{parse_rate, parse_time, Quantity};
use crate::aqm::cake::AckFilter;
use crate::aqm::cake_modes::FlowMode;
use crate::aqm::{AnyAqm, Cake, CakeParams};
use crate::error::{Result, ScenarioError};
use serde::Deserialize;
use serde_json::{json, Value};

/// CAKE's fields (queue_spec's registry checks a table against them before building).
pub const CAKE_PARAMS: &[(&str, &str, &str)] = &[
    ("bandwidth", "unlimited", "rate ≥ 512 b/s (e.g. \"20Mb\"), or \"unlimited\": the built-in shaper's rate (bandwidth)"),
    ("rtt", "100ms", "s in (0, 4.294967295]: COBALT's interval before its adjustment to the rate (rtt)"),
    ("target", "5ms", "s in (0, 4.294967295]: COBALT's target before its adjustment to the rate (target)"),
    ("isolation", "triple-isolate", "flowblind | srchost | dsthost | hosts | flows | dual-srchost | dual-dsthost | triple-isolate"),
    ("ack_filter", "false", "false | true | \"aggressive\": drop queued ACKs a newer ACK makes redundant (ack-filter)"),
    ("memlimit", "auto", "bytes in [1, 2^32), or \"auto\" (Linux: 4·rate·rtt, at least 4 MB, with a shaper, at most 10240·mtu; else 10240·mtu)"),
    ("overhead", "none", "bytes in [-64, 256] added to every packet for the shaper, or \"none\" (raw; overhead compensation off)"),
    ("mpu", "0", "bytes in [0, 256]: smallest size the shaper charges (mpu)"),
    ("mtu", "1500", "bytes in [68, 65535]: the MTU of the target adjustment and the memory default"),
    ("perturbation", "0", "integer in [0, 2^32): the flow and host hash salt"),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CakeSpec {
    #[allow(dead_code)]
    kind: String,
    bandwidth: Option<Quantity>,
    rtt: Option<Quantity>,
    target: Option<Quantity>,
    isolation: Option<String>,
    ack_filter: Option<Value>,
    memlimit: Option<Value>,
    overhead: Option<Value>,
    mpu: Option<u32>,
    mtu: Option<u32>,
    perturbation: Option<u32>,
}

fn time(q: &Option<Quantity>, default: f64, field: String, max: f64) -> Result<f64> {
    let v = match q {
        Some(q) => parse_time(q).map_err(|e| ScenarioError::new(field.clone(), e))?,
        None => default,
    };
    if !(v > 0.0 && v <= max) {
        return Err(ScenarioError::new(field, format!("must be in (0, {max}] s, got {v} s")));
    }
    Ok(v)
}

pub fn build_cake(m: &serde_json::Map<String, Value>, path: &str) -> Result<(AnyAqm, Value)> {
    let s: CakeSpec = parse_as(m, path)?;
    let f = |name: &str| format!("{path}.{name}");
    let mut p = CakeParams::default();
    p.bandwidth_bps = match &s.bandwidth {
        None => None,
        Some(Quantity::Text(t)) if t.eq_ignore_ascii_case("unlimited") => None,
        Some(q) => {
            let r = parse_rate(q).map_err(|e| ScenarioError::new(f("bandwidth"), e))?;
            if !(r.is_finite() && r >= 512.0) {
                return Err(ScenarioError::new(f("bandwidth"), format!("must be a rate ≥ 512 b/s (64 bytes/s, Linux's floor) or \"unlimited\", got {r} b/s")));
            }
            Some(r)
        }
    };
    let max_s = u32::MAX as f64 * 1e-9;
    let rtt = time(&s.rtt, 0.1, f("rtt"), max_s)?;
    let target = time(&s.target, 0.005, f("target"), max_s)?;
    p.rtt_ns = (rtt * 1e9).round() as u64;
    p.target_ns = (target * 1e9).round() as u64;
    if let Some(name) = &s.isolation {
        p.mode = FlowMode::parse(name).ok_or_else(|| {
            let all: Vec<&str> = FlowMode::NAMES.iter().map(|(n, _)| *n).collect();
            ScenarioError::new(f("isolation"), format!("unknown mode {name:?} (expected one of: {})", all.join(", ")))
        })?;
    }
    p.ack_filter = match &s.ack_filter {
        None | Some(Value::Bool(false)) => AckFilter::Off,
        Some(Value::Bool(true)) => AckFilter::On,
        Some(Value::String(t)) if t == "aggressive" => AckFilter::Aggressive,
        Some(other) => return Err(ScenarioError::new(f("ack_filter"), format!("must be false, true or \"aggressive\", got {other}"))),
    };
    p.memlimit = match &s.memlimit {
        None => None,
        Some(Value::String(t)) if t == "auto" => None,
        Some(v) => match v.as_u64() {
            Some(b) if b >= 1 && b <= u32::MAX as u64 => Some(b),
            _ => return Err(ScenarioError::new(f("memlimit"), format!("must be bytes in [1, 4294967295] or \"auto\", got {v}"))),
        },
    };
    p.overhead = match &s.overhead {
        None => None,
        Some(Value::String(t)) if t == "none" => None,
        Some(v) => match v.as_i64() {
            Some(o) if (-64..=256).contains(&o) => Some(o as i32),
            _ => return Err(ScenarioError::new(f("overhead"), format!("must be bytes in [-64, 256] or \"none\", got {v}"))),
        },
    };
    p.mpu = s.mpu.unwrap_or(0);
    if p.mpu > 256 {
        return Err(ScenarioError::new(f("mpu"), format!("must be in [0, 256] bytes, got {}", p.mpu)));
    }
    p.mtu = s.mtu.unwrap_or(1500);
    if !(68..=65535).contains(&p.mtu) {
        return Err(ScenarioError::new(f("mtu"), format!("must be in [68, 65535] bytes, got {}", p.mtu)));
    }
    p.perturbation = s.perturbation.unwrap_or(0);
    let j = json!({
        "kind": "cake",
        "bandwidth": p.bandwidth_bps.map(|b| json!(b)).unwrap_or(json!("unlimited")),
        "rtt": rtt, "target": target, "isolation": p.mode.name(),
        "ack_filter": match p.ack_filter { AckFilter::Off => json!(false), AckFilter::On => json!(true), AckFilter::Aggressive => json!("aggressive") },
        "memlimit": p.memlimit.map(|b| json!(b)).unwrap_or(json!("auto")),
        "overhead": p.overhead.map(|o| json!(o)).unwrap_or(json!("none")),
        "mpu": p.mpu, "mtu": p.mtu, "perturbation": p.perturbation,
    });
    Ok((AnyAqm::Cake(Box::new(Cake::new(p))), j))
}
