//! Which congestion control a flow's `variant` names on the Linux/ns-3 sender: one
//! implementation per file (`cubic.rs`, `dctcp.rs`, ...) behind `cc.rs`'s `CongestionOps`.
//! (BBR v1 and v3 and the plug-ins need the simulation's random stream or the scenario:
//! `sim/linux_hooks.rs` sets them.)

use super::cc::{CongestionOps, NewReno};

/// The congestion control a flow's `variant` names (one file each in `tcp/linux/`).
pub fn for_variant(p: &crate::tcp::TcpParams) -> Box<dyn CongestionOps> {
    match p.variant {
        crate::tcp::Variant::Cubic => Box::new(super::cubic::Cubic::from_params(p)),
        crate::tcp::Variant::Dctcp => Box::new(super::dctcp::Dctcp::new(p.dctcp_g, p.dctcp_alpha_init)),
        crate::tcp::Variant::Ledbat => Box::new(super::ledbat::Ledbat::new(&p.ledbat, p.ns3_quirks)),
        crate::tcp::Variant::Prague => Box::new(super::prague::Prague::new(p.window_init as u32, p.prague_rtt_target, p.packet_size + p.header + if p.timestamps { crate::packet::TS_OPTION_BYTES } else { 0 }, p.prague_ecn_fallback)),
        _ => Box::new(NewReno),
    }
}
