//! The event queue: a calendar (bucketed timing wheel) ordered by `(time, insertion
//! sequence)`.
//!
//! Events scheduled for the same instant run in the order they were scheduled, on every
//! machine. Events are a closed, `Copy` enum of 12 bytes: no boxing, no dynamic dispatch; a
//! forgotten arm fails to compile. Timers that are re-armed often (TCP retransmission, the
//! delayed-ACK timer) carry a generation number and are cancelled lazily: a popped event
//! whose generation is stale is ignored by its owner.
//!
//! # Why a calendar
//!
//! A packet simulator pops a few events per packet, and almost every event is scheduled a
//! little ahead of now (a serialisation time, a link delay). A binary or 4-ary heap pays
//! `log n` unpredictable comparisons of 128-bit keys per pop; in the 100-flow benchmark that
//! was a third of all instructions. The calendar cuts time into buckets of `2^shift` ns:
//!
//! * the *current* bucket is a small unsorted vector: a pop scans its few keys for the
//!   earliest (branch-free compares; an insertion sort of each bucket mispredicted a branch
//!   per compare and cost more), and an event scheduled into it is appended; a bucket of
//!   more than [`SCAN_MAX`] events is sorted once instead, then read with a cursor (and a
//!   new event, usually the latest, inserted from the back);
//! * the next [`SLOTS`] − 1 buckets are unsorted vectors in a ring, with an occupancy bitmap
//!   to find the next non-empty one; a push there is `Vec::push`;
//! * anything further ahead (retransmission timers) waits in a 4-ary heap
//!   ([`heap::Heap`]) and joins when its bucket comes up.
//!
//! The bucket width adapts: every [`ADAPT_EVERY`] pops the mean gap between events is
//! measured and, when it is far from the width that puts a few events in each bucket, the
//! calendar is rebuilt with the better width. The wheel must also reach the events just
//! ahead: when more than 1/[`OVERFLOW_SHARE`] of the pushes land just beyond it (a long
//! link full of packets, each with its arrival scheduled a propagation delay ahead), the
//! buckets widen and do not narrow below that again. The order of events never depends on
//! the width: it is always the total order of `(time, seq)`.
//!
//! # Insertion numbers
//!
//! `seq` orders events of the same instant as ns-2's scheduler does: by when they were
//! scheduled. It is a counter that never goes below `now << STAMP_SHIFT` (raised at each
//! pop), so it also says *at what simulated time* an event was scheduled: everything
//! scheduled before time `t` has a number below `t << STAMP_SHIFT`, everything scheduled
//! at or after `t` one at or above it. That lets [`Scheduler::reserve_as_of`] hand out a
//! number for an event that ns-2 would schedule at a *later* time `t` (an arrival at a
//! router that the simulation decides in advance, see `Simulation::cut_through`): it sorts
//! after every event scheduled before `t` and before every event scheduled at or after `t`
//! in the ordinary way, where ns-2 would have put it (exactly, unless other events at `t`
//! itself would have run before that arrival: then it sorts ahead of their children).
//!
//! # Classes
//!
//! A `stack = "linux"` run numbers its events by *class* instead (`use_classes`): 0 for
//! the set-up, 1 for the senders' side (the TCP senders and sources, their timers, the
//! links out of the hosts that only send), 2 for the rest of the network (queues, links,
//! sinks, monitors). Each class has its own counter, raised to `now` when an event of that
//! class is handled (`enter`), and its numbers are `c` modulo 4: two events scheduled for
//! the same instant in the same instant sort by how many events *their own class* had
//! scheduled in that instant before them, then by class. One class alone sorts exactly as
//! one counter; the two sides differ from a single counter only when both schedule, in one
//! instant, events for one later instant. The point is that each side's numbers depend on
//! that side's events only, so the two halves of the network can run on two cores and still
//! order every event as one core does (`sim/parallel/`).

mod heap;

