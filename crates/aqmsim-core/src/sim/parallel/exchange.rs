//! The exchange between the two sides of a run on two threads (`super`): the rings that
//! carry packets and drops across, each side's published clock, and the merge of the two
//! sides' drops in the order of their events.

use super::super::{class_of_packet, Simulation, SENDERS};
use crate::packet::{Kind, Packet};
use crate::sched::Event;
use crate::time::{Dur, SimTime};
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Messages a ring holds (a power of two).
const RING: usize = 1 << 14;

/// A packet handed across: the key of its arrival event on the other side, and where it
/// arrives (`link` of a `Forward`, [`DELIVER`] for a `Deliver`); or, with `link` =
/// [`DROP`], a drop the senders' side logged, the key that of the event it happened in.
#[derive(Copy, Clone, Debug)]
struct Msg {
    at: SimTime,
    seq: u64,
    link: u32,
    pkt: Packet,
}

const DELIVER: u32 = u32::MAX;
const DROP: u32 = u32::MAX - 1;

/// A row of the drop log, with the key of the event that logged it.
#[derive(Copy, Clone, Debug)]
struct DropRow {
    key: u128,
    link: u32,
    flow: u32,
    reason: u8,
    action: u8,
    qlen: u32,
}

impl DropRow {
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }

    /// As a message (the packet's fields carry the row).
    fn to_msg(self) -> Msg {
        let mut pkt = Packet::new(Kind::Data, self.flow, self.link as i32, self.qlen, 0, SimTime::ZERO);
        pkt.ecn = self.reason;
        pkt.tag = self.action;
        Msg { at: self.time(), seq: self.key as u64, link: DROP, pkt }
    }

    fn from_msg(m: &Msg) -> DropRow {
        DropRow { key: ((m.at.0 as u128) << 64) | m.seq as u128, link: m.pkt.seq as u32, flow: m.pkt.flow, reason: m.pkt.ecn, action: m.pkt.tag, qlen: m.pkt.size }
    }
}

#[repr(align(128))]
pub(super) struct Padded<T>(pub(super) T);

/// A single-producer, single-consumer ring of messages.
pub(super) struct Ring {
    buf: Box<[UnsafeCell<MaybeUninit<Msg>>]>,
    /// Messages up to `tail` are written (the producer's), up to `head` read (the consumer's).
    tail: Padded<AtomicUsize>,
    head: Padded<AtomicUsize>,
}

// SAFETY: slot `i` is written only by the producer while `i - head < RING` and read only by
// the consumer after the producer published `tail > i` (release/acquire), so no slot is
// accessed by both at once.
unsafe impl Sync for Ring {}

impl Ring {
    fn new() -> Ring {
        Ring {
            buf: (0..RING).map(|_| UnsafeCell::new(MaybeUninit::uninit())).collect(),
            tail: Padded(AtomicUsize::new(0)),
            head: Padded(AtomicUsize::new(0)),
        }
    }
}

/// What the two sides share: a ring into each, each side's clock, and the abort flag.
pub(super) struct Shared {
    pub(super) rings: [Ring; 2],
    pub(super) clocks: [Padded<AtomicU64>; 2],
    pub(super) abort: AtomicBool,
}

/// One side's end of the exchange (`Simulation::port`).
pub(in crate::sim) struct Port {
    pub(super) shared: Arc<Shared>,
    /// 0: the senders' side, 1: the network.
    pub(super) me: usize,
    /// Messages written into the outgoing ring, and published (the ring's `tail`).
    pub(super) out_tail: usize,
    pub(super) out_published: usize,
    /// Messages read from the incoming ring.
    pub(super) in_head: usize,
    /// The least time a message from the other side takes to arrive (ns).
    pub(super) lookahead: u64,
    /// Events may run before this time (the other's clock plus the lookahead).
    pub(super) horizon: u64,
    /// The last clock published.
    pub(super) published: u64,
    /// The network side's drops, and those the senders' side sent, not yet in the drop log
    /// (each in the order of its events); the senders' side's drops once the network side
    /// has finished.
    own_drops: VecDeque<DropRow>,
    their_drops: VecDeque<DropRow>,
    late_drops: Vec<DropRow>,
}


