//! RTRED (paper 000, Hamadneh et al.): RED with a third drop level, the risk threshold,
//! applied to the *actual* queue.
//!
//! Before each RED decision, with q the actual queue when the packet arrives, in the
//! queue's own units (packets waiting; in byte mode the bytes waiting / mean_pktsize, the
//! units RED's thresholds and its average are in), and avg the average in the same units,
//! max_p is set from the initial max_p₀:
//! - q > risk_th: max_p = max_p₀ (the timeout area: react at full strength);
//! - q < min_th: max_p = max_p₀ / 5 (the unfair area: barely drop);
//! - min_th ≤ avg ≤ max_th and min_th ≤ q ≤ max_th: max_p = max_p₀ / 2 (the normal area).
//!
//! Units: risk_th is typed in packets like min_th, max_th and limit, and is treated like
//! them. In packet mode q is the packet count. In byte mode (`queue_in_bytes`) ns-2's
//! red.cc multiplies every threshold typed in packets (and the limit) by mean_pktsize and
//! compares it with the queue in bytes; RTRED, which its authors built inside ns-2's RED,
//! does the same with risk_th: q = bytes waiting / mean_pktsize against risk_th (so with
//! 592-byte packets and mean_pktsize 500, 24 waiting packets are 28.4 units, above a
//! risk_th of 28, and 23 are 27.2, not above).
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
//! timeout [risk_th, buffer] — see [`drop_area`]; the queue length given to it must be in
//! the thresholds' units (in byte mode, bytes / mean_pktsize). The engine itself logs no
//! area: the drop log records the packets waiting, and the analysis converts.

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
    /// Risk threshold, packets (byte mode: units of mean_pktsize bytes, like the thresholds).
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

/// Classify a drop by the actual queue length `q` when it happened, in the thresholds'
/// units (packets; in byte mode bytes / mean_pktsize).
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

    /// The max_p rule for actual queue `q` and average `avg`, both in the thresholds' units
    /// (packets; in byte mode bytes / mean_pktsize).
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
        // qlen is in the queue's unit: packets, or bytes in byte mode.
        let qlen = self.red.arrive(pkt, q, now);
        let unit = if self.red.params.queue_in_bytes { self.red.params.mean_pktsize } else { 1.0 };
        let m = self.choose_max_p(qlen / unit, self.red.vars.avg / unit);
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

    /// Scenario 1 in ns-2's byte mode: thresholds, risk_th and the limit in units of
    /// mean_pktsize = 500 bytes (limit 30 = 15 000 bytes), data packets of 592 bytes.
    fn scenario1_bytes() -> Rtred {
        let mut r = scenario1();
        r.red.params.bytes = true;
        r.red.params.queue_in_bytes = true;
        r.red.params.mean_pktsize = 500.0;
        r
    }

    #[test]
    fn byte_mode_risk_threshold_by_hand() {
        // risk_th 28 = 28 × 500 = 14 000 bytes; the queue counts in bytes / 500.
        let mut r = scenario1_bytes();
        r.red.params.w_q = 1.0; // avg = q
        r.red.vars.idle = false;
        let mut rng = Rng::new(5, 5);
        let pkt = Packet::new(crate::packet::Kind::Data, 0, 1, 592, 0, SimTime::ZERO);
        // (packets of 592 B waiting, bytes, expected max_p afterwards):
        //  5 → 2 960 B =  5.92 units < min_th 12: max_p/5
        // 20 → 11 840 B = 23.68, avg 23.68, both in [12, 25]: max_p/2
        // 23 → 13 616 B = 27.232: in (max_th, risk_th], safe area: kept (0.025)
        //      (in packet mode 23 ≤ 25 would be the normal area)
        // 24 → 14 208 B = 28.416 > 28: the initial max_p (in packet mode 24 ≤ 28 is not)
        // 23 → 27.232 again: safe area, kept (0.05)
        // 22 → 13 024 B = 26.048: safe area, kept (0.05)
        //  4 → 2 368 B = 4.736 < 12: max_p/5
        let steps = [(5u32, 2960u64, 0.01), (20, 11840, 0.025), (23, 13616, 0.025),
                     (24, 14208, 0.05), (23, 13616, 0.05), (22, 13024, 0.05), (4, 2368, 0.01)];
        for (n, bytes, mp) in steps {
            assert_eq!(n as u64 * 592, bytes);
            let v = QueueView { len_pkts: n, len_bytes: bytes };
            r.on_enqueue(&pkt, &v, SimTime::ZERO, &mut rng);
            assert!((r.red.vars.cur_max_p - mp).abs() < 1e-15, "{n} pkts: {} vs {mp}", r.red.vars.cur_max_p);
            // the average is kept in bytes; the monitors see it in units of 500 bytes
            assert!((r.state().avg - bytes as f64 / 500.0).abs() < 1e-9);
        }
        // exactly at the threshold (14 000 B = 28 units) is not above it; one byte more is
        let mut r = scenario1_bytes();
        r.red.params.w_q = 1.0;
        r.red.vars.idle = false;
        r.red.vars.cur_max_p = 0.01;
        let at = QueueView { len_pkts: 28, len_bytes: 14_000 };
        r.on_enqueue(&pkt, &at, SimTime::ZERO, &mut rng);
        assert_eq!(r.red.vars.cur_max_p, 0.01, "28.0 units: safe area, kept");
        let above = QueueView { len_pkts: 28, len_bytes: 14_001 };
        r.on_enqueue(&pkt, &above, SimTime::ZERO, &mut rng);
        assert_eq!(r.red.vars.cur_max_p, 0.05, "28.002 units: above risk_th");
    }

    #[test]
    fn packet_mode_ignores_bytes() {
        // packet mode compares the packet count: 24 packets of any size are not above 28
        let mut r = scenario1();
        r.red.params.w_q = 1.0;
        r.red.vars.idle = false;
        let mut rng = Rng::new(5, 5);
        let pkt = Packet::new(crate::packet::Kind::Data, 0, 1, 592, 0, SimTime::ZERO);
        r.on_enqueue(&pkt, &QueueView { len_pkts: 24, len_bytes: 24 * 592 }, SimTime::ZERO, &mut rng);
        assert_eq!(r.red.vars.cur_max_p, 0.025, "24 packets, avg 24: normal area");
        r.on_enqueue(&pkt, &QueueView { len_pkts: 29, len_bytes: 29 * 100 }, SimTime::ZERO, &mut rng);
        assert_eq!(r.red.vars.cur_max_p, 0.05, "29 packets > 28 however few bytes");
    }

    #[test]
    fn drop_areas() {
        assert_eq!(drop_area(3.0, 12.0, 25.0, 28.0), DropArea::Unfair);
        assert_eq!(drop_area(12.0, 12.0, 25.0, 28.0), DropArea::Normal);
        assert_eq!(drop_area(25.0, 12.0, 25.0, 28.0), DropArea::Safe);
        assert_eq!(drop_area(28.0, 12.0, 25.0, 28.0), DropArea::Timeout);
    }
}
