//! Tests of `pie.rs` (its `mod tests`, in a file of its own to keep both short).

use super::*;
use crate::aqm::periodic::Periodic;
use crate::aqm::{AnyAqm, QueueDisc, Reason};
use crate::packet::ecn;
use crate::packet::Kind;
use crate::rng::Rng;
use proptest::prelude::{any, prop_assert, proptest, ProptestConfig};
use std::collections::VecDeque;

/// A fake RNG: a fixed cycle of uniform values, counting the draws.
struct Draws {
    vals: &'static [f64],
    n: usize,
}
impl Draws {
    fn new(vals: &'static [f64]) -> Draws {
        Draws { vals, n: 0 }
    }
    fn next(&mut self) -> f64 {
        let u = self.vals[self.n % self.vals.len()];
        self.n += 1;
        u
    }
}
const CYCLE: &[f64] = &[0.73, 0.02, 0.41, 0.0009, 0.88, 0.15, 0.005, 0.6, 0.33, 0.07, 0.95, 0.0002, 0.5, 0.26, 0.04, 0.81];

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

#[path = "pie_rfc8033.rs"]
mod rfc8033;
use rfc8033::RefPie;

#[derive(Clone, Copy, Debug)]
enum Op {
    Arrive { size: u32, ect: bool },
    Serve,
}

/// After each event: the verdict (arrivals), p and the delay.
type Rec = (Option<Verdict>, f64, f64);

/// Congested, then light for long enough that p returns to 0 and the burst state to
/// NO_BURST, then congested again. Service every 1 ms; sizes vary when `mixed`.
fn trace(mixed: bool) -> Vec<(u64, Op)> {
    let mut ev = Vec::new();
    let mut i = 0u32;
    let mut arrivals = |from: u64, to: u64, gap: u64, ev: &mut Vec<(u64, Op)>| {
        let mut t = from;
        while t < to {
            let size = if mixed { [1000, 1500, 500, 1200][(i % 4) as usize] } else { 1000 };
            ev.push((t, Op::Arrive { size, ect: !i.is_multiple_of(3) }));
            i += 1;
            t += gap;
        }
    };
    arrivals(100_000, 1_200_000_000, 600_000, &mut ev);
    arrivals(1_200_000_000, 5_000_000_000, 2_000_000, &mut ev);
    arrivals(5_000_000_000, 6_000_000_000, 550_000, &mut ev);
    let mut t = 0;
    while t < 6_200_000_000 {
        ev.push((t, Op::Serve));
        t += 1_000_000;
    }
    // arrivals at a service instant come first; every 15 ms there is a tie with an update
    ev.sort_by_key(|&(t, op)| (t, matches!(op, Op::Serve)));
    ev
}

/// Our PIE on `ev`. `dense`: also run each update at its own time (a timer), reading p
/// there; when the queue is empty the tick is an `on_idle` instead of `catch_up`.
fn run_mine(c: &PieParams, ev: &[(u64, Op)], dense: bool) -> (Vec<Rec>, Vec<f64>, usize) {
    let mut pie = Pie::new(c.clone());
    let mut d = Draws::new(CYCLE);
    let (mut q, mut view) = (VecDeque::<Packet>::new(), QueueView::default());
    let (mut recs, mut ticks) = (Vec::new(), Vec::new());
    let mut tick = ns(c.s_update);
    for (k, &(t, op)) in ev.iter().enumerate() {
        while dense && tick <= t {
            if q.is_empty() { pie.on_idle(SimTime(tick)) } else { pie.catch_up(SimTime(tick)) }
            ticks.push(pie.drop_prob());
            tick += ns(c.t_update);
        }
        let now = SimTime(t);
        let v = match op {
            Op::Arrive { size, ect } => {
                let mut pkt = Packet::new(Kind::Data, 0, k as i32, size, 1, now);
                pkt.ecn = if ect { ecn::ECT } else { 0 };
                let v = pie.enqueue_with(&pkt, &view, now, &mut || d.next());
                if matches!(v, Verdict::Enqueue | Verdict::Mark(_)) {
                    pkt.t_enq = now;
                    q.push_back(pkt);
                    view = QueueView { len_pkts: view.len_pkts + 1, len_bytes: view.len_bytes + size as u64 };
                }
                Some(v)
            }
            Op::Serve => {
                match q.pop_front() {
                    Some(pkt) => {
                        view = QueueView { len_pkts: view.len_pkts - 1, len_bytes: view.len_bytes - pkt.size as u64 };
                        assert_eq!(pie.on_dequeue(&pkt, &view, now, &mut Rng::new(1, 1)), FrontAction::Pass);
                    }
                    None => pie.on_idle(now),
                }
                None
            }
        };
        recs.push((v, pie.drop_prob(), pie.qdelay()));
    }
    (recs, ticks, d.n)
}

