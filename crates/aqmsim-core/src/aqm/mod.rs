//! Queue disciplines: one trait, one file per discipline.
//!
//! A discipline *decides* (`Verdict`), the [`queue::QueueDisc`] wrapper *acts* and counts,
//! the way Linux's `red_action()` returns a verdict that `red_enqueue` applies. Shared RED
//! arithmetic lives in [`red_math`], pure functions every RED variant calls.

pub mod droptail;
pub mod queue;
pub mod red;
pub mod red_math;

use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

pub use droptail::DropTail;
pub use queue::{QueueDisc, QueueStats};
pub use red::{Red, RedParams};

/// Why a packet was dropped or marked.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Reason {
    /// Random early drop/mark (avg between the thresholds).
    Early = 0,
    /// avg above the hard limit (max_th, or 2·max_th with gentle).
    Forced = 1,
    /// Buffer full.
    Overflow = 2,
}

impl Reason {
    pub const ALL: [Reason; 3] = [Reason::Early, Reason::Forced, Reason::Overflow];
    pub fn name(self) -> &'static str {
        match self {
            Reason::Early => "early",
            Reason::Forced => "forced",
            Reason::Overflow => "overflow",
        }
    }
}

/// A discipline's decision about an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with the CE bit set.
    Mark(Reason),
    Drop(Reason),
    /// Enqueue the arrival and drop the packet at the head of the queue instead
    /// (drop-from-front, paper 004). With an empty queue the arrival itself is dropped.
    DropHead(Reason),
}

/// A discipline's decision about the head packet as it leaves for the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrontAction {
    Pass,
    /// Set CE on the departing packet (mark-front, paper 004).
    Mark(Reason),
    /// Drop it and offer the next one.
    Drop(Reason),
}

/// What the queue looks like when the discipline is asked.
#[derive(Copy, Clone, Debug, Default)]
pub struct QueueView {
    /// Packets waiting (not counting the one on the wire).
    pub len_pkts: u32,
    /// Bytes waiting.
    pub len_bytes: u64,
}

/// What a discipline exposes to the monitors. Averages and thresholds are in packets
/// (byte-mode queues divide by their mean packet size).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct AqmState {
    pub avg: f64,
    /// Probability applied to the most recent arrival (RED's final p_a).
    pub p: f64,
    pub max_p: f64,
    pub min_th: f64,
    pub max_th: f64,
}

/// The contract every discipline implements.
pub trait Aqm {
    /// Decide the fate of `pkt`, arriving to a queue that looks like `q`.
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict;
    /// The link found the queue empty when it wanted the next packet: the queue is idle
    /// from `now` (RED's idle-time correction starts counting here).
    fn on_idle(&mut self, _now: SimTime) {}
    /// The head packet `pkt` is about to leave for the wire; `q` is the queue without it.
    fn on_dequeue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime) -> FrontAction {
        FrontAction::Pass
    }
    /// Current state for the monitors.
    fn state(&self) -> AqmState;
}

/// Every discipline, as one enum: static dispatch by `match`, no boxing.
#[derive(Clone, Debug)]
pub enum AnyAqm {
    DropTail(DropTail),
    Red(Red),
}

impl Aqm for AnyAqm {
    #[inline]
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        match self {
            AnyAqm::DropTail(d) => d.on_enqueue(pkt, q, now, rng),
            AnyAqm::Red(d) => d.on_enqueue(pkt, q, now, rng),
        }
    }
    #[inline]
    fn on_idle(&mut self, now: SimTime) {
        match self {
            AnyAqm::DropTail(d) => d.on_idle(now),
            AnyAqm::Red(d) => d.on_idle(now),
        }
    }
    #[inline]
    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime) -> FrontAction {
        match self {
            AnyAqm::DropTail(d) => d.on_dequeue(pkt, q, now),
            AnyAqm::Red(d) => d.on_dequeue(pkt, q, now),
        }
    }
    #[inline]
    fn state(&self) -> AqmState {
        match self {
            AnyAqm::DropTail(d) => d.state(),
            AnyAqm::Red(d) => d.state(),
        }
    }
}

impl AnyAqm {
    pub fn kind(&self) -> &'static str {
        match self {
            AnyAqm::DropTail(_) => "droptail",
            AnyAqm::Red(r) => {
                if r.params.gentle {
                    "red(gentle)"
                } else {
                    "red"
                }
            }
        }
    }
}