use crate::time::SimTime;
use heap::Heap;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Link finished serialising its head packet.
    TxDone { link: u32 },
    /// The packet in flight in `slot` (`Simulation`'s packet store) reaches its
    /// destination node.
    Deliver { slot: u32 },
    /// The packet in flight in `slot` reaches a node it leaves on `link` (the route is
    /// looked up when it is sent, while that data is in the cache). `counted`: it is one of
    /// the packets `link` expects from its cut-through feeder (`Link::pending`).
    Forward { link: u32, slot: u32, counted: bool },
    /// TCP retransmission timer of a flow.
    RtxTimer { flow: u32, gen: u32 },
    /// Delayed-ACK timer of a flow's sink.
    DelAck { flow: u32, gen: u32 },
    /// A flow's application starts sending.
    Start { flow: u32 },
    /// A flow's application stops sending.
    Stop { flow: u32 },
    /// A CBR source emits its next packet.
    CbrSend { flow: u32 },
    /// A link's rate changes to entry `idx` of its `rate_schedule`.
    RateChange { link: u32, idx: u32 },
    /// Periodic queue sample.
    Sample,
    /// End of a utilisation bin.
    LinkBin,
    /// Periodic TCP state sample (`monitor.tcp_interval`).
    TcpSample,
    /// End of the run.
    End,
}

/// A queued event: the ordering key `(time << 64) | seq` in one integer, so a comparison is
/// one 128-bit compare, and the event beside it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) key: u128,
    ev: Event,
}

#[inline]
fn key(time: u64, seq: u64) -> u128 {
    ((time as u128) << 64) | seq as u128
}

/// Buckets in the wheel (a power of two), including the current one.
pub const SLOTS: usize = 4096;
const MASK: u64 = SLOTS as u64 - 1;
/// Pops between two measurements of the mean gap between events.
pub const ADAPT_EVERY: u64 = 8192;
/// The width aimed at, in mean gaps between events (a few events per bucket).
const GAPS_PER_BUCKET: f64 = 2.0;
/// More than 1/OVERFLOW_SHARE of the pushes going beyond the wheel widens the buckets.
pub const OVERFLOW_SHARE: u64 = 32;
const MAX_SHIFT: u32 = 40;
/// A current bucket of up to this many events is kept unsorted and searched for its
/// earliest at each pop (a few branch-free compares); a larger one is sorted once.
pub const SCAN_MAX: usize = 16;
/// Insertion numbers per nanosecond of simulated time (see the module docs): more than
/// `VIRTUAL_SLOTS` events scheduled within one nanosecond, or times beyond
/// `STAMP_LIMIT_NS` (78 hours), only make [`Scheduler::reserve_as_of`] less exact.
const STAMP_SHIFT: u32 = 16;
/// Numbers just below `t << STAMP_SHIFT` kept for [`Scheduler::reserve_as_of`]`(t)`.
const VIRTUAL_SLOTS: u64 = 1 << (STAMP_SHIFT - 1);
const STAMP_LIMIT_NS: u64 = 1 << (64 - STAMP_SHIFT);

/// Earliest-first event queue with FIFO order among equal times (see the module docs).
pub struct Scheduler {
    /// Buckets are `2^shift` ns wide.
    shift: u32,
    /// Bucket number (`time >> shift`) of `current`.
    cur_b: u64,
    /// Every event of bucket `cur_b` (or earlier) not yet popped: unsorted, or, when
    /// `sorted`, `current[head..]` sorted earliest first (read with the cursor `head`).
    current: Vec<Entry>,
    sorted: bool,
    head: usize,
    /// Slot `b & MASK` holds the events of bucket `b`, `cur_b < b < cur_b + SLOTS`, unsorted.
    slots: Vec<Vec<Entry>>,
    /// Bit `i` set: slot `i` is not empty.
    occupied: Vec<u64>,
    in_wheel: usize,
    /// Events of buckets `cur_b + SLOTS` and beyond (when scheduled).
    overflow: Heap,
    /// The next insertion number of each class (see "Classes" in the module docs); with
    /// one class (the default) only `seqs[0]`, counting by one.
    seqs: [u64; 4],
    /// Numbers handed out by `reserve_as_of` (their order among one instant's), per class.
    vseqs: [u64; 4],
    /// The class of the event being handled: its pushes take this class's numbers.
    cls: usize,
    /// The key of the last event popped.
    last: u128,
    /// 1 with one class; 4 with classes (a class's numbers are `c` modulo 4).
    stride: u64,
    popped: u64,
    /// Time of the pop that started the current gap measurement.
    probe_t: u64,
    /// The width was chosen by hand (no adaptation).
    fixed: bool,
    /// Pushes just beyond the wheel (less than three wheel spans further) since the last
    /// adaptation.
    overflowed: u64,
    /// The narrowest width that kept most events on the wheel (see `adapt`).
    min_shift: u32,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler::with_capacity(0)
    }
}

