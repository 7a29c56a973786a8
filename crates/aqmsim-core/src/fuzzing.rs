//! Fuzzing support, shared by the cargo-fuzz targets in `fuzz/` and the stable-Rust
//! harness in `tests/fuzz_scenarios.rs` (see `docs/fuzzing.md`).
//!
//! [`check_text`] is the oracle: parse a scenario (JSON or TOML), build it, run it with a
//! hard event cap, and panic on anything that is not either a clean run keeping the
//! engine's invariants or a [`ScenarioError`](crate::ScenarioError) with a message.
//! [`mutate`] makes structure-aware variants of a valid scenario: it picks fields and sets
//! them to extreme values (0, −1, 1e-12, 1e12, 1e308, 2^32, 2^64, "NaN", huge counts…),
//! deletes or duplicates entries, or adds known fields where they do not belong.

use crate::scenario::{self, build::build};
use crate::sim::{RunResults, Simulation};
use serde_json::{json, Value};

/// Events one fuzz case may process: every case ends quickly whatever its duration.
pub const EVENT_CAP: u64 = 100_000;
/// Simulated seconds one fuzz case runs at most (after validation of the real duration).
pub const DURATION_CAP_S: f64 = 2.0;
/// Scenarios with more flows than this are not built: building is quadratic in flows
/// today (fuzz finding F1: 65 536 flows take a minute), which would stall the fuzzer.
pub const FLOW_CAP: u64 = 2_000;
/// Slack for float comparisons of ratios.
const EPS: f64 = 1e-9;

/// What one case did (for statistics; every other outcome panics).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The text is not a scenario or the scenario was refused.
    Refused,
    /// More than [`FLOW_CAP`] flows: parsed only.
    Skipped,
    /// The run reached the event cap.
    Capped,
    /// The run finished and its results kept every invariant.
    Ran,
}

/// Parse, build and run `text` (TOML when `toml`, else JSON) with seed `seed`.
///
/// Panics if an invariant of the results fails or an error has an empty message; any
/// panic inside the engine propagates (that is a finding too).
pub fn check_text(text: &str, toml: bool, seed: u64) -> Outcome {
    let spec = if toml { scenario::from_toml(text) } else { scenario::from_json(text) };
    let spec = match spec {
        Ok(s) => s,
        Err(e) => return refused(&e),
    };
    let counts = spec.dumbbell.iter().flat_map(|d| d.groups.iter().map(|g| g.count));
    let total = counts.chain(spec.flows.iter().map(|f| f.count)).fold(0u64, u64::saturating_add);
    if total > FLOW_CAP {
        return Outcome::Skipped;
    }
    let mut model = match build(&spec, seed) {
        Ok(m) => m,
        Err(e) => return refused(&e),
    };
    model.max_events = model.max_events.min(EVENT_CAP);
    model.duration = model.duration.min(DURATION_CAP_S);
    match Simulation::new(model).try_run() {
        Ok(r) => {
            if let Err(msg) = check_results(&r) {
                panic!("invariant violated: {msg}\nscenario: {text}");
            }
            Outcome::Ran
        }
        Err(e) => {
            assert_eq!(e.field, "max_events", "a run failed with an error other than the event cap: {e}");
            Outcome::Capped
        }
    }
}

fn refused(e: &crate::ScenarioError) -> Outcome {
    assert!(!e.message.trim().is_empty(), "an error with an empty message (field {:?})", e.field);
    Outcome::Refused
}

