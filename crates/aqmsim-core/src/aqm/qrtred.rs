//! QRTRED (paper 001, Jamali et al.): RED whose thresholds follow QRT, the rate at which the
//! buffer fills.
//!
//! The occupancy E (packets waiting) is watched at every arrival and departure. An interval
//! ends when E has moved by τ = 2 cells from its value at the interval's start; then
//! `QRT = ΔE / Δt` and, with T the buffer size,
//! - QRT ≤ 0: Φ = 0.15 · (T − E);
//! - QRT > 0: Φ = min(1/QRT, 0.14) · (T − E);
//!
//! `min_th = 5 + Φ`, `max_th = 3 · min_th`.
//!
//! The paper's prose says Φ is "15 % of the total buffer size" when QRT ≤ 0, its Fig. 1 says
//! 0.15·(T − E); we follow Fig. 1 (the algorithm). E and T count packets ("cells"), and
//! QRTRED defaults to packet mode (`queue_in_bytes = false`, `bytes = false`) so that the
//! thresholds are in the same unit as the queue.
//!
//! Choices: **QRT is in cells per second** (`qrt_unit` = 1 s; a parameter). The paper says Φ
//! "varies from 0 % to 14 % of the buffer" when QRT > 0, so 1/QRT is capped at 0.14 — without
//! the cap a slowly rising queue (QRT < 1 cell/s) would give Φ > T. The thresholds start at
//! the QRT ≤ 0 value for an empty buffer (min_th = 5 + 0.15·T). max_th is not capped by
//! the buffer: when it exceeds T, RED's overflow rule is what drops.

use super::red::Red;
use super::{Aqm, AqmState, FrontAction, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Qrtred {
    pub red: Red,
    /// Cells of movement that close an interval (τ, 2).
    pub tau: u32,
    /// Seconds per QRT time unit (1.0: QRT in cells per second).
    pub qrt_unit: f64,
    /// Buffer size T, packets.
    pub buffer: f64,
    e0: u32,
    t0: SimTime,
    /// Last QRT computed.
    pub qrt: f64,
}

impl Qrtred {
    pub fn new(mut red: Red, tau: u32, qrt_unit: f64) -> Qrtred {
        let buffer = red.params.limit as f64;
        let (min_th, max_th) = Self::thresholds(0.0, 0.0, buffer);
        red.params.min_th = min_th;
        red.params.max_th = max_th;
        Qrtred { red, tau, qrt_unit, buffer, e0: 0, t0: SimTime::ZERO, qrt: 0.0 }
    }

    /// Thresholds for rate `qrt` at occupancy `e` in a buffer of `t` cells (Fig. 1).
    pub fn thresholds(qrt: f64, e: f64, t: f64) -> (f64, f64) {
        let free = (t - e).max(0.0);
        let phi = if qrt <= 0.0 { 0.15 * free } else { (1.0 / qrt).min(0.14) * free };
        let min_th = 5.0 + phi;
        (min_th, 3.0 * min_th)
    }

    /// Occupancy is now `e` at `now`.
    pub fn observe(&mut self, e: u32, now: SimTime) {
        let moved = e.abs_diff(self.e0);
        if moved >= self.tau {
            let dt = now.saturating_since(self.t0).secs() / self.qrt_unit;
            let de = e as f64 - self.e0 as f64;
            self.qrt = if dt > 0.0 { de / dt } else if de > 0.0 { f64::INFINITY } else { f64::NEG_INFINITY };
            let (min_th, max_th) = Self::thresholds(self.qrt, e as f64, self.buffer);
            self.red.params.min_th = min_th;
            self.red.params.max_th = max_th;
            self.e0 = e;
            self.t0 = now;
        }
    }
}

impl Aqm for Qrtred {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        self.observe(q.len_pkts, now);
        let v = self.red.on_enqueue(pkt, q, now, rng);
        if matches!(v, Verdict::Enqueue | Verdict::Mark(_)) {
            self.observe(q.len_pkts + 1, now);
        }
        v
    }
    fn on_idle(&mut self, now: SimTime) {
        self.red.on_idle(now)
    }
    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> FrontAction {
        self.observe(q.len_pkts, now);
        self.red.on_dequeue(pkt, q, now, rng)
    }
    fn state(&self) -> AqmState {
        self.red.state()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::tests_support::packet_params;

    #[test]
    fn thresholds_by_hand() {
        // T = 100, E = 20, queue falling: Φ = 0.15 · 80 = 12 → (17, 51).
        assert_eq!(Qrtred::thresholds(-3.0, 20.0, 100.0), (17.0, 51.0));
        // QRT = 10 cells/s: Φ = 0.1 · 80 = 8 → (13, 39).
        let (a, b) = Qrtred::thresholds(10.0, 20.0, 100.0);
        assert!((a - 13.0).abs() < 1e-12 && (b - 39.0).abs() < 1e-12);
        // QRT = 1000 cells/s (fast rise): Φ = 0.001 · 80 = 0.08.
        let (a, _) = Qrtred::thresholds(1000.0, 20.0, 100.0);
        assert!((a - 5.08).abs() < 1e-12);
        // slow rise: capped at 14 %
        assert_eq!(Qrtred::thresholds(0.5, 0.0, 100.0).0, 5.0 + 14.0);
    }

    #[test]
    fn golden_interval_sequence() {
        let mut p = packet_params();
        p.limit = 100;
        let mut q = Qrtred::new(Red::new(p), 2, 1.0);
        assert_eq!((q.red.params.min_th, q.red.params.max_th), (20.0, 60.0));
        q.observe(1, SimTime::from_secs(0.1)); // moved 1 < τ: nothing
        assert_eq!(q.red.params.min_th, 20.0);
        q.observe(2, SimTime::from_secs(0.2)); // +2 in 0.2 s: QRT 10 → Φ = 0.1·98
        assert!((q.qrt - 10.0).abs() < 1e-12);
        assert!((q.red.params.min_th - (5.0 + 9.8)).abs() < 1e-12);
        q.observe(0, SimTime::from_secs(0.7)); // −2: QRT −4 → Φ = 0.15·100
        assert!((q.qrt + 4.0).abs() < 1e-12);
        assert_eq!(q.red.params.min_th, 20.0);
        assert_eq!(q.red.params.max_th, 60.0);
    }
}
