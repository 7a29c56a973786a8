//! The congestion-control interface of the Linux/ns-3 sender (ns-3.37's
//! `TcpCongestionOps`): one implementation per file, windows in bytes.

/// What a congestion control reads and writes: windows in bytes.
#[derive(Clone, Debug)]
pub struct Tcb {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub mss: u32,
    /// What ns-3's `TcpSocketState` also shows a congestion control: the time of the ACK
    /// (ns), the cumulative ACK (`m_lastAckedSeq`) and HighData (`m_highTxMark`) as segment
    /// numbers, and the smoothed RTT (`m_lastRtt`, ns; 0 before the first sample).
    pub now_ns: i64,
    pub last_acked: i32,
    pub high_tx: i32,
    pub last_rtt_ns: i64,
    /// The sender's ECN state is "ECE received" (ns-3 `ECN_ECE_RCVD`), for DCTCP.
    pub ece_rcvd: bool,
    /// The timestamp option of the latest ACK (`timestamps = true`; ns-3
    /// `m_rcvTimestampValue`, `m_rcvTimestampEchoReply`), ms; 0 without one.
    pub ts_val: u32,
    pub ts_ecr: u32,
    /// Segments newly delivered (ACKed or SACKed) by the latest ACK, and of those the ones
    /// AccECN reports CE-marked (`accecn.rs`; 0 without AccECN feedback).
    pub delivered: u32,
    pub delivered_ce: u32,
}

impl Tcb {
    pub fn new(cwnd: u32, ssthresh: u32, mss: u32) -> Tcb {
        Tcb { cwnd, ssthresh, mss, now_ns: 0, last_acked: 0, high_tx: 0, last_rtt_ns: 0, ece_rcvd: false, ts_val: 0, ts_ecr: 0, delivered: 0, delivered_ce: 0 }
    }
}

pub trait CongestionOps: std::fmt::Debug + Send {
    fn name(&self) -> &'static str;
    /// The slow-start threshold after a congestion event with `bytes_in_flight` in flight
    /// (SACKed and lost bytes excluded, retransmissions included).
    fn ssthresh(&mut self, t: &Tcb, bytes_in_flight: u32) -> u32;
    /// Grow the window on an ACK that acknowledged `segs_acked` segments (in Open).
    fn increase_window(&mut self, t: &mut Tcb, segs_acked: u32);
    /// ns-3's `PktsAcked`: an ACK acknowledged `segs_acked` segments (RTT in `t`).
    fn pkts_acked(&mut self, _t: &mut Tcb, _segs_acked: u32) {}
    /// ns-3's `CongestionStateSet(CA_LOSS)`: the retransmission timer fired.
    fn on_loss_state(&mut self, _t: &Tcb) {}
    fn clone_box(&self) -> Box<dyn CongestionOps>;
    /// The congestion control sets cwnd and the pacing rate itself after every ACK (ns-3's
    /// `HasCongControl`, Linux's `cong_control`: BBR v1 and v3). Then the socket's
    /// cwnd/srtt pacing rule (`pacing.rs`) is not applied and no recovery algorithm (PRR)
    /// runs — ns-3.37 guards every `m_recoveryOps` call so, and Linux calls
    /// `tcp_cwnd_reduction` only without `cong_control`: the control sets cwnd on entering
    /// recovery (`recovery_entry`) and on every ACK (`cong_control`) alone.
    fn sets_pacing_rate(&self) -> bool {
        false
    }
    /// Entering fast recovery (a no-op unless `sets_pacing_rate`): `in_flight` bytes (ns-3's
    /// `m_bytesInFlight` of this ACK), `delivered` bytes newly ACKed or SACKed by it.
    fn recovery_entry(&mut self, _t: &mut Tcb, _in_flight: u32, _delivered: u32) {}
    /// The sender enters CWR on an ECN echo (ecn.rs), after ssthresh is set: Linux's
    /// `set_state(TCP_CA_CWR)` (TCP Prague reduces its window here).
    fn enter_cwr(&mut self, _t: &mut Tcb) {}
    /// ns-3 `CongestionStateSet` (Recovery, Loss) and `CwndEvent(CA_EVENT_COMPLETE_CWR)`.
    fn on_event(&mut self, _t: &mut Tcb, _ev: CcEvent) {}
    /// ns-3 `CongControl` after each ACK (only when `sets_pacing_rate`): may set cwnd;
    /// returns the pacing rate, bit/s.
    /// The handshake is done (modelled when `syn_rtt` gives its RTT): ns-3's
    /// `CongestionStateSet(CA_OPEN)`; a pacing rate to set, if the control sets it.
    fn established(&mut self, _t: &mut Tcb, _x: &super::rate::CongCtlIn) -> Option<f64> {
        None
    }
    fn cong_control(&mut self, _t: &mut Tcb, _x: &super::rate::CongCtlIn) -> Option<f64> {
        None
    }
    /// Rate samples restart on every ACK (draft-ietf-ccwg-bbr, BBR v3), not ns-3's
    /// `TcpRateLinux` sample that keeps its start across ACKs (`rate.rs`).
    /// A pacing rate (bit/s) that replaces the socket's cwnd/srtt rule after each ACK (a
    /// plug-in that sets `pacing_rate`, `plugin_ops.rs`); None for every built-in control.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    fn per_ack_rate_sample(&self) -> bool {
        false
    }
    /// Mark the connection app-limited after this ACK (BBR v3 in ProbeRTT): the rate
    /// samples of what is sent now do not lower the bandwidth estimate.
    fn mark_app_limited(&self) -> bool {
        false
    }
    /// BBR's path model, for the TCP table (`bbr_bw`, `bbr_min_rtt`): its bandwidth
    /// estimate (bit/s) and minimum RTT (s, 0 before the first sample); None for a
    /// control that keeps none.
    fn model(&self) -> Option<(f64, f64)> {
        None
    }
    /// BBR's mode changes: (time ns, mode number: 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT).
    fn mode_changes(&self) -> Vec<(u64, u8)> {
        Vec::new()
    }
    /// TCP Prague's Classic ECN AQM detector, when it runs (`prague_ecn_fallback` 1 or 2):
    /// the rounds it scored and those that ended past the L4S region.
    fn classic_ecn_rounds(&self) -> Option<(u64, u64)> {
        None
    }
}

