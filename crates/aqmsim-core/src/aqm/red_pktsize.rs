//! RED_1 … RED_5 (paper 002, De Cnodder et al., Tables I–II): RED with the drop probability
//! weighted by packet size L relative to the maximum packet size M.
//!
//! | variant | count before | p_a | count after |
//! |---|---|---|---|
//! | RED_1 | +1 | p_b / (1 − count·p_b) | — |
//! | RED_2 | +1 | p_b' / (1 − count·p_b') with p_b' = p_b·L/M | — |
//! | RED_3 | +1 | p_b·L / ((1 − count·p_b)·M) | — |
//! | RED_4 | — | p_b·L / ((1 − count·p_b)·M) | + L/M |
//! | RED_5 | — | p_b / (1 − count·p_b) · (L/M)² | + (L/M)² |
//!
//! Everything else is RED as in `red.rs` (EWMA, the first-crossing rule, count reset on a
//! drop, the overflow rule). Choices: the paper's RED has no `wait_`, so RED_k default to
//! `wait = false`; L is the packet's size on the wire and M the `max_pktsize` parameter
//! (1500 bytes, the largest MTU of the paper). With every packet of size M, RED_1–RED_3 are
//! RED exactly, and RED_4/RED_5 are RED with the count advanced after the decision (the
//! paper's "moving the update of count"), which is a different sequence with the same
//! uniform inter-drop law.

use super::red::{Red, RedParams, SizeWeighting};

/// The five variants.
pub const VARIANTS: [(&str, SizeWeighting); 5] = [
    ("red1", SizeWeighting::None),
    ("red2", SizeWeighting::Red2),
    ("red3", SizeWeighting::Red3),
    ("red4", SizeWeighting::Red4),
    ("red5", SizeWeighting::Red5),
];

