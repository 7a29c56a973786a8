//! Congestion control: one trait, one file per congestion control (`cubic.rs`, `dctcp.rs`),
//! as the queue disciplines are (`aqm/`). The trait is ns-3.37's `TcpCongestionOps` in
//! shape: the sender owns the window and the loss recovery and calls the control at the
//! same points ns-3's `TcpSocketBase` does (`PktsAcked`, `IncreaseWindow`, `GetSsThresh`,
//! `CongestionStateSet(CA_LOSS)`).
//!
//! This file depends on nothing else in `tcp/`: the controls depend on it, the senders on
//! the controls (`sender/cc_glue.rs` glues the ns-2 model's sender to them), never the reverse.

use crate::time::SimTime;

/// The window in whole packets (ns-3's `GetCwndInSegments`), as CUBIC and DCTCP count it.
#[inline]
pub fn seg(cwnd: f64) -> u32 {
    cwnd.max(0.0) as u32
}

/// What the sender tells its congestion control about the ACK being processed (the parts of
/// ns-3's `TcpSocketState` and of the ACK the controls read). Sequence numbers and windows
/// are in the caller's unit: packets for the ns-2 model's sender.
#[derive(Copy, Clone, Debug)]
pub struct AckEvent {
    /// Newly acknowledged by this ACK (ns-3's `segmentsAcked`).
    pub acked: u32,
    /// The ACK carries ECN-Echo.
    pub ece: bool,
    /// RTT sample of this ACK, ns (`PktsAcked`'s `rtt`).
    pub rtt_ns: u64,
    /// The cumulative ACK.
    pub ack_seq: i32,
    /// The highest sequence number sent so far.
    pub max_sent: i32,
    /// The next sequence number to send.
    pub next_seq: i32,
    pub now: SimTime,
}

/// A congestion control's arithmetic, called by a sender that keeps the window (`cwnd`,
/// `ssthresh`) and runs the loss recovery.
pub trait CongestionOps {
    /// The control's name, as the scenario writes it.
    fn name(&self) -> &'static str;
    /// `PktsAcked`: an ACK of new data arrived (before the window grows); may lower
    /// `ssthresh` (HyStart).
    fn pkts_acked(&mut self, cwnd: f64, ssthresh: &mut i32, ev: &AckEvent);
    /// `IncreaseWindow`: grow `cwnd` for the ACK being processed.
    fn increase_window(&mut self, cwnd: &mut f64, ssthresh: i32, ev: &AckEvent);
    /// `GetSsThresh`: the slow-start threshold after a reduction from `cwnd` (a loss or an
    /// ECN echo).
    fn get_ssthresh(&mut self, cwnd: f64) -> i32;
    /// `CongestionStateSet(CA_LOSS)`: a retransmission timeout (after `get_ssthresh`).
    fn on_rto(&mut self, _now: SimTime, _max_sent: i32) {}
}
