//! Adaptive RED (Floyd, Gummadi & Shenker 2001) as ns-2 2.35's `adaptive_ 1`.
//!
//! RED whose max_p follows an AIMD rule toward a target band for the average queue:
//! on an arrival, if more than `interval` (0.5 s) has passed since max_p last changed,
//! - avg < min_th + 0.4·(max_th − min_th) and max_p > bottom: `max_p ← max_p · beta` (0.9);
//! - avg > max_th − 0.4·(max_th − min_th) and max_p < top: `max_p ← max_p + min(alpha, max_p/4)`
//!   (alpha 0.01);
//! with top 0.5 and bottom min(0.01, 80 000 / link rate) (ns-2 `top_`, `bottom_ 0`).
//!
//! Choices: like ns-2, the check runs inside the estimator on packet arrivals (there is no
//! timer), max_p may cross top/bottom by one step, and the gentle slope above max_th keeps
//! using the initial max_p (ns-2 computes `v_c`, `v_d` once).

use super::red::Red;
use super::{Aqm, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct AredParams {
    /// Seconds between adaptations (`interval_`).
    pub interval: f64,
    /// Additive increase cap (`alpha_`).
    pub alpha: f64,
    /// Multiplicative decrease (`beta_`).
    pub beta: f64,
    /// Upper and lower guards for max_p (`top_`, `bottom_`).
    pub top: f64,
    pub bottom: f64,
}

#[derive(Clone, Debug)]
pub struct Ared {
    pub red: Red,
    pub a: AredParams,
    /// When max_p last changed, seconds.
    pub lastset: f64,
}

impl Ared {
    pub fn new(red: Red, a: AredParams) -> Ared {
        Ared { red, a, lastset: 0.0 }
    }

    /// One AIMD step for average `avg` (queue unit) at `now` seconds.
    pub fn update_max_p(&mut self, avg: f64, now: f64) {
        let unit = if self.red.params.queue_in_bytes { self.red.params.mean_pktsize } else { 1.0 };
        let (min_th, max_th) = (self.red.params.min_th * unit, self.red.params.max_th * unit);
        let part = 0.4 * (max_th - min_th);
        let v = &mut self.red.vars;
        if avg < min_th + part && v.cur_max_p > self.a.bottom {
            v.cur_max_p *= self.a.beta;
            self.lastset = now;
        } else if avg > max_th - part && self.a.top > v.cur_max_p {
            v.cur_max_p += self.a.alpha.min(0.25 * v.cur_max_p);
            self.lastset = now;
        }
    }
}

impl Aqm for Ared {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        let qlen = self.red.arrive(pkt, q, now);
        let t = now.secs();
        if t > self.lastset + self.a.interval {
            let avg = self.red.vars.avg;
            self.update_max_p(avg, t);
        }
        let k = self.red.knobs();
        self.red.decide(pkt, qlen, k, rng)
    }
    super::red::delegate_to_red!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::tests_support::packet_params;

    #[test]
    fn aimd_steps_by_hand() {
        // thresholds 5/15: band low edge 9, high edge 11.
        let mut a = Ared::new(Red::new(packet_params()), AredParams { interval: 0.5, alpha: 0.01, beta: 0.9, top: 0.5, bottom: 0.01 });
        a.update_max_p(12.0, 1.0);
        assert!((a.red.vars.cur_max_p - 0.11).abs() < 1e-15, "0.1 + min(0.01, 0.025)");
        assert_eq!(a.lastset, 1.0);
        a.update_max_p(10.0, 2.0); // inside the band: no change
        assert!((a.red.vars.cur_max_p - 0.11).abs() < 1e-15);
        assert_eq!(a.lastset, 1.0);
        a.update_max_p(8.0, 3.0);
        assert!((a.red.vars.cur_max_p - 0.099).abs() < 1e-15, "0.11 · 0.9");
        // small max_p: the increase is max_p/4, not alpha
        a.red.vars.cur_max_p = 0.02;
        a.update_max_p(14.0, 4.0);
        assert!((a.red.vars.cur_max_p - 0.025).abs() < 1e-15);
    }

    #[test]
    fn adapts_at_most_once_per_interval_on_arrivals() {
        let mut pr = packet_params();
        pr.w_q = 1.0; // avg = q
        let mut a = Ared::new(Red::new(pr), AredParams { interval: 0.5, alpha: 0.01, beta: 0.9, top: 0.5, bottom: 0.01 });
        a.red.vars.idle = false;
        let mut rng = Rng::new(1, 1);
        let pkt = Packet::new(crate::packet::Kind::Data, 0, 1, 1000, 0, SimTime::ZERO);
        let low = QueueView { len_pkts: 2, len_bytes: 2000 };
        let mut changes = 0;
        let mut last = a.red.vars.cur_max_p;
        for i in 0..400 {
            a.on_enqueue(&pkt, &low, SimTime::from_secs(i as f64 * 0.01), &mut rng);
            if a.red.vars.cur_max_p != last {
                changes += 1;
                last = a.red.vars.cur_max_p;
            }
        }
        // 4 s of arrivals, adaptation strictly after 0.5 s gaps: 7 decreases.
        assert_eq!(changes, 7);
        assert!((last - 0.1 * 0.9f64.powi(7)).abs() < 1e-12);
    }
}
