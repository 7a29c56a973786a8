//! CAKE tests, hand-computed from Linux's sch_cake.c: the shaper's fixed point and
//! COBALT's adjustment to the rate, DRR++'s order, set-associative placement, host
//! fairness (triple-isolate vs flows), the shaper's pacing, the memory limit, the ACK
//! filter, and the queue wrapper's conservation.

use super::*;
use crate::aqm::cake_ack::sack_compare;
use crate::aqm::cake_modes::{FlowMode, CAKE_QUEUES, CAKE_SET_WAYS};
use crate::aqm::queue::QueueDisc;
use crate::aqm::AnyAqm;
use crate::packet::Kind;

const MS: u64 = 1_000_000;

fn data(flow: u32, id: i32, size: u32, dst: u32) -> Packet {
    Packet::new(Kind::Data, flow, id, size, dst, SimTime(0))
}

fn ack(flow: u32, seq: i32) -> Packet {
    Packet::new(Kind::Ack, flow, seq, 40, 0, SimTime(0))
}

#[test]
fn rate_and_cobalt_adjustment_by_hand() {
    // 20 Mb/s = 2 500 000 B/s: 1e9·2^34 / 2.5e6 = 400·2^34, shifted to 400·2^25 (shft 25)
    assert_eq!(rate_ns_shft(2_500_000), (400 << 25, 25));
    let c = Cake::new(CakeParams { bandwidth_bps: Some(20e6), ..CakeParams::default() });
    assert_eq!(c.flow_quantum, 610); // 2 500 000 >> 12
    assert_eq!(c.cparams.mtu_time_ns, 600_000); // 1500 B at 2.5 MB/s
    assert_eq!((c.cparams.target_ns, c.cparams.interval_ns), (5 * MS, 100 * MS));
    assert_eq!(c.buffer_limit, 4 << 20); // 4·rate·rtt = 1 MB < 4 MB
    // 1 Mb/s: 8000·2^21; an MTU takes 12 ms, so target = 1.5·12 = 18 ms and
    // interval = 100 + 18 − 5 = 113 ms; quantum floor 300
    let c = Cake::new(CakeParams { bandwidth_bps: Some(1e6), ..CakeParams::default() });
    assert_eq!((c.rate_ns, c.rate_shft), (8000 << 21, 21));
    assert_eq!((c.cparams.mtu_time_ns, c.cparams.target_ns, c.cparams.interval_ns), (12 * MS, 18 * MS, 113 * MS));
    assert_eq!(c.flow_quantum, 300);
    // unlimited: quantum 1514, no adjustment, memory 10240·MTU
    let c = Cake::new(CakeParams::default());
    assert_eq!((c.flow_quantum, c.rate_ns, c.buffer_limit), (1514, 0, 10240 * 1500));
    assert_eq!((quantum_div(1), quantum_div(4), quantum_div(0)), (65535, 16383, 65535));
}

#[test]
fn drr_order_by_hand() {
    // flows mode, two flows of three 1000-byte packets, all sent at t = 0 (no AQM drop):
    // new flow a: deficit 1513 → a a (deficit −487) → bulk, +1514 → to old; b b likewise;
    // then a's last (deficit 27 left) and b's last: 0 0 1 1 0 1 (as FQ-CoDel).
    let mut c = Cake::new(CakeParams { mode: FlowMode::Flows, ..CakeParams::default() });
    let mut ev = Vec::new();
    let mut rng = Rng::new(1, 1);
    for f in 0..2 {
        for i in 0..3 {
            c.enqueue(data(f, i, 1000, 9), SimTime(0), &mut ev);
        }
    }
    let mut order = vec![];
    while let Some(p) = c.dequeue(SimTime(0), &mut rng, &mut ev) {
        order.push(p.flow);
    }
    assert_eq!(order, vec![0, 0, 1, 1, 0, 1]);
    assert!(ev.is_empty());
    assert_eq!((c.len(), c.bytes()), (0, 0));
}

