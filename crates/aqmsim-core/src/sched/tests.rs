//! Tests of the calendar (`mod.rs`): order of events, reserved numbers, the width's
//! adaptation, and a property test against a plain sorted reference.

use super::*;

#[test]
fn earliest_first_then_fifo_on_ties() {
    let mut s = Scheduler::default();
    s.schedule(SimTime(5), Event::Start { flow: 1 });
    s.schedule(SimTime(3), Event::Start { flow: 2 });
    s.schedule(SimTime(5), Event::Start { flow: 3 });
    s.schedule(SimTime(3), Event::Start { flow: 4 });
    s.schedule(SimTime(5), Event::Start { flow: 5 });
    let order: Vec<u32> = std::iter::from_fn(|| s.pop())
        .map(|(_, e)| match e {
            Event::Start { flow } => flow,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(order, vec![2, 4, 1, 3, 5]);
}

#[test]
fn reserved_numbers_sort_as_if_scheduled_when_reserved() {
    let mut s = Scheduler::default();
    let r = s.reserve();
    s.schedule(SimTime(5), Event::Start { flow: 1 });
    s.schedule_reserved(SimTime(5), r, Event::Start { flow: 0 });
    let order: Vec<Event> = std::iter::from_fn(|| s.pop()).map(|(_, e)| e).collect();
    assert_eq!(order, vec![Event::Start { flow: 0 }, Event::Start { flow: 1 }]);
}

/// An insertion number taken now "as of" a later time `t` sorts, among events of one
/// instant, after everything scheduled before `t` and before everything scheduled at
/// or after `t` (what ns-2 would have numbered had it scheduled the event at `t`).
#[test]
fn numbers_reserved_as_of_a_later_time_sort_as_if_taken_then() {
    let mut s = Scheduler::default();
    let late = SimTime(1_000);
    // at time 0: one event for `late`, then two numbers "as of" 500 ns
    s.schedule(late, Event::Start { flow: 0 });
    let v = s.reserve_as_of(SimTime(500), 2);
    s.schedule_reserved(late, v + 1, Event::Start { flow: 4 });
    s.schedule_reserved(late, v, Event::Start { flow: 3 });
    s.schedule(SimTime(200), Event::Sample);
    s.schedule(SimTime(500), Event::LinkBin);
    s.schedule(late, Event::Start { flow: 1 });
    // at 200 ns (before 500): sorts before the "as of 500" pair
    assert_eq!(s.pop(), Some((SimTime(200), Event::Sample)));
    s.schedule(late, Event::Start { flow: 2 });
    // at 500 ns: sorts after it
    assert_eq!(s.pop(), Some((SimTime(500), Event::LinkBin)));
    s.schedule(late, Event::Start { flow: 5 });
    let order: Vec<u32> = std::iter::from_fn(|| s.pop())
        .map(|(_, e)| match e {
            Event::Start { flow } => flow,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4, 5]);
    // Not later than now: an ordinary number.
    let r = s.reserve_as_of(SimTime(10), 1);
    assert_eq!(r + 1, s.reserve());
}

proptest::proptest! {
    #[test]
    fn pops_in_time_then_insertion_order(times in proptest::collection::vec(0u64..50, 1..300)) {
        let mut s = Scheduler::default();
        for (i, &t) in times.iter().enumerate() {
            s.schedule(SimTime(t), Event::Start { flow: i as u32 });
        }
        let mut expect: Vec<(u64, u32)> = times.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
        expect.sort();
        let got: Vec<(u64, u32)> = std::iter::from_fn(|| s.pop())
            .map(|(t, e)| match e { Event::Start { flow } => (t.0, flow), _ => unreachable!() })
            .collect();
        proptest::prop_assert_eq!(got, expect);
    }
}

/// Drive a scheduler like a simulation does: pop the earliest event, then schedule
/// new ones at or after it (`deltas`, some far beyond the wheel's horizon), and check
/// every pop against a sorted reference.
fn check_against_reference(mut s: Scheduler, first: &[u64], deltas: &[(u64, u8)]) -> Result<(), String> {
    let mut reference: std::collections::BTreeSet<(u64, u64, u32)> = Default::default();
    let mut id = 0u32;
    let mut push = |s: &mut Scheduler, r: &mut std::collections::BTreeSet<(u64, u64, u32)>, t: u64| {
        let seq = s.reserve();
        s.schedule_reserved(SimTime(t), seq, Event::Start { flow: id });
        r.insert((t, seq, id));
        id += 1;
    };
    for &t in first {
        push(&mut s, &mut reference, t);
    }
    let mut d = deltas.iter().cycle();
    let mut pops = 0;
    while let Some((t, ev)) = s.pop() {
        let want = reference.pop_first().ok_or("popped more than scheduled")?;
        if (t.0, ev) != (want.0, Event::Start { flow: want.2 }) {
            return Err(format!("pop {pops}: got {t:?} {ev:?}, want {want:?}"));
        }
        pops += 1;
        if pops < 3 * ADAPT_EVERY as usize {
            let &(dt, n) = d.next().unwrap();
            for k in 0..n % 3 {
                push(&mut s, &mut reference, t.0 + dt * (k as u64 + 1));
            }
        }
        if s.len() != reference.len() {
            return Err(format!("len {} != {}", s.len(), reference.len()));
        }
    }
    if !reference.is_empty() {
        return Err("events lost".into());
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
    /// Whatever the bucket width (tiny: most events in the overflow heap; huge: all in
    /// one bucket), and with the adaptive width rebuilding on the way, events come out
    /// in (time, seq) order and none is lost.
    #[test]
    fn calendar_pops_in_key_order(
        first in proptest::collection::vec(0u64..1_000_000, 1..200),
        deltas in proptest::collection::vec((0u64..5_000_000, 0u8..6), 1..64),
        shift in 0u32..32,
    ) {
        // shift 31: the default, adaptive scheduler; below: a fixed width of 2^shift ns.
        let s = if shift == 31 { Scheduler::default() } else { Scheduler::with_fixed_shift(shift) };
        proptest::prop_assert_eq!(check_against_reference(s, &first, &deltas), Ok(()));
    }
}

#[test]
fn width_adapts_to_the_gap_between_events() {
    // One event every 1 µs: the width settles near 4 µs (2^12 ns), from 2^14.
    let mut s = Scheduler::default();
    s.schedule(SimTime(0), Event::Sample);
    for _ in 0..2 * ADAPT_EVERY {
        let (t, _) = s.pop().unwrap();
        s.schedule(t + crate::time::Dur(1000), Event::Sample);
    }
    assert!((1 << 11..=1 << 13).contains(&s.bucket_ns()), "{}", s.bucket_ns());
}

#[test]
fn width_grows_until_the_wheel_reaches_the_events_ahead() {
    // Events every 0.5 µs, each scheduling one 10 ms ahead (a long link full of
    // packets): the gaps alone would ask for ~1 µs buckets, a wheel of 4 ms, and every
    // push would go to the overflow heap; the wheel widens to reach 10 ms instead.
    let mut s = Scheduler::default();
    for i in 0..20_000u64 {
        s.schedule(SimTime(i * 500), Event::Sample);
    }
    for _ in 0..6 * ADAPT_EVERY {
        let (t, _) = s.pop().unwrap();
        s.schedule(t + crate::time::Dur(10_000_000), Event::Sample);
    }
    assert!(s.bucket_ns() * SLOTS as u64 > 10_000_000, "{} ns buckets", s.bucket_ns());
}

#[test]
fn pop_until_leaves_later_events() {
    let mut s = Scheduler::default();
    s.schedule(SimTime(10), Event::Sample);
    s.schedule(SimTime(1 << 40), Event::End);
    assert_eq!(s.pop_until(SimTime(5)), None);
    assert_eq!(s.pop_until(SimTime(10)), Some((SimTime(10), Event::Sample)));
    assert_eq!(s.pop_until(SimTime(1 << 39)), None);
    assert_eq!(s.len(), 1);
    assert_eq!(s.pop(), Some((SimTime(1 << 40), Event::End)));
    assert!(s.is_empty());
}

#[test]
fn event_is_small() {
    assert!(std::mem::size_of::<Event>() <= 12);
}

/// With classes (a linux-stack run), events of one instant scheduled in one instant sort by
/// how many events their own class had scheduled in it before them, then by class; an
/// earlier instant's still sort first. One counter sorts the same pushes by insertion.
#[test]
fn classes_sort_by_their_own_count_then_class() {
    let flows = |s: &mut Scheduler| -> Vec<u32> {
        std::iter::from_fn(|| s.pop())
            .map(|(_, e)| match e {
                Event::Start { flow } => flow,
                _ => unreachable!(),
            })
            .collect()
    };
    let script = |s: &mut Scheduler| {
        s.enter(2, SimTime(5));
        s.schedule(SimTime(100), Event::Start { flow: 1 });
        s.enter(2, SimTime(10));
        s.schedule(SimTime(100), Event::Start { flow: 20 });
        s.schedule(SimTime(100), Event::Start { flow: 21 });
        s.enter(1, SimTime(10));
        s.schedule(SimTime(100), Event::Start { flow: 10 });
    };
    let mut classes = Scheduler::default();
    classes.use_classes();
    script(&mut classes);
    assert_eq!(flows(&mut classes), vec![1, 10, 20, 21]);
    // one counter: `enter` is not called, insertion order
    let mut one = Scheduler::default();
    one.schedule(SimTime(100), Event::Start { flow: 1 });
    one.schedule(SimTime(100), Event::Start { flow: 20 });
    one.schedule(SimTime(100), Event::Start { flow: 21 });
    one.schedule(SimTime(100), Event::Start { flow: 10 });
    assert_eq!(flows(&mut one), vec![1, 20, 21, 10]);
    // a class's numbers, reserved and "as of" a later time, stay its own (c modulo 4)
    let mut s = Scheduler::default();
    s.use_classes();
    s.enter(1, SimTime(7));
    let (r, v) = (s.reserve(), s.reserve_as_of(SimTime(50), 2));
    assert_eq!((r % 4, v % 4, s.next_number(v) % 4), (1, 1, 1));
    assert_eq!(r, (7 << 16) | 1);
}
