//! Link and queue service: a packet sent from a node, offered to a link's queue discipline,
//! transmitted, carried to the far end (with the cut-through shortcuts) and forwarded;
//! the drops and marks the queues make, logged.

use super::{Simulation, LOSS};
use crate::aqm::queue::Enqueued;
use crate::net::NO_ROUTE;
use crate::packet::{Kind, Packet};
use crate::sched::Event;
use crate::time::SimTime;
use crate::trace::TraceEvent;

impl Simulation {
    // ------------------------------------------------------------------ network

    #[inline]
    pub(super) fn send_from(&mut self, node: u32, pkt: Packet) {
        if self.tracer.is_some() {
            self.trace_created(&pkt);
        }
        let l = self.routes.next(node, pkt.dst);
        debug_assert!(l != NO_ROUTE, "no route from {node} to {}", pkt.dst);
        self.link_recv(l, pkt);
    }

    #[inline(always)]
    pub(super) fn link_recv(&mut self, l: u32, pkt: Packet) {
        if self.tracer.is_some() {
            self.trace(TraceEvent::Enqueue, l, &pkt);
        }
        let now = self.now;
        let link = &mut self.links[l as usize];
        if link.has_drop_seqs && pkt.kind == Kind::Data && !pkt.rtx() && link.drop_seqs.binary_search(&pkt.seq).is_ok() {
            link.lost += 1;
            let qlen = link.queue.len();
            self.log_drop(l, pkt.flow, LOSS, 0, qlen);
            if self.tracer.is_some() {
                self.trace_gone(&pkt);
            }
            return;
        }
        if l == self.primary {
            let f = &mut self.per_flow[pkt.flow as usize];
            f.arrivals += 1;
            if pkt.has(crate::packet::ecn::ECT) {
                f.ect_arrivals[pkt.has(crate::packet::ecn::ECT1) as usize] += 1;
            }
        }
        let link = &mut self.links[l as usize];
        if link.idle_matters && !link.idle_notified && !link.busy(now) && !link.txdone_pending {
            // The link finished its last transmission with nothing behind it: the queue
            // has been idle since then (what ns-2's deque() at the end of transmission sees).
            link.idle_notified = true;
            let since = link.busy_until;
            link.queue.notify_idle(since);
        }
        if !link.txdone_pending && !link.busy(now) {
            // Fast path: an idle link with an empty queue (most access links, most of the
            // time) sends the packet at once without buffering it.
            debug_assert!(link.queue.is_empty(), "packets wait only behind a pending TxDone");
            if link.transparent {
                link.count_cut_through(pkt.size);
                if link.note {
                    self.note_passed(l, &pkt);
                }
                self.start_tx(l, pkt, false);
                return;
            }
            // (a drop here is a front event: log_queue_events traces it)
            let sent = link.queue.pass_through(pkt, now, &mut self.qrng[l as usize]);
            self.log_queue_events(l);
            if self.links[l as usize].note {
                self.note_departure(l, sent.as_ref(), false);
            }
            match sent {
                Some(p) => self.start_tx(l, p, false),
                None => self.shaper_wake(l),
            }
            return;
        }
        // (read only here: the idle fast path above never looks at the queue, which lies
        // in another cache line of the link)
        let qlen = link.queue.len();
        match link.queue.enqueue(pkt, now, &mut self.qrng[l as usize]) {
            Enqueued::Dropped(r) => {
                if self.tracer.is_some() {
                    self.trace(TraceEvent::Drop, l, &pkt);
                }
                self.log_drop(l, pkt.flow, r as u8, 0, qlen)
            }
            Enqueued::DroppedHead(head, r) => {
                if self.tracer.is_some() {
                    self.trace(TraceEvent::Drop, l, &head);
                }
                self.log_drop(l, head.flow, r as u8, 0, qlen)
            }
            Enqueued::Queued { marked } => {
                if let Some(r) = marked {
                    self.log_drop(l, pkt.flow, r as u8, 1, qlen);
                }
                // (FQ-CoDel makes room by dropping from its fattest queue)
                self.log_queue_events(l);
                let link = &mut self.links[l as usize];
                if !link.busy(now) && !link.txdone_pending {
                    if let Some(p) = self.dequeue(l) {
                        self.start_tx(l, p, true);
                    }
                } else if link.has_dev {
                    self.dev_fill(l);
                } else if !link.txdone_pending {
                    link.txdone_pending = true;
                    let (at, seq) = (link.busy_until, link.txdone_seq);
                    self.sched.schedule_reserved(at, seq, Event::TxDone { link: l });
                }
            }
        }
    }