#[test]
fn set_associative_placement() {
    let mut c = Cake::new(CakeParams { mode: FlowMode::Flows, ..CakeParams::default() });
    // nine flows whose hash falls in the same set of 8 queues
    let home = c.flow_hash(0) as usize % CAKE_QUEUES;
    let set = home - home % CAKE_SET_WAYS;
    let flows: Vec<u32> = (0..200_000u32).filter(|&f| (c.flow_hash(f) as usize % CAKE_QUEUES) / CAKE_SET_WAYS == set / CAKE_SET_WAYS).take(9).collect();
    assert_eq!(flows.len(), 9);
    let mut ev = Vec::new();
    let mut placed = vec![];
    for (i, &f) in flows.iter().enumerate() {
        c.enqueue(data(f, i as i32, 100, 9), SimTime(0), &mut ev);
        placed.push((0..CAKE_QUEUES).find(|&q| c.flows[q].buf.iter().any(|p| p.flow == f)).unwrap());
    }
    // the first takes its own queue; each next one its own if free, else the next free
    // way after it (cyclically): eight distinct queues of the set, then a collision
    let mut used = vec![];
    for (i, &f) in flows.iter().take(8).enumerate() {
        let own = c.flow_hash(f) as usize % CAKE_QUEUES;
        let mut k = own % CAKE_SET_WAYS;
        while used.contains(&(set + k)) {
            k = (k + 1) % CAKE_SET_WAYS;
        }
        assert_eq!(placed[i], set + k, "flow {i}");
        used.push(set + k);
    }
    assert_eq!(c.way_collisions, 1);
    assert_eq!(placed[8], c.flow_hash(flows[8]) as usize % CAKE_QUEUES, "a collision shares its own queue");
    // a known flow finds its queue again (directly or by its tag)
    let before = c.way_directs + c.way_hits;
    c.enqueue(data(flows[3], 99, 100, 9), SimTime(0), &mut ev);
    assert_eq!(c.way_directs + c.way_hits, before + 1);
}

/// Host A (node 100) has one flow, host B (node 101) four, each to its own destination.
/// All backlogged: triple-isolate gives each *host* half (B's flows a quarter of a
/// quantum each), flows mode gives each *flow* a fifth.
fn host_shares(mode: FlowMode) -> f64 {
    let mut c = Cake::new(CakeParams { mode, ..CakeParams::default() });
    c.flow_hosts = vec![(100, 200), (101, 201), (101, 202), (101, 203), (101, 204)];
    let mut ev = Vec::new();
    let mut rng = Rng::new(5, 1);
    for i in 0..1000 {
        for f in 0..5u32 {
            c.enqueue(data(f, i, 1000, 200 + f), SimTime(0), &mut ev);
        }
    }
    let mut a = 0u64;
    for _ in 0..1000 {
        let p = c.dequeue(SimTime(0), &mut rng, &mut ev).unwrap();
        if p.flow == 0 {
            a += p.size as u64;
        }
    }
    assert!(ev.is_empty());
    a as f64 / 1e6
}

#[test]
fn host_fairness_triple_isolate_vs_flows() {
    // triple-isolate: A's quantum 1514·65535 >> 16, B's flows 1514·16383 >> 16 = 378 each
    let tri = host_shares(FlowMode::TripleIsolate);
    assert!((tri - 0.5).abs() < 0.02, "A's share under triple-isolate: {tri}");
    let flows = host_shares(FlowMode::Flows);
    assert!((flows - 0.2).abs() < 0.02, "A's share under flows: {flows}");
    // dual-srchost is fair by source host as well; dsthost-only would not see B's flows as one host
    let dual = host_shares(FlowMode::DualSrcHost);
    assert!((dual - 0.5).abs() < 0.02, "{dual}");
    let dst = host_shares(FlowMode::DualDstHost);
    assert!((dst - 0.2).abs() < 0.02, "{dst}");
}

#[test]
fn shaper_paces_at_the_bandwidth() {
    // 20 Mb/s: a 1500-byte packet takes 600 µs of the shaper's time
    let mut c = Cake::new(CakeParams { bandwidth_bps: Some(20e6), ..CakeParams::default() });
    let mut ev = Vec::new();
    let mut rng = Rng::new(1, 1);
    for i in 0..3 {
        c.enqueue(data(0, i, 1500, 9), SimTime(MS), &mut ev);
    }
    assert_eq!(c.dequeue(SimTime(MS), &mut rng, &mut ev).unwrap().seq, 0);
    assert!(c.dequeue(SimTime(MS), &mut rng, &mut ev).is_none());
    assert_eq!(c.wake_at(SimTime(MS)), Some(SimTime(MS + 600_000)));
    assert!(c.dequeue(SimTime(MS + 599_999), &mut rng, &mut ev).is_none());
    assert_eq!(c.dequeue(SimTime(MS + 600_000), &mut rng, &mut ev).unwrap().seq, 1);
    assert_eq!(c.time_next_packet, (MS + 1_200_000) as i64);
    // overhead compensation: 1500 + 38 bytes charged
    let c = Cake::new(CakeParams { overhead: Some(38), mpu: 84, ..CakeParams::default() });
    assert_eq!((c.adjusted_len(1500), c.adjusted_len(40)), (1538, 84));
}