/// The invariants every finished run keeps, whatever the scenario.
pub fn check_results(r: &RunResults) -> Result<(), String> {
    let s = &r.summary;
    for (k, v) in &s.items {
        // the completion-time statistics are NaN when no web transfer finished
        if k.starts_with("fct_") && v.is_nan() {
            continue;
        }
        if !v.is_finite() || *v < 0.0 {
            return Err(format!("summary[{k:?}] = {v} (must be finite and ≥ 0)"));
        }
    }
    let g = |k: &str| s.get(k).unwrap_or(0.0);
    if s.get("bottleneck_arrivals").is_some() {
        let (a, d, x, q) = (g("bottleneck_arrivals"), g("bottleneck_departures"), g("bottleneck_drops"), g("bottleneck_queued_end"));
        if a != d + x + q {
            return Err(format!("bottleneck arrivals {a} ≠ departures {d} + drops {x} + queued at end {q}"));
        }
        let early_forced_over = g("drops_early") + g("drops_forced") + g("drops_overflow");
        if early_forced_over != x {
            return Err(format!("drops_early + drops_forced + drops_overflow = {early_forced_over} ≠ bottleneck_drops {x}"));
        }
        if g("utilisation") > 1.0 + EPS {
            return Err(format!("utilisation {} > 1", g("utilisation")));
        }
        if g("loss_ratio") > 1.0 + EPS {
            return Err(format!("loss_ratio {} > 1", g("loss_ratio")));
        }
        let per_flow: u64 = r.flows.queue_arrivals.iter().sum();
        if per_flow as f64 != a {
            return Err(format!("per-flow queue arrivals sum to {per_flow}, bottleneck_arrivals is {a}"));
        }
    }
    for (i, u) in r.links.utilisation.iter().enumerate() {
        if !(0.0..=1.0 + EPS).contains(u) {
            return Err(format!("link bin {i} ({}) utilisation {u} outside [0, 1]", r.links.t[i]));
        }
    }
    for (i, v) in r.queue.p.iter().enumerate() {
        if !(0.0..=1.0 + EPS).contains(v) {
            return Err(format!("queue sample {i} drop probability {v} outside [0, 1]"));
        }
    }
    let f = &r.flows;
    for i in 0..f.flow.len() {
        if f.received[i] > f.sent[i] {
            return Err(format!("flow {i}: received {} > sent {}", f.received[i], f.sent[i]));
        }
        if f.delivered[i] > f.received[i] {
            return Err(format!("flow {i}: delivered {} > received {}", f.delivered[i], f.received[i]));
        }
        if f.queue_drops[i] > f.queue_arrivals[i] {
            return Err(format!("flow {i}: queue drops {} > arrivals {}", f.queue_drops[i], f.queue_arrivals[i]));
        }
        if !(f.throughput_bps[i].is_finite() && f.mean_delay_s[i].is_finite() && f.mean_delay_s[i] >= 0.0) {
            return Err(format!("flow {i}: throughput {} / mean delay {}", f.throughput_bps[i], f.mean_delay_s[i]));
        }
    }
    Ok(())
}

/// A source of choices: a seeded generator (the stable harness) or fuzzer bytes.
pub trait Choices {
    fn next(&mut self) -> u64;
    /// A number in `0..n` (`n` ≥ 1).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Choices from a seeded SplitMix64 stream.
pub struct Seeded(pub u64);

impl Choices for Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Choices read from fuzzer bytes, two at a time; zeros once they run out.
pub struct Bytes<'a>(pub &'a [u8]);

impl Choices for Bytes<'_> {
    fn next(&mut self) -> u64 {
        let n = self.0.len().min(2);
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head.iter().fold(0u64, |a, &b| (a << 8) | b as u64)
    }
}

