//! Golden tests: RFC 9332 Appendix A's pseudo-code and Linux 6.18's sch_dualpi2
//! arithmetic, worked by hand (the numbers in the comments are the hand computation).

use super::*;
use crate::packet::Kind;

const NOT_ECT: u8 = 0;
const ECT0: u8 = ecn::ECT;
const ECT1: u8 = ecn::ECT | ecn::ECT1;
const CE: u8 = ecn::ECT | ecn::CE;
const MS: u64 = 1_000_000;

fn pkt(id: i32, flags: u8, size: u32) -> Packet {
    let mut p = Packet::new(Kind::Data, id as u32, id, size, 1, SimTime::ZERO);
    p.ecn = flags;
    p
}

fn dq(params: DualPi2Params) -> DualPi2 {
    DualPi2::new(params)
}

/// Draws that never hit (u32::MAX > any prob below MAX_PROB), counted.
fn never(n: &mut u32) -> impl FnMut() -> u32 + '_ {
    move || {
        *n += 1;
        u32::MAX
    }
}

/// Draws from a fixed list, in order (panics if more are asked for).
fn script(v: &[u32]) -> impl FnMut() -> u32 + '_ {
    let mut i = 0;
    move || {
        i += 1;
        v[i - 1]
    }
}

fn enq(d: &mut DualPi2, id: i32, flags: u8, t: u64) -> Enqueued {
    let mut n = 0;
    let out = d.enqueue_with(pkt(id, flags, 1500), SimTime(t), &mut never(&mut n));
    out
}

fn deq(d: &mut DualPi2, t: u64, ev: &mut Vec<FrontEvent>) -> Option<Packet> {
    let mut n = 0;
    let out = d.dequeue_with(SimTime(t), &mut never(&mut n), ev);
    out
}

#[test]
fn linux_gains_from_the_defaults() {
    // tc: 0.16 Hz · 256 = 40.96 → 41, 3.2 · 256 = 819.2 → 819 (Linux's own defaults)
    assert_eq!((netlink_alpha_beta(0.16), netlink_alpha_beta(3.2)), (41, 819));
    // 41 · (2³² − 1) = 176 093 659 095, >> 2 = 44 023 414 773, / 1e9 = 44
    // 819 · (2³² − 1) = 3 517 578 214 605, >> 2 = 879 394 553 651, / 1e9 = 879
    assert_eq!(dq(DualPi2Params::default()).gains(), (44, 879));
}

#[test]
fn classification_by_ecn_mask() {
    let d = |m| dq(DualPi2Params { ecn_mask: m, ..DualPi2Params::default() });
    let (l4s, cla, any) = (d(EcnMask::L4sEct), d(EcnMask::ClaEct), d(EcnMask::AnyEct));
    // (flags, l4s_ect, cla_ect, any_ect): RFC 9332 Fig. "ecn(pkt) modulo 2 == 1" is l4s_ect
    for (f, a, b, c) in [(NOT_ECT, false, false, false), (ECT0, false, true, true), (ECT1, true, false, true), (CE, true, true, true)] {
        assert_eq!((l4s.is_l(f), cla.is_l(f), any.is_l(f)), (a, b, c), "flags {f:#b}");
    }
    // CE keeps the sender's ECT(1) bit: still L
    assert!(l4s.is_l(ECT1 | ecn::CE));
}

#[test]
fn pi_update_by_hand() {
    let mut d = dq(DualPi2Params::default());
    assert!(matches!(enq(&mut d, 0, NOT_ECT, 0), Enqueued::Queued { marked: None }));
    // t = 16 ms: d = 16 ms (the C head's sojourn), d_old = 0
    // Δ = (16e6 − 15e6)·44 + (16e6 − 0)·879 = 44e6 + 14 064e6 = 14 108 000 000; /64 = 220 437 500
    d.catch_up(SimTime(16 * MS));
    assert_eq!(d.prob(), 220_437_500);
    // t = 32 ms: Δ = 17e6·44 + 16e6·879 = 748e6 + 14 064e6 = 14 812 000 000; /64 = 231 437 500
    d.catch_up(SimTime(32 * MS));
    assert_eq!(d.prob(), 451_875_000);
    assert_eq!(d.updates(), 2);
    // the packet leaves at 40 ms (1 500 bytes < 2 MTU remain: no test, no draw)
    let mut ev = Vec::new();
    let mut n = 0;
    assert!(d.dequeue_with(SimTime(40 * MS), &mut never(&mut n), &mut ev).is_some());
    assert_eq!(n, 0);
    // t = 48 ms, empty: Δ = −15e6·44 − 32e6·879 = −660e6 − 28 128e6; /64 = 449 812 500
    d.catch_up(SimTime(48 * MS));
    assert_eq!(d.prob(), 451_875_000 - 449_812_500);
    // t = 64 ms: Δ = −660e6 / 64 = −10 312 500 > 2 062 500: floored at 0 (Linux's wrap test)
    d.catch_up(SimTime(64 * MS));
    assert_eq!(d.prob(), 0);
    assert_eq!(d.state().delay, 0.0);
}

