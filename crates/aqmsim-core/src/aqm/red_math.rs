//! RED's arithmetic as pure functions (Floyd & Jacobson 1993, and ns-2 2.35 `red.cc`).
//!
//! Every RED variant calls these; none keeps a private copy. Each function returns a value
//! and touches no state, so the golden tests can check them against the formulas directly.

/// EWMA of the queue, eq. (1) of every paper: `avg ← (1 − w)·avg + w·q`.
#[inline]
pub fn ewma(avg: f64, q: f64, w: f64) -> f64 {
    (1.0 - w) * avg + w * q
}

/// The average after `m` packet times of idleness: `(1 − w)^m · avg`
/// (Floyd & Jacobson §4; ns-2 computes `m = int(ptc · idle_time)`).
#[inline]
pub fn decay_idle(avg: f64, w: f64, m: u64) -> f64 {
    let mut a = avg;
    // Repeated multiplication as ns-2 does, so results match bit for bit; long idle
    // periods fall back to powf (the value is ~0 by then anyway).
    if m <= 4096 {
        for _ in 0..m {
            a *= 1.0 - w;
        }
        a
    } else {
        a * (1.0 - w).powf(m as f64)
    }
}

/// Packets that could have been sent during `idle_secs` at `ptc` packets per second.
#[inline]
pub fn idle_packets(ptc: f64, idle_secs: f64) -> u64 {
    let m = ptc * idle_secs;
    if m <= 0.0 {
        0
    } else {
        m as u64
    }
}

/// Initial drop probability between the thresholds, eq. (2):
/// `p_b = max_p · (avg − min_th) / (max_th − min_th)`.
#[inline]
pub fn p_b(avg: f64, min_th: f64, max_th: f64, max_p: f64) -> f64 {
    let diff = if max_th - min_th == 0.0 { 1.0 } else { max_th - min_th };
    max_p * (avg - min_th) / diff
}

/// Gentle RED above max_th: p rises linearly from `max_p` at max_th to 1 at 2·max_th.
#[inline]
pub fn p_b_gentle(avg: f64, max_th: f64, max_p: f64) -> f64 {
    max_p + (1.0 - max_p) * (avg - max_th) / max_th
}

/// ns-2 `calculate_p_new`: the probability before the count correction, capped at 1.
#[inline]
pub fn p_initial(avg: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> f64 {
    let p = if avg >= max_th {
        if gentle {
            p_b_gentle(avg, max_th, max_p)
        } else {
            1.0
        }
    } else {
        p_b(avg, min_th, max_th, max_p)
    };
    p.min(1.0)
}

/// Count correction, eq. (3): `p_a = p_b / (1 − count·p_b)` so that inter-drop gaps are
/// uniform. With ns-2's `wait_` the gap is uniform on [1/p_b, 2/p_b] instead:
/// `p_a = 0` while `count·p_b < 1`, then `p_b / (2 − count·p_b)`.
#[inline]
pub fn p_a(p_b: f64, count: f64, wait: bool) -> f64 {
    let cp = count * p_b;
    let p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            p_b / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        p_b / (1.0 - cp)
    } else {
        1.0
    };
    p.min(1.0)
}

/// ns-2 byte mode (`bytes_`): after the count correction, `p ← p · size / mean_pktsize`
/// (only when p < 1), capped at 1 — the RED_4-style weighting of paper 002.
#[inline]
pub fn scale_by_size(p: f64, size: f64, mean_pktsize: f64) -> f64 {
    if p < 1.0 {
        (p * size / mean_pktsize).min(1.0)
    } else {
        p
    }
}

/// `p · w` when p < 1, capped at 1; p itself when p is already 1 (paper 002's weightings).
#[inline]
pub fn scale_below_one(p: f64, w: f64) -> f64 {
    if p < 1.0 {
        (p * w).min(1.0)
    } else {
        p
    }
}

/// ns-2 automatic queue weight (`q_weight_ = -1`): with `rtt = max(0.1, 3·(delay + 1/ptc))`,
/// `w_q = 1 − exp(−1 / (10 · rtt · ptc))`.
pub fn auto_w_q(ptc: f64, delay_secs: f64) -> f64 {
    let rtt = (3.0 * (delay_secs + 1.0 / ptc)).max(0.1);
    let x = 1.0 / (10.0 * rtt * ptc);
    // ns-2's arithmetic, bit for bit; where it rounds to 0 (x below ~1e-16: a very long or
    // very fast link), the same quantity without the cancellation (fuzzing finding F4).
    let w = 1.0 - (-x).exp();
    if w > 0.0 {
        w
    } else {
        -(-x).exp_m1()
    }
}