#[test]
fn memory_limit_drops_from_the_longest_queue() {
    let mut c = Cake::new(CakeParams { mode: FlowMode::Flows, memlimit: Some(3000), ..CakeParams::default() });
    let mut ev = Vec::new();
    for i in 0..3 {
        assert_eq!(c.enqueue(data(0, i, 1000, 9), SimTime(10 * MS), &mut ev), Enqueued::Queued { marked: None });
    }
    // flow 1's packet makes 4000 bytes: flow 0's head goes, and its COBALT hears of it
    assert_eq!(c.enqueue(data(1, 3, 1000, 9), SimTime(10 * MS), &mut ev), Enqueued::Queued { marked: None });
    assert_eq!(ev.len(), 1);
    assert_eq!((ev[0].pkt.flow, ev[0].pkt.seq, ev[0].reason), (0, 0, Reason::Overflow));
    let q0 = (0..CAKE_QUEUES).find(|&q| c.flows[q].buf.iter().any(|p| p.flow == 0)).unwrap();
    let v = &c.flows[q0].cvars;
    assert_eq!((v.count, v.dropping, v.p_drop), (1, true, 1.0 / 256.0));
    // an arrival to the longest queue that is itself its head is reported as dropped
    let mut c = Cake::new(CakeParams { memlimit: Some(500), ..CakeParams::default() });
    ev.clear();
    assert_eq!(c.enqueue(data(0, 0, 1000, 9), SimTime(0), &mut ev), Enqueued::Dropped(Reason::Overflow));
    assert!(ev.is_empty());
    assert_eq!((c.len(), c.bytes()), (0, 0));
}

#[test]
fn ack_filter_by_hand() {
    let run = |mode: AckFilter, acks: &[Packet]| -> Vec<i32> {
        let mut c = Cake::new(CakeParams { ack_filter: mode, ..CakeParams::default() });
        let mut ev = Vec::new();
        for a in acks {
            c.enqueue(*a, SimTime(0), &mut ev);
        }
        ev.iter().map(|e| e.pkt.seq).collect()
    };
    let three = [ack(0, 1), ack(0, 2), ack(0, 3)];
    // conservative: ACK 3 finds two eligible ACKs (1 and 2): the one nearer the head goes
    assert_eq!(run(AckFilter::On, &three[..2]), Vec::<i32>::new());
    assert_eq!(run(AckFilter::On, &three), vec![1]);
    // aggressive: a lone eligible ACK right before the new one goes at once
    assert_eq!(run(AckFilter::Aggressive, &three), vec![1, 2]);
    // ECE changes: ACK 1 (ECE) is not dropped for ACKs without it
    let mut e1 = ack(0, 1);
    e1.ecn = ecn::ECE;
    assert_eq!(run(AckFilter::Aggressive, &[e1, ack(0, 2)]), Vec::<i32>::new());
    // another flow's ACKs and data packets are never candidates
    assert_eq!(run(AckFilter::Aggressive, &[ack(1, 1), ack(0, 2)]), Vec::<i32>::new());
    // a SACK the newer ACK does not cover keeps the older one
    let mut s1 = ack(0, 1);
    s1.set_sack(&[(5, 6)]);
    let mut s2 = ack(0, 2);
    s2.set_sack(&[(8, 9)]);
    assert_eq!(sack_compare(&s1, &s2), -1);
    assert_eq!(run(AckFilter::Aggressive, &[s1, s2]), Vec::<i32>::new());
    let mut s3 = ack(0, 2);
    s3.set_sack(&[(5, 9)]);
    assert_eq!(sack_compare(&s1, &s3), 1);
    assert_eq!(run(AckFilter::Aggressive, &[s1, s3]), vec![1]);
}

#[test]
fn wrapper_conserves_and_cobalt_acts_per_flow() {
    let aqm = AnyAqm::Cake(Box::new(Cake::new(CakeParams { mode: FlowMode::Flows, ..CakeParams::default() })));
    let mut q = QueueDisc::new(aqm);
    let mut rng = Rng::new(2, 1);
    // flow 0 sends 2 packets per ms, flow 1 one per 4 ms; the link serves 1 per ms
    let mut t = 0;
    for ms in 0..2000u64 {
        t = ms * MS;
        q.enqueue(data(0, 2 * ms as i32, 1000, 9), SimTime(t), &mut rng);
        q.enqueue(data(0, 2 * ms as i32 + 1, 1000, 9), SimTime(t + 1), &mut rng);
        if ms % 4 == 0 {
            q.enqueue(data(1, ms as i32, 1000, 9), SimTime(t + 2), &mut rng);
        }
        q.dequeue(SimTime(t + 3), &mut rng);
        assert!(q.conserved());
    }
    let drops: Vec<u32> = q.front_events.iter().filter(|e| !e.marked).map(|e| e.flow).collect();
    assert!(drops.len() > 100, "{}", drops.len());
    assert!(drops.iter().all(|&f| f == 0), "only the flow above its share loses packets");
    let _ = t;
}