/// The reference on `ev`, its timer firing before packet events at the same time.
fn run_ref(c: &PieParams, ev: &[(u64, Op)]) -> (Vec<Rec>, Vec<f64>, usize, u8) {
    let mut r = RefPie::new(c.clone());
    let mut d = Draws::new(CYCLE);
    let (mut recs, mut ticks) = (Vec::new(), Vec::new());
    let mut tick = ns(c.s_update);
    for &(t, op) in ev {
        while tick <= t {
            r.calculate_drop_prob();
            ticks.push(r.drop_prob_);
            tick += ns(c.t_update);
        }
        let v = match op {
            Op::Arrive { size, ect } => Some(r.enqueue(t, size, ect, &mut d)),
            Op::Serve => {
                r.dequeue(t);
                None
            }
        };
        recs.push((v, r.drop_prob_, r.current_qdelay as f64 / 1e9));
    }
    (recs, ticks, d.n, r.burst_state)
}

fn count(recs: &[Rec], v: Verdict) -> usize {
    recs.iter().filter(|r| r.0 == Some(v)).count()
}

/// Golden + lazy-equals-timer for one parameter set; returns the reference's records.
fn golden(c: PieParams, mixed: bool) -> Vec<Rec> {
    let ev = trace(mixed);
    let (want, want_ticks, want_draws, _) = run_ref(&c, &ev);
    if std::env::var("PIE_DUMP").is_ok() {
        for (i, p) in want_ticks.iter().enumerate().step_by(5) {
            eprintln!("tick {i} p {p:.3e}");
        }
        for v in [Verdict::Mark(Reason::Early), Verdict::Drop(Reason::Early), Verdict::Drop(Reason::Overflow)] {
            eprintln!("{v:?}: {}", count(&want, v));
        }
        eprintln!("draws {want_draws}");
    }
    let (dense, ticks, dense_draws) = run_mine(&c, &ev, true);
    let (lazy, _, lazy_draws) = run_mine(&c, &ev, false);
    assert_eq!(ticks, want_ticks, "p after each update");
    for (k, (a, b)) in want.iter().zip(&dense).enumerate() {
        assert_eq!(a, b, "event {k} at {} ns", ev[k].0);
    }
    assert_eq!(dense, lazy, "lazy updates differ from a timer");
    assert_eq!((dense_draws, lazy_draws), (want_draws, want_draws));
    // not vacuous: p rose past the cap region and came back to exactly 0; the RNG was used
    let peak = (0..120).max_by(|&a, &b| want_ticks[a].total_cmp(&want_ticks[b])).unwrap();
    assert!(want_ticks[peak] > 0.1, "p max {}", want_ticks[peak]);
    let zero = peak + want_ticks[peak..].iter().position(|&p| p == 0.0).expect("p back to 0");
    assert!(want_ticks[zero..].iter().any(|&p| p > 0.01), "p rises again in the last phase");
    assert!(want_draws > 100);
    want
}

