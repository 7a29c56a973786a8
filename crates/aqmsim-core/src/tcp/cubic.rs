//! CUBIC congestion control, as ns-3.37's `TcpCubic` computes it (Linux `bictcp` style).
//!
//! Only the arithmetic lives here (`IncreaseWindow`, `Update`, `PktsAcked`, HyStart,
//! `GetSsThresh`, `CongestionStateSet(CA_LOSS)`); loss recovery is the Sack1 machinery of
//! `sender/sack1.rs` and the glue is in `sender/cc_glue.rs` (behind `cc::CongestionOps`).
//!
//! Window units: ns-3 keeps cwnd in bytes and converts with `GetCwndInSegments()` =
//! ⌊cwnd / segmentSize⌋; aqmsim counts packets, so a CUBIC sender's `cwnd` is a whole
//! number of packets and `seg_cwnd` = ⌊cwnd⌋. ns-3 only ever changes a CUBIC cwnd by whole
//! segments (slow start adds `segmentsAcked · segmentSize`, CA one segment, loss sets it to
//! `max(⌊segCwnd·β⌋, 2)` segments), so the two are the same numbers.
//!
//! Where ns-3.37 differs from RFC 9438 we follow ns-3.37:
//! - no TCP-friendly (Reno-friendly) region in 3.37: `tcp_friendliness = false` agrees with
//!   it; the default is true, RFC 9438's CUBIC (and Linux's): the region is computed as later ns-3 (≥ 3.40) and Linux do (`ack_cnt`,
//!   `tcp_cwnd`, `scale = 8(1+β)/3/(1−β)` in 1/1024 fixed point) — RFC 9438 §4.3 states
//!   W_est with α = 3(1−β)/(1+β) per RTT; Linux's per-ACK version is the same rate;
//! - t is `now + delay_min − epoch_start` (Linux's "one RTT ahead"), not RFC's `now − epoch`;
//! - K = ∛((W_lastmax − cwnd_epoch)/C) from the window at the epoch start (RFC: W_max(1−β)/C,
//!   equal when the epoch starts right after the reduction);
//! - the target is integer (`delta` truncated to whole packets) and the increase is 1 packet
//!   after `cnt` ACKed packets, `cnt = ⌊cwnd/(target − cwnd)⌋ ≥ 2` (at most 1.5× per RTT),
//!   `cnt = 100·cwnd` when at or above target, and `cnt ≤ CntClamp (20)` until the first
//!   loss (W_lastmax = 0);
//! - fast convergence: W_lastmax = ⌊cwnd(1+β)/2⌋ (RFC 9438 §4.7 same formula);
//! - ssthresh on loss = max(⌊cwnd·β⌋, 2) and cwnd = ssthresh;
//! - HyStart (on by default, as ns-3 and Linux): ns-3.37's `HystartUpdate`, whose delay
//!   threshold is delay_min + clamp(delay_min, 4 ms, 1 s) (Linux: delay_min/8 clamped) and
//!   whose ACK-train test compares the train length with delay_min (Linux: delay_min/2);
//!   both detectors on (`HyStartDetect` 3); exit sets ssthresh = cwnd;
//! - slow start adds every ACKed packet (RFC 3465 byte counting, ns-3's QUICKACK stand-in)
//!   and is not capped at ssthresh; the ACK that ends slow start does not count for CA;
//! - after a retransmission timeout W_lastmax, K, delay_min and HyStart are reset
//!   (`CubicReset`), so the next epoch is Reno-like (cnt ≤ 20) until the next loss.

use super::cc::{seg, AckEvent, CongestionOps};
use crate::time::SimTime;

/// ns-3.37 `TcpCubic` attributes not exposed as scenario fields (their defaults).
pub const HYSTART_LOW_WINDOW: f64 = 16.0;
pub const HYSTART_MIN_SAMPLES: u32 = 8;
pub const HYSTART_ACK_DELTA_NS: u64 = 2_000_000;
pub const HYSTART_DELAY_MIN_NS: u64 = 4_000_000;
pub const HYSTART_DELAY_MAX_NS: u64 = 1_000_000_000;
/// `CubicDelta`: delay samples are discarded this long after an epoch starts.
pub const CUBIC_DELTA_NS: u64 = 10_000_000;
/// `CntClamp`.
pub const CNT_CLAMP: u32 = 20;

