//! LEDBAT (RFC 6817) as ns-3.37's `TcpLedbat`: a NewReno whose congestion avoidance aims
//! at `target` of queueing delay, measured one way from the timestamp option.
//!
//! The one-way delay of an ACK is its TSval − TSecr (ms): from the echoed data segment's
//! send time to the ACK's (the forward path, its queue and any delayed-ACK wait). Every
//! `PktsAcked` adds it to the noise filter (the last `noise_filter` − 1 samples: ns-3
//! drops the oldest when the buffer reaches its length) and to the base history (one
//! minimum per bucket, a new bucket once more than 60 whole seconds have passed since the
//! last; `base_history` − 1 buckets kept). The current delay is the noise filter's minimum,
//! the base delay the history's. In avoidance, per ACK of `n` segments:
//!
//! ```text
//! offset = (target − (current − base)) · gain                      (ms)
//! cwnd  += ⌊offset · n · MSS⌋ / (target · cwnd) · MSS               (bytes, truncated)
//! cwnd   = max(min(cwnd, HighTx − Una + n · MSS), min_cwnd · MSS)
//! ssthresh = cwnd − 1  if cwnd ≤ ssthresh
//! ```
//!
//! With `ns3_quirks = false` (the default) two of ns-3's slips are mended, as RFC 6817
//! §2.4.2 has it: the cap is the flight before the ACK plus ALLOWED_INCREASE = 1 MSS (ns-3's
//! cap is the flight alone, so a window that fills it can never grow again), and a step
//! below zero gives zero (then the floor) instead of wrapping.
//!
//! Slow start (`slow_start`, ns-3's `SSParam`) is NewReno's, allowed while cwnd ≤ ssthresh
//! until the first avoidance step, and again once cwnd falls to one segment. Without a
//! valid delay (a TSval or TSecr of 0, as the first millisecond's) avoidance is NewReno's.
//! ssthresh after a loss is NewReno's. Departures: `docs/tcp/ledbat.md`.

use super::cc::{CongestionOps, NewReno, Tcb};
use crate::tcp::params::LedbatParams;

/// ns-3's `OwdCircBuf`: samples in arrival order and the index of their minimum.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwdBuf {
    pub buf: Vec<u32>,
    pub min: usize,
}

impl OwdBuf {
    /// `MinCircBuf`: the minimum, or `u32::MAX` when empty.
    pub fn min(&self) -> u32 {
        self.buf.get(self.min).copied().unwrap_or(u32::MAX)
    }

