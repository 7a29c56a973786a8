//! FQ-COBALT tests: ns-3.37's defaults, hand-computed sequences (a queue's own limit
//! raising its BLUE, a packet marked by CoDel and dropped by BLUE giving both events, the
//! empty-queue decrement) and conservation over random traces. The packet-for-packet check
//! against ns-3.37 is tests/test_ns3_fq_cobalt.py.

use super::*;
use crate::aqm::fq::FqParams;
use crate::aqm::queue::{Enqueued, QueueDisc};
use crate::aqm::AnyAqm;
use crate::packet::{ecn, Kind};
use proptest::prelude::{prop_assert, proptest, ProptestConfig};

fn flow_params() -> FqCobaltParams {
    let mut p = FqCobaltParams::default();
    p.fq.classify = Classify::Flow;
    p
}

fn pkt(flow: u32, id: i32, size: u32) -> Packet {
    Packet::new(Kind::Data, flow, id, size, 1, SimTime::ZERO)
}

const MS: u64 = 1_000_000;

#[test]
fn defaults_are_ns3_3_37() {
    let d = FqCobaltParams::default();
    assert_eq!((d.fq.limit, d.fq.flows, d.fq.quantum, d.fq.drop_batch), (10240, 1024, 1500, 64));
    let c = &d.cobalt;
    assert!(c.ecn && !c.l4s && c.ce_threshold_ns.is_none());
    assert_eq!((c.target_ns, c.interval_ns, c.blue_threshold_ns), (5 * MS, 100 * MS, 400 * MS));
    assert_eq!((c.increment, c.decrement, c.p_drop), (1.0 / 256.0, 1.0 / 4096.0, 0.0));
}

/// limit 2, one flow: the third arrival is refused by the queue's COBALT (ns-3 `DoEnqueue`:
/// 2 + 1 > 2), which raises BLUE by 1/256 at t = 10 ms (> target since the clock's 0) and
/// enters dropping with count 1; it is not counted, so no fat-flow drop follows.
#[test]
fn own_limit_refuses_and_raises_blue() {
    let mut fq = FqCobalt::new({
        let mut p = flow_params();
        p.fq.limit = 2;
        p
    });
    let (mut rng, mut ev) = (Rng::new(1, 1), Vec::new());
    let t = SimTime(10 * MS);
    for i in 0..2 {
        assert_eq!(fq.fq.enqueue(pkt(0, i, 1000), t, &mut rng, &mut ev), Enqueued::Queued { marked: None });
    }
    assert_eq!(fq.fq.enqueue(pkt(0, 2, 1000), t, &mut rng, &mut ev), Enqueued::Dropped(Reason::Overflow));
    assert!(ev.is_empty() && fq.len() == 2);
    let v = &fq.fq.queues[0].aqm;
    assert_eq!((v.p_drop, v.count, v.dropping, v.drop_next, v.last_blue), (1.0 / 256.0, 1, true, (10 * MS) as i64, (10 * MS) as i64));
}

