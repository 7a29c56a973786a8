//! The simulation: builds the network from a [`Model`](crate::scenario::Model), runs the event loop, and collects
//! the monitors into [`RunResults`].
//!
//! The run covers `[0, duration]`: events at exactly `duration` that were scheduled before
//! the end marker run; later ones do not.

//! What each file holds: `setup.rs` builds the [`Simulation`] from the model
//! (`setup.rs`); `run.rs` is the event loop and its dispatch; `links.rs` the link and queue
//! service (enqueue, transmission, cut-through, forwarding, drop log); `agents.rs` the TCP
//! and UDP agents' glue (deliveries, timers, starts and stops); `monitors.rs` the periodic
//! queue samples and utilisation bins; `summary.rs` the results at the end. Beside them:
//! `capacity.rs` (rate schedules), `limits.rs` (event and memory guards), `delays.rs`,
//! `tcp_watch.rs`, `trace_hooks.rs`, `web.rs`, `udp.rs`, `onoff.rs`, `linux_hooks.rs` (a
//! `stack = "linux"` flow's agent; its other arms sit beside the ns-2 agent's).

use crate::monitor::{DropLog, FlowTable, LinkBins, QueueSamples, RttLog, Summary, TcpLog};

mod agents;
mod capacity;
mod delays;
mod device_queue;
mod limits;
mod links;
mod linux_hooks;
mod merge;
mod monitors;
mod parallel;
pub mod onoff;
mod run;
mod setup;
mod summary;
mod tcp_watch;
mod trace_hooks;
pub mod udp;
pub mod web;

pub use parallel::{run_model, run_model_threads, run_on_two_threads, Plan};
pub use udp::{Cbr, Pacing};

use crate::net::{Link, Routes};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::sched::Scheduler;
use crate::tcp::linux::LinuxSender;
use crate::tcp::{TcpSender, TcpSink};
use crate::time::{Dur, SimTime};

/// Drop-log reason code of a deterministic link loss (`drop_seqs`); codes 0–2 are
/// `aqm::Reason`.
pub const LOSS: u8 = 3;

pub enum Agent {
    Tcp { snd: TcpSender, sink: TcpSink },
    /// A `stack = "linux"` TCP flow (`tcp::linux`).
    Linux { snd: Box<LinuxSender>, sink: TcpSink },
    Cbr(Cbr),
}

pub struct Flow {
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    pub stop: SimTime,
    pub agent: Agent,
    /// Earliest pending retransmission-timer event.
    timer_at: Option<SimTime>,
    pub label: String,
    /// A web transfer's size and progress (`app = "web"`).
    pub transfer: Option<web::Transfer>,
}

pub struct RunResults {
    pub summary: Summary,
    pub queue: QueueSamples,
    pub drops: DropLog,
    /// The traced TCP senders' state series and RTT samples (empty unless
    /// `monitor.tcp_flows`).
    pub tcp: TcpLog,
    pub rtt: RttLog,
    /// Every BBR flow's phase changes (empty when no BBR flow ran).
    pub phases: crate::monitor::PhaseLog,
    /// The delay distributions' quantile tables (empty unless `monitor.delays`).
    pub delay_cdf: crate::monitor::delays::DelayCdf,
    /// Why the packet trace stopped before the end of the run (a full disk), if it did.
    pub trace_error: Option<String>,
    pub flows: FlowTable,
    pub links: LinkBins,
    pub link_names: Vec<String>,
    pub resolved: String,
}