impl Port {
    pub(super) fn new(shared: &Arc<Shared>, me: usize, lookahead: Dur) -> Port {
        Port {
            shared: Arc::clone(shared),
            me,
            out_tail: 0,
            out_published: 0,
            in_head: 0,
            lookahead: lookahead.0,
            horizon: lookahead.0,
            published: 0,
            own_drops: VecDeque::new(),
            their_drops: VecDeque::new(),
            late_drops: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn other(&self) -> usize {
        1 - self.me
    }

    /// Publish the messages written so far and the clock `t`: nothing more will be sent
    /// with a push time before `t`.
    pub(super) fn publish(&mut self, t: u64) {
        let sh = &self.shared;
        if self.out_tail != self.out_published {
            self.out_published = self.out_tail;
            sh.rings[self.other()].tail.0.store(self.out_tail, Ordering::Release);
        }
        if t != self.published {
            self.published = t;
            sh.clocks[self.me].0.store(t, Ordering::Release);
        }
    }
}

impl Shared {
    pub(super) fn new() -> Arc<Shared> {
        Arc::new(Shared {
            rings: [Ring::new(), Ring::new()],
            clocks: [Padded(AtomicU64::new(0)), Padded(AtomicU64::new(0))],
            abort: AtomicBool::new(false),
        })
    }
}

impl Simulation {
    /// Is `ev` (about to be scheduled) the other side's?
    #[inline(always)]
    fn crosses(&self, ev: &Event) -> bool {
        let c = match *ev {
            Event::Forward { link, .. } => self.link_cls[link as usize],
            Event::Deliver { slot } => class_of_packet(&self.in_flight[slot as usize]),
            _ => return false,
        };
        c != self.role
    }

    /// Schedule the arrival event `ev` of a packet in flight (a `Forward` or `Deliver`), or,
    /// in a side of a run on two threads, hand it to the other side if it is theirs.
    #[inline(always)]
    pub(in crate::sim) fn post(&mut self, at: SimTime, seq: u64, ev: Event) {
        if self.role != 0 && self.crosses(&ev) {
            return self.send_across(at, seq, ev);
        }
        self.sched.schedule_reserved(at, seq, ev);
    }

    #[inline(never)]
    fn send_across(&mut self, at: SimTime, seq: u64, ev: Event) {
        let (link, slot) = match ev {
            Event::Forward { link, slot, counted } => {
                debug_assert!(!counted, "no cut-through between the sides");
                (link, slot)
            }
            Event::Deliver { slot } => (DELIVER, slot),
            _ => unreachable!("only arrivals cross"),
        };
        let pkt = self.take(slot);
        self.send_msg(Msg { at, seq, link, pkt });
    }

    /// Write `msg` into the ring to the other side (waiting for room if it is full).
    fn send_msg(&mut self, msg: Msg) {
        loop {
            let port = self.port.as_mut().expect("a side has a port");
            // SAFETY: the port (and the Arc in it) outlives this call; no reference
            // counting per message (both threads would touch the count's cache line)
            let sh: &Shared = unsafe { &*Arc::as_ptr(&port.shared) };
            let other = port.other();
            if sh.clocks[other].0.load(Ordering::Relaxed) == u64::MAX {
                // the other side has finished: a packet arrives after the end of the run;
                // a drop is merged into the log at the end
                if msg.link == DROP {
                    port.late_drops.push(DropRow::from_msg(&msg));
                }
                return;
            }
            let ring = &sh.rings[other];
            if port.out_tail - ring.head.0.load(Ordering::Acquire) < RING {
                // SAFETY: the consumer has read this slot (head passed it) and will not read
                // it again before `tail` is published past it.
                unsafe { (*ring.buf[port.out_tail % RING].get()).write(msg) };
                port.out_tail += 1;
                return;
            }
            // full: publish what there is, and keep reading our own ring meanwhile (the
            // other side may be waiting for room in it)
            let t = port.published;
            port.publish(t);
            if sh.abort.load(Ordering::Relaxed) {
                return;
            }
            self.drain();
            std::hint::spin_loop();
        }
    }

    /// Schedule every message the other side published.
    pub(super) fn drain(&mut self) {
        let port = self.port.as_mut().expect("a side has a port");
        // SAFETY: as in `send_msg`
        let sh: &Shared = unsafe { &*Arc::as_ptr(&port.shared) };
        let ring = &sh.rings[port.me];
        let tail = ring.tail.0.load(Ordering::Acquire);
        let mut head = port.in_head;
        if head == tail {
            return;
        }
        while head != tail {
            // SAFETY: the producer published `tail` after writing every slot before it.
            let m = unsafe { (*ring.buf[head % RING].get()).assume_init() };
            head += 1;
            if m.link == DROP {
                self.port.as_mut().expect("port").their_drops.push_back(DropRow::from_msg(&m));
                continue;
            }
            let slot = self.store(m.pkt);
            let ev = if m.link == DELIVER { Event::Deliver { slot } } else { Event::Forward { link: m.link, slot, counted: false } };
            self.sched.schedule_reserved(m.at, m.seq, ev);
        }
        ring.head.0.store(head, Ordering::Release);
        self.port.as_mut().expect("port").in_head = head;
    }

    /// A drop or mark logged by one side of a run on two threads: the senders' side sends
    /// it to the network side, which merges both sides' in the order of their events.
    #[cold]
    #[inline(never)]
    pub(in crate::sim) fn log_drop_split(&mut self, link: u32, flow: u32, reason: u8, action: u8, qlen: u32) {
        let row = DropRow { key: self.sched.last_key(), link, flow, reason, action, qlen };
        if self.role == SENDERS {
            self.send_msg(row.to_msg());
        } else {
            self.port.as_mut().expect("port").own_drops.push_back(row);
        }
    }

    /// Move into the drop log every drop held from before `until`, both sides' merged in
    /// the order of their events: no drop of either side before `until` is still to come.
    pub(super) fn flush_drops(&mut self, until: SimTime) {
        let Some(port) = self.port.as_mut() else { return };
        loop {
            let a = port.own_drops.front().map(|r| r.key);
            let b = port.their_drops.front().map(|r| r.key);
            let own = match (a, b) {
                (Some(x), Some(y)) => x < y,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let queue = if own { &mut port.own_drops } else { &mut port.their_drops };
            let row = *queue.front().expect("not empty");
            if row.time() >= until {
                break;
            }
            queue.pop_front();
            self.drops.push(row.time().secs(), row.link, row.flow, row.reason, row.action, row.qlen);
        }
    }
}

/// Both sides have ended: the drops the senders' side sent last, then every drop left, into
/// the network side's log in the order of their events.
pub(super) fn merge_last_drops(senders: &mut Simulation, network: &mut Simulation) {
    network.drain();
    let late = std::mem::take(&mut senders.port.as_mut().expect("port").late_drops);
    network.port.as_mut().expect("port").their_drops.extend(late);
    network.flush_drops(SimTime(u64::MAX));
}
