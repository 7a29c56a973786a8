//! A discipline's periodic update (PIE's and FQ-PIE's probability update, DualPI2's PI2
//! update), run lazily: aqmsim gives a discipline no timer event, so before it acts at
//! `now` it runs every update that was due since, each at its own due time. Updates are
//! counted — the engine charges them against `max_events` like its own events — and stop
//! at a budget, past which the first update not run is remembered, so a long idle spell
//! cannot spin uncounted (the run then ends with the `max_events` error).

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Periodic {
    /// When the next update is due.
    next: SimTime,
    /// Updates run so far.
    count: u64,
    /// Run no update past this many (`u64::MAX`: no limit).
    budget: u64,
    /// The due time of the first update not run, the budget being spent.
    over: Option<SimTime>,
}

impl Periodic {
    /// The first update due at `first`.
    pub fn new(first: SimTime) -> Periodic {
        Periodic { next: first, count: 0, budget: u64::MAX, over: None }
    }

    /// When the next update is due.
    #[inline]
    pub fn next(&self) -> SimTime {
        self.next
    }

    /// The due time of the next update if it is due at a time ≤ `now` and the budget
    /// allows it: it counts as run and the one after is due `period` ns later. `None` when
    /// nothing is due, or when the budget is spent (then the due time is remembered).
    #[inline]
    pub fn take_due(&mut self, now: SimTime, period: u64) -> Option<SimTime> {
        if self.next > now {
            return None;
        }
        if self.count >= self.budget {
            self.over.get_or_insert(self.next);
            return None;
        }
        let t = self.next;
        self.count += 1;
        self.next = SimTime(t.0 + period);
        Some(t)
    }

    /// Updates run so far.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// Allow updates until [`Periodic::count`] reaches `total`.
    pub fn set_budget(&mut self, total: u64) {
        self.budget = total;
    }
    /// When the first update beyond the budget was due (it was not run).
    pub fn over_budget(&self) -> Option<SimTime> {
        self.over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_due_update_once_at_its_own_time_then_the_budget() {
        let mut p = Periodic::new(SimTime(10));
        assert_eq!(p.take_due(SimTime(9), 10), None);
        assert_eq!(p.take_due(SimTime(35), 10), Some(SimTime(10)));
        assert_eq!(p.take_due(SimTime(35), 10), Some(SimTime(20)));
        assert_eq!(p.take_due(SimTime(35), 10), Some(SimTime(30)));
        assert_eq!(p.take_due(SimTime(35), 10), None);
        assert_eq!((p.count(), p.next(), p.over_budget()), (3, SimTime(40), None));
        p.set_budget(4);
        assert_eq!(p.take_due(SimTime(100), 10), Some(SimTime(40)));
        assert_eq!(p.take_due(SimTime(100), 10), None);
        assert_eq!((p.count(), p.over_budget()), (4, Some(SimTime(50))));
        assert_eq!(p.take_due(SimTime(100), 10), None, "stays spent");
        assert_eq!(p.over_budget(), Some(SimTime(50)), "the first update not run");
    }
}