impl Scheduler {
    /// An empty scheduler (`n` is a hint of how many events will be pending; the storage
    /// grows as needed anyway).
    pub fn with_capacity(n: usize) -> Self {
        Scheduler::with_shift(14, n, false)
    }

    /// A scheduler with buckets of `2^shift` ns that never changes its width (tests and
    /// benchmarks; the order of events is the same whatever the width).
    pub fn with_fixed_shift(shift: u32) -> Self {
        Scheduler::with_shift(shift.min(MAX_SHIFT), 0, true)
    }

    fn with_shift(shift: u32, n: usize, fixed: bool) -> Self {
        Scheduler {
            shift,
            cur_b: 0,
            current: Vec::with_capacity(n.min(64)),
            sorted: false,
            head: 0,
            slots: (0..SLOTS).map(|_| Vec::new()).collect(),
            occupied: vec![0; SLOTS / 64],
            in_wheel: 0,
            overflow: Heap::default(),
            seqs: [0; 4],
            vseqs: [0; 4],
            cls: 0,
            last: 0,
            stride: 1,
            popped: 0,
            probe_t: 0,
            fixed,
            overflowed: 0,
            min_shift: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, e: Entry) {
        let b = ((e.key >> 64) as u64) >> self.shift;
        if b <= self.cur_b {
            if self.sorted {
                // insertion from the back: a new event is usually the latest
                let v = &mut self.current;
                v.push(e);
                let mut i = v.len() - 1;
                while i > self.head && v[i - 1].key > e.key {
                    v[i] = v[i - 1];
                    i -= 1;
                }
                v[i] = e;
            } else {
                self.current.push(e);
                if self.current.len() > SCAN_MAX {
                    self.sort_current();
                }
            }
        } else if b - self.cur_b < SLOTS as u64 {
            let slot = (b & MASK) as usize;
            self.slots[slot].push(e);
            self.occupied[slot >> 6] |= 1 << (slot & 63);
            self.in_wheel += 1;
        } else {
            self.overflow.push(e);
            // (only events just beyond the wheel count: far timers belong in the heap)
            self.overflowed += (b - self.cur_b < 4 * SLOTS as u64) as u64;
        }
    }

    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        let seq = self.reserve();
        self.push(Entry { key: key(at.0, seq), ev });
    }

    /// Number events by class from now on (before anything is scheduled): see "Classes"
    /// in the module docs.
    pub fn use_classes(&mut self) {
        debug_assert!(self.is_empty() && self.seqs == [0; 4]);
        self.stride = 4;
        self.seqs = [0, 1, 2, 3];
        self.vseqs = [0; 4];
    }

    /// The events handled from now on (until the next call) are of class `c`, the first of
    /// them at `t`: their pushes take class `c`'s numbers, which never go below `t`'s.
    #[inline(always)]
    pub fn enter(&mut self, c: usize, t: SimTime) {
        let c = c & 3;
        self.cls = c;
        if t.0 < STAMP_LIMIT_NS {
            let floor = (t.0 << STAMP_SHIFT) | c as u64;
            if self.seqs[c] < floor {
                self.seqs[c] = floor;
            }
        }
    }

    /// Class `c`'s numbers from now on, without raising them to the present (a decision
    /// that belongs to class `c`'s last event, taken between events).
    #[inline]
    pub fn set_class(&mut self, c: usize) {
        self.cls = c & 3;
    }

    /// The key (`time << 64 | number`) of the event popped last: where it stands in the
    /// run's order of events.
    #[inline]
    pub fn last_key(&self) -> u128 {
        self.last
    }

