//! Links whose rate varies over time (`rate_schedule`, RFC 7928 §8.2.6): each change is an
//! event at its time, scheduled before the run starts, so it runs before any other event
//! of that instant and a transmission starting exactly then takes the new rate. Such a
//! link never takes a packet by cut-through (the shortcut decides a transmission ahead of
//! time, at the rate of then), and merges it feeds count on its highest rate.

use super::Simulation;
use crate::monitor::Summary;
use crate::scenario::traffic::capacity_bits;
use crate::sched::Event;
use crate::time::SimTime;

impl Simulation {
    /// Schedule every rate change of every link (at the start of the run).
    pub(super) fn schedule_rate_changes(&mut self) {
        let mut changes = Vec::new();
        for (l, link) in self.links.iter().enumerate() {
            for (i, &(t, _)) in link.schedule.iter().enumerate().skip(1) {
                let at = SimTime::from_secs(t);
                if at < self.end {
                    changes.push((at, Event::RateChange { link: l as u32, idx: i as u32 }));
                }
            }
        }
        for (at, ev) in changes {
            self.init_push(at, ev);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn rate_change(&mut self, link: u32, idx: u32) {
        let l = &mut self.links[link as usize];
        let r = l.schedule[idx as usize].1;
        l.set_rate(r);
        if let Some(t) = &mut self.tracer {
            t.set_link_rate(link, r);
        }
    }

    /// The utilisation keys of the primary link `b` when its rate varied: bits sent over
    /// the bits it could have sent (∫ rate dt), and its time-average rate.
    pub(super) fn varying_utilisation(&self, b: usize, s: &mut Summary) {
        let link = &self.links[b];
        let cap = capacity_bits(&link.schedule, self.duration).max(f64::MIN_POSITIVE);
        let sent = link.queue.stats.departure_bytes as f64 * 8.0;
        // the part of the last transmission beyond the end, at the rate it was sent with
        // (the rate at the end, unless a change came while it was on the wire)
        let beyond = link.busy_until.saturating_since(self.end).secs() * link.rate_bps;
        s.put("utilisation", ((sent - beyond) / cap).clamp(0.0, 1.0));
        s.put("utilisation_started", sent / cap);
        s.put("bottleneck_rate_bps", cap / self.duration);
    }
}
