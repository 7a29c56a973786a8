//! The second sender model, `stack = "linux"`: TCP as Linux and ns-3.37 run it today.
//!
//! Windows in bytes with appropriate byte counting (RFC 3465, L = 1 SMSS), an RFC 6675
//! SACK scoreboard (IsLost with DupThresh, NextSeg, pipe = bytes in flight), ssthresh from
//! the bytes in flight at the congestion event (ns-3's `GetSsThresh` convention), PRR
//! (RFC 6937, SSRB) for the reduction, and ns-3's RTT estimator and RTO rules. One file per
//! part: `scoreboard.rs`, `prr.rs`, `rtt.rs`, `cc.rs` (the congestion-control trait and
//! NewReno), `cubic.rs`, `dctcp.rs`, `sender.rs`. The sink is the shared `TcpSink` with SACK and ns-3's delayed
//! ACK. Departures from the RFCs and from ns-3 are listed in `docs/tcp/stack-linux.md`.
//!
//! Nothing here is reached by a flow of the default `stack = "ns2"`.

pub mod bbr;
pub mod bbr3;
mod bbr3_model;
mod bbr3_phases;
pub mod cc;
mod cc_variant;
pub mod cubic;
pub mod dctcp;
pub mod ecn;
mod ecn_hooks;
pub mod ledbat;
pub mod pacing;
pub mod plugin_ops;
pub mod prague;
pub mod prague_classic;
pub mod prr;
pub mod rack;
mod ack;
mod rack_hooks;
pub mod rate;
mod rate_hooks;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
mod sender_monitor;
#[cfg(test)]
mod bbr3_rate_tests;
#[cfg(test)]
mod bbr3_tests;
#[cfg(test)]
mod plugin_ops_tests;
#[cfg(test)]
mod dctcp_replay_tests;
#[cfg(test)]
mod sink_replay_tests;
mod windowed_filter;
#[cfg(test)]
mod bbr_tests;
#[cfg(test)]
mod rack_tests;
#[cfg(test)]
mod tests;

pub use super::params::Stack;
pub use sender::{CongState, LinuxSender};
