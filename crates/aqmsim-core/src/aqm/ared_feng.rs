//! Adaptive RED of Feng, Kandlur, Saha & Shin 1999 ("A self-configuring RED gateway"),
//! as described in paper 000: max_p is multiplied by `alpha` when the average crosses
//! above max_th and divided by `beta` when it falls below min_th, once per crossing (a
//! status Below / Between / Above remembers the last region, as ns-2's `feng_adaptive_`).
//!
//! Choices: parameter names follow paper 000 (`alpha` multiplies, `beta` divides); Feng's
//! own paper writes the same rule with the letters swapped and uses 2 and 3, which are our
//! defaults (alpha 2, beta 3). max_p is kept in [1e-4, 1] so it can recover.

use super::red::Red;
use super::{Aqm, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Unknown,
    Below,
    Between,
    Above,
}

#[derive(Clone, Debug)]
pub struct AredFeng {
    pub red: Red,
    pub alpha: f64,
    pub beta: f64,
    pub status: Status,
}

impl AredFeng {
    pub fn new(red: Red, alpha: f64, beta: f64) -> AredFeng {
        AredFeng { red, alpha, beta, status: Status::Unknown }
    }

    pub fn update_max_p(&mut self, avg: f64) {
        let unit = if self.red.params.queue_in_bytes { self.red.params.mean_pktsize } else { 1.0 };
        let (min_th, max_th) = (self.red.params.min_th * unit, self.red.params.max_th * unit);
        let v = &mut self.red.vars;
        if min_th < avg && avg < max_th {
            self.status = Status::Between;
        }
        if avg < min_th && self.status != Status::Below {
            self.status = Status::Below;
            v.cur_max_p = (v.cur_max_p / self.beta).max(1e-4);
        }
        if avg > max_th && self.status != Status::Above {
            self.status = Status::Above;
            v.cur_max_p = (v.cur_max_p * self.alpha).min(1.0);
        }
    }
}

impl Aqm for AredFeng {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        let qlen = self.red.arrive(pkt, q, now);
        let avg = self.red.vars.avg;
        self.update_max_p(avg);
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
    fn once_per_crossing_by_hand() {
        let mut f = AredFeng::new(Red::new(packet_params()), 2.0, 3.0);
        f.update_max_p(20.0); // above: ×2
        assert!((f.red.vars.cur_max_p - 0.2).abs() < 1e-15);
        f.update_max_p(25.0); // still above: no change
        assert!((f.red.vars.cur_max_p - 0.2).abs() < 1e-15);
        f.update_max_p(10.0); // between
        f.update_max_p(16.0); // above again: ×2
        assert!((f.red.vars.cur_max_p - 0.4).abs() < 1e-15);
        f.update_max_p(2.0); // below: ÷3
        assert!((f.red.vars.cur_max_p - 0.4 / 3.0).abs() < 1e-15);
        f.update_max_p(1.0);
        assert!((f.red.vars.cur_max_p - 0.4 / 3.0).abs() < 1e-15);
        for _ in 0..10 {
            f.update_max_p(100.0);
            f.update_max_p(0.0);
            f.update_max_p(100.0);
        }
        assert!(f.red.vars.cur_max_p <= 1.0);
    }
}
