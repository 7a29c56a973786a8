//! Queue disciplines: one trait, one file per discipline.
//!
//! A discipline *decides* (`Verdict`), the [`queue::QueueDisc`] wrapper *acts* and counts,
//! the way Linux's `red_action()` returns a verdict that `red_enqueue` applies. Shared RED
//! arithmetic lives in [`red_math`], pure functions every RED variant calls.

pub mod ared;
pub mod ared_feng;
pub mod cake;
pub mod cake_ack;
pub mod cake_hash;
pub mod cake_modes;
pub mod cake_shaper;
pub mod cobalt;
pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod ecn_threshold;
pub mod fq;
pub mod fq_cobalt;
pub mod fq_codel;
pub mod fq_pie;
pub mod owner;
pub mod periodic;
pub mod pie;
mod pie_params;
pub mod pie_vars;
pub mod plugin;
pub mod qrtred;
pub mod queue;
pub mod red;
pub mod red_math;
pub mod red_pktsize;
pub mod rtred;

use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

pub use ared::{Ared, AredParams};
pub use ared_feng::AredFeng;
pub use cake::{Cake, CakeParams};
pub use cobalt::{Cobalt, CobaltParams, Flavor};
pub use codel::{Codel, CodelParams};
pub use droptail::DropTail;
pub use dualpi2::{DualPi2, DualPi2Params};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use fq_pie::{FqPie, FqPieParams};
pub use fq_cobalt::{FqCobalt, FqCobaltParams};
pub use ecn_threshold::EcnThreshold;
pub use pie::{Pie, PieParams};
pub use qrtred::Qrtred;
pub use rtred::Rtred;
pub use owner::PacketOwner;
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
    /// The delay the discipline acts on, s (CoDel: sojourn time of the last packet it
    /// dequeued; PIE: its queueing-delay estimate); 0 for the RED family.
    pub delay: f64,
    /// CoDel's drop count (`count`; FQ-CoDel: summed over its queues); 0 otherwise.
    pub count: f64,
}

/// The contract every discipline implements.
pub trait Aqm {
    /// Decide the fate of `pkt`, arriving to a queue that looks like `q`.
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict;
    /// The link found the queue empty when it wanted the next packet: the queue is idle
    /// from `now` (RED's idle-time correction starts counting here).
    fn on_idle(&mut self, _now: SimTime) {}
    /// The head packet `pkt` is about to leave for the wire; `q` is the queue without it.
    fn on_dequeue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> FrontAction {
        FrontAction::Pass
    }
    /// Bring time-driven state up to `now` (PIE's periodic updates) before the monitors
    /// read it; a no-op for disciplines that change only on packet events.
    fn advance(&mut self, _now: SimTime) {}
    /// Current state for the monitors.
    fn state(&self) -> AqmState;
}

/// Every discipline, as one enum: static dispatch by `match`, no boxing.
#[derive(Clone, Debug)]
pub enum AnyAqm {
    DropTail(DropTail),
    /// RED, Gentle RED and RED_1 … RED_5 (the size weighting is a field).
    Red(Red),
    Ared(Ared),
    AredFeng(AredFeng),
    Rtred(Rtred),
    Qrtred(Qrtred),
    Threshold(EcnThreshold),
    Codel(Codel),
    /// FQ-CoDel owns its packets: the queue wrapper routes arrivals and departures to it.
    FqCodel(Box<FqCodel>),
    /// PIE (RFC 8033) as ns-3.37's PieQueueDisc.
    Pie(Pie),
    /// DualPI2 (RFC 9332) as Linux's sch_dualpi2; owns its packets (two queues).
    DualPi2(Box<DualPi2>),
    /// FQ-PIE as ns-3.37's FqPieQueueDisc (owns its packets, a PIE per flow queue).
    FqPie(Box<FqPie>),
    /// COBALT (CoDel + BLUE, CAKE's AQM) as ns-3.37's CobaltQueueDisc; owns its packets.
    Cobalt(Box<Cobalt>),
    /// CAKE as Linux's sch_cake (one tin); owns its packets.
    Cake(Box<Cake>),
    /// FQ-COBALT as ns-3.37's FqCobaltQueueDisc (owns its packets, a COBALT per flow queue).
    FqCobalt(Box<FqCobalt>),
    /// A discipline written outside the engine (`kind = "python"`: a Python class).
    Plugin(Box<dyn plugin::PluginAqm>),
}

/// Forward a call to whichever discipline the enum holds.
macro_rules! each {
    ($self:ident, $d:ident => $e:expr) => {
        match $self {
            AnyAqm::DropTail($d) => $e,
            AnyAqm::Red($d) => $e,
            AnyAqm::Ared($d) => $e,
            AnyAqm::AredFeng($d) => $e,
            AnyAqm::Rtred($d) => $e,
            AnyAqm::Qrtred($d) => $e,
            AnyAqm::Threshold($d) => $e,
            AnyAqm::Codel($d) => $e,
            AnyAqm::FqCodel($d) => $e,
            AnyAqm::Pie($d) => $e,
            AnyAqm::DualPi2($d) => $e,
            AnyAqm::FqPie($d) => $e,
            AnyAqm::Cobalt($d) => $e,
            AnyAqm::Cake($d) => $e,
            AnyAqm::FqCobalt($d) => $e,
            AnyAqm::Plugin($d) => $e,
        }
    };
}

