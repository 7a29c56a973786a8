//! The simulation: builds the network from a [`Model`], runs the event loop, and collects
//! the monitors into [`RunResults`].
//!
//! The run covers `[0, duration]`: events at exactly `duration` that were scheduled before
//! the end marker run; later ones do not.

use crate::aqm::queue::Enqueued;
use crate::aqm::{Aqm, QueueDisc};
use crate::monitor::{jain, DropLog, FlowTable, LinkBins, QueueSamples, RttLog, Spilling, Summary, TcpLog};

mod capacity;
mod delays;
mod limits;
pub mod onoff;
mod tcp_watch;
mod trace_hooks;
pub mod udp;
pub mod web;

pub use udp::{Cbr, Pacing};

use crate::trace::TraceEvent;
use crate::net::{link_inputs, Link, Routes, NO_FEEDER, NO_ROUTE};
use crate::packet::{Kind, Packet};
use crate::rng::{stream, Rng};
use crate::scenario::build::TraceFormat;
use crate::scenario::{AppModel, Model};
use crate::sched::{Event, Scheduler};
use crate::tcp::{TcpSender, TcpSink};
use crate::time::{Dur, SimTime};

/// Drop-log reason code of a deterministic link loss (`drop_seqs`); codes 0–2 are
/// `aqm::Reason`.
pub const LOSS: u8 = 3;

pub enum Agent {
    Tcp { snd: TcpSender, sink: TcpSink },
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
}

