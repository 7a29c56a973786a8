//! Pacing on the Linux/ns-3 sender, as ns-3.37's `TcpSocketBase` does it (`tcp.pacing`,
//! off by default): a rate, and a timer that releases one segment at a time.
//!
//! When the congestion control does not set the rate itself (`CongestionOps::sets_pacing_rate`
//! false: all but BBR), `update` gives ns-3's `UpdatePacingRate`: rate = max(cwnd, bytes in
//! flight) × 8 × factor / srtt bit/s, factor = 2.0 (`PacingSsRatio` 200 %) while
//! cwnd < ssthresh / 2, else 1.2 (`PacingCaRatio` 120 %), capped at `MaxPacingRate`
//! (4 Gb/s). Before the first RTT sample the rate is that cap. The initial window is not
//! paced (ns-3's `PaceInitialWindow` false: `IsPacingEnabled` only once HighData is beyond
//! it), so it leaves at once and the timer starts after its last segment (the sender's
//! `pacing_enabled`). After each segment sent by
//! `SendPendingData` the timer runs for that segment's payload transmission time at the
//! rate (`DataRate::CalculateBytesTxTime`); nothing new leaves while it runs.

use crate::time::{Dur, SimTime};

/// ns-3's `MaxPacingRate` default, bit/s.
pub const MAX_PACING_RATE: u64 = 4_000_000_000;
/// `PacingSsRatio` and `PacingCaRatio` defaults, percent.
pub const SS_RATIO: u32 = 200;
pub const CA_RATIO: u32 = 120;

#[derive(Clone, Debug)]
pub struct Pacer {
    pub on: bool,
    /// Current pacing rate, bit/s (ns-3's `m_pacingRate`, a whole `DataRate`).
    pub rate_bps: u64,
    /// When the pacing timer expires (None: not running).
    pub next: Option<SimTime>,
}

impl Pacer {
    pub fn new(on: bool) -> Pacer {
        Pacer { on, rate_bps: MAX_PACING_RATE, next: None }
    }

    /// The pacing timer is running: `SendPendingData` sends nothing new.
    #[inline]
    pub fn blocked(&self, now: SimTime) -> bool {
        self.on && self.next.is_some_and(|t| t > now)
    }

    /// A segment of `bytes` payload left by `SendPendingData`: start the timer. Returns true
    /// when the loop must stop (pacing on).
    pub fn sent(&mut self, now: SimTime, bytes: u32) -> bool {
        if !self.on {
            return false;
        }
        self.next = Some(now + self.tx_time(bytes));
        true
    }

    /// `DataRate::CalculateBytesTxTime`: bytes × 8 / rate, to the nearest ns (halves up: the
    /// value is positive; `round_positive` is `f64::round` without its call into libm).
    #[inline]
    pub fn tx_time(&self, bytes: u32) -> Dur {
        Dur(crate::time::round_positive(bytes as f64 * 8.0 / self.rate_bps.max(1) as f64 * 1e9))
    }

    /// The timer expired at `now` (cleared so that `SendPendingData` may send).
    pub fn expire(&mut self, now: SimTime) -> bool {
        if self.next.is_some_and(|t| t <= now) {
            self.next = None;
            return true;
        }
        false
    }

    /// ns-3's `UpdatePacingRate` (for a congestion control that leaves the rate to the socket).
    pub fn update(&mut self, cwnd: u32, ssthresh: u32, bytes_in_flight: u32, srtt_ns: i64) {
        if !self.on || srtt_ns <= 0 {
            return;
        }
        let ratio = if cwnd < ssthresh / 2 { SS_RATIO } else { CA_RATIO };
        let bps = cwnd.max(bytes_in_flight) as f64 * 8.0 * (ratio as f64 / 100.0) / (srtt_ns as f64 * 1e-9);
        self.rate_bps = (bps as u64).min(MAX_PACING_RATE);
    }

