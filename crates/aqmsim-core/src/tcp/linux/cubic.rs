//! CUBIC as ns-3.37's `TcpCubic` runs it (RFC 8312 with Linux's integer-segment
//! arithmetic): C 0.4, β 0.7, fast convergence on, HyStart on (ACK train and delay, from 16
//! segments, 8 samples, ACK spacing 2 ms, delay bound clamped to 4 ms–1 s), CubicDelta
//! 10 ms, CntClamp 20, no TCP-friendly region (3.37 has none).
//!
//! Its rules, re-expressed here in aqmsim's terms (departures from RFC 8312 in
//! `docs/tcp/stack-linux.md`):
//! * slow start counts bytes: cwnd += segments acknowledged × MSS (ns-3's stand-in for
//!   Linux's QUICKACK), and a window that crosses ssthresh gives nothing to avoidance;
//! * W_max, the origin and cwnd are whole segments (cwnd / MSS, rounded down); avoidance
//!   adds one MSS once `cnt` segments have been acknowledged, `cnt` = cwnd / (target − cwnd)
//!   (at least 2; 100·cwnd at or above the target; 20 before the first loss);
//! * time on the curve is now + the minimum of the *smoothed* RTTs (ns-3 passes its
//!   estimate, not the sample) − the epoch start, in seconds;
//! * ssthresh = max(⌊cwnd_segments · β⌋, 2) · MSS, from the window, not the flight;
//! * an RTO (state Loss) forgets W_max, the minimum delay and HyStart's finding.
//!
//! u32 arithmetic wraps where ns-3's does (a target below zero becomes huge, giving cnt 2).

use super::cc::{CongestionOps, Tcb};

/// `Time::Min()`, ns-3's "unset" for a time.
const UNSET: i64 = i64::MIN;
const PACKET_TRAIN: u8 = 1;
const DELAY: u8 = 2;

#[derive(Clone, Debug)]
pub struct Cubic {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub hystart: bool,
    /// 1 packet train, 2 delay, 3 both.
    pub hystart_detect: u8,
    pub hystart_low_window: u32,
    pub hystart_min_samples: u32,
    pub hystart_ack_delta_ns: i64,
    pub hystart_delay_min_ns: i64,
    pub hystart_delay_max_ns: i64,
    pub cubic_delta_ns: i64,
    pub cnt_clamp: u32,
    cwnd_cnt: u32,
    last_max_cwnd: u32,
    origin: u32,
    k: f64,
    delay_min: i64,
    epoch_start: i64,
    /// ns-3 keeps this in a `bool`: any finding reads back as 1.
    found: bool,
    round_start: i64,
    end_seq: i32,
    last_ack: i64,
    curr_rtt: i64,
    sample_cnt: u32,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            hystart: true,
            hystart_detect: PACKET_TRAIN | DELAY,
            hystart_low_window: 16,
            hystart_min_samples: 8,
            hystart_ack_delta_ns: 2_000_000,
            hystart_delay_min_ns: 4_000_000,
            hystart_delay_max_ns: 1_000_000_000,
            cubic_delta_ns: 10_000_000,
            cnt_clamp: 20,
            cwnd_cnt: 0,
            last_max_cwnd: 0,
            origin: 0,
            k: 0.0,
            delay_min: UNSET,
            epoch_start: UNSET,
            found: false,
            round_start: UNSET,
            end_seq: 0,
            last_ack: UNSET,
            curr_rtt: UNSET,
            sample_cnt: 0,
        }
    }
}

impl Cubic {
    /// ns-3's defaults with the scenario's `cubic_beta`, `cubic_c`, `fast_convergence` and
    /// `hystart`.
    pub fn from_params(p: &crate::tcp::TcpParams) -> Cubic {
        Cubic {
            beta: p.cubic_beta,
            c: p.cubic_c,
            fast_convergence: p.fast_convergence,
            hystart: p.hystart,
            ..Cubic::default()
        }
    }
}

fn secs(ns: i64) -> f64 {
    ns as f64 * 1e-9
}

impl Cubic {
    fn hystart_reset(&mut self, t: &Tcb) {
        self.round_start = t.now_ns;
        self.last_ack = t.now_ns;
        self.end_seq = t.high_tx;
        self.curr_rtt = UNSET;
        self.sample_cnt = 0;
    }

    /// The number of acknowledged segments that earns one MSS in avoidance.
    fn update(&mut self, t: &Tcb) -> u32 {
        let seg_cwnd = t.cwnd / t.mss;
        if self.epoch_start == UNSET {
            self.epoch_start = t.now_ns;
            if self.last_max_cwnd <= seg_cwnd {
                self.k = 0.0;
                self.origin = seg_cwnd;
            } else {
                self.k = ((self.last_max_cwnd - seg_cwnd) as f64 / self.c).powf(1.0 / 3.0);
                self.origin = self.last_max_cwnd;
            }
        }
        let tt = secs(
            t.now_ns
                .wrapping_add(self.delay_min)
                .wrapping_sub(self.epoch_start),
        );
        let offs = if tt < self.k {
            self.k - tt
        } else {
            tt - self.k
        };
        // double → uint32 as x86-64 converts it (through 64 bits, low half kept)
        let delta = ((self.c * offs.powi(3)) as i64) as u32;
        let target = if tt < self.k {
            self.origin.wrapping_sub(delta)
        } else {
            self.origin.wrapping_add(delta)
        };
        let mut cnt = if target > seg_cwnd {
            seg_cwnd / (target - seg_cwnd)
        } else {
            100u32.wrapping_mul(seg_cwnd)
        };
        if self.last_max_cwnd == 0 && cnt > self.cnt_clamp {
            cnt = self.cnt_clamp;
        }
        cnt.max(2)
    }