impl Simulation {
    pub fn new(model: Model) -> Simulation {
        let seed = model.seed;
        let nflows = model.flows.len();
        let delays = delays::Delays::new(model.delays, model.links.len(), &model.monitored, nflows);
        let pairs: Vec<(u32, u32)> = model.links.iter().map(|l| (l.from, l.to)).collect();
        let routes = Routes::compute(model.nodes.len(), &pairs);
        let streams = model.flows.iter().flat_map(|f| {
            let two_way = f.app.is_tcp();
            std::iter::once((f.src, f.dst)).chain(two_way.then_some((f.dst, f.src)))
        });
        let inputs = link_inputs(&pairs, &routes, streams);
        // The smallest packet any agent sends (merges' lookahead, see cut_through).
        let min_size = model
            .flows
            .iter()
            .map(|f| match &f.app {
                AppModel::Ftp(p) | AppModel::Web { tcp: p, .. } => p.header.min(p.ack_size).min(p.packet_size),
                AppModel::Cbr { packet_size, .. } => *packet_size,
                AppModel::OnOff(m) => m.packet_size,
            })
            .min()
            .unwrap_or(0);
        let qrng = (0..model.links.len()).map(|i| Rng::new(seed, stream::QUEUE | i as u64)).collect();
        let max_rates: Vec<f64> = model.links.iter().map(|l| l.max_rate()).collect();
        let links: Vec<Link> = model
            .links
            .into_iter()
            .map(|l| {
                let mut link = Link::new(l.from, l.to, l.rate_bps, l.delay_s, QueueDisc::new(l.aqm), l.name);
                link.set_drop_seqs(l.drop_seqs);
                link.schedule = l.rate_schedule;
                link
            })
            .collect();
        let flows = model
            .flows
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let tcp_agent = |p: crate::tcp::TcpParams| {
                    let mut r = Rng::new(seed, stream::TCP | f.key);
                    let boot = r.uniform() * p.tick;
                    let mut sink = TcpSink::new(i as u32, f.src, p.ack_size, p.payload(), p.delayed_ack, p.delack_interval, p.syn, p.variant.uses_sack());
                    sink.dctcp = p.variant == crate::tcp::Variant::Dctcp;
                    Agent::Tcp { snd: TcpSender::new(p, i as u32, f.dst, boot), sink }
                };
                let mut transfer = None;
                let agent = match f.app {
                    AppModel::Ftp(p) => tcp_agent(p),
                    AppModel::Web { tcp, size_bytes } => {
                        transfer = Some(web::Transfer::new(size_bytes, tcp.payload(), tcp.syn));
                        tcp_agent(tcp)
                    }
                    AppModel::Cbr { rate_bps, packet_size, burst } => Agent::Cbr(Cbr::even(rate_bps, packet_size, burst)),
                    AppModel::OnOff(m) => Agent::Cbr(Cbr::onoff(onoff::OnOff::new(m, Rng::new(seed, stream::ONOFF | f.key)))),
                };
                Flow {
                    src: f.src,
                    dst: f.dst,
                    start: SimTime::from_secs(f.start),
                    stop: SimTime::from_secs(f.stop),
                    agent,
                    timer_at: None,
                    label: f.label,
                    transfer,
                }
            })
            .collect();
        let primary = model.monitored.first().copied().unwrap_or(u32::MAX);
        // Shortcut targets: a link whose DropTail queue lets packets pass untouched when
        // idle, with no deterministic losses and no monitor, that no agent sends on first.
        // Fed by one link: cut-through from it; by several: merge cut-through.
        // With an ns-2 trace there are none: every event is real, so that ns-2's
        // floating-point clock can be kept event by event (`trace_hooks`); a pcap trace
        // needs only its own links' departures.
        let no_cut = |i: usize| match &model.trace {
            Some(t) if t.format == TraceFormat::Ns2 => true,
            Some(t) => t.links.contains(&(i as u32)),
            None => false,
        };
        let target = |i: usize, l: &Link| !no_cut(i) && l.schedule.is_empty() && l.queue.transparent_when_idle() && l.drop_seqs.is_empty() && !model.monitored.contains(&(i as u32)) && !inputs.from_agent[i];
        let cut_from: Vec<u32> = links
            .iter()
            .enumerate()
            .map(|(i, l)| if target(i, l) { inputs.single_feeder(i) } else { NO_FEEDER })
            .collect();
        let merge_inputs: Vec<Vec<u32>> = links
            .iter()
            .enumerate()
            .map(|(i, l)| if target(i, l) && inputs.links[i].len() > 1 { inputs.links[i].clone() } else { Vec::new() })
            .collect();
        let mut links = links;
        for (i, feeders) in merge_inputs.iter().enumerate() {
            let la = feeders.iter().map(|&j| links[j as usize].delay + links[j as usize].fastest_tx_time(min_size, max_rates[j as usize])).min();
            links[i].lookahead = la.unwrap_or(Dur::ZERO);
        }
        let guard_mask = (links.len() as u64 * 16).next_power_of_two().max(1 << 16) - 1;
        for (i, l) in links.iter_mut().enumerate() {
            l.note = primary == i as u32 || (model.delays && model.monitored.contains(&(i as u32)));
        }
        let mut sim = Simulation {
            now: SimTime::ZERO,
            end: SimTime::from_secs(model.duration),
            links,
            routes,
            flows,
            sched: Scheduler::with_capacity(1024),
            out: Vec::with_capacity(64),
            qrng,
            monitored: model.monitored,
            sample_dt: Dur::from_secs(model.sample_interval),
            link_dt: Dur::from_secs(model.link_interval),
            samples: QueueSamples::default(),
            drops: DropLog::default(),
            tcp_log: TcpLog::new(nflows),
            rtt_log: RttLog::default(),
            tcp_traced: {
                let mut v = vec![false; nflows];
                for &f in &model.tcp_flows {
                    v[f as usize] = true;
                }
                v
            },
            tcp_flows: model.tcp_flows,
            tcp_dt: model.tcp_interval.map(Dur::from_secs),
            delays,
            trace_spec: model.trace,
            tracer: None,
            bins: LinkBins::default(),
            nodes: model.nodes,
            resolved: model.resolved.to_string(),
            web: model.web,
            duration: model.duration,
            seed,
            started: false,
            ended: false,
            max_events: model.max_events,
            truncated: false,
            has_timers: false,
            max_packets: model.max_packets,
            guard_mask,
            next_check: 0,
            overfull: None,
            primary: u32::MAX,
            per_flow: Vec::new(),
            cut_from_all: cut_from,
            merge_inputs,
            in_flight: Vec::with_capacity(1024),
            free_slots: Vec::with_capacity(1024),
        };
        sim.primary = primary;
        sim.has_timers = sim.links.iter().any(|l| matches!(l.queue.aqm, crate::aqm::AnyAqm::Pie(_)));
        sim.set_cut_through(true);
        sim.per_flow = vec![FlowAtQueue::default(); nflows];
        sim
    }

    /// Switch cut-through (see [`Simulation::start_tx`]) off or back on, before the run
    /// starts. It changes the number of events, not the outcome: the skipped hop's event
    /// numbers are taken as of the time the packet reaches it, so same-instant events keep
    /// their order (the tests run scenarios both ways and compare every result).
    pub fn set_cut_through(&mut self, on: bool) {
        assert!(!self.started, "set_cut_through after the run started");
        for (i, l) in self.links.iter_mut().enumerate() {
            l.cut_from = if on { self.cut_from_all[i] } else { NO_FEEDER };
            l.merge_ok = on && !self.merge_inputs[i].is_empty();
            l.feeds_cut = false;
        }
        for i in 0..self.links.len() {
            let f = self.links[i].cut_from;
            if f != NO_FEEDER {
                self.links[f as usize].feeds_cut = true;
            }
            if self.links[i].merge_ok {
                for &j in &self.merge_inputs[i] {
                    self.links[j as usize].feeds_cut = true;
                }
            }
        }
    }

    /// Open the files of `[trace]` (before the run starts; [`Simulation::try_run`] does it).
    pub fn open_traces(&mut self) -> crate::error::Result<()> {
        let Some(spec) = &self.trace_spec else { return Ok(()) };
        if self.tracer.is_some() {
            return Ok(());
        }
        let links: Vec<(u32, u32, String, f64, f64)> =
            self.links.iter().map(|l| (l.from, l.to, l.name.clone(), l.rate_bps, l.delay.secs())).collect();
        let flows = self.flows.iter().map(trace_hooks::flow_info).collect();
        let t = trace_hooks::Tracer::open(spec, &links, flows).map_err(|e| crate::error::ScenarioError::new("trace.path", e))?;
        self.tracer = Some(Box::new(t));
        Ok(())
    }

    /// Events processed so far: the scheduler's and the disciplines' timer events (PIE's
    /// updates, run lazily but counted as ns-3's timer would count them).
    pub fn events(&self) -> u64 {
        self.sched.events_processed().saturating_add(self.timer_events())
    }

    /// Run to the end and collect the results.
    ///
    /// Panics if the run reached `max_events` (use [`Simulation::try_run`] for an error).
    pub fn run(self) -> RunResults {
        self.try_run().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Run to the end and collect the results, or fail if the run reached `max_events`.
    pub fn try_run(mut self) -> crate::error::Result<RunResults> {
        self.open_traces()?;
        self.run_until(self.end);
        // a discipline's timer events past the budget, or over max_events in all
        if self.has_timers && !self.truncated && self.overfull.is_none() {
            self.truncated = self.timers_over_budget() || self.events() > self.max_events;
        }
        if let Some(n) = self.overfull {
            return Err(crate::error::ScenarioError::new(
                "max_packets",
                format!(
                    "{n} packets were waiting in queues or on links at once at t = {} s, more than max_packets = {} (a memory guard: each takes about 100 bytes); lower the buffer limits or the offered load, or raise max_packets (an integer in [1, 2^64))",
                    self.now.secs(),
                    self.max_packets
                ),
            ));
        }
        if self.truncated {
            return Err(crate::error::ScenarioError::new(
                "max_events",
                format!(
                    "the run reached max_events = {} at t = {} s of duration {} s{}; raise max_events (an integer in [1, 2^64)) or shorten the run",
                    self.max_events,
                    self.timers_over_budget_at().unwrap_or(self.now).secs(),
                    self.duration,
                    match self.timer_events() {
                        0 => String::new(),
                        k => format!(" ({k} of them PIE's probability updates, one per t_update)"),
                    }
                ),
            ));
        }
        Ok(self.finish())
    }

    /// Process every event up to and including `t` (or the end of the run).
    pub fn run_until(&mut self, t: SimTime) {
        if !self.started {
            self.started = true;
            self.init();
        }
        let limit = t.min(self.end);
        while !self.ended {
            let n = self.sched.events_processed();
            // one compare per event: the next stop is the event limit or the memory check
            if n >= self.next_check && self.check_limits(n) {
                break;
            }
            let Some((t, ev)) = self.sched.pop_until(limit) else { break };
            self.now = t;
            if !self.dispatch(ev) {
                self.ended = true;
            }
        }
    }

    fn init(&mut self) {
        self.sched.schedule(self.end, Event::End);
        // before any other event: a rate change runs first of its instant (same-instant
        // events run in the order they were scheduled)
        self.schedule_rate_changes();
        for (i, f) in self.flows.iter().enumerate() {
            if f.start < self.end {
                self.sched.schedule(f.start, Event::Start { flow: i as u32 });
            }
            if f.stop < self.end {
                self.sched.schedule(f.stop, Event::Stop { flow: i as u32 });
            }
        }
        if !self.monitored.is_empty() {
            self.sched.schedule(SimTime::ZERO, Event::Sample);
            self.sched.schedule(SimTime::ZERO + self.link_dt, Event::LinkBin);
        }
        if self.tcp_dt.is_some() && !self.tcp_flows.is_empty() {
            self.sched.schedule(SimTime::ZERO, Event::TcpSample);
        }
    }

    /// Handle one event; false at the end of the run.
    #[inline]
    fn dispatch(&mut self, ev: Event) -> bool {
        if self.tracer.is_some() {
            self.trace_clock(&ev);
        }
        match ev {
            Event::TxDone { link } => self.tx_done(link),
            Event::Deliver { slot } => {
                let pkt = self.take(slot);
                if self.tracer.is_some() {
                    self.trace_receive(&pkt, true);
                }
                self.deliver(pkt);
            }
            Event::Forward { link, slot, counted } => self.forward(link, slot, counted),
            Event::RtxTimer { flow, .. } => self.rtx_timer(flow),
            Event::DelAck { flow, gen } => self.delack(flow, gen),
            Event::Start { flow } => self.start(flow),
            Event::Stop { flow } => self.stop(flow),
            Event::CbrSend { flow } => self.cbr_send(flow),
            Event::RateChange { link, idx } => self.rate_change(link, idx),
            Event::Sample => self.sample(),
            Event::LinkBin => self.link_bin(),
            Event::TcpSample => self.tcp_sample(),
            Event::End => return false,
        }
        true
    }

    // ------------------------------------------------------------------ network

    #[inline]
    fn send_from(&mut self, node: u32, pkt: Packet) {
        if self.tracer.is_some() {
            self.trace_created(&pkt);
        }
        let l = self.routes.next(node, pkt.dst);
        debug_assert!(l != NO_ROUTE, "no route from {node} to {}", pkt.dst);
        self.link_recv(l, pkt);
    }

    #[inline]
    fn link_recv(&mut self, l: u32, pkt: Packet) {
        if self.tracer.is_some() {
            self.trace(TraceEvent::Enqueue, l, &pkt);
        }
        let now = self.now;
        let link = &mut self.links[l as usize];
        let qlen = link.queue.len();
        if link.has_drop_seqs && pkt.kind == Kind::Data && !pkt.rtx() && link.drop_seqs.binary_search(&pkt.seq).is_ok() {
            link.lost += 1;
            self.log_drop(l, pkt.flow, LOSS, 0, qlen);
            if self.tracer.is_some() {
                self.trace_gone(&pkt);
            }
            return;
        }
        if l == self.primary {
            self.per_flow[pkt.flow as usize].arrivals += 1;
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
            if let Some(p) = sent {
                self.start_tx(l, p, false);
            }
            return;
        }
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
                } else if !link.txdone_pending {
                    link.txdone_pending = true;
                    let (at, seq) = (link.busy_until, link.txdone_seq);
                    self.sched.schedule_reserved(at, seq, Event::TxDone { link: l });
                }
            }
        }
    }

    /// Dequeue from link `l`, logging what the discipline did at the head.
    #[inline]
    fn dequeue(&mut self, l: u32) -> Option<Packet> {
        let now = self.now;
        let p = self.links[l as usize].queue.dequeue(now);
        self.log_queue_events(l);
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
    fn note_passed(&mut self, l: u32, pkt: &Packet) {
        if crate::aqm::queue::is_marked(pkt) {
            self.links[l as usize].queue.stats.marked_departures += 1;
        }
        self.note_departure(l, Some(pkt), false);
    }

    /// Per-flow count of marked packets leaving the primary queue; queueing delays.
    #[inline]
    fn note_departure(&mut self, l: u32, p: Option<&Packet>, waited: bool) {
        if let Some(p) = p {
            if l == self.primary && crate::aqm::queue::is_marked(p) {
                self.per_flow[p.flow as usize].marked_departures += 1;
            }
            if self.delays.on {
                self.note_queue_delay(l, p, waited);
            }
        }
    }

    /// Log the drops and marks queue `l` made on its own.
    #[inline(always)]
    fn log_queue_events(&mut self, l: u32) {
        if !self.links[l as usize].queue.front_events.is_empty() {
            self.log_queue_events_now(l);
        }
    }

    #[cold]
    #[inline(never)]
    fn log_queue_events_now(&mut self, l: u32) {
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
    fn log_drop(&mut self, l: u32, flow: u32, reason: u8, action: u8, qlen: u32) {
        if l == self.primary && reason != LOSS {
            let f = &mut self.per_flow[flow as usize];
            if action == 0 {
                f.drops += 1;
            } else {
                f.marks += 1;
            }
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
    ///   bottleneck, for ACKs, which are the smallest packets on equal egress links).
    ///
    /// Packets already on their way to that link by an event are counted (`pending`):
    /// while there are any, no packet cuts through past them. In a dumbbell this leaves
    /// three events per packet of the five an event-by-event run takes.
    ///
    /// `maybe_queued`: packets may still wait in `l`'s queue (false when the caller knows
    /// it is empty: then the queue is not even looked at).
    #[inline(always)]
    fn start_tx(&mut self, l: u32, pkt: Packet, maybe_queued: bool) {
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
        let (at, arrive_seq, ev) = if feeds_cut { self.cut_through(l, at, arrive_seq, &pkt, slot) } else { (at, arrive_seq, self.arrival(l, &pkt, slot)) };
        self.sched.schedule_reserved(at, arrive_seq, ev);
    }

    /// The event of `pkt` (kept in `slot`) reaching the far end of link `l`: delivered
    /// there, or going on (the next link looked up now, while the route is in the cache).
    #[inline(always)]
    fn arrival(&self, l: u32, pkt: &Packet, slot: u32) -> Event {
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
    fn store(&mut self, pkt: Packet) -> u32 {
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
    /// `Forward` to the next link, `counted` when it is pending there.
    #[inline(never)]
    fn cut_through(&mut self, l: u32, mut at: SimTime, mut seq: u64, pkt: &Packet, slot: u32) -> (SimTime, u64, Event) {
        let mut last = l;
        while self.links[last as usize].feeds_cut {
            let node = self.links[last as usize].to;
            if pkt.dst == node {
                return (at, seq, Event::Deliver { slot });
            }
            let nl = self.routes.next(node, pkt.dst);
            debug_assert!(nl != NO_ROUTE, "no route from {node} to {}", pkt.dst);
            let next = &mut self.links[nl as usize];
            let single = next.cut_from == last;
            if !single && !next.merge_ok {
                return (at, seq, Event::Forward { link: nl, slot, counted: false });
            }
            // It may go on at once if the link will be idle when it gets there (packets wait
            // in its queue only behind a pending TxDone), no packet is on its way there by
            // an event, and, at a merge, no packet sent on any other input from now on can
            // get there first.
            if next.pending > 0 || next.txdone_pending || at < next.busy_until || at >= self.end || (!single && at > self.now + next.lookahead) {
                next.pending += 1;
                return (at, seq, Event::Forward { link: nl, slot, counted: true });
            }
            debug_assert!(next.queue.is_empty());
            // The packet reaches `node` at `at` and leaves at once on `nl`.
            next.count_cut_through(pkt.size);
            let tx = next.tx_time(pkt.size);
            next.busy_until = at + tx;
            next.idle_notified = false;
            next.busy_ns += tx.0;
            next.bin_busy_ns += tx.0;
            // ns-2 numbers these two events while processing the arrival at `node`, at `at`.
            seq = self.sched.reserve_as_of(at, 2);
            next.txdone_seq = seq + 1;
            at = next.busy_until + next.delay;
            last = nl;
        }
        (at, seq, self.arrival(last, pkt, slot))
    }

    /// The transmission ending now had a packet waiting behind it.
    fn tx_done(&mut self, l: u32) {
        self.links[l as usize].txdone_pending = false;
        match self.dequeue(l) {
            Some(next) => self.start_tx(l, next, true),
            // (front drops emptied the queue) dequeue() told the discipline it is idle.
            None => self.links[l as usize].idle_notified = true,
        }
    }

    /// The packet kept in `slot`, which is free again.
    #[inline(always)]
    fn take(&mut self, slot: u32) -> Packet {
        self.free_slots.push(slot);
        self.in_flight[slot as usize]
    }

    /// A packet reaches a node and goes on on link `l`.
    fn forward(&mut self, l: u32, slot: u32, counted: bool) {
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

    // ------------------------------------------------------------------ agents

    fn deliver(&mut self, pkt: Packet) {
        let now = self.now;
        let fi = pkt.flow as usize;
        let flow = &mut self.flows[fi];
        match (&mut flow.agent, pkt.kind) {
            (Agent::Tcp { sink, .. }, Kind::Data) => {
                let dst = flow.dst;
                if self.delays.on {
                    self.delays.add_e2e(fi, now.saturating_since(pkt.t_sent).secs());
                }
                let ack = sink.recv(&pkt, now);
                let timer = ack.is_none() && sink.wants_timer();
                if sink.flushed.is_some() {
                    // DCTCP: the ACK a CE change released goes first
                    self.send_early_ack(fi, dst);
                }
                match ack {
                    Some(ack) => self.send_from(dst, ack),
                    None if timer => self.arm_delack(fi),
                    None => {}
                }
            }
            (Agent::Tcp { snd, .. }, Kind::Ack) => {
                let mut out = std::mem::take(&mut self.out);
                snd.recv_ack(&pkt, now, &mut out);
                if flow.transfer.is_some() {
                    self.check_transfer(fi);
                }
                self.flush(fi, out);
            }
            (Agent::Cbr(c), Kind::Udp) => {
                if self.delays.on {
                    self.delays.add_e2e(fi, now.saturating_since(pkt.t_sent).secs());
                }
                c.received += 1;
                c.received_bytes += pkt.size as u64;
                c.delay_sum_ns += now.saturating_since(pkt.t_sent).0 as f64;
            }
            _ => debug_assert!(false, "packet kind does not match the flow's agent"),
        }
    }

    /// Send what a TCP sender produced and keep its timer event in step with its deadline.
    fn flush(&mut self, fi: usize, mut out: Vec<Packet>) {
        let src = self.flows[fi].src;
        for p in out.drain(..) {
            self.send_from(src, p);
        }
        self.out = out;
        self.sync_timer(fi);
        if self.tracer.is_some() {
            self.trace_timer(fi);
        }
        if self.tcp_traced[fi] {
            self.watch_tcp(fi);
        }
    }

    fn sync_timer(&mut self, fi: usize) {
        let flow = &mut self.flows[fi];
        if let Agent::Tcp { snd, .. } = &flow.agent {
            if let Some(d) = snd.rtx_deadline() {
                if flow.timer_at.map_or(true, |e| e > d) {
                    flow.timer_at = Some(d);
                    self.sched.schedule(d, Event::RtxTimer { flow: fi as u32, gen: 0 });
                }
            }
        }
    }

    fn rtx_timer(&mut self, f: u32) {
        let fi = f as usize;
        let now = self.now;
        let flow = &mut self.flows[fi];
        if flow.timer_at == Some(now) {
            flow.timer_at = None;
        }
        let fire = match &flow.agent {
            Agent::Tcp { snd, .. } => snd.rtx_deadline() == Some(now),
            Agent::Cbr(_) => false,
        };
        if fire {
            if let Agent::Tcp { snd, .. } = &mut self.flows[fi].agent {
                let mut out = std::mem::take(&mut self.out);
                snd.on_timeout(now, &mut out);
                self.flush(fi, out);
            }
        } else {
            self.sync_timer(fi);
        }
    }

    /// DCTCP: send the delayed ACK that a CE change released early (before the ACK of the
    /// packet that changed it, if any).
    #[cold]
    #[inline(never)]
    fn send_early_ack(&mut self, fi: usize, dst: u32) {
        let Agent::Tcp { sink, .. } = &mut self.flows[fi].agent else { return };
        if let Some(early) = sink.flushed.take() {
            self.send_from(dst, early);
        }
    }

    /// Arm flow `fi`'s delayed-ACK timer for the packet its sink just held back.
    #[inline]
    fn arm_delack(&mut self, fi: usize) {
        let Agent::Tcp { sink, .. } = &self.flows[fi].agent else { return };
        let (interval, gen) = (sink.delack_interval, sink.delack_gen);
        let at = self.now + Dur::from_secs(interval);
        if let Some(t) = &mut self.tracer {
            t.delack_d[fi] = t.now_d + interval;
        }
        self.sched.schedule(at, Event::DelAck { flow: fi as u32, gen });
    }

    fn delack(&mut self, f: u32, gen: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let dst = flow.dst;
        if let Agent::Tcp { sink, .. } = &mut flow.agent {
            if let Some(ack) = sink.on_delack_timer(gen, now) {
                self.send_from(dst, ack);
            }
        }
    }

    fn start(&mut self, f: u32) {
        let fi = f as usize;
        let now = self.now;
        let flow = &mut self.flows[fi];
        match &mut flow.agent {
            Agent::Tcp { snd, .. } => {
                let mut out = std::mem::take(&mut self.out);
                match &flow.transfer {
                    Some(t) => snd.advance(t.to_send(), now, &mut out),
                    None => snd.start_bulk(now, &mut out),
                }
                self.flush(fi, out);
            }
            Agent::Cbr(c) => {
                c.running = true;
                if c.is_onoff() {
                    // ns-2's TrafficGenerator::start: the first packet after the first gap
                    let (gap, gap_s) = c.next_gap();
                    self.sched.schedule(now + gap, Event::CbrSend { flow: f });
                    if let Some(t) = &mut self.tracer {
                        t.cbr_d[fi] = t.now_d + gap_s;
                    }
                } else {
                    self.cbr_send(f);
                }
            }
        }
    }

    fn stop(&mut self, f: u32) {
        match &mut self.flows[f as usize].agent {
            Agent::Tcp { snd, .. } => snd.stop(),
            Agent::Cbr(c) => c.running = false,
        }
    }

    fn cbr_send(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let (src, dst) = (flow.src, flow.dst);
        if let Agent::Cbr(c) = &mut flow.agent {
            if !c.running || now >= flow.stop {
                return;
            }
            let (gap, gap_s) = c.next_gap();
            self.sched.schedule(now + gap, Event::CbrSend { flow: f });
            if let Some(t) = &mut self.tracer {
                t.cbr_d[f as usize] = t.now_d + gap_s;
            }
            // a burst: its packets handed to the network at once, back to back
            let (first, burst, size) = (c.sent, c.burst() as u64, c.size);
            c.sent += burst;
            for k in 1..=burst {
                let pkt = Packet::new(Kind::Udp, f, (first + k) as i32, size, dst, now);
                self.send_from(src, pkt);
            }
        }
    }

    // ------------------------------------------------------------------ monitors

    fn sample(&mut self) {
        let now = self.now;
        for &l in &self.monitored {
            let link = &mut self.links[l as usize];
            link.queue.aqm.advance(now);
            let st = link.queue.aqm.state();
            let s = &mut self.samples;
            s.t.push(self.now.secs());
            s.link.push(l);
            s.len_pkts.push(link.queue.len());
            s.len_bytes.push(link.queue.bytes());
            s.avg.push(st.avg);
            s.p.push(st.p);
            s.max_p.push(st.max_p);
            s.min_th.push(st.min_th);
            s.max_th.push(st.max_th);
            s.delay.push(st.delay);
            s.count.push(st.count);
        }
        let next = self.now + self.sample_dt;
        if next <= self.end {
            self.sched.schedule(next, Event::Sample);
        }
    }

    fn link_bin(&mut self) {
        let now = self.now;
        for &l in &self.monitored {
            let link = &mut self.links[l as usize];
            let span = now.saturating_since(link.bin_start).0;
            let (busy, beyond) = link.bin_busy(now);
            if span > 0 {
                self.bins.t.push(link.bin_start.secs());
                self.bins.link.push(l);
                self.bins.utilisation.push(busy as f64 / span as f64);
            }
            link.bin_busy_ns = beyond;
            link.bin_start = now;
        }
        let next = now + self.link_dt;
        if next <= self.end {
            self.sched.schedule(next, Event::LinkBin);
        }
    }

    // ------------------------------------------------------------------ results

    /// Collect the results (call after `run_until` reached the end).
    pub fn finish(mut self) -> RunResults {
        let now = self.end;
        self.now = now;
        self.drops.finish_spill();
        if let Some(t) = &mut self.tracer {
            t.finish();
        }
        self.tcp_log.finish_spill();
        self.rtt_log.finish_spill();
        // Close the last utilisation bin and the time integrals.
        if !self.monitored.is_empty() {
            let last = self.links[self.monitored[0] as usize].bin_start;
            if now > last {
                self.link_bin();
            }
        }
        for l in &mut self.links {
            l.settle_counts();
            l.queue.settle(now);
            // The part of a transmission beyond the end of the run is not busy time of the run.
            l.busy_ns -= l.busy_until.saturating_since(now).0;
        }
        let dur_ns = now.0.max(1) as f64;
        let dur = self.duration;
        let mut s = Summary::default();
        s.put("duration", dur);
        s.put("seed", self.seed as f64);
        s.put("events", self.events() as f64);
        if let Some(&b) = self.monitored.first() {
            let link = &self.links[b as usize];
            let st = &link.queue.stats;
            s.put("bottleneck_arrivals", st.arrivals as f64);
            s.put("bottleneck_departures", st.departures as f64);
            s.put("bottleneck_drops", st.dropped() as f64);
            s.put("drops_early", st.drops[0] as f64);
            s.put("drops_forced", st.drops[1] as f64);
            s.put("drops_overflow", st.drops[2] as f64);
            s.put("marks", st.marks as f64);
            s.put("marks_departed", st.marked_departures as f64);
            s.put("bottleneck_queued_end", link.queue.len() as f64);
            s.put("time_avg_queue_pkts", st.area_pkt_ns as f64 / dur_ns);
            s.put("time_avg_queue_bytes", st.area_byte_ns as f64 / dur_ns);
            s.put("max_queue_pkts", st.max_len as f64);
            s.put("mean_queueing_delay_s", if st.departures > 0 { st.qdelay_sum_ns as f64 / st.departures as f64 * 1e-9 } else { 0.0 });
            if link.schedule.is_empty() {
                // busy time inside the run (a transmission running past the end counts only
                // up to it): at most 1
                s.put("utilisation", link.busy_ns as f64 / dur_ns);
                // ns-2's QueueMonitor definition: every packet whose transmission started in
                // the run counts whole (bdepartures_ · 8 / (rate · duration))
                s.put("utilisation_started", st.departure_bytes as f64 * 8.0 / (link.rate_bps * dur));
                s.put("bottleneck_rate_bps", link.rate_bps);
            } else {
                self.varying_utilisation(b as usize, &mut s);
            }
            s.put("loss_ratio", if st.arrivals > 0 { st.dropped() as f64 / st.arrivals as f64 } else { 0.0 });
        }
        let mut ft = FlowTable::default();
        let mut tputs = Vec::new();
        let (mut tot_thr, mut tot_good, mut dsum, mut dn) = (0.0, 0.0, 0.0, 0u64);
        let (mut tot_sent, mut tot_rtx, mut tot_to) = (0u64, 0u64, 0u64);
        for (i, f) in self.flows.iter().enumerate() {
            ft.flow.push(i as u32);
            ft.label.push(f.label.clone());
            ft.src.push(self.nodes[f.src as usize].clone());
            ft.dst.push(self.nodes[f.dst as usize].clone());
            ft.start.push(f.start.secs());
            ft.stop.push(f.stop.secs());
            let q = self.per_flow[i];
            ft.queue_arrivals.push(q.arrivals);
            ft.queue_drops.push(q.drops);
            ft.queue_marks.push(q.marks);
            ft.queue_marks_departed.push(q.marked_departures);
            match &f.agent {
                Agent::Tcp { snd, sink } => {
                    let thr = sink.stats.received_bytes as f64 * 8.0 / dur;
                    let good = sink.stats.delivered_payload as f64 * 8.0 / dur;
                    ft.app.push(if f.transfer.is_some() { "web" } else { "ftp" }.into());
                    ft.variant.push(snd.p.variant.name().into());
                    ft.sent.push(snd.stats.sent);
                    ft.retransmitted.push(snd.stats.retransmitted);
                    ft.timeouts.push(snd.stats.timeouts);
                    ft.received.push(sink.stats.received);
                    ft.delivered.push(sink.stats.delivered);
                    ft.throughput_bps.push(thr);
                    ft.goodput_bps.push(good);
                    let md = if sink.stats.received > 0 { sink.stats.delay_sum_ns / sink.stats.received as f64 * 1e-9 } else { 0.0 };
                    ft.mean_delay_s.push(md);
                    tot_thr += thr;
                    tot_good += good;
                    dsum += sink.stats.delay_sum_ns;
                    dn += sink.stats.received;
                    tot_sent += snd.stats.sent;
                    tot_rtx += snd.stats.retransmitted;
                    tot_to += snd.stats.timeouts;
                    // Jain's index is over the long-lived flows: not web transfers
                    if f.transfer.is_none() {
                        tputs.push(thr);
                    }
                }
                Agent::Cbr(c) => {
                    let thr = c.received_bytes as f64 * 8.0 / dur;
                    ft.app.push(if c.is_onoff() { "onoff" } else { "cbr" }.into());
                    ft.variant.push("udp".into());
                    ft.sent.push(c.sent);
                    ft.retransmitted.push(0);
                    ft.timeouts.push(0);
                    ft.received.push(c.received);
                    ft.delivered.push(c.received);
                    ft.throughput_bps.push(thr);
                    ft.goodput_bps.push(thr);
                    ft.mean_delay_s.push(if c.received > 0 { c.delay_sum_ns / c.received as f64 * 1e-9 } else { 0.0 });
                    tot_thr += thr;
                    tot_good += thr;
                    // mean_e2e_delay_s is over every flow's packets, UDP ones too
                    dsum += c.delay_sum_ns;
                    dn += c.received;
                }
            }
        }
        s.put("throughput_bps", tot_thr);
        s.put("goodput_bps", tot_good);
        s.put("packets_sent", tot_sent as f64);
        s.put("packets_retransmitted", tot_rtx as f64);
        s.put("timeouts", tot_to as f64);
        s.put("mean_e2e_delay_s", if dn > 0 { dsum / dn as f64 * 1e-9 } else { 0.0 });
        s.put("jain_fairness", jain(&tputs));
        self.transfer_results(&mut ft, &mut s);
        let delay_cdf = self.delay_results(&mut ft, &mut s);
        RunResults {
            summary: s,
            queue: self.samples,
            drops: self.drops,
            tcp: self.tcp_log,
            rtt: self.rtt_log,
            delay_cdf,
            trace_error: self.tracer.as_ref().and_then(|t| t.error.clone()),
            flows: ft,
            links: self.bins,
            link_names: self.links.iter().map(|l| l.name.clone()).collect(),
            resolved: self.resolved,
        }
    }
}

/// Check, build and run a scenario given as JSON (the Python entry point). With
/// `spill_dir`, the drop log keeps at most a chunk in memory and writes the rest to
/// unlinked files there ([`DropLog::spill_to`]): memory stays flat however long the run.
pub fn run_json(json: &str, seed: Option<u64>, spill_dir: Option<std::path::PathBuf>) -> crate::error::Result<RunResults> {
    let spec = crate::scenario::from_json(json)?;
    let seed = seed.unwrap_or(spec.seed);
    let model = crate::scenario::build::build(&spec, seed)?;
    let mut sim = Simulation::new(model);
    if let Some(dir) = spill_dir {
        sim.drops.spill_to(dir.clone());
        sim.tcp_log.spill_to(dir.clone());
        sim.rtt_log.spill_to(dir);
    }
    sim.try_run()
}

/// Check and build a scenario given as TOML.
pub fn run_toml(toml: &str, seed: Option<u64>) -> crate::error::Result<RunResults> {
    let spec = crate::scenario::from_toml(toml)?;
    let seed = seed.unwrap_or(spec.seed);
    let model = crate::scenario::build::build(&spec, seed)?;
    Simulation::new(model).try_run()
}
