//! RTRED (paper 000, Hamadneh et al.): RED with a third drop level, the risk threshold,
//! applied to the *actual* queue.
//!
//! Before each RED decision, with q the actual queue (packets waiting when the packet
//! arrives) and avg the average, max_p is set from the initial max_p₀:
//! - q > risk_th: max_p = max_p₀ (the timeout area: react at full strength);
//! - q < min_th: max_p = max_p₀ / 5 (the unfair area: barely drop);
//! - min_th ≤ avg ≤ max_th and min_th ≤ q ≤ max_th: max_p = max_p₀ / 2 (the normal area).
//!
//! Choice: the paper leaves the rest open (q in (max_th, risk_th], the "safe" area, or q in
//! [min_th, max_th] with avg outside it). We keep max_p as it was (`between = "keep"`), so
//! max_p moves only on the paper's three rules, matching Fig. 6 where max_p steps between
//! max_p₀ and max_p₀/5. The alternatives `"half"` and `"initial"` are parameters.
//!
//! With `gentle`, the slope above max_th starts from the max_p in force (not from max_p₀
//! as ns-2's adaptive RED does), so p is continuous at max_th.
//!
//! Boundaries: the max_p rule switches to max_p₀ when q *exceeds* risk_th (the paper's
//! word), while the drop-area classification puts q = risk_th in the timeout area, as its
//! interval [risk_th, buffer] says.
//!
//! Drop areas (Fig. 4–5) classify every drop by the actual queue length, for any
//! discipline: unfair [0, min_th), normal [min_th, max_th), safe [max_th, risk_th),
//! timeout [risk_th, buffer] — see [`drop_area`].

use super::red::Red;
use super::{Aqm, QueueView, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

/// What max_p is where the paper gives no rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Between {
    Keep,
    Half,
    Initial,
}

#[derive(Clone, Debug)]
pub struct Rtred {
    pub red: Red,
    /// Risk threshold, packets.
    pub risk_th: f64,
    pub between: Between,
}

/// The four drop areas of paper 000.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropArea {
    Unfair,
    Normal,
    Safe,
    Timeout,
}

/// Classify a drop by the actual queue length `q` (packets) when it happened.
pub fn drop_area(q: f64, min_th: f64, max_th: f64, risk_th: f64) -> DropArea {
    if q < min_th {
        DropArea::Unfair
    } else if q < max_th {
        DropArea::Normal
    } else if q < risk_th {
        DropArea::Safe
    } else {
        DropArea::Timeout
    }
}

impl Rtred {
    pub fn new(red: Red, risk_th: f64, between: Between) -> Rtred {
        Rtred { red, risk_th, between }
    }

    /// The max_p rule for actual queue `q` and average `avg`, both in packets.
    pub fn choose_max_p(&self, q: f64, avg: f64) -> f64 {
        let p0 = self.red.params.max_p;
        let (min_th, max_th) = (self.red.params.min_th, self.red.params.max_th);
        if q > self.risk_th {
            p0
        } else if q < min_th {
            p0 / 5.0
        } else if (min_th..=max_th).contains(&avg) && (min_th..=max_th).contains(&q) {
            p0 / 2.0
        } else {
            match self.between {
                Between::Keep => self.red.vars.cur_max_p,
                Between::Half => p0 / 2.0,
                Between::Initial => p0,
            }
        }
    }
}

impl Aqm for Rtred {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        let qlen = self.red.arrive(pkt, q, now);
        let unit = if self.red.params.queue_in_bytes { self.red.params.mean_pktsize } else { 1.0 };
        let m = self.choose_max_p(q.len_pkts as f64, self.red.vars.avg / unit);
        self.red.vars.cur_max_p = m;
        let k = self.red.knobs();
        self.red.decide(pkt, qlen, k, rng)
    }
    super::red::delegate_to_red!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::tests_support::packet_params;

    fn scenario1() -> Rtred {
        // Paper 000, Table I, scenario 1: min 12, max 25, max_p 0.05, risk 28, buffer 30.
        let mut p = packet_params();
        p.min_th = 12.0;
        p.max_th = 25.0;
        p.max_p = 0.05;
        p.limit = 30;
        Rtred::new(Red::new(p), 28.0, Between::Keep)
    }

    #[test]
    fn max_p_rules_by_hand() {
        let r = scenario1();
        assert_eq!(r.choose_max_p(29.0, 10.0), 0.05, "q above risk_th: initial");
        assert_eq!(r.choose_max_p(11.0, 20.0), 0.01, "q below min_th: /5");
        assert_eq!(r.choose_max_p(20.0, 15.0), 0.025, "both in band: /2");
        assert_eq!(r.choose_max_p(26.0, 15.0), 0.05, "safe area: keep (initial so far)");
    }

    #[test]
    fn golden_sequence_of_max_p_and_verdicts() {
        let mut r = scenario1();
        r.red.params.w_q = 1.0; // avg = q: the arithmetic is visible by hand
        r.red.vars.idle = false;
        let mut rng = Rng::new(5, 5);
        let pkt = Packet::new(crate::packet::Kind::Data, 0, 1, 1000, 0, SimTime::ZERO);
        // (q, expected max_p afterwards)
        let steps = [(5u32, 0.01), (20, 0.025), (26, 0.025), (29, 0.05), (27, 0.05), (3, 0.01)];
        for (q, mp) in steps {
            let v = QueueView { len_pkts: q, len_bytes: q as u64 * 1000 };
            let verdict = r.on_enqueue(&pkt, &v, SimTime::ZERO, &mut rng);
            assert!((r.red.vars.cur_max_p - mp).abs() < 1e-15, "q {q}: {} vs {mp}", r.red.vars.cur_max_p);
            if q >= 30 {
                assert!(matches!(verdict, Verdict::Drop(_)));
            }
        }
    }

    #[test]
    fn drop_areas() {
        assert_eq!(drop_area(3.0, 12.0, 25.0, 28.0), DropArea::Unfair);
        assert_eq!(drop_area(12.0, 12.0, 25.0, 28.0), DropArea::Normal);
        assert_eq!(drop_area(25.0, 12.0, 25.0, 28.0), DropArea::Safe);
        assert_eq!(drop_area(28.0, 12.0, 25.0, 28.0), DropArea::Timeout);
    }
}
