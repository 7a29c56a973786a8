//! DCTCP as ns-3.37's `TcpDctcp` runs it (RFC 8257): g = 1/16 (`DctcpShiftG`), α₀ = 1
//! (`DctcpAlphaOnInit`), ECT(0) on every packet, and Linux Reno's window growth
//! (`TcpLinuxReno`, its parent). Windows in bytes with no floor and no rounding:
//!
//! * α is updated once per window of data: when the cumulative ACK reaches the HighData
//!   recorded at the last update, α ← (1 − g)·α + g·M, M the fraction of the bytes
//!   acknowledged since then by ACKs that arrived while the sender was in ECN state
//!   "ECE received" (`PktsAcked` counts segments × MSS);
//! * ssthresh = ⌊(1 − α/2) · cwnd⌋ bytes (no 2-MSS floor), taken on entering CWR (once per
//!   window, the stack's `ecn.rs`) and reached through PRR, as for loss;
//! * slow start: cwnd = min(cwnd + segments × MSS, ssthresh); avoidance: one MSS per cwnd
//!   (in whole segments) acknowledged segments, counted across ACKs.
//!
//! The receiver's side (echo CE exactly; an ACK at once when the CE state changes, the
//! delayed one of the earlier state first) is the shared sink's `dctcp` mode.

use super::cc::{CongestionOps, Tcb};

#[derive(Clone, Debug)]
pub struct Dctcp {
    pub g: f64,
    pub alpha: f64,
    acked_total: u32,
    acked_ecn: u32,
    next_seq: i32,
    next_seq_set: bool,
    cwnd_cnt: u32,
}

impl Dctcp {
    pub fn new(g: f64, alpha_init: f64) -> Dctcp {
        Dctcp { g, alpha: alpha_init, acked_total: 0, acked_ecn: 0, next_seq: 0, next_seq_set: false, cwnd_cnt: 0 }
    }

    /// `TcpLinuxReno::SlowStart`: the segments left for avoidance.
    fn slow_start(t: &mut Tcb, segs: u32) -> u32 {
        if segs == 0 {
            return 0;
        }
        let before = t.cwnd;
        t.cwnd = before.wrapping_add(segs.wrapping_mul(t.mss)).min(t.ssthresh);
        segs.wrapping_sub((t.cwnd - before) / t.mss)
    }

    /// `TcpLinuxReno::CongestionAvoidance`.
    fn congestion_avoidance(&mut self, t: &mut Tcb, segs: u32) {
        let w = (t.cwnd / t.mss).max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            t.cwnd += t.mss;
        }
        self.cwnd_cnt = self.cwnd_cnt.wrapping_add(segs);
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            t.cwnd += delta * t.mss;
        }
    }
}

impl CongestionOps for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn ssthresh(&mut self, t: &Tcb, _bytes_in_flight: u32) -> u32 {
        ((1.0 - self.alpha / 2.0) * t.cwnd as f64) as u32
    }

    fn increase_window(&mut self, t: &mut Tcb, segs_acked: u32) {
        if t.cwnd < t.ssthresh {
            Self::slow_start(t, segs_acked);
        } else {
            self.congestion_avoidance(t, segs_acked);
        }
    }

    fn pkts_acked(&mut self, t: &mut Tcb, segs_acked: u32) {
        let bytes = segs_acked.wrapping_mul(t.mss);
        self.acked_total = self.acked_total.wrapping_add(bytes);
        if t.ece_rcvd {
            self.acked_ecn = self.acked_ecn.wrapping_add(bytes);
        }
        if !self.next_seq_set {
            self.next_seq = t.high_tx;
            self.next_seq_set = true;
        }
        if t.last_acked >= self.next_seq {
            let m = if self.acked_total > 0 { self.acked_ecn as f64 / self.acked_total as f64 } else { 0.0 };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
            self.next_seq = t.high_tx;
            self.acked_ecn = 0;
            self.acked_total = 0;
        }
    }

    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssthresh_is_bytes_with_no_floor() {
        let mut d = Dctcp::new(0.0625, 1.0);
        // α = 1: half the window, in bytes, below 2 MSS if the window is
        assert_eq!(d.ssthresh(&Tcb::new(3_000, u32::MAX, 1000), 0), 1_500);
        d.alpha = 0.1;
        assert_eq!(d.ssthresh(&Tcb::new(10_000, u32::MAX, 1000), 0), 9_500);
    }

    #[test]
    fn alpha_moves_once_per_window_by_the_marked_fraction() {
        let mut d = Dctcp::new(0.0625, 1.0);
        let mut t = Tcb::new(10_000, u32::MAX, 1000);
        t.high_tx = 10;
        t.last_acked = 2;
        d.pkts_acked(&mut t, 2); // records the window's end (10)
        assert_eq!(d.alpha, 1.0);
        t.ece_rcvd = true;
        for ack in [4, 6] {
            t.last_acked = ack;
            d.pkts_acked(&mut t, 2);
        }
        t.ece_rcvd = false;
        for ack in [8, 10] {
            t.last_acked = ack;
            d.pkts_acked(&mut t, 2);
        }
        // 4 of 10 segments' bytes echoed: α = 15/16 + 1/16 · 0.4
        assert!((d.alpha - (0.9375 + 0.0625 * 0.4)).abs() < 1e-12);
    }

    #[test]
    fn linux_reno_growth() {
        let mut d = Dctcp::new(0.0625, 1.0);
        let mut t = Tcb::new(10_000, 11_000, 1000);
        d.increase_window(&mut t, 2); // slow start stops at ssthresh
        assert_eq!(t.cwnd, 11_000);
        for _ in 0..5 {
            d.increase_window(&mut t, 2);
        }
        assert_eq!(t.cwnd, 11_000);
        d.increase_window(&mut t, 2); // 12 segments acknowledged ≥ 11
        assert_eq!(t.cwnd, 12_000);
    }
}
