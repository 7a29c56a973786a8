//! The run's limits: `max_events` (the scheduler's events and the disciplines' timer
//! events, PIE's updates, which run lazily inside packet events) and `max_packets`, checked
//! every `guard_mask + 1` events (see [`Simulation::run_until`]).

use super::Simulation;
use crate::time::SimTime;

impl Simulation {
    /// A discipline's timer event was due past its budget (the run must stop).
    pub(super) fn timers_over_budget(&self) -> bool {
        self.timers_over_budget_at().is_some()
    }
    /// When the first timer event past the budget was due.
    pub(super) fn timers_over_budget_at(&self) -> Option<SimTime> {
        if !self.has_timers {
            return None;
        }
        self.links.iter().filter_map(|l| l.queue.aqm.over_budget()).min()
    }

    /// The disciplines' timer events so far (0 without PIE).
    pub(super) fn timer_events(&self) -> u64 {
        if !self.has_timers {
            return 0;
        }
        self.links.iter().map(|l| l.queue.aqm.timer_events()).sum()
    }

    /// The event limit and the memory guard, at event `n`; true: the run must stop.
    #[cold]
    #[inline(never)]
    pub(super) fn check_limits(&mut self, n: u64) -> bool {
        let timers = self.timer_events();
        if n.saturating_add(timers) >= self.max_events || self.timers_over_budget() {
            self.truncated = true;
            self.ended = true;
            return true;
        }
        let held = self.packets_held();
        if held > self.max_packets {
            self.overfull = Some(held);
            self.ended = true;
            return true;
        }
        // what is left of max_events; each discipline's timer may take all of it until the
        // next check (so all of them together at most their number times it)
        let left = self.max_events - n - timers;
        if self.has_timers {
            for l in &mut self.links {
                let done = l.queue.aqm.timer_events();
                l.queue.aqm.set_timer_budget(done.saturating_add(left));
            }
        }
        self.next_check = (n | self.guard_mask).saturating_add(1).min(n + left);
        false
    }

    /// Packets waiting in queues or travelling on links now.
    fn packets_held(&self) -> u64 {
        let queued: u64 = self.links.iter().map(|l| l.queue.len() as u64).sum();
        queued + (self.in_flight.len() - self.free_slots.len()) as u64
    }
}
