//! ns-2 style one-way TCP: a sender agent and a sink agent per flow, packet-numbered.
//!
//! The sender follows ns-2 2.35's `Agent/TCP` (Tahoe), `Agent/TCP/Reno`,
//! `Agent/TCP/Newreno` and `Agent/TCP/Sack1` step for step, with ns-2's defaults: the
//! point is that a scenario run here and in ns-2 gives the same dynamics. See
//! `docs/ns2-faithfulness.md` for what is followed and where we differ.
//!
//! CUBIC and DCTCP (`Variant::Cubic`, `Variant::Dctcp`) run on the Sack1 loss recovery with
//! ns-3.37's congestion-control arithmetic (`cubic.rs`, `dctcp.rs`, glued in by
//! `sender/cc_glue.rs`; `docs/tcp/cubic.md`, `docs/tcp/dctcp.md`); the ns-2 variants never enter
//! that code.
//!
//! # The shape, for every sender model
//!
//! Modules depend on each other in one direction only (no cycles):
//!
//! ```text
//! sender/ ──► cc (trait) ◄── cubic, dctcp      (one file per congestion control)
//!    │   └──► cubic, dctcp, scoreboard, rtt, stats
//!    └──────► params (Variant, TcpParams)       ◄── everything, and scenario/
//! linux/  ──► params, stats, accecn             (the second sender model, beside sender/)
//! ```
//!
//! - [`params`]: what a flow is configured with; depends on nothing in `tcp/`.
//! - [`cc`]: the congestion-control trait [`cc::CongestionOps`] (ns-3's `TcpCongestionOps`:
//!   `pkts_acked`, `increase_window`, `get_ssthresh`, `on_rto`) and the [`cc::AckEvent`] a
//!   sender hands it. A control is one file implementing it (`cubic.rs`, `dctcp.rs`); it
//!   sees the window only through the arguments, never a sender, so a second sender model
//!   (bytes windows, its own recovery) can call the same controls or add its own files
//!   behind the same trait.
//! - [`scoreboard`]: ns-2 Sack1's SACK scoreboard, a data structure fed with ACKs that
//!   knows nothing of the sender (an RFC 6675 scoreboard for another model sits beside it).
//! - [`rtt`]: the RTT estimator and RTO; [`sink`]: the receiver.
//! - [`sender`]: the ns-2 model's sender, which owns window, timer and loss recovery:
//!   `sender/mod.rs` (state, sending, new ACKs, timeouts), `ns2.rs` (Tahoe/Reno/NewReno),
//!   `sack1.rs` (Sack1 recovery), `cc_glue.rs` (its glue to `CongestionOps`), `state.rs` (what
//!   the state monitor reads). Nothing in `tcp/` depends on it.
//! - [`linux`]: the second sender model (`stack = "linux"`, Linux/ns-3.37: bytes, RFC 6675
//!   scoreboard, PRR, its own bytes-window congestion-control trait), one directory beside
//!   `sender/`; it uses only `params`, [`stats`] (the counters both senders keep) and
//!   [`accecn`] (RFC 9768's ACE field, which the sink writes and the sender reads), and
//!   nothing in `tcp/` uses it.

pub mod accecn;
pub mod cc;
#[cfg(test)]
mod cc_tests;
pub mod cubic;
pub mod dctcp;
pub mod linux;
pub mod params;
pub mod plugin;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod sink;
pub mod stats;

pub use cc::seg;
pub use params::{TcpParams, Variant};
pub use sender::{CwndAction, TcpSender};
pub use sink::TcpSink;