    /// A congestion control that sets the rate itself (BBR), bit/s, capped as ns-3 does.
    pub fn set_rate(&mut self, bps: f64) {
        self.rate_bps = (bps.max(0.0) as u64).min(MAX_PACING_RATE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Kind, Packet};
    use crate::tcp::linux::LinuxSender;
    use crate::tcp::TcpParams;

    fn paced() -> LinuxSender {
        LinuxSender::new(TcpParams { pacing: true, ..TcpParams::linux() }, 0, 1)
    }

    /// Run the sender's timers until `until`, recording (time ns, segment) of every send.
    fn drain(s: &mut LinuxSender, until: u64, log: &mut Vec<(u64, i32)>) {
        let mut out = Vec::new();
        while let Some(d) = s.next_deadline().filter(|d| d.0 <= until) {
            s.on_timer(d, &mut out);
            log.extend(out.drain(..).map(|p| (d.0, p.seq)));
        }
    }

    #[test]
    fn initial_window_leaves_at_once_then_at_the_cwnd_over_srtt_rate() {
        let mut s = paced();
        let mut out = Vec::new();
        s.start_bulk(SimTime::ZERO, &mut out);
        // IW 10 unpaced, then the timer for the 10th at MaxPacingRate 4 Gb/s (1000 bytes ×
        // 8 / 4e9 = 2 µs)
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
        assert_eq!(s.pacer.next, Some(SimTime(2_000)));
        out.clear();
        let mut log = Vec::new();
        drain(&mut s, 1_000_000, &mut log);
        assert!(log.is_empty(), "cwnd is full");
        // the ACK of segments 0–1 at 100 ms: srtt 100 ms, cwnd 11 000 < ssthresh/2, so
        // factor 2: 11 000 × 8 × 2 / 0.1 = 1.76 Mb/s, one segment per 4.545 ms
        let mut a = Packet::new(Kind::Ack, 0, 1, 40, 0, SimTime::ZERO);
        a.set_sack(&[]);
        s.recv_ack(&a, SimTime(100_000_000), &mut out);
        assert_eq!(s.pacer.rate_bps, 1_760_000);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10]);
        out.clear();
        let mut log = Vec::new();
        drain(&mut s, 200_000_000, &mut log);
        let gap = 4_545_455; // 8000 / 1.76e6 s, to the ns
        assert_eq!(log, vec![(100_000_000 + gap, 11), (100_000_000 + 2 * gap, 12)]);
    }

    #[test]
    fn congestion_avoidance_factor_and_cap() {
        let mut p = Pacer::new(true);
        p.update(10_000, 20_000, 0, 100_000_000);
        assert_eq!(p.rate_bps, 960_000, "cwnd ≥ ssthresh/2: 1.2 × 10 000 × 8 / 0.1");
        p.update(10_000, 5_000, 12_000, 100_000_000);
        assert_eq!(p.rate_bps, 1_152_000, "bytes in flight above cwnd counts");
        p.update(u32::MAX / 16, 0, 0, 1_000);
        assert_eq!(p.rate_bps, MAX_PACING_RATE);
        let mut off = Pacer::new(false);
        assert!(!off.sent(SimTime::ZERO, 1000) && !off.blocked(SimTime::ZERO));
    }

    /// `tx_time` rounds as `f64::round` did (halves away from zero), at every rate: an
    /// exact half (1000 bytes at 1.024 Gb/s: 7 812.5 ns) and a sweep of BBR-like rates.
    #[test]
    fn tx_time_rounds_as_f64_round() {
        let mut p = Pacer::new(true);
        p.rate_bps = 1_024_000_000;
        assert_eq!(p.tx_time(1000), Dur(7_813));
        for rate in (1..200_000u64).map(|k| k * 20_011).chain([1, 3, 7, MAX_PACING_RATE]) {
            p.rate_bps = rate;
            for bytes in [1u32, 40, 1000, 1448, 65_535] {
                let want = (bytes as f64 * 8.0 / rate as f64 * 1e9).round() as u64;
                assert_eq!(p.tx_time(bytes), Dur(want), "{bytes} bytes at {rate} b/s");
            }
        }
    }

    #[test]
    fn unpaced_sender_sends_the_window_at_once() {
        let mut s = LinuxSender::new(TcpParams::linux(), 0, 1);
        let mut out = Vec::new();
        s.start_bulk(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 10);
        assert_eq!(s.next_deadline(), s.rtx_deadline());
    }
}
