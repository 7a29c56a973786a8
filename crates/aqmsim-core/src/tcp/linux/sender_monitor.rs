//! The linux sender's rows of the state series (`monitor.tcp_flows`) and its RTT samples
//! (moved out of `sender.rs` to keep it under 500 lines).

use super::sender::{CongState, LinuxSender};

impl LinuxSender {
    /// One row of the state series (`monitor.tcp_flows`): cwnd and ssthresh in segments
    /// (bytes / MSS: cwnd exact, ssthresh rounded down), `outstanding` in segments, the
    /// pacing rate in bit/s (0 without pacing; before the first RTT sample ns-3's
    /// `MaxPacingRate`, which the initial window does not use), BBR's model (0 for others).
    pub fn snapshot(&self) -> crate::monitor::tcp::TcpRow {
        use crate::monitor::tcp::{TcpRow, TcpState};
        let mss = self.tcb.mss as f64;
        let state = match self.state {
            CongState::Loss => TcpState::Timeout,
            CongState::Recovery | CongState::Cwr => TcpState::FastRecovery,
            _ if self.tcb.cwnd < self.tcb.ssthresh => TcpState::SlowStart,
            _ => TcpState::CongestionAvoidance,
        };
        let (bbr_bw, bbr_min_rtt) = self.cc.model().unwrap_or((0.0, 0.0));
        TcpRow {
            cwnd: self.tcb.cwnd as f64 / mss,
            ssthresh: (self.tcb.ssthresh as f64 / mss).min(i32::MAX as f64) as i32,
            srtt: self.rtt.srtt as f64 * 1e-9,
            rttvar: self.rtt.rttvar as f64 * 1e-9,
            rto: self.rto_ns as f64 * 1e-9,
            outstanding: self.sb.outstanding() as i32,
            state,
            pacing_rate: if self.pacer.on { self.pacer.rate_bps as f64 } else { 0.0 },
            bbr_bw,
            bbr_min_rtt,
        }
    }

    /// The RTT sample taken since the last call, if any, s.
    pub fn take_rtt_sample(&mut self) -> Option<f64> {
        let s = self.rtt_sample;
        self.rtt_sample = f64::NAN;
        (!s.is_nan()).then_some(s)
    }
}
