//! COBALT tests: the fixed-point helpers against 1/√n and hand values, hand-computed
//! CoDel schedules and BLUE steps from ns-3.37's `CobaltQueueDisc` code (its 32-bit BLUE
//! clock included), the ECN / L4S / mark-then-drop paths, and the wrapper's counting.
//! Packet-for-packet agreement with ns-3 itself is tests/test_ns3_queues.py.

use super::*;
use crate::aqm::queue::QueueDisc;
use crate::aqm::AnyAqm;
use crate::packet::Kind;

const MS: u64 = 1_000_000;
const IV: u64 = 100 * MS;

fn pkt(id: i32, ect: u8, t_enq: u64) -> Packet {
    let mut p = Packet::new(Kind::Data, 1, id, 1000, 1, SimTime(t_enq));
    p.ecn = ect;
    p
}

#[test]
fn cache_is_four_newton_steps_per_entry_near_one_over_sqrt_n() {
    // entry 0 and 1 are ~0 (1.0); 4 → 0x7fffffff (½), 9 → 0x55555555 (⅓): the values
    // Linux's cobalt_cache_init and ns-3's CacheInit compute.
    assert_eq!(REC_INV_SQRT[0], 0xffff_ffff);
    assert_eq!(REC_INV_SQRT[1], 0xffff_ffff);
    assert_eq!(REC_INV_SQRT[2], 0xb4ea_d8a0);
    assert_eq!(REC_INV_SQRT[4], 0x7fff_ffff);
    assert_eq!(REC_INV_SQRT[9], 0x5555_5555);
    for n in 2..REC_INV_SQRT_CACHE {
        let want = 4294967296.0 / (n as f64).sqrt();
        let got = REC_INV_SQRT[n] as f64;
        assert!((got - want).abs() / want < 1e-3, "n {n}: {got} vs {want}");
    }
    // one Newton step from 1/√16 at count 17 moves towards 1/√17
    let r16 = newton_step32(REC_INV_SQRT[15], 16);
    let r17 = newton_step32(r16, 17);
    assert!(r17 < r16 && (r17 as f64 - 4294967296.0 / 17f64.sqrt()).abs() < 4e6);
}

#[test]
fn control_law_is_interval_times_rec_inv_sqrt() {
    // 1e8 · (2^32 − 1) / 2^32 = 99 999 999.98 → 99 999 999
    assert_eq!(control_law(0, IV, !0), 99_999_999);
    assert_eq!(control_law(5, IV, 0x7fff_ffff), 5 + 49_999_999);
    // ns-3 keeps the interval in a uint32_t of ns
    assert_eq!(control_law(0, (1u64 << 32) + 1000, !0), 999);
}

/// A hand-computed CoDel schedule (default parameters, no BLUE activity).
#[test]
fn codel_schedule_by_hand() {
    let p = CobaltParams::default();
    let mut c = Cobalt::new(p, u32::MAX, Some(1_500_000));
    let mut rng = Rng::new(1, 1);
    let mut ev = Vec::new();
    c.enqueue(pkt(0, 0, 0), SimTime(0));
    // t = 1 ms: sojourn 1 ms, count 0: drop_next is the activity timeout now + interval
    assert_eq!(c.dequeue(SimTime(MS), &mut rng, &mut ev).unwrap().seq, 0);
    assert_eq!((c.vars.count, c.vars.dropping, c.vars.drop_next), (0, false, (101 * MS) as i64));
    for i in 1..=5 {
        c.enqueue(pkt(i, 0, 0), SimTime(2 * MS));
    }
    // t = 20 ms: sojourn 18 ms > 5 ms: dropping, count 1, drop_next = 20 ms + 99 999 999
    assert_eq!(c.dequeue(SimTime(20 * MS), &mut rng, &mut ev).unwrap().seq, 1);
    assert_eq!((c.vars.count, c.vars.dropping, c.vars.drop_next), (1, true, 119_999_999));
    assert!(ev.is_empty());
    // at drop_next: P2 dropped, count 2, drop_next += 1e8·0xb4ead8a0 >> 32 = 70 670 846;
    // P3 (same call) is not due and leaves
    let out = c.dequeue(SimTime(119_999_999), &mut rng, &mut ev).unwrap();
    assert_eq!(out.seq, 3);
    assert_eq!(ev.len(), 1);
    assert_eq!((ev[0].pkt.seq, ev[0].marked, ev[0].reason), (2, false, Reason::Early));
    assert_eq!((c.vars.count, c.vars.drop_next), (2, 190_670_845));
    // the queue drains below target: dropping ends; an empty dequeue after drop_next
    // decays the count by one (count 1, rec 0xffffffff, drop_next + 99 999 999)
    let mut q = Cobalt::new(CobaltParams::default(), u32::MAX, None);
    q.vars = c.vars.clone();
    assert!(q.dequeue(SimTime(200 * MS), &mut rng, &mut ev).is_none());
    assert_eq!((q.vars.count, q.vars.dropping, q.vars.drop_next), (1, false, 190_670_845 + 99_999_999));
    assert_eq!(q.vars.rec_inv_sqrt, 0xffff_ffff);
}