#[test]
fn golden_timestamps_defaults() {
    let recs = golden(PieParams { limit: 100, ..PieParams::default() }, false);
    assert!(count(&recs, Verdict::Drop(Reason::Early)) > 100);
    assert!(count(&recs, Verdict::Drop(Reason::Overflow)) > 0);
}

#[test]
fn golden_ecn_derandomised_uncapped() {
    let c = PieParams { limit: 400, ecn: true, mark_ecn_threshold: 0.3, use_derandomization: true, use_cap_drop_adjustment: false, ..PieParams::default() };
    let recs = golden(c, false);
    assert!(count(&recs, Verdict::Mark(Reason::Early)) > 20);
    assert!(count(&recs, Verdict::Drop(Reason::Early)) > 20);
}

#[test]
fn golden_dequeue_rate_estimator_bytes_mode() {
    let c = PieParams { limit_bytes: Some(100_000), use_dq_rate_estimator: true, ..PieParams::default() };
    let recs = golden(c, true);
    assert!(count(&recs, Verdict::Drop(Reason::Early)) > 50);
}

#[test]
fn golden_active_threshold_and_late_start() {
    let c = PieParams { limit: 100, active_threshold: Some(0.02), s_update: 0.0071, ..PieParams::default() };
    golden(c, false);
}

#[test]
fn the_burst_state_machine_comes_back_to_no_burst() {
    let ev = trace(false);
    let mut r = RefPie::new(PieParams { limit: 100, ..PieParams::default() });
    let mut d = Draws::new(CYCLE);
    let (mut tick, mut seen_no_burst_after_protecting) = (0, false);
    let mut was = 0;
    for &(t, op) in &ev {
        while tick <= t {
            r.calculate_drop_prob();
            tick += 15_000_000;
        }
        match op {
            Op::Arrive { size, ect } => drop(r.enqueue(t, size, ect, &mut d)),
            Op::Serve => drop(r.dequeue(t)),
        }
        seen_no_burst_after_protecting |= was == 1 && r.burst_state == 0;
        was = r.burst_state;
    }
    // so the golden traces exercise the full cycle NO → PROTECTING → IN → NO (→ PROTECTING)
    assert!(seen_no_burst_after_protecting);
}

/// One update by hand: tiers, cap, decay.
#[test]
fn update_by_hand() {
    let mut pie = Pie::new(PieParams::default());
    pie.v.drop_prob = 0.005;
    pie.v.qdelay = 30_000_000;
    pie.v.qdelay_old = 20_000_000;
    pie.v.calculate_p(&pie.cfg);
    // Δ = 0.125·(0.03 − 0.015) + 1.25·(0.03 − 0.02) = 0.014375, p < 0.01 → Δ/8
    assert!((pie.v.drop_prob - (0.005 + 0.014375 / 8.0)).abs() < 1e-15);
    pie.v.drop_prob = 0.15;
    pie.v.qdelay = 100_000_000;
    pie.v.qdelay_old = 50_000_000;
    pie.v.calculate_p(&pie.cfg); // Δ = 0.073125, capped at 0.02
    assert!((pie.v.drop_prob - 0.17).abs() < 1e-15);
    pie.v.qdelay = 0;
    pie.v.qdelay_old = 0;
    pie.v.drop_prob = 0.5;
    pie.v.calculate_p(&pie.cfg); // (0.5 + 0.125·(−0.015))·0.98
    assert!((pie.v.drop_prob - (0.5 - 0.001875) * 0.98).abs() < 1e-15);
}

fn pkt(size: u32) -> Packet {
    Packet::new(Kind::Data, 0, 0, size, 1, SimTime::ZERO)
}