    fn hystart_update(&mut self, t: &mut Tcb, delay: i64) {
        if self.found && (self.hystart_detect & 1) != 0 {
            return;
        }
        let now = t.now_ns;
        if now.wrapping_sub(self.last_ack) <= self.hystart_ack_delta_ns {
            self.last_ack = now;
            if now.wrapping_sub(self.round_start) > self.delay_min {
                self.found = true;
            }
        }
        if self.sample_cnt < self.hystart_min_samples {
            if self.curr_rtt == UNSET || self.curr_rtt > delay {
                self.curr_rtt = delay;
            }
            self.sample_cnt += 1;
        } else {
            let thresh = self
                .delay_min
                .clamp(self.hystart_delay_min_ns, self.hystart_delay_max_ns);
            if self.curr_rtt > self.delay_min.wrapping_add(thresh) {
                self.found = true;
            }
        }
        if self.found && (self.hystart_detect & 1) != 0 {
            t.ssthresh = t.cwnd;
        }
    }
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn ssthresh(&mut self, t: &Tcb, _bytes_in_flight: u32) -> u32 {
        let seg_cwnd = t.cwnd / t.mss;
        self.last_max_cwnd = if seg_cwnd < self.last_max_cwnd && self.fast_convergence {
            (seg_cwnd as f64 * (1.0 + self.beta) / 2.0) as u32
        } else {
            seg_cwnd
        };
        self.epoch_start = UNSET;
        ((seg_cwnd as f64 * self.beta) as u32).max(2) * t.mss
    }

    fn increase_window(&mut self, t: &mut Tcb, mut segs_acked: u32) {
        if t.cwnd < t.ssthresh {
            if self.hystart && t.last_acked > self.end_seq {
                self.hystart_reset(t);
            }
            t.cwnd = t.cwnd.wrapping_add(segs_acked.wrapping_mul(t.mss));
            segs_acked = 0;
        }
        if t.cwnd >= t.ssthresh && segs_acked > 0 {
            self.cwnd_cnt += segs_acked;
            let cnt = self.update(t);
            if self.cwnd_cnt >= cnt {
                t.cwnd += t.mss;
                self.cwnd_cnt -= cnt;
            }
        }
    }

    fn pkts_acked(&mut self, t: &mut Tcb, _segs_acked: u32) {
        let rtt = t.last_rtt_ns;
        if self.epoch_start != UNSET
            && t.now_ns.wrapping_sub(self.epoch_start) < self.cubic_delta_ns
        {
            return;
        }
        if self.delay_min == UNSET || self.delay_min > rtt {
            self.delay_min = rtt;
        }
        if self.hystart
            && t.cwnd <= t.ssthresh
            && t.cwnd as u64 >= self.hystart_low_window as u64 * t.mss as u64
        {
            self.hystart_update(t, rtt);
        }
    }

    fn on_loss_state(&mut self, t: &Tcb) {
        self.last_max_cwnd = 0;
        self.origin = 0;
        self.k = 0.0;
        self.delay_min = UNSET;
        self.found = false;
        self.hystart_reset(t);
    }

    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcb(cwnd_segs: u32) -> Tcb {
        Tcb::new(cwnd_segs * 1000, u32::MAX, 1000)
    }

    #[test]
    fn ssthresh_is_beta_of_the_window_in_whole_segments_with_fast_convergence() {
        let mut c = Cubic::default();
        // 100.9 segments count as 100: ⌊100 · 0.7⌋ = 70 segments, W_max = 100
        let t = Tcb::new(100_900, u32::MAX, 1000);
        assert_eq!(c.ssthresh(&t, 50_000), 70_000);
        assert_eq!(c.last_max_cwnd, 100);
        // a loss below W_max: fast convergence releases bandwidth, W_max = 80 · 1.7 / 2
        assert_eq!(c.ssthresh(&tcb(80), 0), 56_000);
        assert_eq!(c.last_max_cwnd, 68);
        // never below 2 segments
        assert_eq!(c.ssthresh(&tcb(2), 0), 2_000);
    }

    #[test]
    fn slow_start_counts_bytes_and_gives_nothing_to_avoidance() {
        let mut c = Cubic {
            hystart: false,
            ..Cubic::default()
        };
        let mut t = tcb(10);
        t.ssthresh = 11_500;
        c.increase_window(&mut t, 2);
        assert_eq!(t.cwnd, 12_000);
        assert_eq!(c.cwnd_cnt, 0);
    }

    #[test]
    fn avoidance_before_any_loss_is_clamped_to_20_acks_per_segment() {
        let mut c = Cubic::default();
        let mut t = tcb(50);
        t.ssthresh = 40_000;
        t.last_rtt_ns = 40_000_000;
        c.pkts_acked(&mut t, 1);
        for _ in 0..19 {
            c.increase_window(&mut t, 1);
        }
        assert_eq!(t.cwnd, 50_000);
        c.increase_window(&mut t, 1);
        assert_eq!(t.cwnd, 51_000);
    }

    #[test]
    fn hystart_ack_train_sets_ssthresh_to_cwnd() {
        let mut c = Cubic::default();
        let mut t = tcb(20);
        t.last_rtt_ns = 10_000_000;
        t.last_acked = 1;
        t.high_tx = 40;
        c.increase_window(&mut t, 1); // a new round starts at 0
        assert_eq!(t.cwnd, 21_000);
        // ACKs 1 ms apart for longer than the minimum delay: the train is found
        for i in 1..=12 {
            t.now_ns = i * 1_000_000;
            c.pkts_acked(&mut t, 1);
        }
        assert_eq!(t.ssthresh, t.cwnd);
    }
}
