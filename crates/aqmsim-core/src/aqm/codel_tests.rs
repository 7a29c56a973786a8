//! CoDel tests: the fixed-point helpers by hand, a literal transcription of RFC 8289's
//! dequeue loop (with ns-3.37's documented deviations) against the per-packet state
//! machine, and a hand-computed drop schedule.

use super::*;
use crate::aqm::queue::QueueDisc;
use crate::aqm::AnyAqm;
use crate::packet::Kind;
use proptest::prelude::{any, prop_assert_eq, prop_oneof, proptest, Just, ProptestConfig};
use crate::rng::Rng;
use std::collections::VecDeque;

#[test]
fn newton_step_matches_the_float_iteration_and_hand_values() {
    // x' = x (3 − c x²) / 2 from x = 1: c = 2 → 0.5, c = 3 → 0.5625, ... (Linux's one step
    // per count change converges slowly towards 1/√c on purpose).
    let mut r = 0xFFFFu16;
    let mut seen = vec![];
    for c in 2..=8 {
        r = newton_step(r, c);
        seen.push(r);
    }
    assert_eq!(seen, vec![0x8001, 0x9000, 0x7CE0, 0x7107, 0x6771, 0x600C, 0x59FD]);
    for (r0, c) in [(0xFFFFu16, 2u32), (0x8001, 3), (40000, 5), (20000, 11), (9000, 50)] {
        let x = r0 as f64 / 65536.0;
        let want = x * (3.0 - c as f64 * x * x) / 2.0 * 65536.0;
        let got = newton_step(r0, c) as f64;
        assert!((got - want).abs() <= 2.0, "r {r0} c {c}: {got} vs {want}");
    }
}

#[test]
fn control_law_is_interval_times_rec_inv_sqrt() {
    let iv = 100_000_000u64 >> CODEL_SHIFT; // 97656 units of 1024 ns
    assert_eq!(control_law(0, iv, 0xFFFF), 97654); // ≈ iv · 65535/65536
    assert_eq!(control_law(1000, iv, 0x8001), 1000 + 48829);
    assert_eq!(control_law(0, iv, 0x59FD), 34327);
}

/// RFC 8289 §5's dequeue, transcribed loop for loop (with ns-3.37's deviations the module
/// documents: min_bytes, empty dequeue, ECN in the loop, unsigned re-entry test), over a
/// queue of (id, t_enq, size, ect).
struct RfcCodel {
    p: CodelParams,
    q: VecDeque<(u32, u64, u32, bool)>,
    bytes: u64,
    count: u32,
    lastcount: u32,
    dropping: bool,
    rec: u16,
    first_above_time: u64,
    drop_next: u64,
}

#[derive(Debug, PartialEq)]
enum Ev {
    Drop(u32),
    Mark(u32, Reason),
    Out(u32),
    Empty,
}