#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    pub beta: f64,
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    /// ACKed packets not yet turned into an increase (`m_cWndCnt`).
    pub cwnd_cnt: u32,
    /// W_lastmax, packets (`m_lastMaxCwnd`).
    pub last_max_cwnd: u32,
    /// Origin point, packets (`m_bicOriginPoint`).
    pub origin: u32,
    /// K, s (`m_bicK`).
    pub k: f64,
    /// Minimum RTT seen, ns (`m_delayMin`; None = `Time::Min()`).
    pub delay_min: Option<u64>,
    /// Start of the current epoch, ns (None = no epoch).
    pub epoch_start: Option<u64>,
    // HyStart
    pub found: bool,
    round_start: Option<u64>,
    /// The round ends when this packet is acknowledged (`m_endSeq`, as the highest packet
    /// sent when the round started: ns-3 compares `lastAckedSeq > highTxMark`).
    end_seq: i32,
    last_ack: Option<u64>,
    curr_rtt: Option<u64>,
    sample_cnt: u32,
    // TCP-friendly region (ns-3 ≥ 3.40 / Linux)
    ack_cnt: u32,
    tcp_cwnd: u32,
    /// Linux's `beta_scale`, 8(1+β)/3/(1−β) in 1/1024 fixed point (β is fixed at creation).
    friendly_scale: u32,
    /// The last `cnt` computed (for tests and the monitor).
    pub last_cnt: u32,
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    #[inline]
    fn pkts_acked(&mut self, cwnd: f64, ssthresh: &mut i32, ev: &AckEvent) {
        Cubic::pkts_acked(self, cwnd, ssthresh, ev.rtt_ns, ev.now)
    }
    #[inline]
    fn increase_window(&mut self, cwnd: &mut f64, ssthresh: i32, ev: &AckEvent) {
        Cubic::increase_window(self, cwnd, ssthresh, ev.acked, ev.ack_seq, ev.max_sent, ev.now)
    }
    #[inline]
    fn get_ssthresh(&mut self, cwnd: f64) -> i32 {
        Cubic::ssthresh(self, seg(cwnd)) as i32
    }
    #[inline]
    fn on_rto(&mut self, now: SimTime, max_sent: i32) {
        Cubic::on_rto(self, now, max_sent)
    }
}

impl Cubic {
    pub fn new(
        beta: f64,
        c: f64,
        fast_convergence: bool,
        tcp_friendliness: bool,
        hystart: bool,
    ) -> Cubic {
        Cubic {
            beta,
            c,
            fast_convergence,
            tcp_friendliness,
            hystart,
            cwnd_cnt: 0,
            last_max_cwnd: 0,
            origin: 0,
            k: 0.0,
            delay_min: None,
            epoch_start: None,
            found: false,
            round_start: None,
            end_seq: 0,
            last_ack: None,
            curr_rtt: None,
            sample_cnt: 0,
            friendly_scale: (8.0 * (1024.0 + beta * 1024.0) / 3.0 / (1024.0 - beta * 1024.0)) as u32,
            ack_cnt: 0,
            tcp_cwnd: 0,
            last_cnt: 0,
        }
    }

