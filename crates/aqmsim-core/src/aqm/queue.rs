//! The queue wrapper: holds the packets, asks the discipline, acts on its verdict, counts.
//!
//! Every packet that arrives is exactly one of departed, dropped, or still queued
//! (`QueueStats::conserved`, checked in debug builds after every operation and by tests).

use super::{Aqm, AnyAqm, FrontAction, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub arrivals: u64,
    pub departures: u64,
    pub arrival_bytes: u64,
    pub departure_bytes: u64,
    /// Drops by reason, indexed by `Reason as usize`.
    pub drops: [u64; 3],
    /// Marks made by the discipline (on arrival, or at the head for mark-front), counted
    /// when made.
    pub marks: u64,
    /// Departed packets carrying CE with ECT (ns-2's `pmarks_`): a packet marked here and
    /// still waiting at the end is in `marks` but not here.
    pub marked_departures: u64,
    /// Largest number of packets waiting at any time.
    pub max_len: u32,
    /// ∫ len(t) dt, in packet·nanoseconds (time-average queue = area / elapsed); exact
    /// integers.
    pub area_pkt_ns: u128,
    /// ∫ bytes(t) dt, in byte·nanoseconds.
    pub area_byte_ns: u128,
    /// Sum of queueing delays of departed packets, ns.
    pub qdelay_sum_ns: u128,
}

/// CE with ECT: what ns-2's queue monitor counts as a mark when the packet departs.
#[inline]
pub fn is_marked(pkt: &Packet) -> bool {
    pkt.ecn & (ecn::CE | ecn::ECT) == ecn::CE | ecn::ECT
}

impl QueueStats {
    pub fn dropped(&self) -> u64 {
        self.drops.iter().sum()
    }
}

/// What happened to an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Enqueued {
    Queued { marked: Option<Reason> },
    Dropped(Reason),
    /// The arrival was queued and this packet, from the head, was dropped instead.
    DroppedHead(Packet, Reason),
}

/// A drop or mark the queue made on its own (at dequeue, or for a packet that passed
/// straight through an idle link), for the caller to log.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FrontEvent {
    pub flow: u32,
    pub reason: Reason,
    /// true: marked, false: dropped.
    pub marked: bool,
    /// Packets waiting when it happened.
    pub qlen: u32,
    /// The packet (as marked, or as it was when dropped).
    pub pkt: Packet,
}

#[derive(Clone, Debug)]
pub struct QueueDisc {
    buf: VecDeque<Packet>,
    bytes: u64,
    /// Packets held by a discipline that owns its packets ([`super::PacketOwner`]); 0 otherwise.
    owned: u32,
    pub aqm: AnyAqm,
    pub stats: QueueStats,
    last_change: SimTime,
    /// Drops and marks made at dequeue since the caller last drained them.
    pub front_events: Vec<FrontEvent>,
}

impl QueueDisc {
    pub fn new(aqm: AnyAqm) -> QueueDisc {
        QueueDisc { buf: VecDeque::new(), bytes: 0, owned: 0, aqm, stats: QueueStats::default(), last_change: SimTime::ZERO, front_events: Vec::new() }
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.buf.len() as u32 + self.owned
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    pub fn view(&self) -> QueueView {
        QueueView { len_pkts: self.len(), len_bytes: self.bytes }
    }

    #[inline]
    fn integrate(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.last_change).0 as u128;
        self.stats.area_pkt_ns += self.len() as u128 * dt;
        self.stats.area_byte_ns += self.bytes as u128 * dt;
        self.last_change = now;
    }