/// p_drop = 1 and a 1 ms target: a packet waiting 2 ms is over target (dropping at once,
/// no drop yet: count 0 → 1 and drop_next one interval on), and BLUE's draw (u < 1) drops
/// it. With ECN, a packet due for CoDel's drop is marked and then dropped by BLUE: both
/// events, mark first, as ns-3's Mark then DropAfterDequeue.
#[test]
fn codel_mark_then_blue_drop_gives_both_events() {
    let cobalt = CobaltParams { p_drop: 1.0, target_ns: MS, ..FqCobaltParams::default().cobalt };
    let mut fq = FqCobalt::new(FqCobaltParams { cobalt, ..flow_params() });
    let (mut rng, mut ev) = (Rng::new(1, 1), Vec::new());
    let mut p = pkt(0, 0, 1000);
    p.ecn = ecn::ECT;
    fq.fq.enqueue(p, SimTime::ZERO, &mut rng, &mut ev);
    let mut p = pkt(0, 1, 1000);
    p.ecn = ecn::ECT;
    fq.fq.enqueue(p, SimTime::ZERO, &mut rng, &mut ev);
    // first head at 2 ms: over target, enters dropping (drop_next = 2 ms + 100 ms), BLUE drops it;
    // second head at 2 ms too: count 1, not due yet; BLUE drops; the queue is then empty
    assert!(fq.fq.dequeue(SimTime(2 * MS), &mut rng, &mut ev).is_none());
    let kinds: Vec<(i32, bool, Reason)> = ev.iter().map(|e| (e.pkt.seq, e.marked, e.reason)).collect();
    assert_eq!(kinds, vec![(0, false, Reason::Forced), (1, false, Reason::Forced)]);
    ev.clear();
    // one more at 2 ms, dequeued at 110 ms: CoDel is due (count 1, 110 ≥ 102 ms) and marks it
    // (ECT), then BLUE drops it: a mark event, then a drop event, for the same packet
    let mut p = pkt(0, 2, 1000);
    p.ecn = ecn::ECT;
    fq.fq.enqueue(p, SimTime(2 * MS), &mut rng, &mut ev);
    assert!(fq.fq.dequeue(SimTime(110 * MS), &mut rng, &mut ev).is_none());
    let kinds: Vec<(i32, bool, Reason)> = ev.iter().map(|e| (e.pkt.seq, e.marked, e.reason)).collect();
    assert_eq!(kinds, vec![(2, true, Reason::Early), (2, false, Reason::Forced)]);
}

/// `l4s` with a 1 ms CE threshold and p_drop = 1: an ECT(1) packet waiting 50 ms skips
/// CoDel and BLUE (no drop, no draw) and is marked by the threshold (`forced`); an ECT(0)
/// packet of another queue, same wait, is dropped by BLUE.
#[test]
fn l4s_packets_skip_codel_and_blue() {
    let cobalt = CobaltParams { l4s: true, ce_threshold_ns: Some(MS), p_drop: 1.0, ..FqCobaltParams::default().cobalt };
    let mut fq = FqCobalt::new(FqCobaltParams { cobalt, ..flow_params() });
    let (mut rng, mut ev) = (Rng::new(1, 1), Vec::new());
    let mut l = pkt(0, 0, 1000);
    l.ecn = ecn::ECT | ecn::ECT1;
    let mut c = pkt(1, 1, 1000);
    c.ecn = ecn::ECT;
    fq.fq.enqueue(l, SimTime::ZERO, &mut rng, &mut ev);
    fq.fq.enqueue(c, SimTime::ZERO, &mut rng, &mut ev);
    let before = rng.clone().uniform();
    let got = fq.fq.dequeue(SimTime(50 * MS), &mut rng, &mut ev).expect("the L4S packet leaves");
    assert_eq!((got.seq, got.ecn & ecn::CE != 0), (0, true));
    assert_eq!(rng.clone().uniform(), before, "no BLUE draw for an L4S packet");
    assert!(fq.fq.dequeue(SimTime(50 * MS), &mut rng, &mut ev).is_none());
    let kinds: Vec<(i32, bool, Reason)> = ev.iter().map(|e| (e.pkt.seq, e.marked, e.reason)).collect();
    assert_eq!(kinds, vec![(0, true, Reason::Forced), (1, false, Reason::Forced)]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn conservation_and_limit_over_random_traces(
        ops in proptest::collection::vec((0u8..10, 0u32..12, 40u32..1500, 0u64..3_000_000), 1..800),
        limit in 1u32..40, flows in 1u32..16, quantum in 100u32..3000, hash: bool, p_drop in 0.0f64..0.3,
    ) {
        let classify = if hash { Classify::Hash { perturbation: 7 } } else { Classify::Flow };
        let cobalt = CobaltParams { p_drop, target_ns: MS, blue_threshold_ns: 2 * MS, ..FqCobaltParams::default().cobalt };
        let mut q = QueueDisc::new(AnyAqm::FqCobalt(Box::new(FqCobalt::new(FqCobaltParams { cobalt, fq: FqParams { limit, flows, quantum, classify, ..FqParams::default() }, ..FqCobaltParams::default() }))));
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
                q.dequeue(SimTime(t), &mut rng);
            }
            prop_assert!(q.conserved());
            let s = q.aqm.state();
            prop_assert!((0.0..=1.0).contains(&s.p));
            q.front_events.clear();
        }
    }
}
