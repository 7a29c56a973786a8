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
    /// (so mark_p > 1 — ns-2 scripts use 2 — marks everywhere).
    pub use_mark_p: bool,
    pub mark_p: f64,
    /// ns-2 `bytes_`: scale the drop probability by size / mean_pktsize.
    pub bytes: bool,
    /// ns-2 `queue_in_bytes_`: average and thresholds in bytes.
    pub queue_in_bytes: bool,
    pub mean_pktsize: f64,
    /// M of paper 002: the maximum packet size, bytes (RED_2 … RED_5 weight by L/M).
    pub max_pktsize: f64,
    /// Apply ECN marks to the packet at the head of the queue as it leaves (mark-front,
    /// paper 004) instead of to the arrival; on overflow drop from the front.
    pub ecn_front: bool,
    /// Packet time constant, mean-sized packets per second on the link.
    pub ptc: f64,
}

/// Mutable state.
#[derive(Clone, Debug, Default)]
pub struct RedVars {
    pub avg: f64,
    /// Arrivals since the last drop (a real number for RED_4/RED_5, which add L/M).
    pub count: f64,
    pub count_bytes: u64,
    /// avg was above min_th at the previous arrival (ns-2 `old`).
    pub old: bool,
    pub idle: bool,
    pub idle_since: SimTime,
    pub cur_max_p: f64,
    /// Probability applied to the last arrival.
    pub p: f64,
    /// Marks decided at arrival, waiting for an ECN-capable packet to leave (mark-front).
    pub pending_marks: u32,
}

#[derive(Clone, Debug)]
pub struct Red {
    pub params: RedParams,
    pub vars: RedVars,
    pub weighting: SizeWeighting,
    /// Gentle slope from the initial max_p whatever max_p is now (ns-2's `v_c`, `v_d`,
    /// computed once at reset): set for the adaptive variants, which ns-2 implements.
    pub ns2_gentle_slope: bool,
}

impl Red {
    pub fn new(params: RedParams) -> Red {
        let vars = RedVars { idle: true, cur_max_p: params.max_p, ..RedVars::default() };
        let weighting = if params.bytes { SizeWeighting::Ns2Bytes } else { SizeWeighting::None };
        Red { params, vars, weighting, ns2_gentle_slope: false }
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

/// The hooks a RED variant that wraps a [`Red`] in a field `red` leaves to it: idle
/// detection, dequeue (mark-front), and the monitors' view.
macro_rules! delegate_to_red {
    () => {
        fn on_idle(&mut self, now: SimTime) {
            self.red.on_idle(now)
        }
        fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> super::FrontAction {
            self.red.on_dequeue(pkt, q, now, rng)
        }
        fn state(&self) -> super::AqmState {
            self.red.state()
        }
    };
}
pub(crate) use delegate_to_red;

/// How packet size weights the drop decision (paper 002, Tables I–II). `Ns2Bytes` is
/// ns-2's `bytes_` (scale after the count correction, count in mean-size packets).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SizeWeighting {
    /// Plain RED (ns-2 `bytes_ false`): size plays no part. Also RED_1.
    None,
    /// ns-2 `bytes_ true`.
    Ns2Bytes,
    /// RED_2: `p_b ← p_b · L/M` before the count correction.
    Red2,
    /// RED_3: `p_a ← p_b·L / ((1 − count·p_b)·M)`, count += 1 before.
    Red3,
    /// RED_4: as RED_3, but `count += L/M` after the decision.
    Red4,
    /// RED_5: `p_a ← p_b/(1 − count·p_b) · (L/M)²`, `count += (L/M)²` after.
    Red5,
}

/// The thresholds and max_p in force for one decision (variants move them).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Knobs {
    /// Packets.
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
}

impl Red {
    /// Steps 1–2 of the arrival: idle correction, EWMA, count. Returns the queue length the
    /// arrival saw, in the queue's unit.
    #[inline]
    pub fn arrive(&mut self, pkt: &Packet, q: &QueueView, now: SimTime) -> f64 {
        let qlen = if self.params.queue_in_bytes { q.len_bytes as f64 } else { q.len_pkts as f64 };
        self.update_avg(qlen, now);
        match self.weighting {
            SizeWeighting::Red4 | SizeWeighting::Red5 => {}
            _ => self.vars.count += 1.0,
        }
        self.vars.count_bytes += pkt.size as u64;
        qlen
    }

