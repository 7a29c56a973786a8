//! Disciplines that own their packets: schedulers with several internal queues (FQ-CoDel,
//! and any flow-queueing or dual-queue discipline), which decide both where an arrival
//! goes and which packet leaves next. The [`super::queue::QueueDisc`] wrapper hands them
//! arrivals and asks them for departures instead of keeping its own FIFO; it keeps the
//! counters and time integrals as for any discipline.

use super::queue::{Enqueued, FrontEvent};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

/// The contract of a discipline that holds its own packets.
pub trait PacketOwner {
    /// Take `pkt` (its `t_enq` is for the owner to stamp). Returns what happened to it:
    /// `Queued { marked }` (counted as a mark when `Some`) or `Dropped(reason)` (counted
    /// as a drop); never `DroppedHead`. Packets dropped or marked *other than* the arrival
    /// (a fat flow's head, a mark on a queued packet) are appended to `events` and counted
    /// by the wrapper from there.
    fn enqueue(&mut self, pkt: Packet, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Enqueued;
    /// The next packet for the wire, or `None` when nothing is left; drops and marks made
    /// on the way are appended to `events`.
    fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet>;
    /// Packets held.
    fn len(&self) -> u32;
    /// Bytes held.
    fn bytes(&self) -> u64;
}
