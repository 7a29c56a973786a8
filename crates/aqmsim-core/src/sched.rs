//! The event queue: a binary heap ordered by `(time, insertion sequence)`.
//!
//! Events scheduled for the same instant run in the order they were scheduled, on every
//! machine. Events are a closed, `Copy` enum of 16 bytes: no boxing, no dynamic dispatch; a
//! forgotten arm fails to compile. Timers that are re-armed often (TCP retransmission, the
//! delayed-ACK timer) carry a generation number and are cancelled lazily: a popped event
//! whose generation is stale is ignored by its owner.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest first.
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Earliest-first event queue with FIFO order among equal times.
#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl Scheduler {
    pub fn with_capacity(n: usize) -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(n), seq: 0, popped: 0 }
    }
    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: Event) {
        self.heap.push(Entry { time: at.0, seq: self.seq, ev });
        self.seq += 1;
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
        self.heap.push(Entry { time: at.0, seq, ev });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((SimTime(e.time), e.ev))
    }
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime(e.time))
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

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
