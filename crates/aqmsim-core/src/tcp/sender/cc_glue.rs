//! Congestion control beside ns-2's: the glue between the Sack1 sender and the CUBIC and
//! DCTCP arithmetic of `tcp/cubic.rs` and `tcp/dctcp.rs` (behind `tcp::cc::CongestionOps`).
//!
//! The ns-2 variants never reach this file: `Cc::Ns2` sends `opencwnd`, `slowdown` and
//! `recv_ack` down their ns-2 paths unchanged (one predictable branch each). For CUBIC and
//! DCTCP the loss recovery is ns-2's Sack1 (`sack1.rs`: fast retransmit on 3 duplicate ACKs,
//! `pipe < cwnd` during recovery, timeouts), and only the window arithmetic follows ns-3.37:
//! - `recv_ack_cc` mirrors ns-3's `TcpSocketBase::ReceivedAck` order: ECE on an ACK of new
//!   data first (`EnterCwr`: the reduction, at most once per window), then `PktsAcked`
//!   (HyStart / delay_min for CUBIC, α for DCTCP), then the ACK itself (`IncreaseWindow` via
//!   `opencwnd` when ns-2 would open the window);
//! - the RTT sample of `PktsAcked` is `now − t_sent` of the packet the ACK answers (ns-3
//!   has timestamps on by default, so every ACK gives a sample, retransmissions included);
//! - after an ECN reduction no ACK grows the window until the cumulative ACK passes
//!   `recover` (ns-3's CA_CWR state; ns-2 would open on every ACK without ECE);
//! - `slowdown` (fast retransmit, timeout) takes ssthresh from the congestion control:
//!   CUBIC max(⌊cwnd·β⌋, 2), DCTCP max(⌊(1 − α/2)·cwnd⌋, 2) (ns-3.37's `TcpDctcp::GetSsThresh`
//!   serves losses too); fast retransmit sets
//!   cwnd = ssthresh (ns-3's classic recovery), a timeout cwnd = 1.
//!
//! Readings (ns-3's full TCP differs from ns-2's Sack1 in recovery details we keep ns-2's
//! for): ns-3 calls `PktsAcked(1)` for each duplicate ACK; here only ACKs that advance the
//! cumulative ACK feed `PktsAcked`, with the packets they cover (so DCTCP's per-window
//! fraction counts the packets of a recovery when the cumulative ACK jumps). The ACK of packet 0
//! feeds nothing: it is the SYN, or without a SYN ns-2's first packet, which is not ECT
//! and carries the ECN negotiation (its ACK echoes ECE). ns-3 does not lower ssthresh again on a second timeout
//! of the same packet; ns-2's Sack1 (kept) does.

use super::{CwndAction, TcpSender};
use crate::tcp::cc::{AckEvent, CongestionOps};
use crate::tcp::cubic::Cubic;
use crate::tcp::dctcp::Dctcp;
use crate::tcp::params::{TcpParams, Variant};
use crate::packet::{ecn, Packet};
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum Cc {
    /// ns-2's arithmetic (Tahoe, Reno, NewReno, Sack1).
    Ns2,
    Cubic(Cubic),
    Dctcp(Dctcp),
    /// A plug-in (`variant = "python"`) in ns-2's NewReno agent (`plugin_glue.rs`).
    Plugin(Box<super::plugin_glue::Ns2Plugin>),
}

impl Cc {
    pub fn new(p: &TcpParams) -> Cc {
        match p.variant {
            Variant::Cubic => Cc::Cubic(Cubic::new(
                p.cubic_beta,
                p.cubic_c,
                p.fast_convergence,
                p.tcp_friendliness,
                p.hystart,
            )),
            Variant::Dctcp => Cc::Dctcp(Dctcp::new(p.dctcp_g, p.dctcp_alpha_init)),
            _ => Cc::Ns2,
        }
    }
    #[inline(always)]
    pub fn is_ns2(&self) -> bool {
        matches!(self, Cc::Ns2)
    }
    /// A plug-in control (in ns-2's NewReno agent, `plugin_glue.rs`).
    #[inline(always)]
    pub fn is_plugin(&self) -> bool {
        matches!(self, Cc::Plugin(_))
    }
}

impl TcpSender {
    /// The CUBIC state, if this is a CUBIC sender.
    pub fn cubic(&self) -> Option<&Cubic> {
        match &self.cc {
            Cc::Cubic(c) => Some(c),
            _ => None,
        }
    }
    /// The DCTCP state, if this is a DCTCP sender.
    pub fn dctcp(&self) -> Option<&Dctcp> {
        match &self.cc {
            Cc::Dctcp(d) => Some(d),
            _ => None,
        }
    }

