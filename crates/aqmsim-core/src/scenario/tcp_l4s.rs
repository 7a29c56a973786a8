//! The linux stack's ECN codepoint and feedback fields (`ect`, `accecn`, `sink_accecn`) and
//! TCP Prague's (`variant = "prague"`, `prague_rtt_target`, `prague_ecn_fallback`):
//! defaults, ranges and the field-named errors (docs/tcp/accecn.md, docs/tcp/prague.md).

use super::schema::TcpSpec;
use crate::error::{Result, ScenarioError};
use crate::tcp::{TcpParams, Variant};
use serde_json::{json, Value};

/// `ect`: true for "ect1" (the L4S codepoint), false for "ect0"; else the error's text.
pub fn parse_ect(v: &str) -> std::result::Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "ect0" => Ok(false),
        "ect1" => Ok(true),
        _ => Err(format!("unknown ECN codepoint {v:?} (expected one of: ect0, ect1)")),
    }
}

/// Resolve the fields on a linux-stack table (`set(f)`: Some(true) when this table sets `f`,
/// Some(false) when the top-level one does; `at(f, here)`: the field's path).
pub fn apply(p: &mut TcpParams, base: &TcpSpec, over: &TcpSpec, set: &dyn Fn(&str) -> Option<bool>, at: &dyn Fn(&str, bool) -> String) -> Result<()> {
    let err = |f: &str, here: bool, msg: String| -> Result<()> { Err(ScenarioError::new(at(f, here), msg)) };
    let prague = p.variant == Variant::Prague;
    if prague {
        // RFC 9331 §4: an L4S sender is ECN-capable, sends ECT(1) and needs accurate feedback
        if !p.ecn && set("ecn").is_some() {
            return err("ecn", set("ecn") == Some(true), "variant = \"prague\" is an L4S sender and needs ECN: leave ecn unset or true".into());
        }
        p.ecn = true;
        p.ect1 = true;
        p.accecn = true;
    }
    if let Some(v) = over.ect.as_ref().or(base.ect.as_ref()) {
        let here = over.ect.is_some();
        p.ect1 = match parse_ect(v) {
            Ok(ect1) => ect1,
            Err(msg) => return err("ect", here, msg),
        };
        if !p.ect1 && prague {
            return err("ect", here, "variant = \"prague\" sends ECT(1) (RFC 9331 §4.1): leave ect unset or \"ect1\"".into());
        }
        if !p.ecn {
            return err("ect", here, format!("ect = {v:?} needs ecn = true (a flow without ECN sends Not-ECT)"));
        }
    }
    if let Some(v) = over.accecn.or(base.accecn) {
        let here = over.accecn.is_some();
        if !v && prague {
            return err("accecn", here, "variant = \"prague\" needs AccECN feedback (RFC 9331 §4.2): leave accecn unset or true".into());
        }
        if v && !p.ecn {
            return err("accecn", here, "accecn = true needs ecn = true".into());
        }
        p.accecn = v;
    }
    if let Some(v) = over.sink_accecn.or(base.sink_accecn) {
        let here = over.sink_accecn.is_some();
        if !v && prague {
            return err(
                "sink_accecn",
                here,
                "variant = \"prague\" needs a receiver with AccECN (RFC 3168 feedback gives one echo per round trip; the fallback is not modelled): leave sink_accecn unset or true".into(),
            );
        }
        p.sink_accecn = v;
    }
    if p.accecn && p.variant == Variant::Dctcp {
        return err("accecn", set("accecn") == Some(true), "variant = \"dctcp\" runs ns-3.37's exact CE echo: leave accecn unset or false".into());
    }
    // a Prague field set on a table whose variant is another (the top-level table's, when
    // the field comes from there) is refused, naming both
    let prague_only = |f: &str, here: bool| -> Result<()> {
        let top = base.variant.as_deref().and_then(Variant::parse).unwrap_or(Variant::NewReno);
        let table_variant = if here { p.variant } else { top };
        if table_variant != Variant::Prague {
            return err(f, here, format!("only used with variant = \"prague\" (the variant here is \"{}\")", table_variant.name()));
        }
        Ok(())
    };
    if let Some(q) = over.prague_rtt_target.as_ref().or(base.prague_rtt_target.as_ref()) {
        let here = over.prague_rtt_target.is_some();
        prague_only("prague_rtt_target", here)?;
        let v = super::fields::time(q, &at("prague_rtt_target", here))?;
        if !(0.0..=1.0).contains(&v) {
            return err("prague_rtt_target", here, format!("must be in [0, 1] s (0: no RTT independence), got {v} s"));
        }
        p.prague_rtt_target = v;
    }
    if let Some(v) = over.prague_ecn_fallback.or(base.prague_ecn_fallback) {
        let here = over.prague_ecn_fallback.is_some();
        prague_only("prague_ecn_fallback", here)?;
        if !(0..=2).contains(&v) {
            return err("prague_ecn_fallback", here, format!("must be 0 (no Classic ECN AQM detection), 1 (detection and fall-back) or 2 (detection only), got {v}"));
        }
        p.prague_ecn_fallback = v as u8;
    }
    Ok(())
}

/// The resolved fields, in the `tcp` table of a linux-stack flow (only when not their
/// defaults, so the tables of flows that do not use them read as before).
pub fn json(p: &TcpParams, j: &mut Value) {
    if p.ect1 {
        j["ect"] = json!("ect1");
    }
    if p.accecn {
        j["accecn"] = json!(true);
    }
    if !p.sink_accecn {
        j["sink_accecn"] = json!(false);
    }
    if p.variant == Variant::Prague {
        j["prague_rtt_target"] = json!(p.prague_rtt_target);
        j["prague_ecn_fallback"] = json!(p.prague_ecn_fallback);
    }
}