    /// The number after `seq` in its class (`seq + 1` with one class).
    #[inline(always)]
    pub fn next_number(&self, seq: u64) -> u64 {
        seq + self.stride
    }

    /// Take the next insertion number without scheduling anything yet: an event scheduled
    /// later with [`Scheduler::schedule_reserved`] sorts as if scheduled now. Links use it to
    /// keep ns-2's order (ns-2 schedules a transmission's end and its arrival downstream
    /// when the transmission starts) while creating those events only when needed.
    #[inline(always)]
    pub fn reserve(&mut self) -> u64 {
        let c = self.cls & 3;
        let s = self.seqs[c];
        self.seqs[c] = s + self.stride;
        s
    }

    /// Take `n` consecutive insertion numbers (the first is returned) for events that ns-2
    /// would schedule at the later time `at`, while processing an event at `at` that the
    /// simulation skips: they sort after everything scheduled before `at` and before
    /// everything scheduled at or after `at` (see the module docs). When `at` is not later
    /// than now, or beyond the stamped range, this is [`Scheduler::reserve`] `n` times.
    #[inline]
    pub fn reserve_as_of(&mut self, at: SimTime, n: u64) -> u64 {
        debug_assert!((1..VIRTUAL_SLOTS / 4).contains(&n));
        let c = self.cls & 3;
        let span = n * self.stride;
        if at.0 > 0 && at.0 < STAMP_LIMIT_NS {
            // (with classes, `base` is class c's modulo 4, and so are k and span)
            let base = ((at.0 << STAMP_SHIFT) - VIRTUAL_SLOTS) | (c as u64 * (self.stride >> 2));
            let mut k = self.vseqs[c] & (VIRTUAL_SLOTS - 1);
            if k + span > VIRTUAL_SLOTS {
                k = 0;
            }
            if base + k > self.seqs[c] {
                self.vseqs[c] = k + span;
                return base + k;
            }
        }
        let s = self.seqs[c];
        self.seqs[c] = s + span;
        s
    }

    /// Schedule with an insertion number from [`Scheduler::reserve`].
    #[inline]
    pub fn schedule_reserved(&mut self, at: SimTime, seq: u64, ev: Event) {
        self.push(Entry { key: key(at.0, seq), ev });
    }