/// RFC 9332 Appendix A, `dualpi2_update` (p' clamped to [0, 1]) in floating point.
fn rfc_update(p: f64, curq: f64, prevq: f64, target: f64, alpha: f64, beta: f64) -> f64 {
    (p + alpha * (curq - target) + beta * (curq - prevq)).clamp(0.0, 1.0)
}

#[test]
fn pi_updates_follow_the_rfc_within_linux_rounding() {
    // queue delays (s) seen at successive updates; the RFC's float p' and Linux's fixed
    // point differ only by α = 44/64 per ns·2⁻³² = 0.160063 Hz, β = 879/64 → 3.197789 Hz
    // and the integer division
    let delays = [0.016, 0.030, 0.045, 0.040, 0.020, 0.010, 0.0, 0.0, 0.025];
    let mut d = dq(DualPi2Params::default());
    let (mut p, mut prev) = (0.0, 0.0);
    for &q in &delays {
        p = rfc_update(p, q, prev, 0.015, 0.16, 3.2);
        prev = q;
        let delta = d.pi_delta((q * 1e9) as u64);
        d.last_qdelay = (q * 1e9) as u64;
        d.prob = step_prob(d.prob, delta);
        assert!((d.p_base() - p).abs() < 2e-4, "q = {q}: linux {} rfc {p}", d.p_base());
    }
    // hand value of the first step: RFC 0.16·0.001 + 3.2·0.016 = 0.05136; Linux 0.0513245
    assert!((rfc_update(0.0, 0.016, 0.0, 0.015, 0.16, 3.2) - 0.05136).abs() < 1e-12);
}

#[test]
fn update_uses_the_larger_of_the_two_heads_and_runs_before_a_same_time_event() {
    let mut d = dq(DualPi2Params::default());
    enq(&mut d, 0, ECT1, 0); // L head from 0
    enq(&mut d, 1, NOT_ECT, 8 * MS); // C head from 8 ms
    // a dequeue at exactly 16 ms: the update due then runs first, with
    // d = max(16 ms, 8 ms) = 16 ms (the RFC's pseudo-code would take the C queue's 8 ms)
    let mut ev = Vec::new();
    let p = deq(&mut d, 16 * MS, &mut ev).unwrap();
    assert_eq!(p.seq, 0);
    assert_eq!(d.prob(), 220_437_500);
}

#[test]
fn classic_and_scalable_decisions_with_fixed_draws() {
    let mut d = dq(DualPi2Params::default());
    let q = MAX_PROB / 4; // p' ≈ 0.25: p_C ≈ 1/16, p_CL ≈ 0.5
    d.prob = q;
    let backlog = 3000; // 2 MTU: tests apply
    // Classic Not-ECT: two hits drop; a miss on the second or the first passes
    let mut p = pkt(0, NOT_ECT, 1500);
    assert_eq!(d.must_drop(&mut p, false, backlog, &mut script(&[q, q])), Fate::Drop);
    assert_eq!(d.must_drop(&mut p, false, backlog, &mut script(&[0, q + 1])), Fate::Pass);
    assert_eq!(d.must_drop(&mut p, false, backlog, &mut script(&[q + 1])), Fate::Pass); // one draw only
    // Classic ECT(0): two hits mark (CE set, ECT kept)
    let mut p = pkt(0, ECT0, 1500);
    assert_eq!(d.must_drop(&mut p, false, backlog, &mut script(&[1, 2])), Fate::Mark);
    assert_eq!(p.ecn, ECT0 | ecn::CE);
    // L4S ECT(1): one roll against k·p' = 2q
    let mut p = pkt(0, ECT1, 1500);
    assert_eq!(d.must_drop(&mut p, true, backlog, &mut script(&[2 * q + 1])), Fate::Pass);
    assert_eq!(p.ecn, ECT1);
    assert_eq!(d.must_drop(&mut p, true, backlog, &mut script(&[2 * q])), Fate::Mark);
    assert_eq!(p.ecn, ECT1 | ecn::CE);
    // under 2 MTU queued: nothing, no draw
    let mut p = pkt(0, NOT_ECT, 1500);
    assert_eq!(d.must_drop(&mut p, false, 2999, &mut script(&[])), Fate::Pass);
    // p' = 0 still rolls (Linux: u ≤ 0 hits when u = 0)
    d.prob = 0;
    assert_eq!(d.must_drop(&mut p, false, backlog, &mut script(&[0, 0])), Fate::Drop);
    assert_eq!(d.must_drop(&mut p, false, backlog, &mut script(&[1])), Fate::Pass);
}