    #[inline(never)] // keeps the ns-2 callers small enough to inline
    pub(crate) fn recv_ack_cc(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let ece = ack.has(ecn::ECE);
        let acked = self.acked_for_cc(ack.seq);
        self.cc_acked = acked;
        let fresh = acked > 0 && ack.seq > 0;
        if fresh && self.p.ecn && self.ect && ece {
            self.ecn_response_cc(ack.seq);
        }
        if fresh {
            let rtt_ns = now.saturating_since(ack.t_sent).0;
            let ev = AckEvent { acked, ece, rtt_ns, ack_seq: ack.seq, max_sent: self.maxseq, next_seq: self.t_seqno, now };
            match &mut self.cc {
                Cc::Cubic(c) => CongestionOps::pkts_acked(c, self.cwnd, &mut self.ssthresh, &ev),
                Cc::Dctcp(d) => CongestionOps::pkts_acked(d, self.cwnd, &mut self.ssthresh, &ev),
                Cc::Ns2 | Cc::Plugin(_) => {}
            }
        }
        self.recv_sack(ack, now, out);
    }

    /// The packets an ACK of `seqno` reports to `PktsAcked` and `IncreaseWindow`: those it
    /// newly acknowledges, except after a retransmission timeout (ns-3's CA_LOSS, from the
    /// timeout until the cumulative ACK reaches `recover`, the highest packet sent before
    /// it): the ACK that reaches `recover` reports only the packets beyond it, as
    /// `TcpSocketBase::ProcessAck` does when it leaves CA_LOSS (segsAcked = ackNumber −
    /// m_recover). ACKs below `recover` report all they cover, as ns-3's do in CA_LOSS.
    /// Without this, the go-back-N ACK that jumps over the packets the receiver already
    /// held (often a whole window) is counted by CUBIC's byte-counting slow start, and cwnd
    /// goes from 1 to the old window in one ACK, which the sender sends as one burst.
    pub(crate) fn acked_for_cc(&self, seqno: i32) -> u32 {
        if seqno <= self.highest_ack {
            return 0;
        }
        let from = if self.in_timeout_recovery() && seqno >= self.recover {
            self.recover
        } else {
            self.highest_ack
        };
        (seqno - from) as u32
    }

    /// `EnterCwr`: once per window (the ACK must pass `recover`, as ns-2's ECN response).
    #[inline(never)] // keeps the ns-2 callers small enough to inline
    fn ecn_response_cc(&mut self, seqno: i32) {
        if !(seqno > self.recover || self.last_cwnd_action == CwndAction::Timeout) {
            return;
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Ecn;
        self.ssthresh = self.cc_ssthresh();
        // Reading: a reduction never raises cwnd (ssthresh has a floor of 2).
        self.cwnd = self.cwnd.min(self.ssthresh as f64);
        self.cong_action = true;
        self.stats.ecn_responses += 1;
    }

    /// `GetSsThresh`, for an ECN echo and for a loss alike (ns-3.37's TcpDctcp overrides it
    /// for losses too: (1 − α/2)·cwnd, no Linux Reno halving); both floor it at 2.
    fn cc_ssthresh(&mut self) -> i32 {
        match &mut self.cc {
            Cc::Cubic(c) => c.get_ssthresh(self.cwnd),
            Cc::Dctcp(d) => d.get_ssthresh(self.cwnd),
            Cc::Ns2 | Cc::Plugin(_) => unreachable!("ns-2 variants keep ns-2's ssthresh rules"),
        }
    }

    /// `IncreaseWindow` for the ACK being processed.
    #[inline(never)] // keeps the ns-2 callers small enough to inline
    pub(crate) fn opencwnd_cc(&mut self, now: SimTime) {
        if let Cc::Plugin(_) = self.cc {
            return self.opencwnd_plugin(now);
        }
        if self.last_cwnd_action == CwndAction::Ecn && self.highest_ack <= self.recover {
            return; // CA_CWR
        }
        // (only `acked`, `ack_seq`, `max_sent` and `now` are read here)
        let ev = AckEvent { acked: self.cc_acked, ece: false, rtt_ns: 0, ack_seq: self.highest_ack, max_sent: self.maxseq, next_seq: self.t_seqno, now };
        match &mut self.cc {
            Cc::Cubic(c) => CongestionOps::increase_window(c, &mut self.cwnd, self.ssthresh, &ev),
            Cc::Dctcp(d) => CongestionOps::increase_window(d, &mut self.cwnd, self.ssthresh, &ev),
            Cc::Ns2 | Cc::Plugin(_) => unreachable!("ns-2 variants use opencwnd"),
        }
    }

    /// `slowdown` with the congestion control's ssthresh (loss: fast retransmit, timeout).
    #[inline(never)] // keeps the ns-2 callers small enough to inline
    pub(crate) fn slowdown_cc(&mut self, how: u32) {
        if let Cc::Plugin(_) = self.cc {
            return self.slowdown_plugin(how);
        }
        if how & Self::CLOSE_SSTHRESH_HALF != 0 {
            self.ssthresh = self.cc_ssthresh();
        }
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
        if how & Self::CLOSE_CWND_HALF != 0 {
            self.cwnd = self.ssthresh as f64;
        } else if how & (Self::CLOSE_CWND_RESTART | Self::CLOSE_CWND_ONE) != 0 {
            self.cwnd = 1.0;
        }
        if how & (Self::CLOSE_CWND_HALF | Self::CLOSE_CWND_RESTART | Self::CLOSE_CWND_ONE) != 0 {
            self.cong_action = true;
        }
    }
}