/// Congestion-state changes a congestion control hears of (`on_event`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CcEvent {
    Recovery,
    Loss,
    CompleteCwr,
}

impl Clone for Box<dyn CongestionOps> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// NewReno (RFC 5681 with RFC 3465 L = 1 SMSS), as ns-3.37's `TcpNewReno`.
#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl NewReno {
    /// Slow start: one SMSS per ACK that acknowledges at least one segment, whatever
    /// their number (appropriate byte counting with L = 1 SMSS). Returns the segments
    /// left over for congestion avoidance.
    pub(super) fn slow_start(t: &mut Tcb, segs_acked: u32) -> u32 {
        if segs_acked >= 1 {
            t.cwnd = t.cwnd.saturating_add(t.mss);
            segs_acked - 1
        } else {
            0
        }
    }

    /// Congestion avoidance: max(1, ⌊SMSS²/cwnd⌋) bytes per ACK that acknowledges
    /// anything (not per segment: ns-3's rule).
    pub(super) fn congestion_avoidance(t: &mut Tcb, segs_acked: u32) {
        if segs_acked > 0 {
            let adder = ((t.mss as f64 * t.mss as f64) / t.cwnd as f64).max(1.0);
            t.cwnd = t.cwnd.saturating_add(adder as u32);
        }
    }
}

impl CongestionOps for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn ssthresh(&mut self, t: &Tcb, bytes_in_flight: u32) -> u32 {
        (2 * t.mss).max(bytes_in_flight / 2)
    }
    fn increase_window(&mut self, t: &mut Tcb, mut segs_acked: u32) {
        if t.cwnd < t.ssthresh {
            segs_acked = Self::slow_start(t, segs_acked);
        }
        if t.cwnd >= t.ssthresh {
            Self::congestion_avoidance(t, segs_acked);
        }
    }
    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
}
