//! One run on two cores: the senders' side and the rest of the network, each an event loop
//! of its own, exchanging the packets that cross between them.
//!
//! A linux-stack run numbers its events by class (`sched`'s module docs, "Classes"): the
//! senders' side (the TCP senders, their timers, the links out of hosts that only send)
//! and the network (queues, links, sinks, monitors). What one side does depends only on
//! its own events and on the packets the other hands it, and every event's place among its
//! instant's events depends only on its own side. So the two sides can run apart, each on
//! its own core, and still run every event in the order one core would: the results are
//! the same bit for bit (`tests/it/parallel.rs` compares whole runs both ways).
//!
//! **Conservative synchronisation.** A packet leaving one side reaches the other no sooner
//! than a *lookahead* later (the least delay plus serialisation of the links between
//! them: the access links' in a dumbbell, 1 ms each way in the benchmarks). Each side
//! publishes a clock, a time before which it will send nothing more, and runs an event only
//! if it comes before the other's clock plus that lookahead: nothing can arrive before it
//! any more. The packets travel in a lock-free ring per direction, published with the clock
//! (`exchange.rs`). The drops and marks of both sides are merged into one log in the order
//! of their events.
//!
//! **When.** A run takes two threads when it can (`Simulation::parallel_plan`): a
//! linux-stack run whose hosts that send receive nothing but ACKs, with no packet trace,
//! plug-in or web transfer, monitors on the network side only, a lookahead of at least
//! 10 µs each way; and when it pays (`Simulation::parallel_pays`): a sender that paces, and
//! about [`MIN_PACKETS`] packets at the bottleneck or more; on a machine with two cores or
//! more, none of them busy with another process when the run starts (the
//! two sides advance in steps of a few microseconds of wall time: a side taken off its core
//! stalls the other). `AQMSIM_THREADS=1` asks for one thread, `AQMSIM_THREADS=2` for two
//! whenever the scenario can split. A limit reached (`max_events`, `max_packets`) makes the
//! run start again on one thread, which reports it as it always does.

mod exchange;

use super::run::Stop;
use super::{Agent, RunResults, Simulation, NETWORK, SENDERS};
use crate::monitor::Spilling;
use crate::time::{Dur, SimTime};
use exchange::Shared;
pub(super) use exchange::Port;
use std::sync::atomic::Ordering;

/// Events a side runs between two publications of its clock. On the 100-flow BBR
/// benchmark, against 4: 1 and 2 took 1.2–1.35× as long (leaving the event loop each time),
/// 8 1.05×, 16 1.15×, 32 1.3× (the other side waits longer for news).
const PUBLISH_EVERY: u64 = 4;
/// Polls of the other side's clock before a waiting side yields its core.
const SPINS: u32 = 1000;
/// The least lookahead worth two threads.
const MIN_LOOKAHEAD: Dur = Dur(10_000);
/// Estimated packets at the bottleneck below which one thread is as fast.
pub const MIN_PACKETS: f64 = 50_000.0;

/// Whether and how a run takes two threads.
#[derive(Copy, Clone, Debug)]
pub struct Plan {
    /// Lookahead from the senders' side to the network, and back.
    pub to_network: Dur,
    pub to_senders: Dur,
}

impl Simulation {
    /// Can this run take two threads, and with what lookaheads (see the module docs)?
    pub fn parallel_plan(&self) -> Option<Plan> {
        if !self.split || self.trace_spec.is_some() || self.web {
            return None;
        }
        let plugin_aqm = self.links.iter().any(|l| matches!(l.queue.aqm, crate::aqm::AnyAqm::Plugin(_)));
        let plugin_cc = self.flows.iter().any(|f| match &f.agent {
            Agent::Linux { snd, .. } => snd.p.cc_plugin.is_some(),
            _ => false,
        });
        if plugin_aqm || plugin_cc || self.flows.iter().any(|f| f.transfer.is_some()) {
            return None;
        }
        if self.monitored.iter().any(|&l| self.link_cls[l as usize] != NETWORK) {
            return None;
        }
        let sender_node = |n: u32| self.links.iter().zip(&self.link_cls).any(|(l, &c)| l.from == n && c == SENDERS);
        let mut to_network: Option<Dur> = None;
        let mut to_senders: Option<Dur> = None;
        for ((l, &c), &la) in self.links.iter().zip(&self.link_cls).zip(&self.link_la) {
            if c == SENDERS {
                // a senders' link ends in the network, and loses nothing on purpose
                if sender_node(l.to) || l.has_drop_seqs {
                    return None;
                }
                to_network = Some(to_network.map_or(la, |d| d.min(la)));
            } else if sender_node(l.to) {
                to_senders = Some(to_senders.map_or(la, |d| d.min(la)));
            }
        }
        let (to_network, to_senders) = (to_network?, to_senders?);
        if to_network < MIN_LOOKAHEAD || to_senders < MIN_LOOKAHEAD {
            return None;
        }
        Some(Plan { to_network, to_senders })
    }