/// ns-2 automatic min threshold (`thresh_ = 0`): `max(5, targetdelay · ptc / 2)` packets.
pub fn auto_min_th(ptc: f64, target_delay_secs: f64) -> f64 {
    (target_delay_secs * ptc / 2.0).max(5.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ewma_by_hand() {
        // avg 0 → w·q; then (1-w)·avg + w·q.
        let w = 0.002;
        let a1 = ewma(0.0, 10.0, w);
        assert!((a1 - 0.02).abs() < 1e-15);
        let a2 = ewma(a1, 10.0, w);
        assert!((a2 - (0.998 * 0.02 + 0.02)).abs() < 1e-15);
    }

    #[test]
    fn p_b_and_gentle_by_hand() {
        assert!((p_b(10.0, 5.0, 15.0, 0.1) - 0.05).abs() < 1e-15);
        assert_eq!(p_initial(15.0, 5.0, 15.0, 0.1, false), 1.0);
        assert!((p_initial(15.0, 5.0, 15.0, 0.1, true) - 0.1).abs() < 1e-15);
        assert!((p_initial(22.5, 5.0, 15.0, 0.1, true) - 0.55).abs() < 1e-12);
        assert_eq!(p_initial(30.0, 5.0, 15.0, 0.1, true), 1.0);
        assert_eq!(p_initial(40.0, 5.0, 15.0, 0.1, true), 1.0);
    }

    #[test]
    fn p_a_by_hand() {
        // Floyd-Jacobson: p_b = 0.05, count 10 → 0.05 / 0.5 = 0.1.
        assert!((p_a(0.05, 10.0, false) - 0.1).abs() < 1e-15);
        assert_eq!(p_a(0.05, 20.0, false), 1.0);
        // wait: zero until count·p_b reaches 1, then p_b / (2 − count·p_b).
        assert_eq!(p_a(0.05, 19.0, true), 0.0);
        assert!((p_a(0.05, 30.0, true) - 0.1).abs() < 1e-15);
        assert_eq!(p_a(0.05, 40.0, true), 1.0);
    }

    #[test]
    fn auto_values_match_ns2_formulas() {
        // 1.5 Mb/s, 500-byte mean packets: ptc = 375 pkt/s; delay 20 ms.
        let ptc: f64 = 1.5e6 / (8.0 * 500.0);
        let rtt: f64 = (3.0 * (0.02 + 1.0 / ptc)).max(0.1); // 0.068 s → clamped to 0.1 s
        let expect = 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp();
        assert!((auto_w_q(ptc, 0.02) - expect).abs() < 1e-15);
        assert_eq!(auto_min_th(ptc, 0.005), 5.0);
        assert!((auto_min_th(1e9 / 4000.0, 0.005) - 625.0).abs() < 1e-9);
    }

    #[test]
    fn idle_decay_matches_closed_form() {
        let a = decay_idle(10.0, 0.01, 7);
        assert!((a - 10.0 * 0.99f64.powi(7)).abs() < 1e-12);
        assert_eq!(idle_packets(375.0, 0.1), 37);
    }

    proptest! {
        #[test]
        fn probabilities_stay_in_unit_interval(avg in 0.0f64..1e4, min in 0.0f64..500.0,
            span in 0.1f64..500.0, max_p in 0.0001f64..1.0, count in 0u32..100_000,
            gentle: bool, wait: bool, size in 40.0f64..9000.0) {
            let max = min + span;
            if avg >= min {
                let pi = p_initial(avg, min, max, max_p, gentle);
                prop_assert!((0.0..=1.0).contains(&pi));
                let pa = p_a(pi, count as f64, wait);
                prop_assert!((0.0..=1.0).contains(&pa));
                let ps = scale_by_size(pa, size, 500.0);
                prop_assert!((0.0..=1.0).contains(&ps));
            }
        }

        #[test]
        fn iterated_ewma_equals_closed_form(q in 0.0f64..1000.0, w in 0.0001f64..0.5, n in 1u32..200) {
            let mut avg = 0.0;
            for _ in 0..n { avg = ewma(avg, q, w); }
            let closed = q * (1.0 - (1.0 - w).powi(n as i32));
            prop_assert!((avg - closed).abs() <= 1e-9 * q.max(1.0));
        }
    }
}
