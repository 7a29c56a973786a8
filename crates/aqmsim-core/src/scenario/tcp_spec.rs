//! The `tcp` tables resolved: a flow's own table over the top-level `[tcp]` over ns-2's
//! defaults, each value checked ([`TcpParams`]), and the resolved `tcp` table written back.

use super::fields::{err, size, time};
use super::model::{MAX_TICK_S, MIN_TICK_S};
use super::schema::TcpSpec;
use super::units::MAX_WINDOW;
use crate::error::Result;
use crate::tcp::{TcpParams, Variant};
use serde_json::{json, Value};

/// The top-level `[tcp]` table's names, checked even where every flow sets its own: a
/// misspelt `variant`, `stack`, `ect` or `loss_detection` there is refused, not ignored
/// because each group overrides it. (Combinations are checked per flow, where they apply.)
pub(super) fn check_top_names(top: &TcpSpec) -> Result<()> {
    if let Some(Err(msg)) = top.variant.as_deref().map(parse_variant) {
        return err("tcp.variant", msg);
    }
    super::tcp_stack::stack(&TcpSpec::default(), top, "tcp")?;
    if let Some(Err(msg)) = top.ect.as_deref().map(super::tcp_l4s::parse_ect) {
        return err("tcp.ect", msg);
    }
    if let Some(Err(msg)) = top.loss_detection.as_deref().map(super::tcp_stack::parse_loss_detection) {
        return err("tcp.loss_detection", msg);
    }
    Ok(())
}

/// `variant`, or the error's text naming the variants there are.
fn parse_variant(v: &str) -> std::result::Result<Variant, String> {
    Variant::parse(v).ok_or_else(|| format!("unknown TCP variant {v:?} (expected one of: {})", Variant::NAMES))
}