    /// The next event, if there is one at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        if self.head == self.current.len() && !self.advance() {
            return None;
        }
        let (i, key) = self.earliest();
        let t = (key >> 64) as u64;
        if t > limit.0 {
            return None;
        }
        let e = if self.sorted {
            self.head += 1;
            self.current[i]
        } else {
            self.current.swap_remove(i)
        };
        self.popped += 1;
        self.last = e.key;
        if t < STAMP_LIMIT_NS {
            // (with classes, `enter` raises the class of the event; class 0 is the set-up's)
            self.seqs[0] = self.seqs[0].max(t << STAMP_SHIFT);
        }
        if self.popped % ADAPT_EVERY == 0 {
            self.adapt(t);
        }
        Some((SimTime(t), e.ev))
    }

    /// The time of the next event, if any (nothing is popped).
    pub fn next_time(&mut self) -> Option<SimTime> {
        if self.head == self.current.len() && !self.advance() {
            return None;
        }
        Some(SimTime((self.earliest().1 >> 64) as u64))
    }

    /// Where the current bucket's earliest event is, and its key (the bucket is not empty):
    /// its head when sorted, else a scan of its few keys (branch-free compares).
    #[inline(always)]
    fn earliest(&self) -> (usize, u128) {
        let v = &self.current;
        if self.sorted {
            return (self.head, v[self.head].key);
        }
        let (mut i, mut key) = (0, v[0].key);
        for (j, e) in v.iter().enumerate().skip(1) {
            if e.key < key {
                (i, key) = (j, e.key);
            }
        }
        (i, key)
    }

    #[cold]
    fn sort_current(&mut self) {
        debug_assert_eq!(self.head, 0);
        self.current.sort_unstable_by_key(|e| e.key);
        self.sorted = true;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// Make the next non-empty bucket current; false when no event is left.
    fn advance(&mut self) -> bool {
        let wb = if self.in_wheel > 0 { Some(self.next_occupied()) } else { None };
        let ob = self.overflow.min_key().map(|k| ((k >> 64) as u64) >> self.shift);
        let b = match (wb, ob) {
            (None, None) => return false,
            (Some(w), None) => w,
            (None, Some(o)) => o,
            (Some(w), Some(o)) => w.min(o),
        };
        self.cur_b = b;
        self.current.clear();
        self.head = 0;
        self.sorted = false;
        if wb == Some(b) {
            let slot = (b & MASK) as usize;
            std::mem::swap(&mut self.current, &mut self.slots[slot]);
            self.occupied[slot >> 6] &= !(1 << (slot & 63));
            self.in_wheel -= self.current.len();
        }
        while let Some(k) = self.overflow.min_key() {
            if ((k >> 64) as u64) >> self.shift > b {
                break;
            }
            let e = self.overflow.pop().expect("non-empty");
            self.current.push(e);
        }
        if self.current.len() > SCAN_MAX {
            self.sort_current();
        }
        true
    }

    /// Bucket number of the first occupied slot after the current one (the wheel is not
    /// empty).
    #[inline]
    fn next_occupied(&self) -> u64 {
        let cur_slot = (self.cur_b & MASK) as usize;
        let start = (cur_slot + 1) & MASK as usize;
        let words = SLOTS / 64;
        let mut w = start >> 6;
        let mut bits = self.occupied[w] & (!0u64 << (start & 63));
        let mut scanned = 0;
        while bits == 0 {
            w = (w + 1) % words;
            bits = self.occupied[w];
            scanned += 1;
            debug_assert!(scanned <= words, "occupied bitmap empty while in_wheel > 0");
        }
        let slot = (w << 6) as u64 + bits.trailing_zeros() as u64;
        let dist = slot.wrapping_sub(cur_slot as u64) & MASK;
        self.cur_b + dist
    }

    /// Re-measure the mean gap between events; rebuild with a better width if far off.
    fn adapt(&mut self, now: u64) {
        let span = now.saturating_sub(self.probe_t);
        self.probe_t = now;
        if self.fixed || span == 0 {
            return;
        }
        let want = (span as f64 / ADAPT_EVERY as f64 * GAPS_PER_BUCKET).max(1.0);
        let mut ideal = (want.log2().round() as u32).min(MAX_SHIFT);
        // The wheel must also reach far enough: if many events were scheduled beyond it
        // (into the overflow heap, log n each), widen the buckets, and do not narrow them
        // below that width again. (Links with many packets in flight schedule an arrival
        // a full propagation delay ahead for each.)
        let overflowed = std::mem::take(&mut self.overflowed);
        if overflowed > ADAPT_EVERY / OVERFLOW_SHARE && self.shift < MAX_SHIFT {
            self.min_shift = self.shift + 1;
            ideal = ideal.max(self.min_shift);
            if ideal != self.shift {
                self.rebuild(ideal, now);
            }
            return;
        }
        ideal = ideal.max(self.min_shift);
        if ideal.abs_diff(self.shift) >= 2 {
            self.rebuild(ideal, now);
        }
    }

    /// Re-file every pending event with buckets of `2^shift` ns.
    fn rebuild(&mut self, shift: u32, now: u64) {
        let mut all: Vec<Entry> = Vec::with_capacity(self.len());
        all.extend_from_slice(&self.current[self.head..]);
        self.current.clear();
        self.head = 0;
        self.sorted = false;
        for slot in &mut self.slots {
            all.append(slot);
        }
        all.extend(self.overflow.drain());
        self.occupied.iter_mut().for_each(|w| *w = 0);
        self.in_wheel = 0;
        self.shift = shift;
        self.cur_b = now >> shift;
        for e in all {
            self.push(e);
        }
        self.overflowed = 0;
    }

    /// Width of a bucket in ns.
    pub fn bucket_ns(&self) -> u64 {
        1 << self.shift
    }

    pub fn len(&self) -> usize {
        self.current.len() - self.head + self.in_wheel + self.overflow.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events popped so far (a work measure for benchmarks).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests;