    /// `HystartReset`: a new round of slow start begins.
    fn hystart_reset(&mut self, now: u64, maxseq: i32) {
        self.round_start = Some(now);
        self.last_ack = Some(now);
        self.end_seq = maxseq;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// `IncreaseWindow`: `acked` packets were newly acknowledged by the ACK of `ack_seq`.
    pub fn increase_window(
        &mut self,
        cwnd: &mut f64,
        ssthresh: i32,
        acked: u32,
        ack_seq: i32,
        maxseq: i32,
        now: SimTime,
    ) {
        let mut acked = acked;
        if *cwnd < ssthresh as f64 {
            if self.hystart && ack_seq > self.end_seq {
                self.hystart_reset(now.0, maxseq);
            }
            *cwnd += acked as f64;
            acked = 0;
        }
        if *cwnd >= ssthresh as f64 && acked > 0 {
            self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
            let cnt = self.update(seg(*cwnd), acked, now.0);
            if self.cwnd_cnt >= cnt {
                *cwnd += 1.0;
                self.cwnd_cnt -= cnt;
            }
        }
    }

    /// `Update`: packets to ACK per one-packet increase.
    pub fn update(&mut self, seg_cwnd: u32, acked: u32, now: u64) -> u32 {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = seg_cwnd;
                if self.last_max_cwnd <= seg_cwnd {
                    self.k = 0.0;
                    self.origin = seg_cwnd;
                } else {
                    // std::pow(x, 1/3.) as ns-3 (not cbrt: the last bit can differ).
                    self.k = ((self.last_max_cwnd - seg_cwnd) as f64 / self.c).powf(1.0 / 3.0);
                    self.origin = self.last_max_cwnd;
                }
                now
            }
        };
        // Reading: with no delay sample yet (ns-3: Time::Min(), which would make t hugely
        // negative) we add nothing; in ns-3 PktsAcked always sets it before this runs.
        let t_ns = now as i128 + self.delay_min.unwrap_or(0) as i128 - epoch as i128;
        let t = t_ns as f64 / 1e9;
        let offs = if t < self.k { self.k - t } else { t - self.k };
        // uint32 delta = m_c * pow(offs, 3): truncation (saturating here, UB in C++).
        let delta = (self.c * offs.powf(3.0)) as u32;
        let target = if t < self.k {
            self.origin.wrapping_sub(delta)
        } else {
            self.origin.wrapping_add(delta)
        };
        let mut cnt = if target > seg_cwnd {
            seg_cwnd / (target - seg_cwnd)
        } else {
            seg_cwnd.saturating_mul(100)
        };
        if self.last_max_cwnd == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        if self.tcp_friendliness {
            // Reading: ≥ 1 so that a small β (scale < 8) cannot loop forever.
            let d = ((seg_cwnd as u64 * self.friendly_scale as u64) >> 3).max(1) as u32;
            while self.ack_cnt > d {
                self.ack_cnt -= d;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > seg_cwnd {
                let max_cnt = seg_cwnd / (self.tcp_cwnd - seg_cwnd);
                cnt = cnt.min(max_cnt);
            }
        }
        self.last_cnt = cnt.max(2);
        self.last_cnt
    }

    /// `PktsAcked`: an RTT sample `rtt` ns arrived with an ACK of new data.
    pub fn pkts_acked(&mut self, cwnd: f64, ssthresh: &mut i32, rtt: u64, now: SimTime) {
        let now = now.0;
        if let Some(e) = self.epoch_start {
            if now.saturating_sub(e) < CUBIC_DELTA_NS {
                return;
            }
        }
        if self.delay_min.is_none_or(|d| d > rtt) {
            self.delay_min = Some(rtt);
        }
        if self.hystart && cwnd <= *ssthresh as f64 && cwnd >= HYSTART_LOW_WINDOW {
            self.hystart_update(cwnd, ssthresh, rtt, now);
        }
    }

    /// `HystartUpdate` (detection mode 3: ACK train and delay).
    fn hystart_update(&mut self, cwnd: f64, ssthresh: &mut i32, delay: u64, now: u64) {
        if self.found {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        if let Some(la) = self.last_ack {
            if now.saturating_sub(la) <= HYSTART_ACK_DELTA_NS {
                self.last_ack = Some(now);
                if self
                    .round_start
                    .is_some_and(|rs| now.saturating_sub(rs) > delay_min)
                {
                    self.found = true;
                }
            }
        }
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            if self.curr_rtt.is_none_or(|c| c > delay) {
                self.curr_rtt = Some(delay);
            }
            self.sample_cnt += 1;
        } else if self.curr_rtt.is_some_and(|c| {
            c > delay_min + delay_min.clamp(HYSTART_DELAY_MIN_NS, HYSTART_DELAY_MAX_NS)
        }) {
            self.found = true;
        }
        if self.found {
            *ssthresh = seg(cwnd) as i32;
        }
    }

    /// `GetSsThresh`: a loss or ECN reduction at `seg_cwnd` packets. Ends the epoch.
    pub fn ssthresh(&mut self, seg_cwnd: u32) -> u32 {
        if seg_cwnd < self.last_max_cwnd && self.fast_convergence {
            self.last_max_cwnd = (seg_cwnd as f64 * (1.0 + self.beta) / 2.0) as u32;
        } else {
            self.last_max_cwnd = seg_cwnd;
        }
        self.epoch_start = None;
        ((seg_cwnd as f64 * self.beta) as u32).max(2)
    }

    /// `CongestionStateSet(CA_LOSS)` (a retransmission timeout): `CubicReset` and
    /// `HystartReset`. ns-3 calls it after `GetSsThresh`.
    pub fn on_rto(&mut self, now: SimTime, maxseq: i32) {
        self.last_max_cwnd = 0;
        self.origin = 0;
        self.k = 0.0;
        self.delay_min = None;
        self.found = false;
        self.hystart_reset(now.0, maxseq);
    }
}

