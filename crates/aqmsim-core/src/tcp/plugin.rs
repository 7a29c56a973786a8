//! A congestion control written outside the engine (a Python class). Built by
//! [`crate::plugin::PluginFactory`] and run on the linux stack through
//! `tcp/linux/plugin_ops.rs`, which turns the sender's `CongestionOps` calls into the
//! calls of [`PluginCc`] on one reused [`CcView`].
//!
//! The ns-2 stack runs it inside ns-2's NewReno agent (`tcp/sender/plugin_glue.rs`), the
//! optional methods at the agent's events (every ACK, an ECN cut, recovery entry and exit,
//! a timeout).
//!
//! Units on the linux stack: windows, `mss` and `in_flight` in bytes, times in seconds,
//! the pacing rate in bit/s; an infinite ssthresh (before the first congestion event) is
//! `f64::INFINITY`. On the ns-2 stack windows count packets and `mss` is 1.

/// What a plug-in reads and writes at each call (ns-3's `TcpSocketState` as the linux
/// stack's `Tcb` holds it). The adapter fills it before a call and takes `cwnd`,
/// `ssthresh` and `pacing_rate` back after it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcView {
    /// Congestion window, bytes (read/write).
    pub cwnd: f64,
    /// Slow-start threshold, bytes (read/write; infinity before the first reduction).
    pub ssthresh: f64,
    /// Sender maximum segment size, bytes.
    pub mss: u32,
    /// The time of the event, s.
    pub now: f64,
    /// Smoothed RTT, s (0 before the first sample).
    pub srtt: f64,
    /// Bytes in flight at the congestion event (in `ssthresh`; 0 in other calls).
    pub in_flight: f64,
    /// The cumulative ACK and HighData, segment numbers.
    pub last_acked: i64,
    pub high_tx: i64,
    /// The sender's ECN state is "ECE received".
    pub ece: bool,
    /// Segments newly delivered by the latest ACK, and of those the AccECN-reported CE ones.
    pub delivered: u32,
    pub delivered_ce: u32,
    /// Pacing rate the plug-in asks for, bit/s (None: the socket's own rule). It applies
    /// when the flow paces (`pacing = true`, linux stack).
    pub pacing_rate: Option<f64>,
    /// The sender model: "linux" (windows in bytes) or "ns2" (windows in packets, mss 1).
    pub stack: &'static str,
}

/// The congestion-state changes a plug-in hears of (`on_event`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CcStateEvent {
    /// Fast recovery starts (before `ssthresh`).
    Recovery,
    /// The retransmission timer fired (before `ssthresh`, then `on_rto`).
    Loss,
    /// Recovery or CWR is over (cwnd was set to ssthresh).
    CompleteCwr,
}

impl CcStateEvent {
    pub fn name(self) -> &'static str {
        match self {
            CcStateEvent::Recovery => "recovery",
            CcStateEvent::Loss => "loss",
            CcStateEvent::CompleteCwr => "complete_cwr",
        }
    }
}

/// A plug-in congestion control (ns-3's `TcpCongestionOps`, Linux's `tcp_congestion_ops`).
/// A method that fails ends the run with [`crate::plugin::fail`] (see [`failure`]).
pub trait PluginCc: std::fmt::Debug + Send {
    /// The plug-in's name in messages (`"my_cc:MyReno"`).
    fn name(&self) -> &str;
    /// `IncreaseWindow`: new data was ACKed (`acked` segments) in Open or Loss: grow `cwnd`.
    fn on_ack(&mut self, v: &mut CcView, acked: u32);
    /// `GetSsThresh`: the new ssthresh after a loss or an ECN echo (bytes).
    fn ssthresh(&mut self, v: &mut CcView) -> f64;
    /// `PktsAcked`: every ACK, with the segments it acknowledged (1 for a duplicate ACK).
    fn pkts_acked(&mut self, _v: &mut CcView, _acked: u32) {}
    /// The sender enters CWR on an ECN echo (after `ssthresh`).
    fn on_ecn(&mut self, _v: &mut CcView) {}
    /// The retransmission timer fired (after `ssthresh`; cwnd is then set to one segment).
    fn on_rto(&mut self, _v: &mut CcView) {}
    /// A congestion-state change.
    fn on_event(&mut self, _v: &mut CcView, _ev: CcStateEvent) {}
    /// An independent copy (same parameters and state).
    fn clone_box(&self) -> Box<dyn PluginCc>;
}

impl Clone for Box<dyn PluginCc> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// The one message shape of a plug-in failure: `<path>: plug-in <name>.<method> <what> at
/// t = <now> s<detail>`, e.g. `flows[0].tcp: plug-in my_cc:MyReno.ssthresh returned None at
/// t = 1.234000 s (expected a window > 0)`.
pub fn failure(path: &str, name: &str, method: &str, what: &str, now: f64, detail: &str) -> String {
    format!("{path}: plug-in {name}.{method} {what} at t = {now:.6} s{detail}")
}