/// Derandomisation: with p = 0.3 held (no updates) and a coin that never drops, the
/// accumulator runs 0.3, 0.6 (enqueue, no draw), 0.9 … 8.4 (a draw each, 26 draws), and
/// the 29th arrival (8.7 ≥ 8.5) is dropped without a draw; the drop resets it.
#[test]
fn derandomisation_by_hand() {
    let mut pie = Pie::new(PieParams { use_derandomization: true, ..PieParams::default() });
    pie.v.timer = Periodic::new(SimTime::MAX);
    pie.v.drop_prob = 0.3;
    pie.v.burst_state = BurstState::InBurst;
    let q = QueueView { len_pkts: 3, len_bytes: 3000 };
    let n = std::cell::Cell::new(0);
    let mut coin = || {
        n.set(n.get() + 1);
        0.99
    };
    let v: Vec<Verdict> = (0..31).map(|_| pie.enqueue_with(&pkt(1000), &q, SimTime(1), &mut coin)).collect();
    let draws = n.get();
    assert!(v[..28].iter().all(|&x| x == Verdict::Enqueue));
    assert_eq!(v[28], Verdict::Drop(Reason::Early));
    assert_eq!(&v[29..], &[Verdict::Enqueue, Verdict::Enqueue]); // 0.3, 0.6 again
    assert_eq!(draws, 26);
    assert!((pie.v.accu_prob - 0.6).abs() < 1e-12);
    // an overflow drop resets it too (ns-3 `DoEnqueue`)
    let full = QueueView { len_pkts: 25, len_bytes: 25_000 };
    assert_eq!(pie.enqueue_with(&pkt(1000), &full, SimTime(1), &mut coin), Verdict::Drop(Reason::Overflow));
    assert_eq!(pie.v.accu_prob, 0.0);
}

/// Burst allowance: the first arrival arms 150 ms; the updates at 200, 215, …, 335 ms eat
/// it, p stays 0 meanwhile although the delay is 100 ms, and no coin is drawn. The update at
/// 350 ms is the first to count: p = 0.125·(0.1 − 0.015)/2048 (β term 0: d = d_old).
#[test]
fn burst_allowance_by_hand() {
    // first update at 200 ms, so the 100 ms delay is set up before any update
    let mut pie = Pie::new(PieParams { limit: 1000, s_update: 0.2, ..PieParams::default() });
    let mut view = QueueView::default();
    let no_coin = &mut || -> f64 { panic!("no draw while burst allowance is left") };
    for k in 0..50u64 {
        let t = SimTime(1_000_000 + k * 10_000); // 50 packets around 1 ms
        assert_eq!(pie.enqueue_with(&pkt(1000), &view, t, no_coin), Verdict::Enqueue);
        view = QueueView { len_pkts: view.len_pkts + 1, len_bytes: view.len_bytes + 1000 };
    }
    assert_eq!((pie.v.burst_state, pie.v.burst_allowance), (BurstState::InBurstProtecting, 150_000_000));
    // a dequeue at 101 ms of a packet queued at 1 ms: d = 100 ms
    let mut head = pkt(1000);
    head.t_enq = SimTime(1_000_000);
    view.len_pkts -= 1;
    view.len_bytes -= 1000;
    pie.on_dequeue(&head, &view, SimTime(101_000_000), &mut Rng::new(1, 1));
    assert_eq!(pie.v.qdelay, 100_000_000);
    for k in 1..=10u64 {
        let t = SimTime(200_000_000 + (k - 1) * 15_000_000);
        pie.catch_up(t);
        assert_eq!(pie.v.drop_prob, 0.0);
        assert_eq!(pie.v.burst_allowance, 150_000_000 - k * 15_000_000);
        if k < 10 {
            assert_eq!(pie.enqueue_with(&pkt(1000), &view, t, no_coin), Verdict::Enqueue, "update {k}");
        }
    }
    // allowance 0 now: the next arrival goes to the coin (p = 0, d_old = 100 ms > 7.5 ms)
    let mut drew = false;
    pie.enqueue_with(&pkt(1000), &view, SimTime(340_000_000), &mut || {
        drew = true;
        0.5
    });
    assert!(drew);
    pie.catch_up(SimTime(350_000_000));
    assert_eq!(pie.v.drop_prob, 0.125 * (0.1 - 0.015) / 2048.0);
    assert_eq!(pie.enqueue_with(&pkt(1000), &view, SimTime(351_000_000), &mut || 0.0), Verdict::Drop(Reason::Early));
    // ns-3 drops when u ≤ p: even p = 0 drops on u = 0 (RFC 8033: u < p)
    pie.v.drop_prob = 0.0;
    assert_eq!(pie.enqueue_with(&pkt(1000), &view, SimTime(352_000_000), &mut || 0.0), Verdict::Drop(Reason::Early));
}