    /// Would two threads pay? With about [`MIN_PACKETS`] packets or more at the bottleneck
    /// (the first monitored link; else the fastest link), and a sender that paces: a paced
    /// segment's timer event puts about half the work on the senders' side (BBR 0.65× the
    /// time of one thread, Prague 0.67×); unpaced, the network side carries most of it and
    /// the two sides wait for each other (CUBIC 1.05×, NewReno 0.87×, with wider spreads).
    pub fn parallel_pays(&self) -> bool {
        let top = |l: &super::Link| l.schedule.iter().map(|&(_, r)| r).fold(l.rate_bps, f64::max);
        let rate = match self.monitored.first() {
            Some(&b) => top(&self.links[b as usize]),
            None => self.links.iter().map(top).fold(0.0, f64::max),
        };
        let paced = self.flows.iter().any(|f| matches!(&f.agent, Agent::Linux { snd, .. } if snd.pacer.on));
        paced && self.duration * rate / 8.0 / 1500.0 >= MIN_PACKETS
    }

    /// Run this side to the end. False if it stopped early (a limit, or the other side
    /// aborted): the run is then made again on one thread.
    fn run_side(&mut self) -> bool {
        self.started = true;
        self.init();
        let end = self.end;
        while !self.ended {
            let horizon = self.port.as_ref().expect("port").horizon;
            let limit = end.min(SimTime(horizon.saturating_sub(1)));
            let n = self.sched.events_processed();
            match self.run_events(limit, self.next_check.min(n + PUBLISH_EVERY)) {
                Stop::Ended => break,
                Stop::Count => {
                    let n = self.sched.events_processed();
                    if n >= self.next_check && self.check_limits(n) {
                        return false;
                    }
                    let now = self.now.0;
                    let port = self.port.as_mut().expect("port");
                    port.publish(now);
                    if port.shared.abort.load(Ordering::Relaxed) {
                        return false;
                    }
                    continue;
                }
                Stop::Idle => {}
            }
            // nothing to run before the limit: a merge decision due, or wait for the other
            let next = self.sched.next_time().unwrap_or(SimTime(u64::MAX)).min(self.merge_due);
            if next.0 < horizon && self.merge_due <= next && self.merge_due < end {
                self.commit_merges();
                continue;
            }
            if next > end && horizon > end.0 {
                break;
            }
            if !self.wait_for(next.0) {
                return false;
            }
        }
        // everything this side sends from now on arrives after the end
        self.port.as_mut().expect("port").publish(u64::MAX);
        true
    }

    /// Read the other side's clock and messages without waiting.
    fn refresh(&mut self) {
        let port = self.port.as_mut().expect("port");
        let p = port.shared.clocks[port.other()].0.load(Ordering::Acquire);
        port.horizon = p.saturating_add(port.lookahead);
        self.drain();
        if self.role == NETWORK {
            // final: the senders' side's drops before its clock, this side's before now
            self.flush_drops(SimTime(p).min(self.now));
        }
    }

