//! FQ-CoDel tests: DRR order and the new-flow list by hand, fat-flow drops by hand,
//! per-queue CoDel, the idle walk, and conservation over random traces.

use super::*;
use crate::aqm::fq::FqParams;
use crate::aqm::queue::{Enqueued, QueueDisc};
use crate::aqm::AnyAqm;
use crate::packet::{ecn, Kind};
use proptest::prelude::{prop_assert, proptest, ProptestConfig};

fn fq(params: FqCodelParams) -> QueueDisc {
    QueueDisc::new(AnyAqm::FqCodel(Box::new(FqCodel::new(params))))
}

fn flow_params() -> FqCodelParams {
    let mut p = FqCodelParams::default();
    p.fq.classify = Classify::Flow;
    p
}

fn pkt(flow: u32, id: i32, size: u32) -> Packet {
    Packet::new(Kind::Data, flow, id, size, 1, SimTime::ZERO)
}

fn drain(q: &mut QueueDisc, t: SimTime) -> Vec<u32> {
    let mut rng = Rng::new(1, 1);
    std::iter::from_fn(|| q.dequeue(t, &mut rng)).map(|p| p.flow).collect()
}

/// Flows 0 and 1, three 1000-byte packets each, quantum 1500. By hand (new list [0, 1]):
/// 0 (deficit 500), 0 (−500); 0 goes to the old list with 1000; 1 (500), 1 (−500); 1 to
/// old with 1000; old [0, 1]: 0 (0); 0 has deficit 0: +1500, to the back; 1 (0); then
/// both are found empty and leave.
#[test]
fn drr_order_by_hand() {
    let mut q = fq(flow_params());
    let mut rng = Rng::new(1, 1);
    for f in [0, 0, 0, 1, 1, 1] {
        q.enqueue(pkt(f, 0, 1000), SimTime::ZERO, &mut rng);
    }
    assert_eq!(drain(&mut q, SimTime(1000)), vec![0, 0, 1, 1, 0, 1]);
    assert!(q.is_empty() && q.conserved());
}

/// A sparse flow arriving while another is backlogged joins the new list and is served
/// before the old flow's next packet.
#[test]
fn a_new_sparse_flow_goes_first() {
    let mut q = fq(flow_params());
    let mut rng = Rng::new(1, 1);
    for _ in 0..6 {
        q.enqueue(pkt(0, 0, 1000), SimTime::ZERO, &mut rng);
    }
    let t = SimTime(1000);
    assert_eq!(q.dequeue(t, &mut rng).unwrap().flow, 0);
    assert_eq!(q.dequeue(t, &mut rng).unwrap().flow, 0); // flow 0's deficit is now −500
    q.enqueue(pkt(7, 0, 100), t, &mut rng);
    assert_eq!(q.dequeue(t, &mut rng).unwrap().flow, 7);
    assert_eq!(q.dequeue(t, &mut rng).unwrap().flow, 0);
}

/// limit 4: flow 0 holds 3000 bytes, flow 1 1000; a second packet of flow 1 makes 5 >
/// 4: the fat flow is 0 (3000 bytes), threshold 1500: its first head goes (1000 < 1500,
/// go on), its second (2000 ≥ 1500, stop).
#[test]
fn overflow_drops_half_the_fat_flow_from_its_head() {
    let mut q = fq({
        let mut p = flow_params();
        p.fq.limit = 4;
        p
    });
    let mut rng = Rng::new(1, 1);
    for (i, f) in [0, 0, 0, 1].into_iter().enumerate() {
        q.enqueue(pkt(f, i as i32, 1000), SimTime::ZERO, &mut rng);
    }
    assert_eq!(q.enqueue(pkt(1, 4, 1000), SimTime::ZERO, &mut rng), Enqueued::Queued { marked: None });
    let dropped: Vec<(u32, i32)> = q.front_events.iter().map(|e| (e.flow, e.pkt.seq)).collect();
    assert_eq!(dropped, vec![(0, 0), (0, 1)]);
    assert_eq!((q.len(), q.stats.drops[Reason::Overflow as usize]), (3, 2));
    assert!(q.conserved());
}

/// Flow 0 keeps a standing queue well above target, flow 1 sends one packet per
/// dequeue round: CoDel drops only flow 0's packets.
#[test]
fn codel_runs_per_queue() {
    let mut q = fq(FqCodelParams { codel: CodelParams { ecn: false, ..CodelParams::default() }, ..flow_params() });
    let mut rng = Rng::new(1, 1);
    for i in 0..400 {
        q.enqueue(pkt(0, i, 1000), SimTime::ZERO, &mut rng);
    }
    let mut drops = [0u32; 2];
    for ms in 1..=400u64 {
        let t = SimTime(ms * 1_000_000);
        q.enqueue(pkt(1, ms as i32, 100), t, &mut rng);
        q.dequeue(t, &mut rng);
        q.dequeue(t, &mut rng);
        for e in q.front_events.drain(..) {
            drops[e.flow as usize] += 1;
        }
    }
    assert!(drops[0] >= 3, "flow 0 dropped {}", drops[0]);
    assert_eq!(drops[1], 0);
}

/// With ECN (the default) CoDel marks ECT packets instead of dropping them.
#[test]
fn ecn_marks_instead_of_dropping() {
    let mut q = fq(flow_params());
    let mut rng = Rng::new(1, 1);
    for i in 0..300 {
        let mut p = pkt(0, i, 1000);
        p.ecn = ecn::ECT;
        q.enqueue(p, SimTime::ZERO, &mut rng);
    }
    for ms in 10..=300u64 {
        q.dequeue(SimTime(ms * 1_000_000), &mut rng);
    }
    assert_eq!(q.stats.dropped(), 0);
    assert!(q.stats.marks >= 3 && q.stats.marks == q.stats.marked_departures);
}

/// Hash classification spreads flows and is fixed by the perturbation.
#[test]
fn hashing_depends_on_the_perturbation() {
    let a = FqCodel::new(FqCodelParams { fq: FqParams { classify: Classify::Hash { perturbation: 1 }, ..FqParams::default() }, ..FqCodelParams::default() });
    let b = FqCodel::new(FqCodelParams { fq: FqParams { classify: Classify::Hash { perturbation: 2 }, ..FqParams::default() }, ..FqCodelParams::default() });
    let ba: Vec<u32> = (0..100).map(|f| a.bucket(f)).collect();
    let bb: Vec<u32> = (0..100).map(|f| b.bucket(f)).collect();
    assert_ne!(ba, bb);
    let mut distinct = ba.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 90, "{} distinct buckets of 100 flows", distinct.len());
    assert!(ba.iter().all(|&x| x < 1024));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn conservation_and_limit_over_random_traces(
        ops in proptest::collection::vec((0u8..10, 0u32..12, 40u32..1500, 0u64..3_000_000), 1..800),
        limit in 1u32..40, flows in 1u32..16, quantum in 100u32..3000, hash: bool,
    ) {
        let classify = if hash { Classify::Hash { perturbation: 7 } } else { Classify::Flow };
        let mut q = fq(FqCodelParams { fq: FqParams { limit, flows, quantum, classify, ..FqParams::default() }, ..FqCodelParams::default() });
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
            q.front_events.clear();
        }
    }
}