    /// Steps 3–5: the verdict for an arrival that saw `qlen`, with thresholds and max_p
    /// `k` (packets; scaled to bytes here in byte mode).
    #[inline]
    pub fn decide(&mut self, pkt: &Packet, qlen: f64, k: Knobs, rng: &mut Rng) -> Verdict {
        let unit = self.unit();
        let p = &self.params;
        let v = &mut self.vars;
        let (min_th, max_th) = (k.min_th * unit, k.max_th * unit);
        let hard = if p.gentle { 2.0 * max_th } else { max_th };
        let l_over_m = pkt.size as f64 / p.max_pktsize;
        let mut verdict = Verdict::Enqueue;
        let mut decided = false;
        if v.avg >= min_th && qlen > 1.0 {
            let above = v.avg >= hard;
            if !p.use_mark_p && above {
                verdict = Verdict::Drop(Reason::Forced);
            } else if !v.old {
                v.count = 1.0;
                v.count_bytes = pkt.size as u64;
                v.old = true;
            } else {
                decided = true;
                // ns-2 computes the gentle slope once, from the initial max_p (v_c, v_d): its
                // AREDs keep that; other variants slope from the max_p in force.
                let p1 = if p.gentle && v.avg >= max_th {
                    let mp = if self.ns2_gentle_slope { p.max_p } else { k.max_p };
                    rm::p_b_gentle(v.avg, max_th, mp).min(1.0)
                } else {
                    rm::p_initial(v.avg, min_th, max_th, k.max_p, p.gentle)
                };
                // Size weighting applies to a probability below 1 only: where RED drops every
                // arrival (avg above the hard limit, or count·p_b ≥ 1) it still does, as in
                // Floyd & Jacobson and in ns-2's byte mode (`if p < 1`).
                let pa = match self.weighting {
                    SizeWeighting::None => rm::p_a(p1, v.count, p.wait),
                    SizeWeighting::Ns2Bytes => {
                        // count in mean-size packets, integer division as ns-2 does.
                        let c = (v.count_bytes / p.mean_pktsize as u64) as f64;
                        rm::scale_by_size(rm::p_a(p1, c, p.wait), pkt.size as f64, p.mean_pktsize)
                    }
                    SizeWeighting::Red2 if p1 < 1.0 => rm::p_a((p1 * l_over_m).min(1.0), v.count, p.wait),
                    SizeWeighting::Red3 | SizeWeighting::Red4 => rm::scale_below_one(rm::p_a(p1, v.count, p.wait), l_over_m),
                    SizeWeighting::Red5 => rm::scale_below_one(rm::p_a(p1, v.count, p.wait), l_over_m * l_over_m),
                    SizeWeighting::Red2 => 1.0,
                };
                v.p = pa;
                let reason = if above { Reason::Forced } else { Reason::Early };
                if rng.uniform() <= pa && pa > 0.0 {
                    v.count = 0.0;
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
        if qlen >= p.limit as f64 * unit {
            verdict = Verdict::Drop(Reason::Overflow);
        }
        if p.ecn_front {
            // Mark-front: the mark goes to the next ECN-capable packet to leave; a full
            // buffer drops from the front.
            match verdict {
                Verdict::Mark(_) => {
                    v.pending_marks += 1;
                    verdict = Verdict::Enqueue;
                }
                Verdict::Drop(Reason::Overflow) => verdict = Verdict::DropHead(Reason::Overflow),
                _ => {}
            }
        }
        match verdict {
            Verdict::Drop(Reason::Forced | Reason::Overflow) | Verdict::DropHead(_) => {
                v.count = 0.0;
                v.count_bytes = 0;
            }
            Verdict::Enqueue if decided => match self.weighting {
                SizeWeighting::Red4 => v.count += l_over_m,
                SizeWeighting::Red5 => v.count += l_over_m * l_over_m,
                _ => {}
            },
            _ => {}
        }
        verdict
    }

    /// The fixed thresholds and the current max_p.
    #[inline]
    pub fn knobs(&self) -> Knobs {
        Knobs { min_th: self.params.min_th, max_th: self.params.max_th, max_p: self.vars.cur_max_p }
    }
}

impl Aqm for Red {
    #[inline]
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        let qlen = self.arrive(pkt, q, now);
        let k = self.knobs();
        self.decide(pkt, qlen, k, rng)
    }

    fn on_idle(&mut self, now: SimTime) {
        self.vars.idle = true;
        self.vars.idle_since = now;
    }

    fn on_dequeue(&mut self, pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> super::FrontAction {
        self.vars.idle = false;
        if self.vars.pending_marks > 0 && pkt.has(ecn::ECT) {
            self.vars.pending_marks -= 1;
            return super::FrontAction::Mark(Reason::Early);
        }
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
            ..AqmState::default()
        }
    }
}

/// Parameters for tests of RED and its variants.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::RedParams;
    /// min 5, max 15, max_p 0.1, w_q 0.002, limit 50, packet mode, no gentle, no wait.
    pub fn packet_params() -> RedParams {
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
            max_pktsize: 1500.0,
            ptc: 375.0,
            ecn_front: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

    fn params() -> RedParams {
        super::tests_support::packet_params()
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
        assert_eq!(red.vars.count, 1.0);
        // Subsequent arrivals: count k → p_a = 0.05 / (1 − k·0.05) until a drop.
        let mut count = 1u64;
        for _ in 0..200 {
            let v = red.on_enqueue(&pkt(), &view, SimTime::ZERO, &mut rng);
            count += 1;
            let expect = if count as f64 * 0.05 < 1.0 { 0.05 / (1.0 - count as f64 * 0.05) } else { 1.0 };
            assert!((red.vars.p - expect).abs() < 1e-12, "count {count}: {} vs {expect}", red.vars.p);
            if v == Verdict::Drop(Reason::Early) {
                assert_eq!(red.vars.count, 0.0);
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
