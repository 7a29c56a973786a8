//! The `stack` field of a TCP table: which sender model runs ("ns2", the default, or
//! "linux"), the `linux` stack's own fields and the ns-2 fields it refuses.

use super::schema::TcpSpec;
use crate::error::{Result, ScenarioError};
use crate::tcp::linux::Stack;
use crate::tcp::{TcpParams, Variant};
use serde_json::{json, Value};

/// Fields only the ns-2 stack reads (a `linux` table that sets one is refused).
const NS2_ONLY: &[&str] = &["tick", "syn", "delay_growth", "max_burst", "limited_transmit", "use_headers"];
/// The congestion controls the linux stack runs (`tcp/linux/`, one file each).
const LINUX_VARIANTS: &[Variant] = &[Variant::NewReno, Variant::Cubic, Variant::Dctcp, Variant::Bbr, Variant::Bbr3, Variant::Ledbat, Variant::Prague, Variant::Python];
/// The linux stack's own fields (refused in an ns2 table).
const LINUX_ONLY: &[&str] =
    &["delack_count", "sack", "ns3_quirks", "syn_rtt", "pacing", "timestamps", "loss_detection", "ect", "accecn", "sink_accecn", "prague_rtt_target", "prague_ecn_fallback"];
/// Receive buffer of ns-3's sink (`TcpSocket::RcvBufSize`), bytes: the linux stack's
/// default receive-window cap.
pub const RCVBUF_BYTES: f64 = 131_072.0;

/// The stack a TCP table resolves to (its own `stack`, else the top level's, else ns2).
pub fn stack(base: &TcpSpec, over: &TcpSpec, path: &str) -> Result<Stack> {
    let (v, at) = match (&over.stack, &base.stack) {
        (Some(v), _) => (v, format!("{path}.stack")),
        (None, Some(v)) => (v, "tcp.stack".to_string()),
        (None, None) => return Ok(Stack::Ns2),
    };
    Stack::parse(v).ok_or_else(|| ScenarioError::new(at, format!("unknown TCP stack {v:?} (expected one of: {})", Stack::NAMES)))
}

/// `loss_detection`: true for "rack" (RACK-TLP), false for "rfc6675"; else the error's text.
pub fn parse_loss_detection(v: &str) -> std::result::Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "rfc6675" => Ok(false),
        "rack" => Ok(true),
        _ => Err(format!("unknown loss detection {v:?} (expected one of: rfc6675, rack)")),
    }
}

/// The defaults a table of this stack starts from.
pub fn defaults(s: Stack) -> TcpParams {
    match s {
        Stack::Ns2 => TcpParams::default(),
        Stack::Linux => TcpParams::linux(),
    }
}

