//! Merge decisions that wait: a packet heading for a *merge* (a transparent link fed by
//! several links, see [`Simulation::start_tx`]) may cut through it only if no packet sent
//! on another input can get there first. When it is sent, that is certain only if it gets
//! there within `lookahead` (the least time any input takes). A packet a little later than
//! that (in a dumbbell: an ACK carrying SACK blocks, a few bytes longer than the smallest
//! packet, heading for the reverse bottleneck) used to become an event at the merge.
//!
//! Instead its decision waits, with the link held for it (`Link::pending`), until the
//! simulation is about to run an event at or after `at − lookahead`: nothing sent from then
//! on can overtake it, so it cuts through exactly as it would have then. If, before that,
//! any other packet heads for the same link, the waiting packet becomes the event it would
//! have been (same time, same insertion number, so the same place among same-instant
//! events), and both go on as before. Either way the run is the event-by-event run; the
//! 100-flow BBR benchmark saves about one event in six.

use super::Simulation;
use crate::sched::Event;
use crate::time::SimTime;

/// A packet waiting for its decision at merge link `link`.
#[derive(Copy, Clone, Debug)]
pub(super) struct Deferred {
    link: u32,
    slot: u32,
    /// When it reaches the link, and the number its arrival event there would have.
    at: SimTime,
    seq: u64,
    /// The last instant at which a packet sent on another input could still get there
    /// first: `at − lookahead − 1 ns`.
    due: SimTime,
}

impl Simulation {
    /// Hold the decision for `slot`'s packet, reaching merge link `nl` at `at` (arrival
    /// event number `seq`). The caller has counted it in `nl`'s `pending`.
    #[inline]
    pub(super) fn defer_merge(&mut self, nl: u32, at: SimTime, seq: u64, slot: u32) {
        let la = self.links[nl as usize].lookahead;
        // at > now + lookahead (the caller's test), so `due` is now or later
        let due = SimTime(at.0 - la.0 - 1);
        debug_assert!(due >= self.now);
        self.deferred.push(Deferred { link: nl, slot, at, seq, due });
        self.merge_counts.0 += 1;
        self.merge_due = self.merge_due.min(due);
    }

    /// Another packet heads for link `nl`: a packet waiting there becomes its arrival event.
    #[cold]
    pub(super) fn undefer(&mut self, nl: u32) {
        if let Some(i) = self.deferred.iter().position(|d| d.link == nl) {
            let d = self.deferred.remove(i);
            // still counted in `pending`, as the event it now is
            self.sched.schedule_reserved(d.at, d.seq, Event::Forward { link: d.link, slot: d.slot, counted: true });
            self.merge_due = self.earliest_due();
            self.merge_counts.1 += 1;
        }
    }

    /// The events up to `merge_due` have run: decide the packets due then.
    pub(super) fn commit_merges(&mut self) {
        let due = self.merge_due;
        // A run numbered by class decides as of `due` itself, in the merge's class: what it
        // does then depends on that side's events alone (`sched`'s module docs, "Classes").
        let was = self.now;
        if self.split {
            self.now = due;
        }
        let mut i = 0;
        while i < self.deferred.len() {
            if self.deferred[i].due > due {
                i += 1;
                continue;
            }
            let d = self.deferred.remove(i);
            if self.split {
                self.sched.set_class(self.link_cls[d.link as usize] as usize);
            }
            let pkt = self.in_flight[d.slot as usize];
            let link = &mut self.links[d.link as usize];
            debug_assert!(link.pending == 1 && !link.txdone_pending && d.at >= link.busy_until);
            link.pending -= 1;
            let (at, seq) = self.pass_cut(d.link, d.at, pkt.size);
            if let Some((at, seq, ev)) = self.cut_through(d.link, at, seq, &pkt, d.slot) {
                self.post(at, seq, ev);
            }
        }
        self.merge_due = self.earliest_due();
        self.now = was;
    }

    /// Merge decisions that waited so far, and how many of them became events because
    /// another packet headed for the same link first (a measure for tests and benchmarks).
    pub fn merge_decisions(&self) -> (u64, u64) {
        self.merge_counts
    }

    fn earliest_due(&self) -> SimTime {
        self.deferred.iter().map(|d| d.due).min().unwrap_or(SimTime(u64::MAX))
    }
}