#[test]
fn overload_drops_classic_ecn_and_l4s() {
    let mut d = dq(DualPi2Params::default());
    let q = (MAX_PROB / 10) * 6; // p' = 0.6: k·p' = 1.2 > 1, overload
    d.prob = q;
    let mut p = pkt(0, ECT0, 1500);
    assert_eq!(d.must_drop(&mut p, false, 3000, &mut script(&[0, 0])), Fate::Drop); // ECT dropped
    let mut p = pkt(0, ECT1, 1500);
    assert_eq!(d.must_drop(&mut p, true, 3000, &mut script(&[q, q])), Fate::Drop); // Classic test hits
    assert_eq!(d.must_drop(&mut p, true, 3000, &mut script(&[q, q + 1])), Fate::Mark); // else marked
    // without drop_overload: always marked, no draw; and p' is capped at 1/k
    let mut d = dq(DualPi2Params { drop_overload: false, ..DualPi2Params::default() });
    d.prob = q;
    let mut p = pkt(0, ECT1, 1500);
    assert_eq!(d.must_drop(&mut p, true, 3000, &mut script(&[])), Fate::Mark);
    d.prob = MAX_PROB - 10;
    enq(&mut d, 0, NOT_ECT, 0);
    d.catch_up(SimTime(16 * MS));
    assert_eq!(d.prob(), MAX_PROB / 2);
}

#[test]
fn step_threshold_in_time_and_packets() {
    // 1 ms: marked when the sojourn is > 1 ms (not at exactly 1 ms); p' = 0 and draws of
    // u32::MAX keep the PI2 test out of it
    let mut d = dq(DualPi2Params::default());
    for i in 0..4 {
        enq(&mut d, i, ECT1, 0);
    }
    let mut ev = Vec::new();
    let a = deq(&mut d, MS / 2, &mut ev).unwrap();
    let b = deq(&mut d, MS, &mut ev).unwrap();
    let c = deq(&mut d, MS + 1, &mut ev).unwrap();
    assert_eq!((a.ecn, b.ecn, c.ecn), (ECT1, ECT1, ECT1 | ecn::CE));
    assert_eq!(ev.len(), 1);
    assert!(ev[0].marked && ev[0].reason == Reason::Forced && ev[0].pkt.seq == 2);
    assert_eq!(d.step_marks, 1);
    // in packets (threshold 1): marked while more than 1 packet stays in the L queue
    let mut d = dq(DualPi2Params { step: Step::Packets(1), ..DualPi2Params::default() });
    for i in 0..4 {
        enq(&mut d, i, ECT1, 0);
    }
    let ce: Vec<bool> = (0..4).map(|_| deq(&mut d, 0, &mut ev).unwrap().ecn & ecn::CE != 0).collect();
    assert_eq!(ce, [true, true, false, false]); // 3, 2 left: marked; 1, 0: not
    // min_qlen_step 2: the first two arrivals (found 0 and 1 packets) are never step-marked
    let mut d = dq(DualPi2Params { min_qlen_step: 2, ..DualPi2Params::default() });
    for i in 0..3 {
        enq(&mut d, i, ECT1, 0);
    }
    let ce: Vec<bool> = (0..3).map(|_| deq(&mut d, 5 * MS, &mut ev).unwrap().ecn & ecn::CE != 0).collect();
    assert_eq!(ce, [false, false, true]);
    // Classic packets never face the step
    let mut d = dq(DualPi2Params::default());
    enq(&mut d, 0, ECT0, 0);
    assert_eq!(deq(&mut d, 5 * MS, &mut ev).unwrap().ecn, ECT0);
}