/// Resolve and check the stack's own fields on `p` (already resolved otherwise).
pub fn apply(p: &mut TcpParams, base: &TcpSpec, over: &TcpSpec, path: &str) -> Result<()> {
    let at = |f: &str, set_here: bool| if set_here { format!("{path}.{f}") } else { format!("tcp.{f}") };
    let err = |f: &str, here: bool, msg: String| -> Result<()> { Err(ScenarioError::new(at(f, here), msg)) };
    let b = serde_json::to_value(base).unwrap_or(Value::Null);
    let o = serde_json::to_value(over).unwrap_or(Value::Null);
    let set = |f: &str| -> Option<bool> {
        if !o[f].is_null() {
            Some(true)
        } else if !b[f].is_null() {
            Some(false)
        } else {
            None
        }
    };
    match p.stack {
        Stack::Ns2 => {
            if matches!(p.variant, Variant::Bbr | Variant::Bbr3 | Variant::Ledbat | Variant::Prague) {
                let v = p.variant.name();
                return err("variant", set("variant") == Some(true), format!("variant = \"{v}\" runs only on stack = \"linux\""));
            }
            for &f in LINUX_ONLY.iter().chain(super::tcp_ledbat::FIELDS) {
                // a top-level linux field is not inherited by a table of another stack
                if set(f) == Some(true) || (set(f) == Some(false) && stack(base, &TcpSpec::default(), "tcp")? != Stack::Linux) {
                    let here = set(f) == Some(true);
                    return err(f, here, "only used with stack = \"linux\" (the stack here is \"ns2\")".into());
                }
            }
            super::tcp_python::apply(p, base, over, &set, &at)?;
        }
        Stack::Linux => {
            let mut kept: Vec<(&str, bool)> = Vec::new();
            for &f in NS2_ONLY {
                if let Some(here) = set(f) {
                    if here || stack(base, &TcpSpec::default(), "tcp")? == Stack::Linux {
                        kept.push((f, here));
                    }
                }
            }
            if let Some(&(f, here)) = kept.first() {
                // the trap of switching a table's stack with one --set: say how to do it
                let names: Vec<&str> = kept.iter().map(|k| k.0).collect();
                let table = if here { path } else { "tcp" };
                return err(
                    f,
                    here,
                    format!(
                        "only used with stack = \"ns2\" (the stack here is \"linux\"); the table keeps ns-2-only fields \
                         ({}): to switch it to the linux stack, replace the whole table, e.g. --set '{table}={{ stack = \"linux\" }}' \
                         (the linux stack's fields and defaults: docs/tcp/stack-linux.md)",
                        names.join(", ")
                    ),
                );
            }
            if !LINUX_VARIANTS.contains(&p.variant) {
                let here = set("variant") == Some(true);
                return err(
                    "variant",
                    here,
                    format!("stack = \"linux\" runs variant = \"newreno\", \"cubic\", \"dctcp\", \"bbr\", \"bbr3\", \"ledbat\", \"prague\" or \"python\" in this version, got {:?}", p.variant.name()),
                );
            }
            if let Some(v) = over.delack_count.or(base.delack_count) {
                if !(1..=2).contains(&v) {
                    return err("delack_count", over.delack_count.is_some(), format!("must be 1 or 2 segments, got {v}"));
                }
                p.delack_count = v;
            }
            if let Some(v) = over.sack.or(base.sack) {
                if !v {
                    return err("sack", over.sack.is_some(), "stack = \"linux\" needs SACK in this version: leave tcp.sack unset or true".into());
                }
                p.sack = v;
            }
            if let Some(v) = over.ns3_quirks.or(base.ns3_quirks) {
                p.ns3_quirks = v;
            }
            if let Some(q) = over.syn_rtt.as_ref().or(base.syn_rtt.as_ref()) {
                let here = over.syn_rtt.is_some();
                let v = super::fields::time(q, &at("syn_rtt", here))?;
                if !(0.0..=60.0).contains(&v) {
                    return err("syn_rtt", here, format!("must be in [0, 60] s, got {v}"));
                }
                p.syn_rtt = v;
            }
            if p.tcp_friendliness {
                return err(
                    "tcp_friendliness",
                    set("tcp_friendliness") == Some(true),
                    "stack = \"linux\" runs ns-3.37's CUBIC, which has no TCP-friendly region: leave it unset or false".into(),
                );
            }
            // BBR (v1 as ns-3's TcpBbr, v3 as the draft) always paces by its own rate
            let self_paced = matches!(p.variant, Variant::Bbr | Variant::Bbr3 | Variant::Prague);
            if let Some(v) = over.pacing.or(base.pacing) {
                if !v && self_paced {
                    let msg = format!("variant = \"{}\" paces by its own rate: leave pacing unset or true", p.variant.name());
                    return err("pacing", over.pacing.is_some(), msg);
                }
                p.pacing = v;
            }
            p.pacing |= self_paced;
            if p.variant == Variant::Bbr3 && p.ecn {
                // draft-ietf-ccwg-bbr specifies no ECN response, yet an ECN-capable BBR
                // MUST treat CE as congestion: not modelled, so refused
                return err(
                    "ecn",
                    set("ecn") == Some(true),
                    "variant = \"bbr3\" has no ECN response in this version (draft-ietf-ccwg-bbr specifies none): leave ecn unset or false".into(),
                );
            }
            if let Some(v) = over.loss_detection.as_ref().or(base.loss_detection.as_ref()) {
                p.rack = match parse_loss_detection(v) {
                    Ok(rack) => rack,
                    Err(msg) => return err("loss_detection", over.loss_detection.is_some(), msg),
                };
            }
            super::tcp_ledbat::apply(p, base, over, &set, &at)?;
            super::tcp_l4s::apply(p, base, over, &set, &at)?;
            super::tcp_python::apply(p, base, over, &set, &at)?;
            if set("window").is_none() {
                p.window = RCVBUF_BYTES / p.packet_size as f64;
            }
            if !(p.min_rto > 0.0) {
                return err("min_rto", set("min_rto") == Some(true), format!("must be > 0 s on stack = \"linux\", got {}", p.min_rto));
            }
            if !(p.rto_init > 0.0) {
                return err("rto_init", set("rto_init") == Some(true), format!("must be > 0 s, got {}", p.rto_init));
            }
            if p.window * (p.packet_size as f64) < p.packet_size as f64 {
                return err("window", set("window") == Some(true), format!("must be ≥ 1 segment, got {}", p.window));
            }
        }
    }
    Ok(())
}

/// The resolved `tcp` table of a linux-stack flow (no ns-2-only fields).
pub fn linux_json(p: &TcpParams) -> Value {
    let mut j = json!({
        "stack": "linux", "variant": p.variant.name(), "packet_size": p.packet_size, "header": p.header,
        "window": p.window, "window_init": p.window_init, "min_rto": p.min_rto, "max_rto": p.max_rto,
        "rto_init": p.rto_init, "dupacks": p.dupacks, "ecn": p.ecn, "ack_size": p.ack_size,
        "delayed_ack": p.delayed_ack, "delack_count": p.delack_count, "delack_interval": p.delack_interval,
        "sack": p.sack, "ns3_quirks": p.ns3_quirks, "syn_rtt": p.syn_rtt, "pacing": p.pacing,
        "timestamps": p.timestamps,
    });
    if p.rack {
        j["loss_detection"] = json!("rack");
    }
    super::tcp_ledbat::json(p, &mut j);
    super::tcp_l4s::json(p, &mut j);
    super::tcp_python::json(p, &mut j);
    if p.variant == Variant::Cubic {
        for (k, v) in [
            ("cubic_beta", json!(p.cubic_beta)),
            ("cubic_c", json!(p.cubic_c)),
            ("fast_convergence", json!(p.fast_convergence)),
            ("hystart", json!(p.hystart)),
        ] {
            j[k] = v;
        }
    }
    if p.variant == Variant::Dctcp {
        j["dctcp_g"] = json!(p.dctcp_g);
        j["dctcp_alpha_init"] = json!(p.dctcp_alpha_init);
    }
    j
}
