//! The second sender model, `stack = "linux"`: TCP as Linux and ns-3.37 run it today.
//!
//! Windows in bytes with appropriate byte counting (RFC 3465, L = 1 SMSS), an RFC 6675
//! SACK scoreboard (IsLost with DupThresh, NextSeg, pipe = bytes in flight), ssthresh from
//! the bytes in flight at the congestion event (ns-3's `GetSsThresh` convention), PRR
//! (RFC 6937, SSRB) for the reduction, and ns-3's RTT estimator and RTO rules. One file per
//! part: `scoreboard.rs`, `prr.rs`, `rtt.rs`, `cc.rs` (the congestion-control trait and
//! NewReno), `sender.rs`. The sink is the shared `TcpSink` with SACK and ns-3's delayed
//! ACK. Departures from the RFCs and from ns-3 are listed in `docs/tcp/stack-linux.md`.
//!
//! Nothing here is reached by a flow of the default `stack = "ns2"`.

pub mod cc;
pub mod ecn;
pub mod prr;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
#[cfg(test)]
mod tests;

pub use sender::{CongState, LinuxSender};

/// Which sender model a TCP flow runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Stack {
    /// ns-2 2.35's agents, packet-counted (the default: the papers' model).
    #[default]
    Ns2,
    /// Linux / ns-3.37: bytes, RFC 6675 SACK recovery, PRR.
    Linux,
}

impl Stack {
    pub fn parse(s: &str) -> Option<Stack> {
        match s.to_ascii_lowercase().as_str() {
            "ns2" => Some(Stack::Ns2),
            "linux" => Some(Stack::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Stack::Ns2 => "ns2",
            Stack::Linux => "linux",
        }
    }
    pub const NAMES: &'static str = "ns2, linux";
}
