//! RED (Floyd & Jacobson 1993) with the options of ns-2 2.35's `Queue/RED`.
//!
//! Per arrival, in ns-2's order (`REDQueue::enque`):
//! 1. if the queue was idle, `m = int(ptc · idle_time)` and `avg ← (1−w)^m · avg`;
//!    then `avg ← (1−w)·avg + w·q` with `q` the current length (packets, or bytes when
//!    `queue_in_bytes`);
//! 2. `count += 1` (and `count_bytes += size`);
//! 3. if `avg ≥ min_th` and `q > 1`:
//!    - avg above the hard limit (max_th, or 2·max_th when gentle) and `use_mark_p` off:
//!      forced drop;
//!    - else if this is the first arrival since avg crossed min_th: `count = 1`, no drop;
//!    - else `p = calculate_p(avg)`, count-corrected (`p_a`, with or without `wait`),
//!      scaled by `size / mean_pktsize` in byte mode; drop (or mark, when ECN is on, the
//!      packet is ECN-capable and `p_initial < mark_p`) when `u ≤ p`, and reset count;
//! 4. otherwise `old = false`, p = 0;
//! 5. if `q ≥ limit` (bytes: `limit · mean_pktsize`): overflow drop, count reset.
//!
//! Choices: with ns-2's default `use_mark_p = true` the "forced" branch of step 3 is never
//! taken and avg above the limit gives p = 1 through the early path; we keep that
//! behaviour and label such drops `forced` for the monitors because avg was above the hard
//! limit.

use super::red_math as rm;
use super::{Aqm, AqmState, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;

/// Validated, resolved parameters (no "auto" left).
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds in packets.
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    /// Buffer limit in packets (bytes mode: times `mean_pktsize`).
    pub limit: u32,
    pub gentle: bool,
    pub wait: bool,
    /// ns-2 `setbit_`: mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// ns-2 `use_mark_p_` / `mark_p_`: with ECN, mark only while p_initial < mark_p
    /// (so mark_p ≥ 1.0 — ns-2 scripts use 2 — marks everywhere).
    pub use_mark_p: bool,
    pub mark_p: f64,
    /// ns-2 `bytes_`: scale the drop probability by size / mean_pktsize.
    pub bytes: bool,
    /// ns-2 `queue_in_bytes_`: average and thresholds in bytes.
    pub queue_in_bytes: bool,
    pub mean_pktsize: f64,
    /// Packet time constant, mean-sized packets per second on the link.
    pub ptc: f64,
}

/// Mutable state.
#[derive(Clone, Debug, Default)]
pub struct RedVars {
    pub avg: f64,
    pub count: u64,
    pub count_bytes: u64,
    /// avg was above min_th at the previous arrival (ns-2 `old`).
    pub old: bool,
    pub idle: bool,
    pub idle_since: SimTime,
    pub cur_max_p: f64,
    /// Probability applied to the last arrival.
    pub p: f64,
}

#[derive(Clone, Debug)]
pub struct Red {
    pub params: RedParams,
    pub vars: RedVars,
}

impl Red {
    pub fn new(params: RedParams) -> Red {
        let vars = RedVars { idle: true, cur_max_p: params.max_p, ..RedVars::default() };
        Red { params, vars }
    }

    /// Thresholds in the queue's unit.
    #[inline]
    fn unit(&self) -> f64 {
        if self.params.queue_in_bytes {
            self.params.mean_pktsize
        } else {
            1.0
        }
    }

    /// Update the average for an arrival seeing `qlen` (queue unit). Step 1.
    #[inline]
    pub fn update_avg(&mut self, qlen: f64, now: SimTime) {
        let w = self.params.w_q;
        let mut avg = self.vars.avg;
        if self.vars.idle {
            self.vars.idle = false;
            let m = rm::idle_packets(self.params.ptc, now.saturating_since(self.vars.idle_since).secs());
            avg = rm::decay_idle(avg, w, m);
        }
        self.vars.avg = rm::ewma(avg, qlen, w);
    }
}