    /// Dequeue from link `l`, logging what the discipline did at the head.
    #[inline(always)]
    pub(super) fn dequeue(&mut self, l: u32) -> Option<Packet> {
        let now = self.now;
        let p = self.links[l as usize].queue.dequeue(now, &mut self.qrng[l as usize]);
        self.log_queue_events(l);
        if p.is_none() {
            self.shaper_wake(l);
        }
        if self.links[l as usize].note {
            self.note_departure(l, p.as_ref(), true);
        }
        p
    }

    /// A packet that passed straight through link `l`'s idle queue without the discipline
    /// (a transparent DropTail) on a link whose departures are noted: what a departure
    /// from the queue would have counted. (Unnoted transparent links do not count marked
    /// departures: a check per cut-through packet costs 4 % of the cut-through path, for a
    /// statistic no result reports.)
    #[cold]
    #[inline(never)]
    pub(super) fn note_passed(&mut self, l: u32, pkt: &Packet) {
        if crate::aqm::queue::is_marked(pkt) {
            self.links[l as usize].queue.stats.marked_departures += 1;
        }
        self.note_departure(l, Some(pkt), false);
    }

    /// Per-flow count of marked packets leaving the primary queue; queueing delays.
    #[inline]
    pub(super) fn note_departure(&mut self, l: u32, p: Option<&Packet>, waited: bool) {
        if let Some(p) = p {
            if l == self.primary && crate::aqm::queue::is_marked(p) {
                let f = &mut self.per_flow[p.flow as usize];
                f.marked_departures += 1;
                f.ect_marked_departures[p.has(crate::packet::ecn::ECT1) as usize] += 1;
            }
            if self.delays.on {
                self.note_queue_delay(l, p, waited);
            }
        }
    }

