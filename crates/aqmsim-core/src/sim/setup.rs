//! Building a [`Simulation`] from a [`Model`]: links and their queues, agents, the
//! cut-through shortcuts (which links may hand packets on without an event), and the trace
//! files.

use super::{delays, trace_hooks, Agent, Cbr, Flow, FlowAtQueue, Simulation};
use crate::aqm::QueueDisc;
use crate::monitor::{DropLog, LinkBins, QueueSamples, RttLog, TcpLog};
use crate::net::{link_inputs, Link, Routes, NO_FEEDER};
use crate::rng::{stream, Rng};
use crate::scenario::build::TraceFormat;
use crate::scenario::{AppModel, Model};
use crate::sched::Scheduler;
use crate::tcp::{TcpSender, TcpSink};
use crate::time::{Dur, SimTime};
use super::{onoff, web};

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
        // CAKE's host isolation needs each flow's end nodes
        let flow_hosts: Vec<(u32, u32)> = model.flows.iter().map(|f| (f.src, f.dst)).collect();
        let links: Vec<Link> = model
            .links
            .into_iter()
            .map(|l| {
                let mut aqm = l.aqm;
                if let crate::aqm::AnyAqm::Cake(c) = &mut aqm {
                    c.flow_hosts = flow_hosts.clone();
                }
                let mut link = Link::new(l.from, l.to, l.rate_bps, l.delay_s, QueueDisc::new(aqm), l.name);
                link.set_drop_seqs(l.drop_seqs);
                link.schedule = l.rate_schedule;
                link.set_device_queue(l.device_queue);
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
                    if p.stack == crate::tcp::linux::Stack::Linux {
                        return super::linux_hooks::linux_agent(p, i as u32, f.src, f.dst, r);
                    }
                    let mut snd = TcpSender::new(p, i as u32, f.dst, boot);
                    if let Some(spec) = snd.p.cc_plugin.clone() {
                        // a Python congestion control in ns-2's NewReno agent (tcp/sender/plugin_glue.rs)
                        snd.set_plugin_cc(super::linux_hooks::plugin_instance(&spec), &spec.path);
                    }
                    Agent::Tcp { snd, sink }
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
        let target = |i: usize, l: &Link| !no_cut(i) && l.schedule.is_empty() && l.queue.transparent_when_idle() && l.drop_seqs.is_empty() && !l.has_dev && !model.monitored.contains(&(i as u32)) && !inputs.from_agent[i];
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
        // each link's lookahead: its delay plus the smallest packet's serialisation at its
        // highest rate (what a merge, and a run on two threads, may count on)
        let link_la: Vec<Dur> = links.iter_mut().zip(&max_rates).map(|(l, &top)| l.delay + l.fastest_tx_time(min_size, top)).collect();
        for (i, feeders) in merge_inputs.iter().enumerate() {
            links[i].lookahead = feeders.iter().map(|&j| link_la[j as usize]).min().unwrap_or(Dur::ZERO);
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
            deferred: Vec::new(),
            merge_due: SimTime(u64::MAX),
            merge_counts: (0, 0),
            in_flight: Vec::with_capacity(1024),
            free_slots: Vec::with_capacity(1024),
            split: false,
            link_cls: Vec::new(),
            link_la: Vec::new(),
            role: 0,
            port: None,
            other_events: 0,
        };
        sim.primary = primary;
        sim.link_la = link_la;
        sim.classify();
        sim.has_timers = sim.links.iter().any(|l| l.queue.aqm.has_timers());
        sim.set_cut_through(true);
        sim.per_flow = vec![FlowAtQueue::default(); nflows];
        sim
    }

    /// Number the events of a linux-stack run by class (`sched`'s module docs, "Classes"):
    /// the links out of hosts that only send (no flow ends there) are the senders' side.
    /// A run with an ns-2-stack TCP flow keeps the single counter, ns-2's order.
    fn classify(&mut self) {
        let linux = self.flows.iter().any(|f| matches!(f.agent, Agent::Linux { .. }));
        let ns2 = self.flows.iter().any(|f| matches!(f.agent, Agent::Tcp { .. }));
        let mut sender_host = vec![false; self.nodes.len()];
        for f in &self.flows {
            sender_host[f.src as usize] = true;
        }
        for f in &self.flows {
            sender_host[f.dst as usize] = false;
        }
        self.link_cls = self.links.iter().map(|l| if sender_host[l.from as usize] { super::SENDERS } else { super::NETWORK }).collect();
        self.split = linux && !ns2;
        if self.split {
            self.sched.use_classes();
        }
    }

    /// Switch cut-through (see [`Simulation::start_tx`]) off or back on, before the run
    /// starts. It changes the number of events, not the outcome: the skipped hop's event
    /// numbers are taken as of the time the packet reaches it, so same-instant events keep
    /// their order (the tests run scenarios both ways and compare every result).
    pub fn set_cut_through(&mut self, on: bool) {
        assert!(!self.started, "set_cut_through after the run started");
        // A run numbered by class takes no shortcut from one side to the other: what one
        // side decides depends on its own state alone (`parallel/`).
        let cls = &self.link_cls;
        let same = |a: usize, b: usize| !self.split || cls[a] == cls[b];
        for (i, l) in self.links.iter_mut().enumerate() {
            let f = self.cut_from_all[i];
            l.cut_from = if on && (f == NO_FEEDER || same(f as usize, i)) { f } else { NO_FEEDER };
            l.merge_ok = on && !self.merge_inputs[i].is_empty() && self.merge_inputs[i].iter().all(|&j| same(j as usize, i));
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
}