/// Field names of the schema and of the queue tables (also the libFuzzer dictionary).
pub const FIELDS: &[&str] = &[
    "name", "description", "notes", "duration", "seed", "tcp", "dumbbell", "nodes", "links", "flows", "monitor",
    "max_events", "variant", "packet_size", "header", "window", "window_init", "syn", "delay_growth", "tick",
    "min_rto", "max_rto", "rto_init", "dupacks", "max_burst", "ecn", "limited_transmit", "ack_size", "delayed_ack",
    "delack_interval", "loss_detection", "ect", "accecn", "sink_accecn", "prague_rtt_target", "prague_ecn_fallback", "bottleneck", "groups", "rate", "delay", "drop_seqs", "queue", "reverse_queue", "access",
    "egress", "count", "app", "start", "stop", "cbr", "from", "to", "src", "dst", "label", "queues",
    "sample_interval", "link_interval", "uniform", "kind", "limit", "limit_bytes", "drop_front", "min_th", "max_th",
    "max_p", "w_q", "gentle", "wait", "ecn_mode", "mark_p", "bytes", "queue_in_bytes", "mean_pktsize",
    "target_delay", "interval", "alpha", "beta", "top", "bottom", "risk_th", "between", "tau", "qrt_unit",
    "max_pktsize", "threshold", "mode", "max_packets", "use_headers", "delays", "tcp_flows", "tcp_interval",
    "target", "min_bytes", "ce_threshold", "quantum", "drop_batch", "classify", "perturbation", "t_update",
    "s_update", "max_burst", "dq_threshold", "dq_rate_estimator", "cap_drop_adjustment", "mark_ecn_threshold",
    "derandomize", "active_threshold", "cubic_beta", "cubic_c", "fast_convergence", "tcp_friendliness",
    "hystart", "dctcp_g", "dctcp_alpha_init", "defaults", "stack", "delack_count", "sack", "ns3_quirks", "syn_rtt", "pacing",
    "timestamps", "ledbat_target", "ledbat_gain", "ledbat_base_history", "ledbat_noise_filter", "ledbat_slow_start",
    "ledbat_min_cwnd",
    // the L4S, home-router and traffic-model fields (tests/fuzz_seeds has scenarios using them)
    "device_queue", "bandwidth", "isolation", "ack_filter", "overhead", "mpu", "mtu", "rtt", "memlimit",
    "coupling", "step_thresh", "step_thresh_pkts", "min_qlen_step", "l4s_ect", "ecn_mask", "c_protection",
    "drop_early", "drop_overload", "blue_threshold", "p_drop", "increment", "decrement", "l4s", "flows",
    "hash", "set_associative_hash", "web", "arrival_rate", "size", "max_transfers", "onoff", "on", "off",
    "rate_schedule", "trace", "plugin_time_limit", "cc", "cc_class",
];

/// Queue kinds.
pub const KINDS: &[&str] =
    &["droptail", "red", "gentle", "ared", "ared_feng", "rtred", "qrtred", "red1", "red2", "red3", "red4", "red5", "ecn_threshold", "codel", "fq_codel", "pie", "fq_pie", "cobalt", "fq_cobalt", "cake", "dualpi2", "python"];

/// Extreme values a mutation may put anywhere.
pub fn extremes() -> Vec<Value> {
    vec![
        json!(0), json!(-1), json!(1), json!(0.5), json!(1e-12), json!(1e-9), json!(1e-7), json!(1e-6),
        json!(1e6), json!(1e7), json!(1e12), json!(1e13), json!(1e15), json!(1e308), json!(-1e308),
        json!(4294967295u64), json!(4294967296u64), json!(9007199254740993u64), json!(9223372036854775807i64),
        json!(u64::MAX), json!(i64::MIN), json!(65535), json!(65536), json!(100000), json!(100001),
        json!(5e-324), json!(-0.0), json!("NaN"), json!("inf"), json!("-inf"), json!("1e12s"), json!("1e-12s"),
        json!("1e308Mb"), json!("1e-9b"), json!("1e15b"), json!("0ms"), json!("1000Gb"), json!("0.000001us"),
        json!("1e6s"), json!("1e6"), json!(""), json!("auto"), json!("x"), json!(true), json!(false), Value::Null,
        json!([]), json!({}), json!({"uniform": [0, 1e12]}), json!({"uniform": [1, 0]}), json!({"uniform": ["1e-12s", "1e6s"]}),
        json!([-1, 0, 4294967295u64]), json!("R1->R2"), json!("S0"), json!("mark_front"), json!("drop_front"),
        // names that switch a scenario onto other code: stacks, congestion controls, codepoints
        json!("linux"), json!("ns2"), json!("bbr"), json!("bbr3"), json!("prague"), json!("ledbat"), json!("dctcp"),
        json!("cubic"), json!("python"), json!("ect1"), json!("rack"), json!("triple-isolate"), json!("web"), json!("onoff"),
    ]
}