    /// Log the drops and marks queue `l` made on its own.
    #[inline(always)]
    pub(super) fn log_queue_events(&mut self, l: u32) {
        if !self.links[l as usize].queue.front_events.is_empty() {
            self.log_queue_events_now(l);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn log_queue_events_now(&mut self, l: u32) {
        let mut evs = std::mem::take(&mut self.links[l as usize].queue.front_events);
        for e in &evs {
            if !e.marked && self.tracer.is_some() {
                self.trace(TraceEvent::Drop, l, &e.pkt);
            }
            self.log_drop(l, e.flow, e.reason as u8, e.marked as u8, e.qlen);
        }
        evs.clear();
        self.links[l as usize].queue.front_events = evs;
    }

    #[inline]
    pub(super) fn log_drop(&mut self, l: u32, flow: u32, reason: u8, action: u8, qlen: u32) {
        if l == self.primary && reason != LOSS {
            let f = &mut self.per_flow[flow as usize];
            if action == 0 {
                f.drops += 1;
            } else {
                f.marks += 1;
            }
        }
        if self.role != 0 {
            // a side of a run on two threads: the two sides' drops are merged in order
            return self.log_drop_split(l, flow, reason, action, qlen);
        }
        self.drops.push(self.now.secs(), l, flow, reason, action, qlen);
    }

    /// Put `pkt` on the wire now: its arrival at the far end is scheduled (the packet waits
    /// in the store of packets in flight).
    ///
    /// **Cut-through.** When the next hop at the far end is a link whose queue lets a
    /// packet pass untouched when it is empty and idle (DropTail), and that link will
    /// indeed be idle with an empty queue when the packet gets there, the packet's
    /// transmission there is decided now: its arrival is scheduled at the far end of
    /// *that* link, and the arrival at the node in between is never an event. This is
    /// exact when nothing else can reach that link first:
    ///
    /// * the link is fed by this one alone, whose packets arrive in the order they left
    ///   (in a dumbbell: the egress links, for data, and the access links' reverse
    ///   direction, for ACKs); or
    /// * it is a *merge* fed by several links, no agent sends on it, and the packet gets
    ///   there no later than `lookahead` from now: the least time any packet sent on any
    ///   of its inputs from now on takes to get there (in a dumbbell: the reverse
    ///   bottleneck, for ACKs, which are the smallest packets on equal egress links). A
    ///   packet that gets there later has its decision taken later, when that holds
    ///   (`sim/merge.rs`).
    ///
    /// Packets already on their way to that link by an event are counted (`pending`):
    /// while there are any, no packet cuts through past them. In a dumbbell this leaves
    /// three events per packet of the five an event-by-event run takes.
    ///
    /// `maybe_queued`: packets may still wait in `l`'s queue (false when the caller knows
    /// it is empty: then the queue is not even looked at).
    #[inline(always)]
    pub(super) fn start_tx(&mut self, l: u32, pkt: Packet, maybe_queued: bool) {
        if self.tracer.is_some() {
            self.trace(TraceEvent::Dequeue, l, &pkt);
        }
        let now = self.now;
        let link = &mut self.links[l as usize];
        let tx = link.tx_time(pkt.size);
        link.busy_until = now + tx;
        link.idle_notified = false;
        link.busy_ns += tx.0;
        link.bin_busy_ns += tx.0;
        // ns-2 order: the arrival downstream is scheduled first, then the end of
        // transmission; both numbers are reserved now, the events made only when needed.
        let at = link.busy_until + link.delay;
        let arrive_seq = self.sched.reserve();
        link.txdone_seq = self.sched.reserve();
        if maybe_queued && !link.queue.is_empty() && !link.txdone_pending {
            link.txdone_pending = true;
            self.sched.schedule_reserved(link.busy_until, link.txdone_seq, Event::TxDone { link: l });
        }
        let feeds_cut = link.feeds_cut;
        let slot = self.store(pkt);
        if feeds_cut {
            if let Some((at, seq, ev)) = self.cut_through(l, at, arrive_seq, &pkt, slot) {
                self.post(at, seq, ev);
            }
        } else {
            let ev = self.arrival(l, &pkt, slot);
            self.post(at, arrive_seq, ev);
        }
        if self.links[l as usize].has_dev {
            // the device queue has room again: the discipline hands it its next packet
            self.dev_fill(l);
        }
    }

    /// The event of `pkt` (kept in `slot`) reaching the far end of link `l`: delivered
    /// there, or going on (the next link looked up now, while the route is in the cache).
    #[inline(always)]
    pub(super) fn arrival(&self, l: u32, pkt: &Packet, slot: u32) -> Event {
        let node = self.links[l as usize].to;
        if pkt.dst == node {
            Event::Deliver { slot }
        } else {
            let next = self.routes.next(node, pkt.dst);
            debug_assert!(next != NO_ROUTE, "no route from {node} to {}", pkt.dst);
            Event::Forward { link: next, slot, counted: false }
        }
    }

    /// Keep `pkt` while it is in flight; returns its slot.
    #[inline(always)]
    pub(super) fn store(&mut self, pkt: Packet) -> u32 {
        match self.free_slots.pop() {
            Some(s) => {
                self.in_flight[s as usize] = pkt;
                s
            }
            None => {
                self.in_flight.push(pkt);
                (self.in_flight.len() - 1) as u32
            }
        }
    }

    /// The cut-through hops after link `l` (see [`Simulation::start_tx`]): `pkt` (kept in
    /// `slot`) reaches `l`'s far end at `at` (arrival event number `seq`). Returns the time,
    /// event number and event of its arrival where it stops cutting through: `Deliver`, or
    /// `Forward` to the next link, `counted` when it is pending there; or None when the
    /// decision at a merge waits until no other input can get there first (`sim/merge.rs`).
    #[inline(always)]
    pub(super) fn cut_through(&mut self, l: u32, mut at: SimTime, mut seq: u64, pkt: &Packet, slot: u32) -> Option<(SimTime, u64, Event)> {
        let mut last = l;
        while self.links[last as usize].feeds_cut {
            let node = self.links[last as usize].to;
            if pkt.dst == node {
                return Some((at, seq, Event::Deliver { slot }));
            }
            let nl = self.routes.next(node, pkt.dst);
            debug_assert!(nl != NO_ROUTE, "no route from {node} to {}", pkt.dst);
            let next = &mut self.links[nl as usize];
            let single = next.cut_from == last;
            if !single && !next.merge_ok {
                return Some((at, seq, Event::Forward { link: nl, slot, counted: false }));
            }
            // It may go on at once if the link will be idle when it gets there (packets wait
            // in its queue only behind a pending TxDone), no packet is on its way there by
            // an event, and, at a merge, no packet sent on any other input from now on can
            // get there first.
            let blocked = next.pending > 0 || next.txdone_pending || at < next.busy_until || at >= self.end;
            if blocked || (!single && at > self.now + next.lookahead) {
                if !blocked {
                    // a merge where only the lookahead is short: decided later (sim/merge.rs)
                    next.pending += 1;
                    self.defer_merge(nl, at, seq, slot);
                    return None;
                }
                if next.pending > 0 && !self.deferred.is_empty() {
                    // a packet waiting for its decision there becomes an event first
                    self.undefer(nl);
                }
                self.links[nl as usize].pending += 1;
                return Some((at, seq, Event::Forward { link: nl, slot, counted: true }));
            }
            debug_assert!(next.queue.is_empty());
            (at, seq) = self.pass_cut(nl, at, pkt.size);
            last = nl;
        }
        Some((at, seq, self.arrival(last, pkt, slot)))
    }

    /// A packet of `size` bytes reaches the idle link `nl` at `at` and leaves at once: its
    /// time at the far end and the number of its arrival event there.
    #[inline(always)]
    pub(super) fn pass_cut(&mut self, nl: u32, at: SimTime, size: u32) -> (SimTime, u64) {
        let next = &mut self.links[nl as usize];
        // The packet reaches the link's node at `at` and leaves at once on it.
        next.count_cut_through(size);
        let tx = next.tx_time(size);
        next.busy_until = at + tx;
        next.idle_notified = false;
        next.busy_ns += tx.0;
        next.bin_busy_ns += tx.0;
        // ns-2 numbers these two events while processing the arrival at the node, at `at`.
        let seq = self.sched.reserve_as_of(at, 2);
        next.txdone_seq = self.sched.next_number(seq);
        (next.busy_until + next.delay, seq)
    }

    /// A discipline with a shaper (CAKE's `bandwidth`) holds packets back: the link asks
    /// again when the shaper lets the next one go (a `TxDone` with nothing on the wire).
    #[cold]
    pub(super) fn shaper_wake(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        if link.txdone_pending {
            return;
        }
        if let Some(at) = link.queue.aqm.wake_at(self.now) {
            link.txdone_pending = true;
            self.sched.schedule(at, Event::TxDone { link: l });
        }
    }

    /// The transmission ending now had a packet waiting behind it.
    pub(super) fn tx_done(&mut self, l: u32) {
        if self.links[l as usize].has_dev {
            return self.dev_tx_done(l);
        }
        self.links[l as usize].txdone_pending = false;
        match self.dequeue(l) {
            Some(next) => self.start_tx(l, next, true),
            // (front drops emptied the queue) dequeue() told the discipline it is idle.
            None => self.links[l as usize].idle_notified = true,
        }
    }

    /// The packet kept in `slot`, which is free again.
    #[inline(always)]
    pub(super) fn take(&mut self, slot: u32) -> Packet {
        self.free_slots.push(slot);
        self.in_flight[slot as usize]
    }

    /// A packet reaches a node and goes on on link `l`.
    pub(super) fn forward(&mut self, l: u32, slot: u32, counted: bool) {
        let pkt = self.take(slot);
        if self.tracer.is_some() {
            self.trace_receive(&pkt, false);
        }
        if counted {
            // it did not cut through when it left (start_tx)
            self.links[l as usize].pending -= 1;
        }
        self.link_recv(l, pkt);
    }
}