/// A packet below target while count > 0 and drop_next is past: the count decays one
/// step per due drop_next (the `while next_due` loop), then the activity timeout.
#[test]
fn count_decays_while_not_dropping() {
    let p = CobaltParams::default();
    let mut v = CobaltVars::new(&p);
    v.count = 3;
    v.rec_inv_sqrt = REC_INV_SQRT[3];
    v.drop_next = 0;
    let mut rng = Rng::new(1, 1);
    // now = 200 ms, sojourn 0: count 3 → 2 (drop_next 0 + 1e8·cache[2] = 70 670 846 ≤ now)
    // → 1 (+ 99 999 999 = 170 670 845 ≤ now) → 0 (+ 1e8·cache[0] = 270 670 844 > now: stop)
    let d = v.should_drop(&p, &pkt(0, 0, 200 * MS), SimTime(200 * MS), &mut rng);
    assert_eq!(d, Decision::default());
    assert_eq!(v.count, 0);
    // count 0: drop_next is overwritten by the activity timeout now + interval
    assert_eq!(v.drop_next, (300 * MS) as i64);
}

#[test]
fn blue_rises_on_overflow_at_most_once_per_target() {
    let p = CobaltParams::default();
    let mut c = Cobalt::new(p, 2, None);
    for i in 0..2 {
        assert_eq!(c.enqueue(pkt(i, 0, 0), SimTime(0)), Enqueued::Queued { marked: None });
    }
    // t = 0: now − last (0) = 0, not > target: no step, but dropping with count 1
    assert_eq!(c.enqueue(pkt(2, 0, 0), SimTime(0)), Enqueued::Dropped(Reason::Overflow));
    assert_eq!((c.vars.p_drop, c.vars.dropping, c.vars.count, c.vars.drop_next), (0.0, true, 1, 0));
    c.enqueue(pkt(3, 0, 0), SimTime(6 * MS));
    assert_eq!(c.vars.p_drop, 1.0 / 256.0);
    c.enqueue(pkt(4, 0, 0), SimTime(8 * MS)); // 2 ms after: no step
    assert_eq!(c.vars.p_drop, 1.0 / 256.0);
    c.enqueue(pkt(5, 0, 0), SimTime(11 * MS + 1)); // 5 ms + 1 ns after
    assert_eq!(c.vars.p_drop, 2.0 / 256.0);
    // empty dequeues lower it by 1/4096, again once per target
    let mut e = Cobalt::new(CobaltParams::default(), 2, None);
    e.vars.p_drop = 2.0 / 256.0;
    e.vars.last_blue = (11 * MS + 1) as i64;
    let mut rng = Rng::new(1, 1);
    let mut ev = Vec::new();
    e.dequeue(SimTime(17 * MS), &mut rng, &mut ev);
    e.dequeue(SimTime(18 * MS), &mut rng, &mut ev);
    assert_eq!(e.vars.p_drop, 2.0 / 256.0 - 1.0 / 4096.0);
}

/// ns-3 keeps BLUE's last update in a uint32_t of ns: past 2^32 ns the once-per-target
/// limit no longer holds. Reproduced (docs/aqm/cobalt.md).
#[test]
fn blue_clock_is_32_bits_as_ns3() {
    let p = CobaltParams::default();
    let t0 = 1u64 << 32;
    let mut v = CobaltVars::new(&p);
    v.queue_full(&p, SimTime(t0 - 10 * MS));
    v.queue_full(&p, SimTime(t0 - 9 * MS));
    assert_eq!(v.p_drop, 1.0 / 256.0, "before 2^32 ns: 1 ms apart, one step");
    let mut v = CobaltVars::new(&p);
    v.queue_full(&p, SimTime(t0 + 10 * MS));
    v.queue_full(&p, SimTime(t0 + 11 * MS));
    assert_eq!(v.p_drop, 2.0 / 256.0, "after 2^32 ns: every overflow steps");
}

#[test]
fn blue_rises_above_blue_threshold_and_draws_per_packet() {
    let p = CobaltParams { blue_threshold_ns: 50 * MS, ..CobaltParams::default() };
    let mut v = CobaltVars::new(&p);
    let mut rng = Rng::new(7, 1);
    let mut mirror = rng.clone();
    // sojourn 60 ms > 50 ms at t = 100 ms: p += 1/256, then one draw decides
    let d = v.should_drop(&p, &pkt(0, 0, 40 * MS), SimTime(100 * MS), &mut rng);
    assert_eq!(v.p_drop, 1.0 / 256.0);
    let u = mirror.uniform();
    assert_eq!(d.drop.is_some(), u < 1.0 / 256.0);
    // p = 1: every packet is dropped by BLUE (reason Forced), even a due ECN mark
    let p = CobaltParams { ecn: true, p_drop: 1.0, ..CobaltParams::default() };
    let mut v = CobaltVars::new(&p);
    v.count = 1;
    v.dropping = true;
    v.drop_next = 0;
    let d = v.should_drop(&p, &pkt(1, ecn::ECT, 0), SimTime(10 * MS), &mut rng);
    assert_eq!(d, Decision { mark: Some(Reason::Early), drop: Some(Reason::Forced) });
}

