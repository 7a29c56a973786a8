//! Building a `stack = "linux"` flow's agent (the rest of its hooks are the `Agent::Linux`
//! arms beside the ns-2 agent's in `mod.rs`, `tcp_watch.rs` and `trace_hooks.rs`).

use super::Agent;
use crate::tcp::linux::LinuxSender;
use crate::tcp::{TcpParams, TcpSink};

/// The sender and its sink: SACK blocks when `sack`, delayed ACKs every `delack_count`
/// (2) segments or `delack_interval`; the first data segment is ACKed at once (ns-3.37
/// sets its delayed-ACK count full when the handshake completes, `ProcessSynRcvd`).
pub(super) fn linux_agent(p: TcpParams, flow: u32, src: u32, dst: u32) -> Agent {
    let delayed = p.delayed_ack && p.delack_count >= 2;
    let mut sink = TcpSink::new(flow, src, p.ack_size, p.payload(), delayed, p.delack_interval, false, p.sack);
    sink.delay_first = false;
    // DCTCP's receiver echoes CE exactly and ACKs at once when the CE state changes
    sink.dctcp = p.variant == crate::tcp::Variant::Dctcp;
    Agent::Linux { snd: Box::new(LinuxSender::new(p, flow, dst)), sink }
}