/// Merge TCP tables: `over` wins over `base`, unset fields fall to the stack's defaults
/// (ns-2's, or the `linux` stack's: `tcp_stack.rs`).
pub(super) fn tcp_params(base: &TcpSpec, over: &TcpSpec, path: &str) -> Result<TcpParams> {
    let stack = super::tcp_stack::stack(base, over, path)?;
    let d = super::tcp_stack::defaults(stack);
    macro_rules! pick {
        ($f:ident) => {
            over.$f.clone().or(base.$f.clone())
        };
    }
    // A bad value is blamed on the table it was written in: this flow's own `tcp`, or the
    // top-level `[tcp]` it inherits.
    macro_rules! at {
        ($f:ident) => {
            if over.$f.is_some() { format!("{path}.{}", stringify!($f)) } else { format!("tcp.{}", stringify!($f)) }
        };
    }
    let variant = match pick!(variant) {
        None => d.variant,
        Some(v) => match parse_variant(&v) {
            Ok(v) => v,
            Err(msg) => return err(at!(variant), msg),
        },
    };
    macro_rules! t {
        ($f:ident) => {
            match pick!($f) {
                None => d.$f,
                Some(q) => time(&q, &at!($f))?,
            }
        };
    }
    macro_rules! size {
        ($f:ident, $lo:expr) => {
            match pick!($f) {
                None => d.$f,
                Some(v) => size(v, $lo, at!($f))?,
            }
        };
    }
    // Fields of one congestion control are refused where they cannot apply (a typo or a
    // forgotten variant would otherwise be silently ignored): in this flow's own table when
    // its variant does not use them, in the top-level table when the top-level variant does
    // not. A top-level field for another variant than this flow's is just not inherited, so
    // `[tcp] variant = "cubic"`, `hystart = false` can sit beside a group of Reno flows.
    let top_variant = base.variant.as_deref().and_then(Variant::parse).unwrap_or(d.variant);
    macro_rules! only_for {
        ($want:expr, $name:literal, $($f:ident),+) => {
            $(
                let (table_variant, set) = if over.$f.is_some() { (variant, true) } else { (top_variant, base.$f.is_some()) };
                if set && table_variant != $want {
                    return err(
                        at!($f),
                        format!("only used with variant = \"{}\" (the variant here is \"{}\")", $name, table_variant.name()),
                    );
                }
            )+
        };
    }
    only_for!(Variant::Cubic, "cubic", cubic_beta, cubic_c, fast_convergence, tcp_friendliness, hystart);
    only_for!(Variant::Dctcp, "dctcp", dctcp_g, dctcp_alpha_init);
    // DCTCP needs ECN (RFC 8257 §3): on by default, refused off in a table whose variant is
    // dctcp; an `ecn = false` inherited from a top level of another variant does not apply.
    let ecn = match (variant, over.ecn, base.ecn) {
        (Variant::Dctcp, Some(false), _) => {
            return err(at!(ecn), "DCTCP needs ECN: leave tcp.ecn unset or true with variant = \"dctcp\"");
        }
        (Variant::Dctcp, None, Some(false)) if top_variant == Variant::Dctcp => {
            return err(at!(ecn), "DCTCP needs ECN: leave tcp.ecn unset or true with variant = \"dctcp\"");
        }
        (Variant::Dctcp, _, _) => true,
        _ => pick!(ecn).unwrap_or(d.ecn),
    };
    let p = TcpParams {
        variant,
        packet_size: size!(packet_size, 1),
        header: size!(header, 0),
        use_headers: pick!(use_headers).unwrap_or(d.use_headers),
        window: pick!(window).unwrap_or(d.window),
        window_init: pick!(window_init).unwrap_or(d.window_init),
        syn: pick!(syn).unwrap_or(d.syn),
        delay_growth: pick!(delay_growth).unwrap_or(d.delay_growth),
        tick: t!(tick),
        min_rto: t!(min_rto),
        max_rto: t!(max_rto),
        rto_init: t!(rto_init),
        dupacks: pick!(dupacks).unwrap_or(d.dupacks),
        max_burst: pick!(max_burst).unwrap_or(d.max_burst),
        ecn,
        limited_transmit: pick!(limited_transmit).unwrap_or(d.limited_transmit),
        ack_size: size!(ack_size, 1),
        delayed_ack: pick!(delayed_ack).unwrap_or(d.delayed_ack),
        delack_interval: t!(delack_interval),
        cubic_beta: pick!(cubic_beta).unwrap_or(d.cubic_beta),
        cubic_c: pick!(cubic_c).unwrap_or(d.cubic_c),
        fast_convergence: pick!(fast_convergence).unwrap_or(d.fast_convergence),
        tcp_friendliness: pick!(tcp_friendliness).unwrap_or(d.tcp_friendliness),
        hystart: pick!(hystart).unwrap_or(d.hystart),
        dctcp_g: pick!(dctcp_g).unwrap_or(d.dctcp_g),
        dctcp_alpha_init: pick!(dctcp_alpha_init).unwrap_or(d.dctcp_alpha_init),
        ..d
    };
    let mut p = p;
    super::tcp_stack::apply(&mut p, base, over, path)?;
    if !(p.cubic_beta > 0.0 && p.cubic_beta < 1.0) {
        return err(at!(cubic_beta), format!("must be in (0, 1), got {}", p.cubic_beta));
    }
    if !(p.cubic_c > 0.0 && p.cubic_c <= 1e6) {
        return err(at!(cubic_c), format!("must be in (0, 1e6], got {}", p.cubic_c));
    }
    if !(p.dctcp_g > 0.0 && p.dctcp_g <= 1.0) {
        return err(at!(dctcp_g), format!("must be in (0, 1], got {}", p.dctcp_g));
    }
    if !(0.0..=1.0).contains(&p.dctcp_alpha_init) {
        return err(at!(dctcp_alpha_init), format!("must be in [0, 1], got {}", p.dctcp_alpha_init));
    }
    if !(1.0..=MAX_WINDOW).contains(&p.window) {
        return err(at!(window), format!("must be in [1, 16777216] packets (2^24), got {}", p.window));
    }
    if !(1.0..=MAX_WINDOW).contains(&p.window_init) {
        return err(at!(window_init), format!("must be in [1, 16777216] packets (2^24), got {}", p.window_init));
    }
    if !(MIN_TICK_S..=MAX_TICK_S).contains(&p.tick) {
        return err(at!(tick), format!("must be in [1e-6, 1000] s, got {}", p.tick));
    }
    if p.min_rto > p.max_rto {
        return err(at!(min_rto), format!("must be ≤ max_rto ({}), got {}", p.max_rto, p.min_rto));
    }
    if p.dupacks == 0 {
        return err(at!(dupacks), "must be ≥ 1, got 0");
    }
    Ok(p)
}

/// The resolved `tcp` table; a congestion control's own fields only for its variant.
pub(super) fn tcp_json(p: &TcpParams) -> Value {
    if p.stack == crate::tcp::linux::Stack::Linux {
        return super::tcp_stack::linux_json(p);
    }
    let mut j = tcp_json_common(p);
    match p.variant {
        Variant::Cubic => {
            j["cubic_beta"] = json!(p.cubic_beta);
            j["cubic_c"] = json!(p.cubic_c);
            j["fast_convergence"] = json!(p.fast_convergence);
            j["tcp_friendliness"] = json!(p.tcp_friendliness);
            j["hystart"] = json!(p.hystart);
        }
        Variant::Dctcp => {
            j["dctcp_g"] = json!(p.dctcp_g);
            j["dctcp_alpha_init"] = json!(p.dctcp_alpha_init);
        }
        Variant::Python => super::tcp_python::json(p, &mut j),
        _ => {}
    }
    j
}

pub(super) fn tcp_json_common(p: &TcpParams) -> Value {
    json!({
        "variant": p.variant.name(), "packet_size": p.packet_size, "header": p.header,
        "use_headers": p.use_headers,        "window": p.window, "window_init": p.window_init, "syn": p.syn,
        "delay_growth": p.delay_growth, "tick": p.tick, "min_rto": p.min_rto,
        "max_rto": p.max_rto, "rto_init": p.rto_init, "dupacks": p.dupacks,
        "max_burst": p.max_burst, "ecn": p.ecn, "limited_transmit": p.limited_transmit,
        "ack_size": p.ack_size, "delayed_ack": p.delayed_ack, "delack_interval": p.delack_interval,
    })
}