    /// Wait until an event at `next` (or one the other side sends before it) may run.
    /// False if the run was aborted.
    fn wait_for(&mut self, mut next: u64) -> bool {
        let mut spins = 0u32;
        loop {
            self.refresh();
            next = next.min(self.sched.next_time().map_or(u64::MAX, |t| t.0));
            let port = self.port.as_mut().expect("port");
            if next < port.horizon {
                return true;
            }
            port.publish(next.min(port.horizon));
            if port.shared.abort.load(Ordering::Relaxed) {
                return false;
            }
            spins += 1;
            if spins < SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Stop the other side (this one hit a limit or panicked).
    fn abort_side(&mut self) {
        if let Some(port) = self.port.as_mut() {
            port.shared.abort.store(true, Ordering::Relaxed);
            port.publish(u64::MAX);
        }
    }

    /// Take the network side's part of the results into this, the senders' side.
    fn take_network_side(&mut self, mut net: Simulation) {
        for (l, &c) in self.link_cls.iter().enumerate() {
            if c == NETWORK {
                std::mem::swap(&mut self.links[l], &mut net.links[l]);
            }
        }
        for (mine, theirs) in self.flows.iter_mut().zip(net.flows.iter_mut()) {
            match (&mut mine.agent, &mut theirs.agent) {
                (Agent::Linux { sink: a, .. }, Agent::Linux { sink: b, .. }) => std::mem::swap(a, b),
                (Agent::Cbr(a), Agent::Cbr(b)) => {
                    a.received = b.received;
                    a.received_bytes = b.received_bytes;
                    a.delay_sum_ns = b.delay_sum_ns;
                }
                // (no ns-2 agent: a run with one is numbered by one counter and never splits)
                _ => unreachable!("both sides are built from one model"),
            }
        }
        self.per_flow = std::mem::take(&mut net.per_flow);
        self.samples = std::mem::take(&mut net.samples);
        self.bins = std::mem::take(&mut net.bins);
        std::mem::swap(&mut self.delays, &mut net.delays);
        self.drops = std::mem::take(&mut net.drops);
        self.merge_counts = net.merge_counts;
        // both sides ran the end marker
        self.other_events = net.sched.events_processed() - 1;
    }
}

/// How many threads `AQMSIM_THREADS` asks for: 1, at least 2 (whenever the scenario can
/// split, however small), or None (unset or not a number: decide by itself).
fn threads_asked() -> Option<usize> {
    std::env::var("AQMSIM_THREADS").ok().and_then(|v| v.trim().parse::<usize>().ok())
}

/// Some other process is running now on a machine of `cores` cores, so that the two sides
/// would not get a core each. Read from the kernel's count of running threads less this
/// process's own (the thread asking, and any other of its threads running now, such as the
/// command line's, importing its modules while the run goes): the least of three reads, so
/// that a process just passing does not count.
fn machine_busy(cores: usize) -> bool {
    let running = || -> Option<usize> {
        let text = std::fs::read_to_string("/proc/loadavg").ok()?;
        text.split_whitespace().nth(3)?.split('/').next()?.parse().ok()
    };
    let own = || -> usize {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 1 };
        let running = |e: std::fs::DirEntry| -> Option<bool> {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // the state follows the command's closing parenthesis
            Some(stat.rsplit_once(')')?.1.trim_start().starts_with('R'))
        };
        tasks.filter_map(|e| e.ok()).filter_map(running).filter(|&r| r).count().max(1)
    };
    let mut least = usize::MAX;
    for _ in 0..3 {
        match running() {
            Some(r) => least = least.min(r.saturating_sub(own())),
            None => return false,
        }
        std::thread::sleep(std::time::Duration::from_micros(50));
    }
    least + 2 > cores
}

/// Run `model` on two threads if it can and it pays (see the module docs), else on one.
pub fn run_model(model: crate::scenario::Model, spill_dir: Option<std::path::PathBuf>) -> crate::error::Result<RunResults> {
    run_model_threads(model, spill_dir, threads_asked())
}

/// [`run_model`] with `threads` asked for as `AQMSIM_THREADS` would: `Some(1)` one thread,
/// `Some(2)` two whenever the scenario can split, None decide by itself.
pub fn run_model_threads(model: crate::scenario::Model, spill_dir: Option<std::path::PathBuf>, threads: Option<usize>) -> crate::error::Result<RunResults> {
    let fresh = |m: crate::scenario::Model| {
        let mut sim = Simulation::new(m);
        if let Some(dir) = &spill_dir {
            sim.drops.spill_to(dir.clone());
            sim.tcp_log.spill_to(dir.clone());
            sim.rtt_log.spill_to(dir.clone());
        }
        sim
    };
    let first = fresh(model.clone());
    let plan = match threads {
        Some(n) if n < 2 => None,
        Some(_) => first.parallel_plan(),
        None => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            match first.parallel_plan() {
                Some(p) if first.parallel_pays() && cores >= 2 && !machine_busy(cores) => Some(p),
                _ => None,
            }
        }
    };
    let Some(plan) = plan else { return first.try_run() };
    match run_two(first, fresh(model.clone()), plan) {
        Some(sim) => sim.try_run_finished(),
        None => fresh(model).try_run(),
    }
}

/// Run `model` on two threads, however small (tests): None if it cannot split, or had to
/// start again on one thread.
pub fn run_on_two_threads(model: crate::scenario::Model) -> Option<crate::error::Result<RunResults>> {
    let first = Simulation::new(model.clone());
    let plan = first.parallel_plan()?;
    run_two(first, Simulation::new(model), plan).map(Simulation::try_run_finished)
}

/// Run the two sides, each on its own thread; the merged simulation, or None if the run
/// must be made again on one thread.
fn run_two(mut senders: Simulation, mut network: Simulation, plan: Plan) -> Option<Simulation> {
    let shared = Shared::new();
    senders.role = SENDERS;
    senders.port = Some(Box::new(Port::new(&shared, 0, plan.to_senders)));
    network.role = NETWORK;
    network.port = Some(Box::new(Port::new(&shared, 1, plan.to_network)));
    let side = |sim: &mut Simulation| {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sim.run_side())) {
            Ok(true) => true,
            Ok(false) => {
                sim.abort_side();
                false
            }
            Err(p) => {
                sim.abort_side();
                std::panic::resume_unwind(p)
            }
        }
    };
    let (ok_s, ok_n) = std::thread::scope(|s| {
        let h = s.spawn(|| side(&mut network));
        let ok_s = side(&mut senders);
        let ok_n = match h.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        };
        (ok_s, ok_n)
    });
    if !ok_s || !ok_n {
        return None;
    }
    exchange::merge_last_drops(&mut senders, &mut network);
    senders.port = None;
    senders.role = 0;
    network.port = None;
    senders.take_network_side(network);
    if senders.events() > senders.max_events {
        return None;
    }
    Some(senders)
}