    /// `AddDelay`: append; at `maxlen` samples drop the oldest (so at most `maxlen` − 1
    /// stay) and find the minimum again.
    pub fn add(&mut self, owd: u32, maxlen: usize) {
        self.buf.push(owd);
        if self.buf.len() == 1 {
            self.min = 0;
            return;
        }
        if self.buf[self.min] > owd {
            self.min = self.buf.len() - 1;
        }
        if self.buf.len() >= maxlen {
            self.buf.remove(0);
            self.min = 0;
            for i in 1..maxlen.saturating_sub(1).min(self.buf.len()) {
                if self.buf[i] < self.buf[self.min] {
                    self.min = i;
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    /// `m_target.GetMilliSeconds()`.
    target_ms: i64,
    gain: f64,
    base_len: usize,
    noise_len: usize,
    do_ss: bool,
    min_cwnd: u32,
    pub base: OwdBuf,
    pub noise: OwdBuf,
    /// Whole seconds at the last new base bucket (`m_lastRollover`).
    last_rollover: u64,
    can_ss: bool,
    valid_owd: bool,
    /// ns-3.37's cap without ALLOWED_INCREASE and its wrapping conversion (`ns3_quirks`).
    ns3: bool,
}

impl Ledbat {
    pub fn new(p: &LedbatParams, ns3_quirks: bool) -> Ledbat {
        Ledbat {
            target_ms: (p.target * 1e9).round() as i64 / 1_000_000,
            gain: p.gain,
            base_len: p.base_history as usize,
            noise_len: p.noise_filter as usize,
            do_ss: p.slow_start,
            min_cwnd: p.min_cwnd,
            base: OwdBuf::default(),
            noise: OwdBuf::default(),
            last_rollover: 0,
            can_ss: true,
            valid_owd: false,
            ns3: ns3_quirks,
        }
    }

    /// `UpdateBaseDelay` at time `now_ns`.
    fn update_base(&mut self, owd: u32, now_ns: i64) {
        if self.base.buf.is_empty() {
            self.base.add(owd, self.base_len);
            return;
        }
        let secs = (now_ns.max(0) / 1_000_000_000) as u64;
        if secs - self.last_rollover.min(secs) > 60 {
            self.last_rollover = secs;
            self.base.add(owd, self.base_len);
        } else {
            let last = self.base.buf.len() - 1;
            if owd < self.base.buf[last] {
                self.base.buf[last] = owd;
                if owd < self.base.buf[self.base.min] {
                    self.base.min = last;
                }
            }
        }
    }

    /// `TcpLedbat::CongestionAvoidance`.
    fn avoidance(&mut self, t: &mut Tcb, segs_acked: u32) {
        if !self.valid_owd {
            NewReno::congestion_avoidance(t, segs_acked);
            return;
        }
        let current = self.noise.min() as u64;
        let base = self.base.min() as u64;
        let offset = if current > base {
            self.target_ms as f64 - (current - base) as f64
        } else {
            self.target_ms as f64 + (base - current) as f64
        } * self.gain;
        let cnt = (offset * segs_acked as f64 * t.mss as f64) as i32;
        let inc = cnt as f64 / (self.target_ms as f64 * t.cwnd as f64);
        let next = t.cwnd as f64 + inc * t.mss as f64;
        // ns-3's C++ `uint32_t += double` truncates through a 64-bit integer: a negative
        // result wraps, and the cap below then applies; else it is 0 (Rust's cast)
        let mut cwnd = if self.ns3 { next as i64 as u32 } else { next as u32 };
        let flight = ((t.high_tx - t.last_acked) as u32).wrapping_mul(t.mss).wrapping_add(segs_acked * t.mss);
        let max_cwnd = if self.ns3 { flight } else { flight.saturating_add(t.mss) };
        cwnd = cwnd.min(max_cwnd).max(self.min_cwnd * t.mss);
        t.cwnd = cwnd;
        if t.cwnd <= t.ssthresh {
            t.ssthresh = t.cwnd - 1;
        }
    }
}

impl CongestionOps for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }
    fn ssthresh(&mut self, t: &Tcb, bytes_in_flight: u32) -> u32 {
        NewReno.ssthresh(t, bytes_in_flight)
    }
    fn increase_window(&mut self, t: &mut Tcb, segs_acked: u32) {
        if t.cwnd <= t.mss {
            self.can_ss = true;
        }
        if self.do_ss && t.cwnd <= t.ssthresh && self.can_ss {
            NewReno::slow_start(t, segs_acked);
        } else {
            self.can_ss = false;
            self.avoidance(t, segs_acked);
        }
    }
    /// `TcpLedbat::PktsAcked`: the ACK's one-way delay into both filters (ns-3 asks
    /// `rtt.IsPositive()`, true for its smoothed RTT of 0 too: always).
    fn pkts_acked(&mut self, t: &mut Tcb, _segs_acked: u32) {
        self.valid_owd = t.ts_val != 0 && t.ts_ecr != 0;
        let owd = t.ts_val.wrapping_sub(t.ts_ecr);
        self.noise.add(owd, self.noise_len);
        self.update_base(owd, t.now_ns);
    }
    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcb(cwnd_segs: u32, ssthresh: u32) -> Tcb {
        Tcb::new(cwnd_segs * 1000, ssthresh, 1000)
    }

    /// ns-3's AddDelay keeps `maxlen` − 1 samples: with NoiseFilterLen 4 the current delay
    /// is the minimum of the last three.
    #[test]
    fn noise_filter_keeps_three_of_four() {
        let mut b = OwdBuf::default();
        for (owd, min) in [(50, 50), (40, 40), (60, 40), (70, 40), (80, 60), (55, 55), (90, 55)] {
            b.add(owd, 4);
            assert_eq!(b.min(), min, "after {owd}: {:?}", b.buf);
            assert!(b.buf.len() <= 3);
        }
        assert_eq!(b.buf, vec![80, 55, 90]);
        assert_eq!(OwdBuf::default().min(), u32::MAX);
    }

    /// Base history: one bucket until 60 whole seconds have passed (> 60), then a new one;
    /// the minimum spans the buckets.
    #[test]
    fn base_delay_buckets_by_minute() {
        let mut l = Ledbat::new(&LedbatParams::default(), true);
        let s = 1_000_000_000i64;
        l.update_base(30, 0);
        l.update_base(25, 10 * s);
        l.update_base(40, 60 * s); // 60 − 0 is not > 60: same bucket
        assert_eq!((l.base.buf.clone(), l.base.min()), (vec![25], 25));
        l.update_base(45, 61 * s); // a new bucket
        l.update_base(35, 100 * s);
        assert_eq!((l.base.buf.clone(), l.base.min()), (vec![25, 35], 25));
    }

    /// One avoidance step, by hand: base 20 ms, current 70 ms → queueing 50 ms, offset
    /// 100 − 50 = 50; 2 segments acked at cwnd 20 000: cnt = 50·2·1000 = 100 000,
    /// inc = 100 000 / (100 · 20 000) = 0.05, cwnd += 0.05 · 1000 = 50 → 20 050.
    #[test]
    fn avoidance_step_by_hand() {
        let mut l = Ledbat::new(&LedbatParams::default(), true);
        let mut t = tcb(20, 5_000);
        l.can_ss = false;
        t.high_tx = 40;
        t.last_acked = 20;
        for (val, ecr) in [(1_020, 1_000), (2_070, 2_000)] {
            t.ts_val = val;
            t.ts_ecr = ecr;
            l.pkts_acked(&mut t, 2);
        }
        assert_eq!((l.base.min(), l.noise.min()), (20, 20));
        l.noise = OwdBuf { buf: vec![70], min: 0 };
        l.increase_window(&mut t, 2);
        assert_eq!(t.cwnd, 20_050);
        // queueing 150 ms: offset −50 → −50 bytes; ssthresh untouched (cwnd > ssthresh)
        l.noise = OwdBuf { buf: vec![170], min: 0 };
        l.increase_window(&mut t, 2);
        // 20 050 − 100 000/(100·20 050)·1000 = 20 000.125, truncated
        assert_eq!((t.cwnd, t.ssthresh), (20_000, 5_000));
        // the cap: HighTx − Una + acked = 2 000 + 2 000 bytes (and ssthresh = cwnd − 1)
        t.high_tx = 22;
        l.noise = OwdBuf { buf: vec![20], min: 0 };
        l.increase_window(&mut t, 2);
        assert_eq!((t.cwnd, t.ssthresh), (4_000, 3_999));
        // queueing 1 300 ms: 4 000 − 1 200·1000/(100·4 000)·1000 = 1 000 → the floor, 2 segments
        l.noise = OwdBuf { buf: vec![1_320], min: 0 };
        l.increase_window(&mut t, 1);
        assert_eq!(t.cwnd, 2_000, "min_cwnd 2 segments");
        // below zero: ns-3's uint32 wraps, so the cap HighTx − Una + 1 segment applies
        l.noise = OwdBuf { buf: vec![2_000], min: 0 };
        l.increase_window(&mut t, 1);
        assert_eq!(t.cwnd, 3_000, "2 000 − 9 400 wraps, capped at 2 000 + 1 000");
    }

    /// Without ns-3's quirks (RFC 6817's cap): the flight + 1 MSS, so a window equal to
    /// the flight still grows; a step below zero ends at the floor.
    #[test]
    fn rfc_cap_allows_one_more_segment() {
        for (ns3, want) in [(true, 47_000), (false, 47_034)] {
            let mut l = Ledbat::new(&LedbatParams { target: 0.01, ..LedbatParams::default() }, ns3);
            l.can_ss = false;
            l.valid_owd = true;
            l.base = OwdBuf { buf: vec![40], min: 0 };
            l.noise = OwdBuf { buf: vec![42], min: 0 };
            // 47 segments out, an ACK of 2: 45 left in flight
            let mut t = tcb(47, 40_000);
            t.high_tx = 47;
            t.last_acked = 2;
            l.increase_window(&mut t, 2);
            // offset 10 − 2 = 8: 8·2·1000/(10·47 000)·1000 = 34.04 bytes
            assert_eq!(t.cwnd, want, "ns3_quirks {ns3}");
            l.noise = OwdBuf { buf: vec![2_000], min: 0 };
            t.cwnd = 2_000;
            l.increase_window(&mut t, 1);
            assert_eq!(t.cwnd, if ns3 { 46_000 } else { 2_000 }, "below zero: wraps to the cap (ns-3) or the floor");
        }
    }

    /// Slow start while cwnd ≤ ssthresh, until the first avoidance step; ssthresh follows
    /// cwnd down to cwnd − 1 once cwnd ≤ ssthresh in avoidance; no valid delay (TSval 0)
    /// means NewReno's avoidance.
    #[test]
    fn slow_start_then_avoidance() {
        let mut l = Ledbat::new(&LedbatParams::default(), true);
        let mut t = tcb(10, 10_000);
        l.pkts_acked(&mut t, 1); // TSval 0: not valid
        l.increase_window(&mut t, 1);
        assert_eq!(t.cwnd, 11_000, "cwnd = ssthresh still slow-starts (≤)");
        l.increase_window(&mut t, 1);
        assert_eq!(t.cwnd, 11_000 + 1_000 * 1_000 / 11_000, "NewReno avoidance without a delay");
        assert!(!l.can_ss);
        t.cwnd = 5_000;
        t.high_tx = 100;
        t.ts_val = 1_010;
        t.ts_ecr = 1_000;
        l.pkts_acked(&mut t, 1);
        l.increase_window(&mut t, 1);
        // offset 100 (current = base): +100·1000/(100·5000)·1000 = +200
        assert_eq!((t.cwnd, t.ssthresh), (5_200, 5_199));
        let mut no_ss = Ledbat::new(&LedbatParams { slow_start: false, ..LedbatParams::default() }, true);
        let mut t = tcb(10, u32::MAX);
        no_ss.increase_window(&mut t, 1);
        assert_eq!(t.cwnd, 10_100, "SSParam no: avoidance from the start");
    }
}
