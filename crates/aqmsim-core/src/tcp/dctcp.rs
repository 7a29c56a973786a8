//! DCTCP congestion control (RFC 8257), as ns-3.37's `TcpDctcp` (a `TcpLinuxReno`).
//!
//! Sender side only (the receiver's exact CE echo is in `sink.rs`; the glue in `sender/cc_glue.rs`):
//! - α starts at `dctcp_alpha_init` (1) and is updated once per window of data
//!   (`PktsAcked`: when the cumulative ACK passes the `next_seq` recorded at the last
//!   update): α ← (1 − g)·α + g·M, M = marked / acked packets of that window (ns-3 counts
//!   bytes; every data packet of a flow has the same size, so the fraction is the same);
//!   an ACK's packets count as marked when the ACK carries ECE (ns-3's `ECN_ECE_RCVD`);
//! - on ECE, at most once per window (ns-3 `EnterCwr`, RFC 8257 §3.3 step 9):
//!   ssthresh = ⌊(1 − α/2)·cwnd⌋, cwnd = ssthresh, using the α before this ACK's update
//!   (ns-3 handles ECE before `PktsAcked`);
//! - growth as `TcpLinuxReno`: slow start +1 per ACKed packet capped at ssthresh,
//!   the rest to congestion avoidance (+1 after cwnd ACKed packets); a loss takes the same
//!   ssthresh as ECE, ⌊(1 − α/2)·cwnd⌋ (ns-3.37's `TcpDctcp::GetSsThresh` serves every
//!   caller; not Linux Reno's halving).
//!
//! Readings: aqmsim counts whole packets, so ns-3's byte values are floored to packets
//! (ns-3's ⌊(1 − α/2)·cwnd⌋ bytes can leave a fraction of a segment that it sends only once
//! it adds up to one); ssthresh is kept ≥ 2 packets as Linux's `dctcp_ssthresh` (ns-3.37 has
//! no floor) and an ECN reduction never raises cwnd.

use super::cc::{seg, AckEvent, CongestionOps};

#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    /// Gain g (`DctcpShiftG`, 1/16).
    pub g: f64,
    /// α, the estimate of the fraction of marked packets.
    pub alpha: f64,
    /// Packets ACKed with ECE and in all, this window.
    pub acked_ecn: u64,
    pub acked_total: u64,
    /// α is next updated when the cumulative ACK covers every packet before this one
    /// (ns-3 `m_nextSeq`, the next sequence to send at the last update; None until the
    /// first ACK, `m_nextSeqFlag`).
    pub next_seq: Option<i32>,
    /// TcpLinuxReno's `m_cWndCnt`.
    pub cwnd_cnt: u32,
}

impl CongestionOps for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    #[inline]
    fn pkts_acked(&mut self, _cwnd: f64, _ssthresh: &mut i32, ev: &AckEvent) {
        Dctcp::pkts_acked(self, ev.acked, ev.ece, ev.ack_seq, ev.next_seq);
    }
    #[inline]
    fn increase_window(&mut self, cwnd: &mut f64, ssthresh: i32, ev: &AckEvent) {
        Dctcp::increase_window(self, cwnd, ssthresh, ev.acked)
    }
    #[inline]
    fn get_ssthresh(&mut self, cwnd: f64) -> i32 {
        Dctcp::ssthresh(self, cwnd)
    }
}

impl Dctcp {
    pub fn new(g: f64, alpha_init: f64) -> Dctcp {
        Dctcp {
            g,
            alpha: alpha_init,
            acked_ecn: 0,
            acked_total: 0,
            next_seq: None,
            cwnd_cnt: 0,
        }
    }

    /// `PktsAcked`: `acked` packets newly ACKed by the ACK of `ack_seq`; `t_seqno` is the
    /// next packet to send. Returns whether α was updated.
    pub fn pkts_acked(&mut self, acked: u32, ece: bool, ack_seq: i32, t_seqno: i32) -> bool {
        self.acked_total += acked as u64;
        if ece {
            self.acked_ecn += acked as u64;
        }
        let next = *self.next_seq.get_or_insert(t_seqno);
        // ns-3: lastAckedSeq (next byte expected) ≥ nextSeq ⇔ packet next−1 is ACKed.
        if ack_seq >= next - 1 {
            let m = if self.acked_total > 0 {
                self.acked_ecn as f64 / self.acked_total as f64
            } else {
                0.0
            };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
            self.next_seq = Some(t_seqno);
            self.acked_ecn = 0;
            self.acked_total = 0;
            return true;
        }
        false
    }

