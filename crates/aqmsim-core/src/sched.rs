//! The event queue: a 4-ary min-heap ordered by `(time, insertion sequence)`.
//!
//! Events scheduled for the same instant run in the order they were scheduled, on every
//! machine. Events are a closed, `Copy` enum of 16 bytes: no boxing, no dynamic dispatch; a
//! forgotten arm fails to compile. Timers that are re-armed often (TCP retransmission, the
//! delayed-ACK timer) carry a generation number and are cancelled lazily: a popped event
//! whose generation is stale is ignored by its owner.

use crate::time::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Link finished serialising its head packet.
    TxDone { link: u32 },
    /// The oldest packet in flight on the link reaches the far node.
    Arrive { link: u32 },
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
    /// Periodic queue sample.
    Sample,
    /// End of a utilisation bin.
    LinkBin,
    /// End of the run.
    End,
}

/// A heap entry: the ordering key `(time << 64) | seq` in one integer, so a comparison is
/// one 128-bit compare, and the event beside it.
#[derive(Copy, Clone, Debug)]
struct Entry {
    key: u128,
    ev: Event,
}

#[inline]
fn key(time: u64, seq: u64) -> u128 {
    ((time as u128) << 64) | seq as u128
}

/// Earliest-first event queue with FIFO order among equal times: a 4-ary min-heap (half the
/// depth of a binary heap; the four children share a cache line or two).
#[derive(Default)]
pub struct Scheduler {
    heap: Vec<Entry>,
    seq: u64,
    popped: u64,
}

const D: usize = 4;

impl Scheduler {
    pub fn with_capacity(n: usize) -> Self {
        Scheduler { heap: Vec::with_capacity(n), seq: 0, popped: 0 }
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / D;
            if self.heap[parent].key <= e.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = e;
    }

    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        let k = key(at.0, self.seq);
        self.seq += 1;
        self.push(Entry { key: k, ev });
    }

    /// Take the next insertion number without scheduling anything yet: an event scheduled
    /// later with [`Scheduler::schedule_reserved`] sorts as if scheduled now. Links use it to
    /// keep ns-2's order (ns-2 schedules a transmission's end and its arrival downstream
    /// when the transmission starts) while creating those events only when needed.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }

    /// Schedule with an insertion number from [`Scheduler::reserve`].
    #[inline]
    pub fn schedule_reserved(&mut self, at: SimTime, seq: u64, ev: Event) {
        self.push(Entry { key: key(at.0, seq), ev });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap[0];
        let last = self.heap.pop().expect("non-empty");
        let n = n - 1;
        if n > 0 {
            // sift `last` down from the root
            let mut i = 0;
            loop {
                let first = D * i + 1;
                if first >= n {
                    break;
                }
                let end = (first + D).min(n);
                let mut best = first;
                let mut bk = self.heap[first].key;
                for c in first + 1..end {
                    let k = self.heap[c].key;
                    if k < bk {
                        bk = k;
                        best = c;
                    }
                }
                if bk >= last.key {
                    break;
                }
                self.heap[i] = self.heap[best];
                i = best;
            }
            self.heap[i] = last;
        }
        self.popped += 1;
        Some((SimTime((top.key >> 64) as u64), top.ev))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| SimTime((e.key >> 64) as u64))
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events popped so far (a work measure for benchmarks).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