/// The re-arm: from IN_BURST_PROTECTING, the first quiet update (p = 0, both delays under
/// target/2, no allowance) goes to IN_BURST; `burst_reset` then counts quiet updates and
/// the state is NO_BURST at the 101st (> 1.5 s / 15 ms = 100); a loud update in between
/// restarts the count. The next arrival that reaches the drop test re-arms 150 ms.
#[test]
fn burst_reset_by_hand() {
    let mut pie = Pie::new(PieParams::default());
    pie.v.burst_state = BurstState::InBurstProtecting;
    assert_eq!(pie.cfg.burst_reset_limit, 100);
    let tick = |pie: &mut Pie, k: u64| pie.catch_up(SimTime(k * 15_000_000));
    tick(&mut pie, 0);
    assert_eq!((pie.v.burst_state, pie.v.burst_reset), (BurstState::InBurst, 0));
    for k in 1..=50 {
        tick(&mut pie, k);
    }
    assert_eq!(pie.v.burst_reset, 50);
    pie.v.qdelay = 10_000_000; // 10 ms ≥ target/2 at the next update: loud, count restarts
    tick(&mut pie, 51);
    assert_eq!((pie.v.burst_state, pie.v.burst_reset), (BurstState::InBurst, 0));
    pie.v.qdelay = 0;
    pie.v.drop_prob = 0.0;
    // the update after a loud one still sees d_old = 10 ms: loud again
    tick(&mut pie, 52);
    assert_eq!(pie.v.burst_reset, 0);
    for k in 53..=152 {
        tick(&mut pie, k);
    }
    assert_eq!((pie.v.burst_state, pie.v.burst_reset), (BurstState::InBurst, 100));
    tick(&mut pie, 153);
    assert_eq!((pie.v.burst_state, pie.v.burst_reset), (BurstState::NoBurst, 0));
    let q = QueueView { len_pkts: 3, len_bytes: 3000 };
    assert_eq!(pie.enqueue_with(&pkt(1000), &q, SimTime(153 * 15_000_000), &mut || 0.0), Verdict::Enqueue);
    assert_eq!((pie.v.burst_state, pie.v.burst_allowance), (BurstState::InBurstProtecting, 150_000_000));
}

/// ActiveThreshold: inactive, no drop test is made (the burst state stays NO_BURST); an
/// arrival finding d ≥ threshold turns PIE on (p, d_old reset, allowance armed); it turns
/// off at an arrival with p = 0 and both delays under one whole millisecond.
#[test]
fn active_threshold_by_hand() {
    let mut pie = Pie::new(PieParams { active_threshold: Some(0.02), ..PieParams::default() });
    pie.v.timer = Periodic::new(SimTime::MAX);
    let q = QueueView { len_pkts: 10, len_bytes: 10_000 };
    let no_coin = &mut || -> f64 { panic!("no drop test while inactive") };
    pie.v.drop_prob = 0.5;
    pie.v.qdelay = 19_999_999;
    assert_eq!(pie.enqueue_with(&pkt(1000), &q, SimTime(5), no_coin), Verdict::Enqueue);
    assert!(!pie.v.active && pie.v.burst_state == BurstState::NoBurst);
    pie.v.qdelay = 20_000_000;
    pie.v.qdelay_old = 7_000_000;
    assert_eq!(pie.enqueue_with(&pkt(1000), &q, SimTime(6), no_coin), Verdict::Enqueue);
    assert!(pie.v.active);
    assert_eq!((pie.v.drop_prob, pie.v.qdelay_old, pie.v.burst_allowance, pie.v.dq_start), (0.0, 0, 150_000_000, SimTime(6)));
    pie.v.qdelay = 1_000_000; // 1 ms: GetMilliSeconds() = 1, stays on
    pie.enqueue_with(&pkt(1000), &q, SimTime(7), no_coin);
    assert!(pie.v.active);
    pie.v.qdelay = 999_999;
    pie.enqueue_with(&pkt(1000), &q, SimTime(8), no_coin);
    assert!(!pie.v.active && !pie.v.in_measurement);
}