    /// `GetSsThresh`: on entering CWR (an ECE) and on a loss (fast retransmit, timeout) —
    /// ns-3.37's `TcpDctcp` overrides `TcpLinuxReno::GetSsThresh` for every caller, so a
    /// loss cuts by α/2 as a mark does (Linux's `dctcp_ssthresh` likewise serves fast
    /// recovery).
    pub fn ssthresh(&self, cwnd: f64) -> i32 {
        (((1.0 - self.alpha / 2.0) * cwnd) as i32).max(2)
    }

    /// `TcpLinuxReno::IncreaseWindow`.
    pub fn increase_window(&mut self, cwnd: &mut f64, ssthresh: i32, acked: u32) {
        if *cwnd < ssthresh as f64 {
            // SlowStart: cwnd = min(cwnd + acked, ssthresh). ns-3 returns the packets left
            // over, but IncreaseWindow's if/else drops them: CongestionAvoidance only runs
            // when cwnd ≥ ssthresh on entry.
            *cwnd = (*cwnd + acked as f64).min(ssthresh as f64);
            return;
        }
        // CongestionAvoidance, w = ⌊cwnd⌋ ≥ 1.
        let w = seg(*cwnd).max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            *cwnd += 1.0;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            *cwnd += delta as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8257 §3.3 by hand: every window of 4 packets has 1 marked. α_n = 0.25 +
    /// 0.75·(15/16)^n exactly (the recursion α ← (15/16)α + (1/16)·0.25 from α_0 = 1).
    #[test]
    fn alpha_one_in_four_marked() {
        let mut d = Dctcp::new(1.0 / 16.0, 1.0);
        // The first ACK records next_seq = 4 (the initial window, packets 0..3). After
        // that the sender keeps 5 packets out, so when the ACK of k arrives (before
        // anything new is sent) the next packet to send is k + 5 and each α window spans
        // 4 ACKs (ns-3 records m_nextSeq before sending on the ACK that updates α).
        let mut ack = -1;
        let mut alphas = Vec::new();
        for w in 0..40 {
            for i in 0..4 {
                ack += 1;
                let ece = i == 2;
                let t_seqno = if ack == 0 { 4 } else { ack + 5 };
                let upd = d.pkts_acked(1, ece, ack, t_seqno);
                assert_eq!(upd, i == 3, "window {w} ack {i}: one update per window");
            }
            alphas.push(d.alpha);
        }
        let mut expect = 1.0f64;
        for (n, &a) in alphas.iter().enumerate() {
            expect = (15.0 / 16.0) * expect + (1.0 / 16.0) * 0.25;
            assert!((a - expect).abs() < 1e-15, "window {n}: {a} vs {expect}");
            let closed = 0.25 + 0.75 * (15.0f64 / 16.0).powi(n as i32 + 1);
            assert!((a - closed).abs() < 1e-12);
        }
        assert_eq!(alphas[0], 0.953125);
        assert_eq!(alphas[1], 0.9091796875);
        assert!(
            (alphas[39] - 0.25).abs() < 0.06,
            "converges toward 0.25: {}",
            alphas[39]
        );
    }

    #[test]
    fn reductions_and_linux_reno_growth() {
        let d = Dctcp::new(1.0 / 16.0, 1.0);
        assert_eq!(d.ssthresh(20.0), 10, "α = 1 halves");
        let d = Dctcp { alpha: 0.25, ..d };
        assert_eq!(d.ssthresh(20.0), 17, "⌊(1 − 0.125)·20⌋");
        assert_eq!(Dctcp::new(0.0625, 0.0).ssthresh(1.0), 2, "floor 2");
        // Slow start capped at ssthresh; CA +1 per cwnd ACKed packets.
        let mut d = Dctcp::new(0.0625, 1.0);
        let mut cwnd = 9.0;
        d.increase_window(&mut cwnd, 10, 2);
        assert_eq!(cwnd, 10.0);
        for _ in 0..9 {
            d.increase_window(&mut cwnd, 10, 1);
        }
        assert_eq!(cwnd, 10.0);
        d.increase_window(&mut cwnd, 10, 1);
        assert_eq!(cwnd, 11.0, "10 ACKed packets at w = 10");
    }
}