impl RfcCodel {
    fn new(p: CodelParams) -> Self {
        RfcCodel { p, q: VecDeque::new(), bytes: 0, count: 0, lastcount: 0, dropping: false, rec: 0xFFFF, first_above_time: 0, drop_next: 0 }
    }
    fn dodequeue(&mut self, now_ns: u64) -> (Option<(u32, u64, u32, bool)>, bool) {
        let Some(pk) = self.q.pop_front() else {
            self.first_above_time = 0;
            return (None, false);
        };
        self.bytes -= pk.2 as u64;
        let now = now_ns >> CODEL_SHIFT;
        let sojourn = (now_ns - pk.1) >> CODEL_SHIFT;
        if sojourn < self.p.target_ns >> CODEL_SHIFT || self.bytes < self.p.min_bytes {
            self.first_above_time = 0;
            return (Some(pk), false);
        }
        if self.first_above_time == 0 {
            self.first_above_time = now + (self.p.interval_ns >> CODEL_SHIFT);
            (Some(pk), false)
        } else {
            (Some(pk), now > self.first_above_time)
        }
    }
    fn dequeue(&mut self, now_ns: u64, out: &mut Vec<Ev>) {
        let now = now_ns >> CODEL_SHIFT;
        let iv = self.p.interval_ns >> CODEL_SHIFT;
        if self.q.is_empty() {
            self.dropping = false; // ns-3: leave the dropping state, keep first_above_time
            out.push(Ev::Empty);
            return;
        }
        let (mut r, ok) = self.dodequeue(now_ns);
        let mut marked = false;
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else {
                while self.dropping && now >= self.drop_next {
                    self.count += 1;
                    self.rec = newton_step(self.rec, self.count);
                    let pk = r.unwrap();
                    if self.p.ecn && pk.3 {
                        out.push(Ev::Mark(pk.0, Reason::Early));
                        marked = true;
                        self.drop_next = control_law(now, iv, self.rec);
                        break;
                    }
                    out.push(Ev::Drop(pk.0));
                    let (r2, ok2) = self.dodequeue(now_ns);
                    r = r2;
                    if !ok2 {
                        self.dropping = false;
                    } else {
                        self.drop_next = control_law(self.drop_next, iv, self.rec);
                    }
                }
            }
        } else if ok {
            let pk = r.unwrap();
            if self.p.ecn && pk.3 {
                out.push(Ev::Mark(pk.0, Reason::Early));
                marked = true;
            } else {
                out.push(Ev::Drop(pk.0));
                r = self.dodequeue(now_ns).0;
            }
            self.dropping = true;
            let delta = self.count as i64 - self.lastcount as i64;
            if delta > 1 && now >= self.drop_next && now - self.drop_next < 16 * iv {
                self.count = delta as u32;
                self.rec = newton_step(self.rec, self.count);
            } else {
                self.count = 1;
                self.rec = 0xFFFF;
            }
            self.lastcount = self.count;
            self.drop_next = control_law(now, iv, self.rec);
        }
        match r {
            None => out.push(Ev::Empty),
            Some(pk) => {
                let soj = (now_ns - pk.1) >> CODEL_SHIFT;
                if let (false, Some(th), true, true) = (marked, self.p.ce_threshold_ns, self.p.ecn, pk.3) {
                    if soj > th >> CODEL_SHIFT {
                        out.push(Ev::Mark(pk.0, Reason::Forced));
                    }
                }
                out.push(Ev::Out(pk.0));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    /// Random arrival/dequeue traces with long standing queues: the per-packet state
    /// machine behind the queue wrapper takes the RFC loop's decisions, packet for packet.
    #[test]
    fn state_machine_equals_the_rfc_loop(
        ops in proptest::collection::vec((0u8..10, 1u64..4_000_000, 40u32..1500, any::<bool>()), 1..1500),
        ecn_on: bool, min_bytes in prop_oneof![Just(0u64), Just(1500u64), 0u64..3000], ce in proptest::option::of(1_000_000u64..30_000_000),
    ) {
        let p = CodelParams { target_ns: 5_000_000, interval_ns: 100_000_000, min_bytes, ecn: ecn_on, ce_threshold_ns: ce };
        let mut rfc = RfcCodel::new(p.clone());
        let mut q = QueueDisc::new(AnyAqm::Codel(Codel::new(p, 100_000, None)));
        let mut rng = Rng::new(1, 1);
        let mut t = 0u64;
        let mut id = 0u32;
        let (mut want, mut got) = (vec![], vec![]);
        for (op, dt, size, ect) in ops {
            t += dt;
            if op < 6 {
                let mut pk = Packet::new(Kind::Data, 0, id as i32, size, 1, SimTime(t));
                if ect { pk.ecn = ecn::ECT; }
                q.enqueue(pk, SimTime(t), &mut rng);
                rfc.q.push_back((id, t, size, ect));
                rfc.bytes += size as u64;
                id += 1;
            } else {
                rfc.dequeue(t, &mut want);
                let out = q.dequeue(SimTime(t), &mut rng);
                for e in q.front_events.drain(..) {
                    got.push(if e.marked { Ev::Mark(e.pkt.seq as u32, e.reason) } else { Ev::Drop(e.pkt.seq as u32) });
                }
                got.push(match out { Some(pk) => Ev::Out(pk.seq as u32), None => Ev::Empty });
            }
            prop_assert_eq!(&got, &want);
        }
    }
}

fn pkt(id: i32, size: u32, t_ns: u64) -> Packet {
    Packet::new(Kind::Data, 0, id, size, 1, SimTime(t_ns))
}

/// 1000 packets of 1000 bytes queued at t = 0, one dequeue per millisecond from 10 ms:
/// the sojourn time is always above target. By hand, in 1024-ns units (target 4882,
/// interval 97656): the 10 ms dequeue sets first_above = 9765 + 97656 = 107421; the first
/// dequeue with now > 107421 is at 111 ms (110 ms is 107421.9 → 107421): drop, count 1,
/// drop_next = 108398 + 97654 = 206052 → 211 ms (206054); count 2, 1/√2 ≈ 0x8001 → +48829
/// = 254881 → 261 ms (254882); count 3, 0x9000 → +54931 = 309812 → 318 ms; count 4,
/// 0x7CE0 → +47635 = 357447 → 367 ms.
#[test]
fn drop_schedule_by_hand() {
    let mut q = QueueDisc::new(AnyAqm::Codel(Codel::new(CodelParams::default(), 2000, None)));
    let mut rng = Rng::new(1, 1);
    for i in 0..1000 {
        q.enqueue(pkt(i, 1000, 0), SimTime(0), &mut rng);
    }
    let mut drops = vec![];
    for ms in 10..=370u64 {
        q.dequeue(SimTime(ms * 1_000_000), &mut rng);
        if !q.front_events.is_empty() {
            drops.push(ms);
            q.front_events.clear();
        }
    }
    assert_eq!(drops, vec![111, 211, 261, 318, 367]);
    let AnyAqm::Codel(c) = &q.aqm else { unreachable!() };
    assert_eq!((c.vars.count, c.vars.dropping), (5, true));
}

/// min_bytes 0 lets a drop empty the queue. By hand: p0, p1 at 0; dequeue at 10 ms (p0,
/// first_above set); at 111 ms p1 is dropped on entering the dropping state and the pop
/// after it finds nothing, which clears first_above (ns-3's OkToDrop(null)). p2 at 112 ms,
/// dequeued at 130 ms: first_above is set afresh, not ok, so CoDel leaves the dropping
/// state. p3 at 130 ms, dequeued at 250 ms (244140 > 126953 + 97656 = 224609): a new
/// entering drop with count 1 (delta = count − lastcount = 0). Without the clearing, the
/// 130 ms dequeue would stay in the dropping state and the 250 ms drop would be count 2.
#[test]
fn a_drop_that_empties_the_queue_clears_first_above() {
    let p = CodelParams { min_bytes: 0, ..CodelParams::default() };
    let mut q = QueueDisc::new(AnyAqm::Codel(Codel::new(p, 100, None)));
    let mut rng = Rng::new(1, 1);
    let ms = |m: u64| SimTime(m * 1_000_000);
    q.enqueue(pkt(0, 1000, 0), ms(0), &mut rng);
    q.enqueue(pkt(1, 1000, 0), ms(0), &mut rng);
    assert_eq!(q.dequeue(ms(10), &mut rng).map(|p| p.seq), Some(0));
    assert_eq!(q.dequeue(ms(111), &mut rng), None);
    assert_eq!(q.front_events.len(), 1);
    q.enqueue(pkt(2, 1000, 0), ms(112), &mut rng);
    assert_eq!(q.dequeue(ms(130), &mut rng).map(|p| p.seq), Some(2));
    let dropping = |q: &QueueDisc| matches!(&q.aqm, AnyAqm::Codel(c) if c.vars.dropping);
    assert!(!dropping(&q));
    q.enqueue(pkt(3, 1000, 0), ms(130), &mut rng);
    q.enqueue(pkt(4, 1000, 0), ms(130), &mut rng);
    assert_eq!(q.dequeue(ms(250), &mut rng).map(|p| p.seq), Some(4));
    let AnyAqm::Codel(c) = &q.aqm else { unreachable!() };
    assert_eq!((c.vars.count, c.vars.dropping), (1, true));
}

/// ECT(1) at a classic AQM (RFC 3168 §5: ECT(0) and ECT(1) are equivalent to a router; RFC
/// 8311, RFC 9331 §5.4): an ECT(1) packet is ECN-capable as an ECT(0) one. The overload of `drop_schedule_by_hand` with ECN on: every packet ECT(1)
/// gets the marks every packet ECT(0) gets (marks, not drops: the first at 111 ms as the
/// first drop there), and a marked packet leaves as CE with its ECT(1) bit kept (so a
/// monitor still reads what the sender chose).
#[test]
fn ect1_is_marked_as_ect0_and_keeps_its_codepoint() {
    let run = |bits: u8| {
        let p = CodelParams { ecn: true, ..CodelParams::default() };
        let mut q = QueueDisc::new(AnyAqm::Codel(Codel::new(p, 2000, None)));
        let mut rng = Rng::new(1, 1);
        for i in 0..1000 {
            let mut pk = pkt(i, 1000, 0);
            pk.ecn = bits;
            q.enqueue(pk, SimTime(0), &mut rng);
        }
        let mut marks = vec![];
        for ms in 10..=370u64 {
            let out = q.dequeue(SimTime(ms * 1_000_000), &mut rng).unwrap();
            assert_eq!(out.ecn & !ecn::CE, bits);
            if out.has(ecn::CE) {
                assert_eq!(ecn::codepoint(out.ecn), ecn::Codepoint::Ce);
                assert!(q.front_events.iter().all(|e| e.marked && e.pkt.ecn & !ecn::CE == bits));
                marks.push(ms);
            }
            q.front_events.clear();
        }
        assert_eq!(q.stats.drops, [0, 0, 0]);
        marks
    };
    let ect1 = run(ecn::ECT | ecn::ECT1);
    assert_eq!(ect1.first(), Some(&111));
    assert_eq!(ect1, run(ecn::ECT));
}