#[test]
fn wrr_scheduler_script() {
    // c_protection 10 %: credit −120 000; +15 000 per L packet sent with C waiting,
    // −135 000 per C packet sent with L waiting: L ×9, C, L ×9, C, …
    let mut d = dq(DualPi2Params { step: Step::Time(10.0), ..DualPi2Params::default() });
    for i in 0..20 {
        enq(&mut d, i, ECT1, 0);
        enq(&mut d, 100 + i, NOT_ECT, 0);
    }
    let mut ev = Vec::new();
    let order: String = (0..24).map(|_| if deq(&mut d, 0, &mut ev).unwrap().seq < 100 { 'L' } else { 'C' }).collect();
    assert_eq!(order, "LLLLLLLLLCLLLLLLLLLCLLCC");
    // L empty after 20 L: C alone, credit unchanged (−120 000 + 2·15 000 = −90 000)
    assert_eq!(d.credit(), -90_000);
    while deq(&mut d, 0, &mut ev).is_some() {}
    assert_eq!(d.credit(), -120_000); // both empty: reset
    // c_protection 50 %: credit 0, ±75 000: strict alternation starting with L
    let mut d = dq(DualPi2Params { c_protection: 50, step: Step::Time(10.0), ..DualPi2Params::default() });
    for i in 0..3 {
        enq(&mut d, i, ECT1, 0);
        enq(&mut d, 100 + i, NOT_ECT, 0);
    }
    let order: String = (0..6).map(|_| if deq(&mut d, 0, &mut ev).unwrap().seq < 100 { 'L' } else { 'C' }).collect();
    assert_eq!(order, "LCLCLC");
    assert!(ev.is_empty());
}

#[test]
fn dropped_packets_leave_the_credit_alone() {
    // C packets dropped at dequeue: the credit moves only for the packet sent
    let mut d = dq(DualPi2Params { c_protection: 50, step: Step::Time(10.0), ..DualPi2Params::default() });
    enq(&mut d, 0, ECT1, 0);
    for i in 0..3 {
        enq(&mut d, 100 + i, NOT_ECT, 0);
    }
    d.prob = MAX_PROB / 2;
    let mut ev = Vec::new();
    // credit 0 → L first (+75 000, sent; 4 500 bytes left: tests apply, draw misses)
    let p = d.dequeue_with(SimTime(0), &mut script(&[u32::MAX]), &mut ev).unwrap();
    assert_eq!((p.seq, d.credit()), (0, 75_000));
    // C: first dropped (two hits), the second sent; L is empty, so no credit change
    let p = d.dequeue_with(SimTime(0), &mut script(&[0, 0, u32::MAX]), &mut ev).unwrap();
    assert_eq!((p.seq, d.credit()), (101, 75_000));
    assert_eq!(ev.len(), 1);
    assert!(!ev[0].marked && ev[0].reason == Reason::Early && ev[0].pkt.seq == 100);
}

#[test]
fn limit_and_drop_early() {
    let mut d = dq(DualPi2Params { limit: 3, ..DualPi2Params::default() });
    for i in 0..3 {
        assert!(matches!(enq(&mut d, i, ECT1, 0), Enqueued::Queued { .. }));
    }
    assert_eq!(enq(&mut d, 3, NOT_ECT, 0), Enqueued::Dropped(Reason::Overflow));
    assert_eq!(d.lens(), (3, 0));
    // drop_early: the test runs at enqueue against the bytes already queued
    let mut d = dq(DualPi2Params { drop_early: true, ..DualPi2Params::default() });
    d.prob = MAX_PROB / 2;
    let mut n = 0;
    for i in 0..2 {
        d.enqueue_with(pkt(i, NOT_ECT, 1500), SimTime(0), &mut never(&mut n));
    }
    assert_eq!(n, 0); // 0 and 1 500 bytes queued: under 2 MTU
    assert_eq!(d.enqueue_with(pkt(2, NOT_ECT, 1500), SimTime(0), &mut script(&[0, 0])), Enqueued::Dropped(Reason::Early));
    assert_eq!(d.enqueue_with(pkt(3, ECT0, 1500), SimTime(0), &mut script(&[0, 0])), Enqueued::Queued { marked: Some(Reason::Early) });
    let mut ev = Vec::new();
    let mut m = 0;
    while d.dequeue_with(SimTime(0), &mut never(&mut m), &mut ev).is_some() {}
    assert_eq!(m, 0); // no test at dequeue
}