/// Every path in `v` (a list of object keys / array indices), containers included.
fn paths(v: &Value, here: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                here.push(json!(k));
                paths(c, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                here.push(json!(i));
                paths(c, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |node, p| match p {
        Value::String(k) => &mut node[k.as_str()],
        Value::Number(i) => &mut node[i.as_u64().unwrap_or(0) as usize],
        _ => node,
    })
}

/// One structure-aware mutation of `v` in place.
pub fn mutate_once(v: &mut Value, c: &mut impl Choices) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    // free text fields only take strings: mutating inside them finds nothing
    all.retain(|p| !matches!(p.first(), Some(Value::String(k)) if k == "notes" || k == "description"));
    if all.is_empty() {
        all.push(Vec::new());
    }
    let path = all[c.below(all.len())].clone();
    let ext = extremes();
    let node = at(v, &path);
    match c.below(12) {
        // an extreme value (the most useful mutation: weight 4)
        0..=3 => *node = ext[c.below(ext.len())].clone(),
        // a plausible change (most stay valid, so the run and its invariants are checked)
        10 | 11 => match node {
            Value::Bool(b) => *b = !*b,
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(0.0) * [0.5, 2.0, 0.1, 10.0, 0.0][c.below(5)];
                *node = if n.is_f64() { json!(x) } else { json!(x.round() as i64) };
            }
            Value::String(t) if t.chars().next().is_some_and(|ch| ch.is_ascii_digit()) => {
                let split = t.find(|ch: char| !(ch.is_ascii_digit() || ch == '.')).unwrap_or(t.len());
                let x: f64 = t[..split].parse().unwrap_or(1.0);
                let unit = &t[split..];
                *node = json!(format!("{}{unit}", x * [0.5, 2.0, 0.1, 10.0, 1000.0][c.below(5)]));
            }
            Value::Object(m) if m.contains_key("kind") => {
                m.insert("kind".into(), json!(KINDS[c.below(KINDS.len())]));
            }
            _ => {}
        },
        // scale or negate a number
        4 => {
            if let Some(x) = node.as_f64() {
                let f = [1e-12, 1e-6, 1e-3, 1e3, 1e6, 1e12, -1.0, 2.0][c.below(8)];
                *node = serde_json::Number::from_f64(x * f).map(Value::Number).unwrap_or(Value::Null);
            } else {
                *node = ext[c.below(ext.len())].clone();
            }
        }
        // delete an entry
        5 => {
            if let Some((last, parent)) = path.split_last() {
                let p = at(v, parent);
                match (p, last) {
                    (Value::Object(m), Value::String(k)) => {
                        m.remove(k);
                    }
                    (Value::Array(a), Value::Number(i)) => {
                        a.remove(i.as_u64().unwrap_or(0) as usize);
                    }
                    _ => {}
                }
            }
        }
        // add a known field (anywhere: it may not belong there) with an extreme value
        6 | 7 => {
            if let Value::Object(m) = node {
                let k = FIELDS[c.below(FIELDS.len())];
                m.insert(k.to_string(), ext[c.below(ext.len())].clone());
            } else if let Value::Array(a) = node {
                if !a.is_empty() {
                    let dup = a[c.below(a.len())].clone();
                    a.push(dup);
                }
            } else {
                *node = ext[c.below(ext.len())].clone();
            }
        }
        // change a queue kind, or make a queue table of another kind
        8 => {
            if let Value::Object(m) = node {
                m.insert("kind".into(), json!(KINDS[c.below(KINDS.len())]));
            } else {
                *node = json!({"kind": KINDS[c.below(KINDS.len())]});
            }
        }
        // duplicate an array element many times, or set a count high
        _ => {
            if let Value::Array(a) = node {
                if !a.is_empty() {
                    let dup = a[c.below(a.len())].clone();
                    let n = [1, 2, 10, 100][c.below(4)];
                    a.extend(std::iter::repeat_n(dup, n));
                }
            } else {
                *node = json!([2, 10, 1000, 50_000, 100_000, 100_001, 1 << 31][c.below(7)]);
            }
        }
    }
}

/// `base` with 1 to 4 mutations.
pub fn mutate(base: &Value, c: &mut impl Choices) -> Value {
    let mut v = base.clone();
    for _ in 0..1 + c.below(4) {
        mutate_once(&mut v, c);
    }
    v
}

/// Run a mutated scenario through both parsers (JSON, and TOML when it has a TOML form).
pub fn check_value(v: &Value, seed: u64) -> [Option<Outcome>; 2] {
    let js = serde_json::to_string(v).expect("JSON of a Value");
    let a = check_text(&js, false, seed);
    let b = toml::to_string(v).ok().map(|t| check_text(&t, true, seed));
    [Some(a), b]
}

/// A TOML scenario as a JSON value (for the corpus).
pub fn toml_to_value(text: &str) -> Option<Value> {
    toml::from_str::<Value>(text).ok()
}