    /// Offer `pkt` to the queue.
    #[inline]
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime, rng: &mut Rng) -> Enqueued {
        if self.aqm.owns_packets() {
            return self.enqueue_owned(pkt, now, rng);
        }
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += pkt.size as u64;
        let view = self.view();
        let verdict = self.aqm.on_enqueue(&pkt, &view, now, rng);
        let out = match verdict {
            Verdict::Drop(r) => {
                self.stats.drops[r as usize] += 1;
                Enqueued::Dropped(r)
            }
            Verdict::DropHead(r) => {
                self.stats.drops[r as usize] += 1;
                match self.buf.pop_front() {
                    None => Enqueued::Dropped(r),
                    Some(head) => {
                        self.integrate(now);
                        self.bytes -= head.size as u64;
                        pkt.t_enq = now;
                        self.bytes += pkt.size as u64;
                        self.buf.push_back(pkt);
                        Enqueued::DroppedHead(head, r)
                    }
                }
            }
            Verdict::Enqueue | Verdict::Mark(_) => {
                let marked = if let Verdict::Mark(r) = verdict {
                    pkt.ecn |= ecn::CE;
                    self.stats.marks += 1;
                    Some(r)
                } else {
                    None
                };
                self.integrate(now);
                pkt.t_enq = now;
                self.bytes += pkt.size as u64;
                self.buf.push_back(pkt);
                let len = self.buf.len() as u32;
                if len > self.stats.max_len {
                    self.stats.max_len = len;
                }
                Enqueued::Queued { marked }
            }
        };
        debug_assert!(self.conserved());
        out
    }

    /// Take the head packet for transmission, or tell the discipline the queue is idle.
    /// The discipline may mark the departing packet or drop it (then the next is offered);
    /// such events are appended to `front_events`.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime, rng: &mut Rng) -> Option<Packet> {
        if self.aqm.owns_packets() {
            return self.dequeue_owned(now, rng);
        }
        loop {
            let Some(mut pkt) = self.buf.pop_front() else {
                self.aqm.on_idle(now);
                return None;
            };
            self.integrate_removed(now);
            self.bytes -= pkt.size as u64;
            let view = self.view();
            match self.aqm.on_dequeue(&pkt, &view, now, rng) {
                FrontAction::Pass => {}
                FrontAction::Mark(r) => {
                    pkt.ecn |= ecn::CE;
                    self.stats.marks += 1;
                    self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: true, qlen: view.len_pkts, pkt });
                }
                FrontAction::Drop(r) => {
                    self.stats.drops[r as usize] += 1;
                    self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: false, qlen: view.len_pkts, pkt });
                    continue;
                }
            }
            self.count_departure(&pkt);
            self.stats.qdelay_sum_ns += now.saturating_since(pkt.t_enq).0 as u128;
            debug_assert!(self.conserved());
            return Some(pkt);
        }
    }

    /// Integrate up to `now` counting the packet just popped as still present.
    #[inline]
    fn integrate_removed(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.last_change).0 as u128;
        self.stats.area_pkt_ns += (self.buf.len() + 1) as u128 * dt;
        self.stats.area_byte_ns += self.bytes as u128 * dt;
        self.last_change = now;
    }

    /// An arrival at an idle link with an empty queue: the discipline decides as for any
    /// arrival and sees the packet leave at once, but the packet never touches the buffer
    /// (the queue length is 0 before and after, so the time integrals do not change).
    /// Returns the packet to transmit, if any; drops and marks go to `front_events`.
    #[inline]
    pub fn pass_through(&mut self, mut pkt: Packet, now: SimTime, rng: &mut Rng) -> Option<Packet> {
        debug_assert!(self.is_empty());
        if self.aqm.owns_packets() {
            return match self.enqueue_owned(pkt, now, rng) {
                Enqueued::Dropped(r) => {
                    self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: false, qlen: 0, pkt });
                    None
                }
                _ => self.dequeue_owned(now, rng),
            };
        }
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += pkt.size as u64;
        // it enters (and leaves) this queue now: a sojourn of 0, not the time since an
        // upstream queue stamped it (CoDel and PIE read it)
        pkt.t_enq = now;
        let view = QueueView::default();
        match self.aqm.on_enqueue(&pkt, &view, now, rng) {
            Verdict::Drop(r) | Verdict::DropHead(r) => {
                self.stats.drops[r as usize] += 1;
                self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: false, qlen: 0, pkt });
                return None;
            }
            Verdict::Mark(r) => {
                pkt.ecn |= ecn::CE;
                self.stats.marks += 1;
                self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: true, qlen: 0, pkt });
            }
            Verdict::Enqueue => {}
        }
        if self.stats.max_len == 0 {
            self.stats.max_len = 1;
        }
        match self.aqm.on_dequeue(&pkt, &view, now, rng) {
            FrontAction::Pass => {}
            FrontAction::Mark(r) => {
                pkt.ecn |= ecn::CE;
                self.stats.marks += 1;
                self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: true, qlen: 0, pkt });
            }
            FrontAction::Drop(r) => {
                self.stats.drops[r as usize] += 1;
                self.front_events.push(FrontEvent { flow: pkt.flow, reason: r, marked: false, qlen: 0, pkt });
                self.aqm.on_idle(now);
                return None;
            }
        }
        self.count_departure(&pkt);
        Some(pkt)
    }

    /// An arrival to a discipline that owns its packets ([`super::PacketOwner`]). Packets
    /// it drops or marks other than the arrival go to `front_events`.
    #[cold]
    #[inline(never)]
    fn enqueue_owned(&mut self, pkt: Packet, now: SimTime, rng: &mut Rng) -> Enqueued {
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += pkt.size as u64;
        self.integrate(now);
        let start = self.front_events.len();
        let owner = self.aqm.owner().expect("enqueue_owned is called for a PacketOwner only");
        let out = owner.enqueue(pkt, now, rng, &mut self.front_events);
        let (len, bytes) = (owner.len(), owner.bytes());
        self.owned = len;
        self.bytes = bytes;
        self.count_events(start);
        if len > self.stats.max_len {
            self.stats.max_len = len;
        }
        match out {
            Enqueued::Queued { marked: Some(_) } => self.stats.marks += 1,
            Enqueued::Dropped(r) => self.stats.drops[r as usize] += 1,
            Enqueued::Queued { marked: None } => {}
            Enqueued::DroppedHead(..) => unreachable!("a PacketOwner reports head drops in its events"),
        }
        debug_assert!(self.conserved());
        out
    }

    /// A departure from a discipline that owns its packets.
    #[cold]
    #[inline(never)]
    fn dequeue_owned(&mut self, now: SimTime, rng: &mut Rng) -> Option<Packet> {
        self.integrate(now);
        let start = self.front_events.len();
        let owner = self.aqm.owner().expect("dequeue_owned is called for a PacketOwner only");
        let out = owner.dequeue(now, rng, &mut self.front_events);
        self.owned = owner.len();
        self.bytes = owner.bytes();
        self.count_events(start);
        if let Some(p) = &out {
            self.count_departure(p);
            self.stats.qdelay_sum_ns += now.saturating_since(p.t_enq).0 as u128;
        }
        debug_assert!(self.conserved());
        out
    }

    /// Count the drops and marks appended to `front_events` from `start` on.
    fn count_events(&mut self, start: usize) {
        for e in &self.front_events[start..] {
            if e.marked {
                self.stats.marks += 1;
            } else {
                self.stats.drops[e.reason as usize] += 1;
            }
        }
    }

    #[inline]
    fn count_departure(&mut self, pkt: &Packet) {
        self.stats.departures += 1;
        self.stats.departure_bytes += pkt.size as u64;
        if is_marked(pkt) {
            self.stats.marked_departures += 1;
        }
    }

    /// Does an arrival at this queue, empty and with its link idle, always leave at once
    /// untouched, with no state changed but the counters? (DropTail in packets with room
    /// for more than one packet: it can only drop when something waits.) The simulation
    /// then lets packets cut through such a hop without an event (see `sim.rs`).
    pub fn transparent_when_idle(&self) -> bool {
        matches!(&self.aqm, AnyAqm::DropTail(d) if d.limit_bytes.is_none() && d.limit >= 2)
    }

    /// Count `n` packets (`bytes` in all) that cut through the idle, empty queue (see
    /// [`QueueDisc::transparent_when_idle`]): arrivals and departures, no wait.
    pub fn count_passed(&mut self, n: u64, bytes: u64) {
        self.stats.arrivals += n;
        self.stats.arrival_bytes += bytes;
        self.stats.departures += n;
        self.stats.departure_bytes += bytes;
        if n > 0 && self.stats.max_len == 0 {
            self.stats.max_len = 1;
        }
    }

    /// Does the discipline do anything when the queue goes idle? (DropTail does not.)
    pub fn cares_about_idle(&self) -> bool {
        !matches!(&self.aqm, AnyAqm::DropTail(_))
    }

    /// The link found nothing to send at `t` (it noticed later): the queue is idle since `t`.
    #[inline]
    pub fn notify_idle(&mut self, t: SimTime) {
        debug_assert!(self.is_empty());
        self.aqm.on_idle(t);
    }

    /// Bring the time integrals up to `now` (call before reading them).
    pub fn settle(&mut self, now: SimTime) {
        self.integrate(now);
    }

    /// arrivals = departures + drops + queued.
    pub fn conserved(&self) -> bool {
        self.stats.arrivals == self.stats.departures + self.stats.dropped() + self.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::DropTail;
    use crate::packet::Kind;
    use proptest::prelude::{any, prop_assert, proptest};
    use crate::rng::Rng;

    proptest! {
        #[test]
        fn conservation_and_bound_over_random_traces(ops in proptest::collection::vec(any::<bool>(), 1..400), limit in 2u32..20, front: bool) {
            let mut dt = DropTail::packets(limit);
            dt.drop_front = front;
            let mut q = QueueDisc::new(AnyAqm::DropTail(dt));
            let mut rng = Rng::new(1, 1);
            let mut t = 0u64;
            for (i, arrive) in ops.into_iter().enumerate() {
                t += 1000;
                if arrive {
                    q.enqueue(Packet::new(Kind::Data, 0, i as i32, 1000, 1, SimTime(t)), SimTime(t), &mut rng);
                } else {
                    q.dequeue(SimTime(t), &mut rng);
                }
                prop_assert!(q.conserved());
                prop_assert!(q.len() < limit);
            }
        }
    }

    #[test]
    fn marks_count_when_made_and_marked_departures_when_they_leave() {
        use crate::aqm::ecn_threshold::{EcnThreshold, Where};
        let aqm = EcnThreshold { threshold: 1, limit: 10, mode: Where::MarkTail };
        let mut q = QueueDisc::new(AnyAqm::Threshold(aqm));
        let mut rng = Rng::new(1, 1);
        let mut p = Packet::new(Kind::Data, 0, 0, 100, 1, SimTime::ZERO);
        p.ecn = ecn::ECT;
        q.enqueue(p, SimTime(0), &mut rng); // 1 waiting: not over T = 1
        q.enqueue(p, SimTime(1), &mut rng); // finds 1: marked
        q.enqueue(p, SimTime(2), &mut rng); // finds 2: marked
        assert_eq!((q.stats.marks, q.stats.marked_departures), (2, 0));
        q.dequeue(SimTime(3), &mut rng); // the unmarked one
        q.dequeue(SimTime(4), &mut rng); // a marked one
        assert_eq!((q.stats.marks, q.stats.marked_departures), (2, 1));
        // a packet marked upstream counts when it leaves, not as a mark made here
        let mut q2 = QueueDisc::new(AnyAqm::DropTail(DropTail::packets(10)));
        p.ecn = ecn::ECT | ecn::CE;
        q2.enqueue(p, SimTime(0), &mut rng);
        q2.dequeue(SimTime(1), &mut rng);
        assert_eq!((q2.stats.marks, q2.stats.marked_departures), (0, 1));
    }

    /// A packet passing an idle queue has waited 0 there, whatever it waited upstream:
    /// CoDel's CE threshold (1 ms) must not mark it.
    #[test]
    fn pass_through_is_a_zero_sojourn() {
        use crate::aqm::{Codel, CodelParams};
        let p = CodelParams { ecn: true, ce_threshold_ns: Some(1_000_000), ..CodelParams::default() };
        let mut q = QueueDisc::new(AnyAqm::Codel(Codel::new(p, 100, None)));
        let mut rng = Rng::new(1, 1);
        let mut pkt = Packet::new(Kind::Data, 0, 0, 1000, 1, SimTime::ZERO); // stamped at 0
        pkt.ecn = ecn::ECT;
        let out = q.pass_through(pkt, SimTime(50_000_000), &mut rng).unwrap();
        assert_eq!(out.ecn & ecn::CE, 0);
        assert!(q.front_events.is_empty());
    }

    #[test]
    fn time_average_by_hand() {
        let mut q = QueueDisc::new(AnyAqm::DropTail(DropTail::packets(10)));
        let mut rng = Rng::new(1, 1);
        let p = Packet::new(Kind::Data, 0, 0, 100, 1, SimTime::ZERO);
        q.enqueue(p, SimTime(0), &mut rng); // 1 pkt during [0,10)
        q.enqueue(p, SimTime(10), &mut rng); // 2 pkts during [10,30)
        q.dequeue(SimTime(30), &mut rng); // 1 pkt during [30,40)
        q.settle(SimTime(40));
        assert_eq!(q.stats.area_pkt_ns, 10 + 40 + 10);
        assert_eq!(q.stats.qdelay_sum_ns, 30);
    }
}