#[test]
fn lazy_updates_respect_the_budget() {
    let mut d = dq(DualPi2Params::default());
    d.set_update_budget(3);
    d.catch_up(SimTime(100 * MS));
    assert_eq!(d.updates(), 3);
    assert_eq!(d.over_budget(), Some(SimTime(64 * MS)));
}

#[test]
fn coupling_factor_scales_the_l4s_roll() {
    // k = 3: the L roll is u ≤ 3P; k = 1: u ≤ P (the Classic one stays two rolls of P)
    for k in [1u8, 3] {
        let mut d = dq(DualPi2Params { coupling: k, ..DualPi2Params::default() });
        let q = MAX_PROB / 8;
        d.prob = q;
        let lim = q * k as u32;
        let mut p = pkt(0, ECT1, 1500);
        assert_eq!(d.must_drop(&mut p, true, 3000, &mut script(&[lim + 1])), Fate::Pass, "k = {k}");
        assert_eq!(d.must_drop(&mut p, true, 3000, &mut script(&[lim])), Fate::Mark, "k = {k}");
        assert!((d.state().max_p - (k as f64 / 8.0)).abs() < 1e-9);
        assert!((d.state().p - 1.0 / 64.0).abs() < 1e-9);
    }
}

#[test]
fn through_the_queue_wrapper_every_packet_is_accounted_for() {
    use crate::aqm::{AnyAqm, QueueDisc};
    // a mixed, overloaded script: 3 arrivals per 2 departures for 2 s, every codepoint
    let mut q = QueueDisc::new(AnyAqm::DualPi2(Box::new(dq(DualPi2Params { limit: 200, ..DualPi2Params::default() }))));
    let mut rng = Rng::new(7, 1);
    let mut pick = Rng::new(9, 2);
    let (mut marks_seen, mut departed) = (0u64, 0u64);
    for i in 0..6000u64 {
        let now = SimTime(i * 333_333);
        let flags = [NOT_ECT, ECT0, ECT1, CE][(pick.next_u64() % 4) as usize];
        let _ = q.enqueue(pkt(i as i32, flags, 1000 + (pick.next_u64() % 500) as u32), now, &mut rng);
        if i % 3 != 0 {
            if let Some(p) = q.dequeue(now, &mut rng) {
                departed += 1;
                assert!(p.t_enq <= now);
            }
        }
        marks_seen += q.front_events.drain(..).filter(|e| e.marked).count() as u64;
        assert!(q.conserved());
    }
    let s = &q.stats;
    assert_eq!(s.departures, departed);
    assert!(s.dropped() > 0 && s.marks > 0 && s.drops[Reason::Overflow as usize] > 0);
    assert_eq!(s.marks, marks_seen); // every mark made at dequeue is an event, counted once
    let AnyAqm::DualPi2(d) = &q.aqm else { unreachable!() };
    assert!(d.updates() > 100 && d.p_base() > 0.0);
    assert_eq!(q.aqm.timer_events(), d.updates());
}

#[test]
fn rolls_take_the_top_32_bits_of_one_draw_each() {
    // the documented draw order: a Classic test takes the top 32 bits of the link RNG's
    // next output, then (on a hit) of the one after
    let mut d = dq(DualPi2Params::default());
    d.prob = MAX_PROB; // every roll hits
    for i in 0..3 {
        enq(&mut d, i, NOT_ECT, 0);
    }
    let mut rng = Rng::new(3, 1);
    let mut twin = Rng::new(3, 1);
    let mut ev = Vec::new();
    // 3 000 bytes left after the first: tested (2 draws), dropped; then 1 500 left: not tested
    let p = PacketOwner::dequeue(&mut d, SimTime(0), &mut rng, &mut ev).unwrap();
    assert_eq!((p.seq, ev.len()), (1, 1));
    twin.next_u64();
    twin.next_u64();
    assert_eq!(rng.next_u64(), twin.next_u64());
}
