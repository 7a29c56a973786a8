//! FQ-PIE tests: ns-3.37's defaults, the first update of a flow queue's PIE (held until
//! after the events at its creation time), the timer accounting over queues, and
//! conservation over random traces. The packet-for-packet check against ns-3.37 is
//! tests/test_ns3_fq_pie.py.

use super::*;
use crate::aqm::fq::FqParams;
use crate::aqm::queue::QueueDisc;
use crate::aqm::AnyAqm;
use crate::packet::{ecn, Kind};
use proptest::prelude::{prop_assert, proptest, ProptestConfig};

fn flow_params() -> FqPieParams {
    let mut p = FqPieParams::default();
    p.fq.classify = Classify::Flow;
    p
}

fn pkt(flow: u32, id: i32, size: u32) -> Packet {
    Packet::new(Kind::Data, flow, id, size, 1, SimTime::ZERO)
}

const MS: u64 = 1_000_000;

#[test]
fn defaults_are_ns3_3_37() {
    let d = FqPieParams::default();
    assert_eq!((d.fq.limit, d.fq.flows, d.fq.quantum, d.fq.drop_batch), (10240, 1024, 1500, 64));
    let p = &d.pie;
    assert!(p.ecn && p.use_cap_drop_adjustment && !p.use_derandomization && !p.use_dq_rate_estimator);
    assert_eq!((p.target, p.t_update, p.alpha, p.beta, p.max_burst), (0.015, 0.015, 0.125, 1.25, 0.15));
    assert_eq!((p.mark_ecn_threshold, p.dq_threshold, p.mean_pktsize), (0.1, 16384, 1000));
}

/// A queue created at t_c = 1 ms has updates at 1, 16, 31 … ms; the one at 1 ms runs after
/// every event at 1 ms (by hand: the arrival arms 150 ms of burst allowance, the update at
/// 1 ms takes 15 ms off it, as ns-3's does, so 135 ms are left), the later ones before the
/// events at their time.
#[test]
fn first_update_runs_after_the_creating_events() {
    let mut fq = FqPie::new(flow_params());
    let mut rng = Rng::new(1, 1);
    let mut ev = Vec::new();
    let t = SimTime(MS);
    for i in 0..3 {
        fq.fq.enqueue(pkt(0, i, 1000), t, &mut rng, &mut ev);
    }
    assert!(fq.fq.dequeue(t, &mut rng, &mut ev).is_some());
    assert_eq!(fq.updates(), 0, "the update at the creation time waits");
    fq.advance(SimTime(MS + 1));
    assert_eq!(fq.updates(), 1);
    let v = &fq.fq.queues[0].aqm;
    assert_eq!((v.burst_allowance, v.burst_state), (135 * MS, crate::aqm::pie::BurstState::InBurstProtecting));
    // a later queue, its own timer: created at 5 ms, updates at 5, 20 … ms
    fq.fq.enqueue(pkt(1, 3, 1000), SimTime(5 * MS), &mut rng, &mut ev);
    fq.advance(SimTime(16 * MS)); // queue 0: 16 ms (tie: runs); queue 1: 5 ms
    assert_eq!(fq.updates(), 3);
    fq.advance(SimTime(20 * MS)); // queue 1: 20 ms
    assert_eq!(fq.updates(), 4);
    assert!(ev.is_empty());
}

/// The engine's `max_events` budget holds over all queues together; the first update not
/// run is remembered, and the count goes on once the budget is raised.
#[test]
fn update_budget_over_all_queues() {
    let mut fq = FqPie::new(FqPieParams { pie: PieParams { t_update: 0.001, ..flow_params().pie }, ..flow_params() });
    let mut rng = Rng::new(1, 1);
    let mut ev = Vec::new();
    for f in 0..3 {
        fq.fq.enqueue(pkt(f, f as i32, 1000), SimTime(f as u64 * MS / 2), &mut rng, &mut ev);
    }
    // queues created at 0, 0.5 and 1 ms, t_update 1 ms; 5 updates in all, then stop
    fq.set_update_budget(5);
    fq.advance(SimTime(10 * MS));
    assert_eq!(fq.updates(), 5);
    assert!(fq.over_budget().is_some());
    fq.set_update_budget(u64::MAX);
    fq.advance(SimTime(10 * MS));
    // queue k created at k·0.5 ms: updates at k·0.5 + j ms ≤ 10 ms → 11, 10, 10
    assert_eq!(fq.updates(), 31);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn conservation_and_limit_over_random_traces(
        ops in proptest::collection::vec((0u8..10, 0u32..12, 40u32..1500, 0u64..3_000_000), 1..800),
        limit in 1u32..40, flows in 1u32..16, quantum in 100u32..3000, hash: bool, est: bool,
    ) {
        let classify = if hash { Classify::Hash { perturbation: 7 } } else { Classify::Flow };
        let pie = PieParams { use_dq_rate_estimator: est, dq_threshold: 3000, target: 0.002, ..FqPieParams::default().pie };
        let mut q = QueueDisc::new(AnyAqm::FqPie(Box::new(FqPie::new(FqPieParams { pie, fq: FqParams { limit, flows, quantum, classify, ..FqParams::default() }, ..FqPieParams::default() }))));
        let mut rng = Rng::new(1, 1);
        let mut t = 0u64;
        for (i, (op, flow, size, dt)) in ops.into_iter().enumerate() {
            t += dt;
            if op < 6 {
                let mut p = pkt(flow, i as i32, size);
                if op < 2 { p.ecn = ecn::ECT; }
                q.enqueue(p, SimTime(t), &mut rng);
                prop_assert!(q.len() <= limit);
            } else if q.is_empty() {
                q.notify_idle(SimTime(t));
            } else {
                prop_assert!(q.dequeue(SimTime(t), &mut rng).is_some());
            }
            prop_assert!(q.conserved());
            let s = q.aqm.state();
            prop_assert!((0.0..=1.0).contains(&s.p));
            q.front_events.clear();
        }
    }
}