impl Aqm for Red {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        let p = &self.params;
        let unit = self.unit();
        let qlen = if p.queue_in_bytes { q.len_bytes as f64 } else { q.len_pkts as f64 };
        self.update_avg(qlen, now);
        let p = &self.params;
        let v = &mut self.vars;
        v.count += 1;
        v.count_bytes += pkt.size as u64;

        let (min_th, max_th) = (p.min_th * unit, p.max_th * unit);
        let hard = if p.gentle { 2.0 * max_th } else { max_th };
        let mut verdict = Verdict::Enqueue;
        if v.avg >= min_th && qlen > 1.0 {
            let above = v.avg >= hard;
            if !p.use_mark_p && above {
                verdict = Verdict::Drop(Reason::Forced);
            } else if !v.old {
                v.count = 1;
                v.count_bytes = pkt.size as u64;
                v.old = true;
            } else {
                let p1 = rm::p_initial(v.avg, min_th, max_th, v.cur_max_p, p.gentle);
                let count = if p.bytes {
                    // ns-2: integer division count_bytes / mean_pktsize.
                    (v.count_bytes / p.mean_pktsize as u64) as f64
                } else {
                    v.count as f64
                };
                let mut pa = rm::p_a(p1, count, p.wait);
                if p.bytes {
                    pa = rm::scale_by_size(pa, pkt.size as f64, p.mean_pktsize);
                }
                v.p = pa;
                let reason = if above { Reason::Forced } else { Reason::Early };
                if rng.uniform() <= pa && pa > 0.0 {
                    v.count = 0;
                    v.count_bytes = 0;
                    verdict = if p.ecn && pkt.has(ecn::ECT) && (!p.use_mark_p || p1 < p.mark_p) {
                        Verdict::Mark(reason)
                    } else {
                        Verdict::Drop(reason)
                    };
                }
            }
        } else {
            v.p = 0.0;
            v.old = false;
        }
        let limit = p.limit as f64 * unit;
        if qlen >= limit {
            verdict = Verdict::Drop(Reason::Overflow);
        }
        if matches!(verdict, Verdict::Drop(Reason::Forced | Reason::Overflow)) {
            v.count = 0;
            v.count_bytes = 0;
        }
        verdict
    }

    fn on_idle(&mut self, now: SimTime) {
        self.vars.idle = true;
        self.vars.idle_since = now;
    }

    fn on_dequeue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime) -> super::FrontAction {
        self.vars.idle = false;
        super::FrontAction::Pass
    }

    fn state(&self) -> AqmState {
        let unit = self.unit();
        AqmState {
            avg: self.vars.avg / unit,
            p: self.vars.p,
            max_p: self.vars.cur_max_p,
            min_th: self.params.min_th,
            max_th: self.params.max_th,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

    fn params() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            limit: 50,
            gentle: false,
            wait: false,
            ecn: false,
            use_mark_p: true,
            mark_p: 0.1,
            bytes: false,
            queue_in_bytes: false,
            mean_pktsize: 500.0,
            ptc: 375.0,
        }
    }

    fn pkt() -> Packet {
        Packet::new(Kind::Data, 0, 1, 1000, 0, SimTime::ZERO)
    }

    #[test]
    fn golden_average_sequence_with_idle_correction() {
        // Queue lengths seen by arrivals (no idle): avg_k = (1-w) avg_{k-1} + w q_k.
        let mut red = Red::new(params());
        let mut rng = Rng::new(1, 1);
        red.vars.idle = false; // busy from the start
        let qs = [0u32, 1, 2, 3, 4, 5];
        let mut expect = 0.0;
        for &q in &qs {
            let view = QueueView { len_pkts: q, len_bytes: q as u64 * 1000 };
            assert_eq!(red.on_enqueue(&pkt(), &view, SimTime::ZERO, &mut rng), Verdict::Enqueue);
            expect = 0.998 * expect + 0.002 * q as f64;
            assert!((red.vars.avg - expect).abs() < 1e-15);
        }
        // Idle for 0.1 s at ptc 375: m = 37 → avg·0.998^37, then the arrival's update.
        red.on_idle(SimTime::from_secs(1.0));
        let view = QueueView::default();
        red.on_enqueue(&pkt(), &view, SimTime::from_secs(1.1), &mut rng);
        let expect2 = 0.998 * (expect * 0.998f64.powi(37)) + 0.0;
        assert!((red.vars.avg - expect2).abs() < 1e-15, "{} vs {}", red.vars.avg, expect2);
    }

    #[test]
    fn golden_probabilities_between_thresholds() {
        // Hold avg at 10 (w = 0 keeps it there): p_b = 0.1·(10−5)/10 = 0.05.
        let mut pr = params();
        pr.w_q = 1.0; // avg = q exactly
        let mut red = Red::new(pr);
        red.vars.idle = false;
        let mut rng = Rng::new(3, 3);
        let view = QueueView { len_pkts: 10, len_bytes: 10_000 };
        // First arrival above min_th only sets count = 1 (ns-2 `old`).
        assert_eq!(red.on_enqueue(&pkt(), &view, SimTime::ZERO, &mut rng), Verdict::Enqueue);
        assert_eq!(red.vars.count, 1);
        // Subsequent arrivals: count k → p_a = 0.05 / (1 − k·0.05) until a drop.
        let mut count = 1u64;
        for _ in 0..200 {
            let v = red.on_enqueue(&pkt(), &view, SimTime::ZERO, &mut rng);
            count += 1;
            let expect = if count as f64 * 0.05 < 1.0 { 0.05 / (1.0 - count as f64 * 0.05) } else { 1.0 };
            assert!((red.vars.p - expect).abs() < 1e-12, "count {count}: {} vs {expect}", red.vars.p);
            if v == Verdict::Drop(Reason::Early) {
                assert_eq!(red.vars.count, 0);
                count = 0;
            } else {
                assert_eq!(v, Verdict::Enqueue);
            }
            assert!(count < 20, "count·p_b reached 1 without a drop");
        }
    }

    #[test]
    fn above_max_th_always_drops_and_overflow_drops() {
        let mut pr = params();
        pr.w_q = 1.0;
        let mut red = Red::new(pr);
        red.vars.idle = false;
        let mut rng = Rng::new(3, 3);
        let view = QueueView { len_pkts: 20, len_bytes: 20_000 };
        red.on_enqueue(&pkt(), &view, SimTime::ZERO, &mut rng); // sets old
        for _ in 0..10 {
            assert_eq!(red.on_enqueue(&pkt(), &view, SimTime::ZERO, &mut rng), Verdict::Drop(Reason::Forced));
        }
        let full = QueueView { len_pkts: 50, len_bytes: 50_000 };
        assert_eq!(red.on_enqueue(&pkt(), &full, SimTime::ZERO, &mut rng), Verdict::Drop(Reason::Overflow));
    }

    #[test]
    fn ecn_marks_capable_packets_only() {
        let mut pr = params();
        pr.w_q = 1.0;
        pr.ecn = true;
        pr.max_p = 0.5;
        let mut red = Red::new(pr);
        red.vars.idle = false;
        let mut rng = Rng::new(3, 3);
        let view = QueueView { len_pkts: 6, len_bytes: 6000 }; // p_b = 0.05
        let mut ect = pkt();
        ect.ecn = ecn::ECT;
        red.on_enqueue(&ect, &view, SimTime::ZERO, &mut rng);
        let mut marks = 0;
        for _ in 0..500 {
            match red.on_enqueue(&ect, &view, SimTime::ZERO, &mut rng) {
                Verdict::Mark(Reason::Early) => marks += 1,
                Verdict::Enqueue => {}
                v => panic!("unexpected {v:?}"),
            }
        }
        assert!(marks > 5);
        let plain = pkt();
        let mut drops = 0;
        for _ in 0..500 {
            if let Verdict::Drop(_) = red.on_enqueue(&plain, &view, SimTime::ZERO, &mut rng) {
                drops += 1;
            }
        }
        assert!(drops > 5);
    }
}