impl Aqm for AnyAqm {
    #[inline]
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> Verdict {
        each!(self, d => d.on_enqueue(pkt, q, now, rng))
    }
    #[inline]
    fn on_idle(&mut self, now: SimTime) {
        each!(self, d => d.on_idle(now))
    }
    #[inline]
    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> FrontAction {
        each!(self, d => d.on_dequeue(pkt, q, now, rng))
    }
    fn advance(&mut self, now: SimTime) {
        each!(self, d => d.advance(now))
    }
    #[inline]
    fn state(&self) -> AqmState {
        each!(self, d => d.state())
    }
}

impl AnyAqm {
    /// Timer events run so far (PIE's periodic updates, run lazily): the engine counts
    /// them against `max_events` like its own events.
    pub fn timer_events(&self) -> u64 {
        match self {
            AnyAqm::Pie(p) => p.updates(),
            AnyAqm::DualPi2(d) => d.updates(),
            AnyAqm::FqPie(p) => p.updates(),
            _ => 0,
        }
    }
    /// Allow timer events until [`AnyAqm::timer_events`] reaches `total`.
    pub fn set_timer_budget(&mut self, total: u64) {
        match self {
            AnyAqm::Pie(p) => p.set_update_budget(total),
            AnyAqm::DualPi2(d) => d.set_update_budget(total),
            AnyAqm::FqPie(p) => p.set_update_budget(total),
            _ => {}
        }
    }
    /// Does the discipline run timer events (counted by [`AnyAqm::timer_events`])?
    pub fn has_timers(&self) -> bool {
        matches!(self, AnyAqm::Pie(_) | AnyAqm::FqPie(_) | AnyAqm::DualPi2(_))
    }
    /// When a timer event was first due beyond the budget: the run must stop (`max_events`).
    pub fn over_budget(&self) -> Option<SimTime> {
        match self {
            AnyAqm::Pie(p) => p.over_budget(),
            AnyAqm::DualPi2(d) => d.over_budget(),
            AnyAqm::FqPie(p) => p.over_budget(),
            _ => None,
        }
    }

    /// When a discipline that held packets back at `now` (CAKE's shaper) lets the next
    /// one go: the link asks again then.
    #[inline]
    pub fn wake_at(&self, now: SimTime) -> Option<SimTime> {
        match self {
            AnyAqm::Cake(c) => c.wake_at(now),
            _ => None,
        }
    }

    /// The discipline as a [`PacketOwner`], if it holds its own packets (FQ-CoDel).
    #[inline]
    pub fn owner(&mut self) -> Option<&mut dyn PacketOwner> {
        match self {
            AnyAqm::FqCodel(d) => Some(&mut d.fq),
            AnyAqm::DualPi2(d) => Some(d.as_mut()),
            AnyAqm::FqPie(d) => Some(&mut d.fq),
            AnyAqm::Cobalt(d) => Some(d.as_mut()),
            AnyAqm::Cake(d) => Some(d.as_mut()),
            AnyAqm::FqCobalt(d) => Some(&mut d.fq),
            _ => None,
        }
    }
    /// Does the discipline hold its own packets ([`AnyAqm::owner`])?
    #[inline]
    pub fn owns_packets(&self) -> bool {
        matches!(self, AnyAqm::FqCodel(_) | AnyAqm::DualPi2(_) | AnyAqm::FqPie(_) | AnyAqm::Cobalt(_) | AnyAqm::Cake(_) | AnyAqm::FqCobalt(_))
    }

    pub fn kind(&self) -> &'static str {
        match self {
            AnyAqm::DropTail(_) => "droptail",
            AnyAqm::Red(_) => "red",
            AnyAqm::Ared(_) => "ared",
            AnyAqm::AredFeng(_) => "ared_feng",
            AnyAqm::Rtred(_) => "rtred",
            AnyAqm::Qrtred(_) => "qrtred",
            AnyAqm::Threshold(_) => "ecn_threshold",
            AnyAqm::Codel(_) => "codel",
            AnyAqm::FqCodel(_) => "fq_codel",
            AnyAqm::Pie(_) => "pie",
            AnyAqm::DualPi2(_) => "dualpi2",
            AnyAqm::FqPie(_) => "fq_pie",
            AnyAqm::Cobalt(_) => "cobalt",
            AnyAqm::Cake(_) => "cake",
            AnyAqm::FqCobalt(_) => "fq_cobalt",
            AnyAqm::Plugin(_) => "python",
        }
    }
}
