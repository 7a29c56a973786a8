//! The linux stack's `timestamps` field and LEDBAT's fields (`variant = "ledbat"`, ns-3.37
//! `TcpLedbat`'s attributes): defaults, ranges and the field-named errors.

use super::schema::TcpSpec;
use crate::error::{Result, ScenarioError};
use crate::tcp::{TcpParams, Variant};
use serde_json::{json, Value};

/// LEDBAT's fields (refused in an ns2 table and with another variant).
pub const FIELDS: &[&str] =
    &["ledbat_target", "ledbat_gain", "ledbat_base_history", "ledbat_noise_filter", "ledbat_slow_start", "ledbat_min_cwnd"];

/// Resolve `timestamps` and, for LEDBAT, its fields (`set(f)`: Some(true) when this table
/// sets `f`, Some(false) when the top-level one does; `at(f, here)`: the field's path).
pub fn apply(p: &mut TcpParams, base: &TcpSpec, over: &TcpSpec, set: &dyn Fn(&str) -> Option<bool>, at: &dyn Fn(&str, bool) -> String) -> Result<()> {
    let err = |f: &str, here: bool, msg: String| -> Result<()> { Err(ScenarioError::new(at(f, here), msg)) };
    let ledbat = p.variant == Variant::Ledbat;
    if let Some(v) = over.timestamps.or(base.timestamps) {
        if !v && ledbat {
            return err(
                "timestamps",
                over.timestamps.is_some(),
                "variant = \"ledbat\" measures its one-way delay from the timestamp option: leave timestamps unset or true".into(),
            );
        }
        p.timestamps = v;
    }
    p.timestamps |= ledbat;
    // a LEDBAT field in a table whose variant is not ledbat (a top-level one is just not
    // inherited by a flow of another variant, as CUBIC's and DCTCP's)
    let top = base.variant.as_deref().and_then(Variant::parse).unwrap_or(Variant::NewReno);
    for &f in FIELDS {
        if let Some(here) = set(f) {
            let table_variant = if here { p.variant } else { top };
            if table_variant != Variant::Ledbat {
                return err(f, here, format!("only used with variant = \"ledbat\" (the variant here is \"{}\")", table_variant.name()));
            }
        }
    }
    if !ledbat {
        return Ok(());
    }
    let l = &mut p.ledbat;
    if let Some(q) = over.ledbat_target.as_ref().or(base.ledbat_target.as_ref()) {
        let here = over.ledbat_target.is_some();
        let v = super::fields::time(q, &at("ledbat_target", here))?;
        if !(0.001..=10.0).contains(&v) {
            return err("ledbat_target", here, format!("must be in [1 ms, 10 s] (ns-3 counts it in whole ms), got {v} s"));
        }
        l.target = v;
    }
    if let Some(v) = over.ledbat_gain.or(base.ledbat_gain) {
        if !(v > 0.0 && v <= 1.0) {
            return err("ledbat_gain", over.ledbat_gain.is_some(), format!("must be in (0, 1] (RFC 6817: GAIN MUST be 1 or less), got {v}"));
        }
        l.gain = v;
    }
    for (f, o, b, slot) in [
        ("ledbat_base_history", over.ledbat_base_history, base.ledbat_base_history, &mut l.base_history),
        ("ledbat_noise_filter", over.ledbat_noise_filter, base.ledbat_noise_filter, &mut l.noise_filter),
    ] {
        if let Some(v) = o.or(b) {
            if !(2..=10_000).contains(&v) {
                return err(f, o.is_some(), format!("must be in [2, 10000] (ns-3 keeps one fewer than this), got {v}"));
            }
            *slot = v;
        }
    }
    if let Some(v) = over.ledbat_min_cwnd.or(base.ledbat_min_cwnd) {
        if !(1..=1_000_000).contains(&v) {
            return err("ledbat_min_cwnd", over.ledbat_min_cwnd.is_some(), format!("must be in [1, 1000000] segments, got {v}"));
        }
        l.min_cwnd = v;
    }
    if let Some(v) = over.ledbat_slow_start.or(base.ledbat_slow_start) {
        l.slow_start = v;
    }
    Ok(())
}

/// LEDBAT's resolved fields in a linux flow's `tcp` table.
pub fn json(p: &TcpParams, j: &mut Value) {
    if p.variant == Variant::Ledbat {
        let l = &p.ledbat;
        j["ledbat_target"] = json!(l.target);
        j["ledbat_gain"] = json!(l.gain);
        j["ledbat_base_history"] = json!(l.base_history);
        j["ledbat_noise_filter"] = json!(l.noise_filter);
        j["ledbat_slow_start"] = json!(l.slow_start);
        j["ledbat_min_cwnd"] = json!(l.min_cwnd);
    }
}