pub struct Simulation {
    pub now: SimTime,
    end: SimTime,
    pub links: Vec<Link>,
    routes: Routes,
    pub flows: Vec<Flow>,
    sched: Scheduler,
    out: Vec<Packet>,
    qrng: Vec<Rng>,
    monitored: Vec<u32>,
    sample_dt: Dur,
    link_dt: Dur,
    pub samples: QueueSamples,
    pub drops: DropLog,
    pub tcp_log: TcpLog,
    pub rtt_log: RttLog,
    /// Per flow: is its TCP state recorded? (`monitor.tcp_flows`, also kept as a list.)
    tcp_traced: Vec<bool>,
    tcp_flows: Vec<u32>,
    /// `monitor.tcp_interval`: sample every this long instead of at every change.
    tcp_dt: Option<Dur>,
    delays: delays::Delays,
    /// `[trace]`: what to trace (opened by [`Simulation::open_traces`]) and the open files.
    trace_spec: Option<crate::scenario::build::TraceModel>,
    tracer: Option<Box<trace_hooks::Tracer>>,
    pub bins: LinkBins,
    nodes: Vec<String>,
    resolved: String,
    /// The scenario has web sources (their summary keys are reported).
    web: bool,
    duration: f64,
    seed: u64,
    started: bool,
    ended: bool,
    /// Events allowed (`max_events`); reaching it ends the run early and sets `truncated`.
    max_events: u64,
    truncated: bool,
    /// Some discipline runs timer events (PIE's updates) that count against `max_events`.
    has_timers: bool,
    /// Packets allowed in queues and on links at once (`max_packets`), checked every
    /// `guard_mask + 1` events (2^16, or more with many links: the check sums the queues,
    /// at most 1/16 of a step per event); `overfull` holds the count that passed it.
    max_packets: u64,
    guard_mask: u64,
    /// The event count at which `check_limits` runs next.
    next_check: u64,
    overfull: Option<u64>,
    /// The first monitored link (the "bottleneck" of the summary), or u32::MAX.
    primary: u32,
    /// Per-flow arrivals, drops and marks at the primary link.
    per_flow: Vec<FlowAtQueue>,
    /// Packets in flight on the links, each in a slot named by its `Deliver` or `Forward` event; freed
    /// slots are reused last-in first-out, so the few slots in use stay in the cache.
    in_flight: Vec<Packet>,
    free_slots: Vec<u32>,
    /// For each link, the link that may hand it packets without an event ("cut-through",
    /// see [`Simulation::start_tx`]), or `NO_FEEDER`; `Link::cut_from` is this or
    /// `NO_FEEDER` ([`Simulation::set_cut_through`]).
    cut_from_all: Vec<u32>,
    /// For each link that several links feed and that packets may reach by merge
    /// cut-through, those links (else empty); `Link::merge_ok` follows it.
    merge_inputs: Vec<Vec<u32>>,
    /// Packets whose cut-through at a merge waits for its decision (`sim/merge.rs`), and
    /// the last instant before the earliest of them is decided (`SimTime(u64::MAX)`: none).
    deferred: Vec<merge::Deferred>,
    merge_due: SimTime,
    /// [`Simulation::merge_decisions`].
    merge_counts: (u64, u64),
    /// Events are numbered by class (`sched`'s module docs, "Classes"): a run of the
    /// linux TCP stack.
    split: bool,
    /// Each link's class: 1 out of a host that only sends, else 2.
    link_cls: Vec<u8>,
    /// Each link's lookahead: its delay plus the serialisation of the run's smallest packet
    /// at its highest rate (`parallel/`).
    link_la: Vec<Dur>,
    /// 0, or the side this simulation runs of a run on two threads (`parallel/`), and its
    /// end of the exchange with the other side.
    role: u8,
    port: Option<Box<parallel::Port>>,
    /// The other side's events (a run on two threads).
    other_events: u64,
}

/// Event classes (`sched`'s module docs): the senders' side and the rest of the network.
pub(crate) const SENDERS: u8 = 1;
pub(crate) const NETWORK: u8 = 2;

/// The class of a packet's arrival where it is delivered: an ACK at its sender, anything
/// else at its sink.
#[inline(always)]
pub(crate) fn class_of_packet(p: &Packet) -> u8 {
    if p.kind == crate::packet::Kind::Ack {
        SENDERS
    } else {
        NETWORK
    }
}

/// One flow's packets at the primary monitored queue (data and ACKs alike).
#[derive(Copy, Clone, Debug, Default)]
pub struct FlowAtQueue {
    pub arrivals: u64,
    pub drops: u64,
    /// Marks made on this flow's packets (when made).
    pub marks: u64,
    /// This flow's packets that departed carrying CE with ECT (ns-2's flow monitor `pmarks_`).
    pub marked_departures: u64,
    /// Arrivals and marked departures by the codepoint the sender chose: [ECT(0), ECT(1)]
    /// (a packet CE-marked upstream counts as what it was sent as).
    pub ect_arrivals: [u64; 2],
    pub ect_marked_departures: [u64; 2],
}


/// Check, build and run a scenario given as JSON (the Python entry point). With
/// `spill_dir`, the drop log keeps at most a chunk in memory and writes the rest to
/// unlinked files there ([`DropLog::spill_to`]): memory stays flat however long the run.
pub fn run_json(json: &str, seed: Option<u64>, spill_dir: Option<std::path::PathBuf>) -> crate::error::Result<RunResults> {
    let spec = crate::scenario::from_json(json)?;
    let seed = seed.unwrap_or(spec.seed);
    let model = crate::scenario::build::build(&spec, seed)?;
    run_model(model, spill_dir)
}

/// Check and build a scenario given as TOML.
pub fn run_toml(toml: &str, seed: Option<u64>) -> crate::error::Result<RunResults> {
    let spec = crate::scenario::from_toml(toml)?;
    let seed = seed.unwrap_or(spec.seed);
    let model = crate::scenario::build::build(&spec, seed)?;
    run_model(model, None)
}
