//! What the state monitor reads off a sender (`monitor.tcp_flows`).

use super::{CwndAction, TcpSender};
use crate::tcp::Variant;
use crate::monitor::tcp::{TcpRow, TcpState};

impl TcpSender {
    /// From a retransmission timeout until everything sent before it is acknowledged
    /// (ns-3's CA_LOSS): the monitor's `timeout` state, and what the CUBIC/DCTCP window
    /// arithmetic treats as loss recovery.
    #[inline]
    pub(crate) fn in_timeout_recovery(&self) -> bool {
        self.last_cwnd_action == CwndAction::Timeout && self.highest_ack < self.recover
    }

    /// The sender's phase. Timeout: the last window action was a retransmission timeout
    /// and not everything sent before it is acknowledged yet. Fast recovery: Reno and
    /// NewReno while the window is inflated by duplicate ACKs (`dupwnd_ > 0`), SACK while
    /// ns-2's `fastrecov_` is set (Tahoe has none: it goes back to slow start). Otherwise
    /// slow start below ssthresh, congestion avoidance from it.
    pub fn tcp_state(&self) -> TcpState {
        let in_fr = match self.p.variant {
            Variant::Reno | Variant::NewReno | Variant::Python => self.dupwnd > 0,
            v if v.uses_sack() => self.sack.fastrecov,
            _ => false, // Tahoe
        };
        if self.in_timeout_recovery() {
            TcpState::Timeout
        } else if in_fr {
            TcpState::FastRecovery
        } else if self.cwnd < self.ssthresh as f64 {
            TcpState::SlowStart
        } else {
            TcpState::CongestionAvoidance
        }
    }

    /// One row of the state series.
    pub fn snapshot(&self) -> TcpRow {
        TcpRow {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            srtt: self.rtt.srtt_secs(),
            rttvar: self.rtt.rttvar_secs(),
            rto: self.rtt.timeout(),
            outstanding: (self.t_seqno - self.highest_ack - 1).max(0),
            state: self.tcp_state(),
            pacing_rate: 0.0, // ns-2's agents do not pace
            bbr_bw: 0.0,
            bbr_min_rtt: 0.0,
        }
    }

    /// The RTT sample taken since the last call, if any, s.
    pub fn take_rtt_sample(&mut self) -> Option<f64> {
        let s = self.rtt_sample;
        self.rtt_sample = f64::NAN;
        (!s.is_nan()).then_some(s)
    }
}