#[test]
fn defaults_are_ns3_3_37() {
    let c = PieParams::default();
    assert_eq!((c.limit, c.mean_pktsize, c.dq_threshold), (25, 1000, 16384));
    assert_eq!((c.target, c.t_update, c.s_update, c.max_burst), (0.015, 0.015, 0.0, 0.15));
    assert_eq!((c.alpha, c.beta, c.mark_ecn_threshold), (0.125, 1.25, 0.1));
    assert!(!c.use_dq_rate_estimator && c.use_cap_drop_adjustment && !c.ecn && !c.use_derandomization);
    assert_eq!((c.limit_bytes, c.active_threshold), (None, None));
    assert!(c.validate().is_ok());
    assert!(PieParams { t_update: 0.0, ..c.clone() }.validate().is_err());
    assert!(PieParams { t_update: 1e-9, ..c.clone() }.validate().is_err());
    assert!(PieParams { t_update: 0.001, ..c.clone() }.validate().is_ok());
    assert!(PieParams { mark_ecn_threshold: 1.5, ..c }.validate().is_err());
}

/// The update budget (the engine's `max_events`): updates stop at it, the first one not
/// run is remembered, and the count goes on from where it stopped once raised.
#[test]
fn update_budget() {
    let mut pie = Pie::new(PieParams { t_update: 0.001, ..PieParams::default() });
    pie.set_update_budget(5);
    pie.catch_up(SimTime::from_secs(1.0));
    assert_eq!((pie.updates(), pie.over_budget()), (5, Some(SimTime::from_secs(0.005))));
    pie.set_update_budget(u64::MAX);
    pie.catch_up(SimTime::from_secs(1.0));
    assert_eq!(pie.updates(), 1001);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_traces_keep_p_in_range_conserve_and_bound(
        ops in proptest::collection::vec((0u8..4, 0u64..40_000_000, 40u32..1500, any::<bool>()), 1..600),
        limit in 2u32..60, bytes_mode: bool, dq: bool, ecn_on: bool, derand: bool, active: bool, seed: u64,
    ) {
        let c = PieParams {
            limit,
            limit_bytes: if bytes_mode { Some(limit as u64 * 1000) } else { None },
            use_dq_rate_estimator: dq,
            dq_threshold: 3000,
            ecn: ecn_on,
            use_derandomization: derand,
            active_threshold: if active { Some(0.005) } else { None },
            target: 0.005,
            ..PieParams::default()
        };
        let mut q = QueueDisc::new(AnyAqm::Pie(Pie::new(c)));
        let mut rng = Rng::new(seed, 1);
        let mut t = 0;
        for (i, (op, dt, size, ect)) in ops.into_iter().enumerate() {
            t += dt;
            let now = SimTime(t);
            if op < 2 {
                let mut p = Packet::new(Kind::Data, 0, i as i32, size, 1, now);
                p.ecn = if ect { ecn::ECT } else { 0 };
                q.enqueue(p, now, &mut rng);
            } else {
                q.dequeue(now, &mut rng);
            }
            let AnyAqm::Pie(pie) = &q.aqm else { unreachable!() };
            prop_assert!((0.0..=1.0).contains(&pie.drop_prob()));
            prop_assert!(q.conserved());
            if bytes_mode {
                prop_assert!(q.bytes() <= limit as u64 * 1000);
            } else {
                prop_assert!(q.len() <= limit);
            }
        }
    }
}