/// RED_k (k = 1…5) with the given RED parameters (`bytes` must be off: the weighting
/// replaces ns-2's byte mode).
pub fn red_k(k: usize, mut params: RedParams) -> Red {
    params.bytes = false;
    let mut r = Red::new(params);
    r.weighting = VARIANTS[k - 1].1;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::tests_support::packet_params;
    use crate::aqm::{Aqm, QueueView, Verdict};
    use crate::packet::{Kind, Packet};
    use crate::rng::Rng;
    use crate::time::SimTime;
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest};

    fn params() -> RedParams {
        let mut p = packet_params();
        p.w_q = 1.0; // avg = q
        p.max_pktsize = 1500.0;
        p
    }

    #[test]
    fn golden_probabilities_by_hand() {
        // avg 10 with thresholds 5/15, max_p 0.1: p_b = 0.05. L = 750, M = 1500: L/M = 1/2.
        let small = Packet::new(Kind::Data, 0, 1, 750, 0, SimTime::ZERO);
        let view = QueueView { len_pkts: 10, len_bytes: 7500 };
        let cases: [(usize, fn(f64) -> f64); 3] = [
            (1, |c| 0.05 / (1.0 - c * 0.05)),
            (2, |c| 0.025 / (1.0 - c * 0.025)),
            (3, |c| 0.05 * 0.5 / (1.0 - c * 0.05)),
        ];
        for (k, f) in cases {
            let mut r = red_k(k, params());
            r.vars.idle = false;
            let mut rng = Rng::new(9, k as u64);
            r.on_enqueue(&small, &view, SimTime::ZERO, &mut rng); // first crossing: count = 1
            let mut c = 1.0;
            for _ in 0..5 {
                let v = r.on_enqueue(&small, &view, SimTime::ZERO, &mut rng);
                c += 1.0;
                assert!((r.vars.p - f(c)).abs() < 1e-12, "RED_{k} count {c}");
                if v != Verdict::Enqueue {
                    c = 0.0;
                }
            }
        }
        // RED_4: count advances by L/M after; RED_5 by (L/M)² with p scaled by (L/M)².
        for (k, step, scale) in [(4usize, 0.5, 0.5), (5, 0.25, 0.25)] {
            let mut r = red_k(k, params());
            r.vars.idle = false;
            let mut rng = Rng::new(9, 40 + k as u64);
            r.on_enqueue(&small, &view, SimTime::ZERO, &mut rng); // count = 1
            let mut c: f64 = 1.0;
            for _ in 0..5 {
                let v = r.on_enqueue(&small, &view, SimTime::ZERO, &mut rng);
                let expect = 0.05 / (1.0 - c * 0.05) * scale;
                assert!((r.vars.p - expect).abs() < 1e-12, "RED_{k} count {c}");
                c = if v == Verdict::Enqueue { c + step } else { 0.0 };
                assert!((r.vars.count - c).abs() < 1e-12);
            }
        }
    }

    proptest! {
        #[test]
        fn with_every_packet_of_size_m_red1_to_red3_are_red(qs in proptest::collection::vec(0u32..40, 1..300), seed in 0u64..1000) {
            let pkt = Packet::new(Kind::Data, 0, 1, 1500, 0, SimTime::ZERO);
            let mut p = packet_params();
            p.max_pktsize = 1500.0;
            let mut base = Red::new(p.clone());
            let mut others: Vec<Red> = (1..=3).map(|k| red_k(k, p.clone())).collect();
            let mut r0 = Rng::new(seed, 1);
            let mut rs: Vec<Rng> = (0..3).map(|_| Rng::new(seed, 1)).collect();
            let mut r4 = red_k(4, p.clone());
            let mut r5 = red_k(5, p.clone());
            let (mut g4, mut g5) = (Rng::new(seed, 2), Rng::new(seed, 2));
            for (i, &q) in qs.iter().enumerate() {
                let t = SimTime(i as u64 * 1_000_000);
                let v = QueueView { len_pkts: q, len_bytes: q as u64 * 1500 };
                let want = base.on_enqueue(&pkt, &v, t, &mut r0);
                for (r, g) in others.iter_mut().zip(rs.iter_mut()) {
                    prop_assert_eq!(r.on_enqueue(&pkt, &v, t, g), want);
                    prop_assert!((0.0..=1.0).contains(&r.vars.p));
                }
                prop_assert_eq!(r4.on_enqueue(&pkt, &v, t, &mut g4), r5.on_enqueue(&pkt, &v, t, &mut g5));
            }
        }

        #[test]
        fn probabilities_stay_in_unit_interval(sizes in proptest::collection::vec(40u32..1500, 1..200), k in 1usize..=5) {
            let mut r = red_k(k, params());
            r.vars.idle = false;
            let mut g = Rng::new(3, 3);
            for (i, &s) in sizes.iter().enumerate() {
                let pkt = Packet::new(Kind::Data, 0, 1, s, 0, SimTime::ZERO);
                let q = (i % 20) as u32;
                r.on_enqueue(&pkt, &QueueView { len_pkts: q, len_bytes: q as u64 * 1000 }, SimTime::ZERO, &mut g);
                prop_assert!((0.0..=1.0).contains(&r.vars.p));
                prop_assert!(r.vars.count >= 0.0);
            }
        }
    }
}

#[cfg(test)]
mod above_max_th {
    use super::*;
    use crate::aqm::red::tests_support::packet_params;
    use crate::aqm::{Aqm, QueueView, Reason, Verdict};
    use crate::packet::{Kind, Packet};
    use crate::rng::Rng;
    use crate::time::SimTime;

    #[test]
    fn every_variant_drops_every_arrival_above_max_th_whatever_its_size() {
        for k in 1..=5 {
            let mut p = packet_params();
            p.w_q = 1.0;
            let mut r = red_k(k, p);
            r.vars.idle = false;
            let mut rng = Rng::new(1, k as u64);
            let small = Packet::new(Kind::Data, 0, 1, 375, 0, SimTime::ZERO);
            let view = QueueView { len_pkts: 20, len_bytes: 7500 };
            r.on_enqueue(&small, &view, SimTime::ZERO, &mut rng); // first crossing
            for _ in 0..50 {
                assert_eq!(r.on_enqueue(&small, &view, SimTime::ZERO, &mut rng), Verdict::Drop(Reason::Forced), "RED_{k}");
                assert_eq!(r.vars.p, 1.0);
            }
        }
    }
}