#[test]
fn ecn_marks_capable_packets_and_drops_the_others() {
    let p = CobaltParams { ecn: true, ..CobaltParams::default() };
    let mut rng = Rng::new(1, 1);
    let due = |p: &CobaltParams| {
        let mut v = CobaltVars::new(p);
        v.count = 1;
        v.dropping = true;
        v
    };
    let d = due(&p).should_drop(&p, &pkt(0, ecn::ECT, 0), SimTime(10 * MS), &mut rng);
    assert_eq!(d, Decision { mark: Some(Reason::Early), drop: None });
    let d = due(&p).should_drop(&p, &pkt(0, 0, 0), SimTime(10 * MS), &mut rng);
    assert_eq!(d, Decision { mark: None, drop: Some(Reason::Early) });
    // ce_threshold: a packet not due but above it is marked (Forced), once
    let p = CobaltParams { ecn: true, ce_threshold_ns: Some(2 * MS), ..CobaltParams::default() };
    let mut v = CobaltVars::new(&p);
    let d = v.should_drop(&p, &pkt(0, ecn::ECT, 0), SimTime(3 * MS), &mut rng);
    assert_eq!(d, Decision { mark: Some(Reason::Forced), drop: None });
}

#[test]
fn l4s_packets_see_only_the_ce_threshold() {
    let p = CobaltParams { l4s: true, ce_threshold_ns: Some(MS), p_drop: 1.0, ..CobaltParams::default() };
    let mut rng = Rng::new(1, 1);
    let mut v = CobaltVars::new(&p);
    let l4s = pkt(0, ecn::ECT | ecn::ECT1, 0);
    assert_eq!(v.should_drop(&p, &l4s, SimTime(2 * MS), &mut rng), Decision { mark: Some(Reason::Forced), drop: None });
    assert_eq!(v.should_drop(&p, &l4s, SimTime(MS / 2), &mut rng), Decision::default());
    assert_eq!((v.count, v.dropping), (0, false), "CoDel did not run");
    // an ECT(0) packet is classic: BLUE (p = 1) drops it, and no CE-threshold mark
    let d = v.should_drop(&p, &pkt(1, ecn::ECT, 0), SimTime(2 * MS), &mut rng);
    assert_eq!(d, Decision { mark: None, drop: Some(Reason::Forced) });
}

#[test]
fn wrapper_counts_marks_and_drops_and_bytes() {
    let p = CobaltParams { ecn: true, p_drop: 1.0, ..CobaltParams::default() };
    let mut q = QueueDisc::new(AnyAqm::Cobalt(Box::new(Cobalt::new(p, 10, None))));
    let mut rng = Rng::new(1, 1);
    for i in 0..3 {
        q.enqueue(pkt(i, ecn::ECT, 0), SimTime(0), &mut rng);
    }
    assert_eq!((q.len(), q.bytes()), (3, 3000));
    assert!(q.dequeue(SimTime(MS), &mut rng).is_none(), "BLUE at p = 1 drops every packet");
    assert_eq!((q.len(), q.bytes(), q.stats.dropped()), (0, 0, 3));
    assert_eq!(q.front_events.len(), 3);
}

/// Linux's flavour (CAKE's queues): a 64-bit BLUE clock, no BLUE draw for a packet the
/// control law drops, and over target only above 4 MTU times as well.
#[test]
fn linux_flavour_differs_where_sch_cake_does() {
    let p = CobaltParams { flavor: Flavor::Linux, p_drop: 0.5, ..CobaltParams::default() };
    let mut rng = Rng::new(3, 1);
    let mut v = CobaltVars::new(&p);
    v.count = 1;
    v.dropping = true;
    let before = rng.clone();
    let d = v.should_drop(&p, &pkt(0, 0, 0), SimTime(10 * MS), &mut rng);
    assert_eq!(d.drop, Some(Reason::Early));
    assert_eq!(before.clone().next_u64(), rng.clone().next_u64(), "no uniform drawn");
    // 64-bit clock: past 2^32 ns, 1 ms apart is still one step
    let mut v = CobaltVars::new(&p);
    v.queue_full(&p, SimTime((1 << 32) + 10 * MS));
    v.queue_full(&p, SimTime((1 << 32) + 11 * MS));
    assert_eq!(v.p_drop, 0.5 + 1.0 / 256.0);
    // mtu_time 2 ms: a 6 ms sojourn is above target but not above 4 MTU times
    let p = CobaltParams { flavor: Flavor::Linux, mtu_time_ns: 2 * MS, ..CobaltParams::default() };
    let mut v = CobaltVars::new(&p);
    v.should_drop(&p, &pkt(0, 0, 0), SimTime(6 * MS), &mut rng);
    assert!(!v.dropping);
    v.should_drop(&p, &pkt(0, 0, 0), SimTime(9 * MS), &mut rng);
    assert!(v.dropping);
}
