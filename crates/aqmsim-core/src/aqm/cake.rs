//! CAKE, Common Applications Kept Enhanced, as Linux's `sch_cake` (net/sched/sch_cake.c)
//! runs it with one tin (`besteffort`): flows hashed set-associatively into 1024 queues
//! ([`super::cake_hash`]), DRR++ over new/old/decaying lists whose quantum is divided by
//! the number of bulk flows of the flow's busiest host (triple isolation), COBALT in every
//! queue (Linux's flavour, [`super::cobalt`]), the memory limit enforced by dropping from
//! the longest queue, the optional ACK filter ([`super::cake_ack`]) and the deficit-mode
//! shaper (`bandwidth`; unlimited by default).
//!
//! Not modelled (docs/aqm/cake.md has every reading and departure): diffserv tins (one
//! best-effort tin), ingress mode and autorate, GSO splitting, NAT lookups, wash, fwmark;
//! memory is counted in packet bytes, not `skb->truesize`.

use super::cake_modes::{CakeHost, FlowMode, CAKE_QUEUES};
use super::cobalt::{CobaltParams, CobaltVars, Flavor};
use super::owner::PacketOwner;
use super::queue::{Enqueued, FrontEvent};
use super::{Aqm, AqmState, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

/// `ack-filter` / `ack-filter-aggressive` / `no-ack-filter` (the default).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckFilter {
    Off,
    On,
    Aggressive,
}

/// CAKE's parameters (`tc-cake(8)`).
#[derive(Clone, Debug, PartialEq)]
pub struct CakeParams {
    /// Shaper rate, bits/s; None = unlimited (the default).
    pub bandwidth_bps: Option<f64>,
    /// `rtt`, the COBALT interval before adjustment, ns (100 ms).
    pub rtt_ns: u64,
    /// COBALT target before adjustment, ns (5 ms).
    pub target_ns: u64,
    pub mode: FlowMode,
    pub ack_filter: AckFilter,
    /// `memlimit`, bytes; None = Linux's rule (see [`Cake::new`]).
    pub memlimit: Option<u64>,
    /// Per-packet overhead added for the shaper, bytes (`overhead`; None = raw, the default).
    pub overhead: Option<i32>,
    /// Minimum packet size for the shaper, bytes (`mpu`, 0).
    pub mpu: u32,
    /// MTU the target adjustment and the buffer default use, bytes (1500).
    pub mtu: u32,
    /// Salt of the flow and host hashes.
    pub perturbation: u32,
}

impl Default for CakeParams {
    fn default() -> Self {
        CakeParams {
            bandwidth_bps: None,
            rtt_ns: 100_000_000,
            target_ns: 5_000_000,
            mode: FlowMode::TripleIsolate,
            ack_filter: AckFilter::Off,
            memlimit: None,
            overhead: None,
            mpu: 0,
            mtu: 1500,
            perturbation: 0,
        }
    }
}

/// Linux `CAKE_SET_*`: which rotation a queue is counted in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CakeSet {
    None,
    Sparse,
    /// Counted as sparse, served in the bulk rotation.
    SparseWait,
    Bulk,
    Decaying,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
    Decaying,
}

#[derive(Clone, Debug)]
pub struct CakeFlow {
    pub buf: VecDeque<Packet>,
    pub backlog: u64,
    pub deficit: i32,
    pub set: CakeSet,
    list: Option<List>,
    pub cvars: CobaltVars,
    pub srchost: u16,
    pub dsthost: u16,
}

/// Linux `quantum_div`: 65535 / i (i ≥ 1), 65535 for 0.
#[inline]
pub fn quantum_div(i: u32) -> u32 {
    if i == 0 {
        65535
    } else {
        65535 / i
    }
}

#[derive(Clone, Debug)]
pub struct Cake {
    pub params: CakeParams,
    /// COBALT's parameters after Linux's adjustment to the rate (`cake_set_rate`).
    pub cparams: CobaltParams,
    pub flows: Vec<CakeFlow>,
    pub(crate) tags: Vec<u32>,
    pub hosts: Vec<CakeHost>,
    new_flows: VecDeque<u16>,
    old_flows: VecDeque<u16>,
    decaying_flows: VecDeque<u16>,
    pub bulk_flow_count: u32,
    pub sparse_flow_count: u32,
    pub decaying_flow_count: u32,
    pub flow_quantum: u32,
    pub rate_ns: u64,
    pub rate_shft: u32,
    pub time_next_packet: i64,
    pub failsafe_next_packet: i64,
    pub buffer_used: u64,
    pub buffer_limit: u64,
    pub(crate) len: u32,
    /// Flow number → (source node, destination node), for host isolation.
    pub flow_hosts: Vec<(u32, u32)>,
    pub(crate) salt: u32,
    pub way_directs: u64,
    pub way_hits: u64,
    pub way_misses: u64,
    pub way_collisions: u64,
    pub ack_drops: u64,
    last_sojourn_ns: u64,
}

/// Linux `cake_set_rate`'s time-per-byte: (rate_ns, rate_shft) for `rate` bytes/s.
pub fn rate_ns_shft(rate: u64) -> (u64, u32) {
    let mut shft = 34u32;
    let mut ns = (1_000_000_000u64 << shft) / rate.max(64);
    while ns >> 34 != 0 {
        ns >>= 1;
        shft -= 1;
    }
    (ns, shft)
}

impl Cake {
    /// Linux `cake_init` + `cake_config_besteffort` + `cake_reconfigure`.
    pub fn new(params: CakeParams) -> Cake {
        let rate = params.bandwidth_bps.map(|b| (b / 8.0) as u64).unwrap_or(0);
        let (rate_ns, rate_shft, flow_quantum) = if rate > 0 {
            let (n, s) = rate_ns_shft(rate);
            (n, s, (rate >> 12).clamp(300, 1514) as u32)
        } else {
            (0, 0, 1514)
        };
        let mtu_time = (params.mtu as u64 * rate_ns) >> rate_shft;
        let target = (mtu_time * 3 / 2).max(params.target_ns);
        let interval = (params.rtt_ns + target - params.target_ns).max(2 * target);
        let cparams = CobaltParams {
            target_ns: target,
            interval_ns: interval,
            ecn: true,
            ce_threshold_ns: None,
            l4s: false,
            blue_threshold_ns: u64::MAX,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            p_drop: 0.0,
            flavor: Flavor::Linux,
            mtu_time_ns: mtu_time,
        };
        let mut limit = match (params.memlimit, rate) {
            (Some(m), _) => m,
            (None, r) if r > 0 => (r * (params.rtt_ns / 1000) / 250_000).max(4 << 20),
            _ => u32::MAX as u64,
        };
        limit = limit.min((10240 * params.mtu as u64).max(params.memlimit.unwrap_or(0)));
        let flow = CakeFlow { buf: VecDeque::new(), backlog: 0, deficit: 0, set: CakeSet::None, list: None, cvars: CobaltVars::new(&cparams), srchost: 0, dsthost: 0 };
        let salt = params.perturbation;
        Cake {
            params,
            cparams,
            flows: vec![flow; CAKE_QUEUES],
            tags: vec![0; CAKE_QUEUES],
            hosts: vec![CakeHost::default(); CAKE_QUEUES],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            decaying_flows: VecDeque::new(),
            bulk_flow_count: 0,
            sparse_flow_count: 0,
            decaying_flow_count: 0,
            flow_quantum,
            rate_ns,
            rate_shft,
            time_next_packet: 0,
            failsafe_next_packet: 0,
            buffer_used: 0,
            buffer_limit: limit,
            len: 0,
            flow_hosts: Vec::new(),
            salt,
            way_directs: 0,
            way_hits: 0,
            way_misses: 0,
            way_collisions: 0,
            ack_drops: 0,
            last_sojourn_ns: 0,
        }
    }

    fn list_mut(&mut self, l: List) -> &mut VecDeque<u16> {
        match l {
            List::New => &mut self.new_flows,
            List::Old => &mut self.old_flows,
            List::Decaying => &mut self.decaying_flows,
        }
    }

    /// `list_move_tail(flow, to)` (or `list_del` with `to = None`).
    fn move_tail(&mut self, fi: usize, to: Option<List>) {
        if let Some(from) = self.flows[fi].list {
            let l = self.list_mut(from);
            if let Some(pos) = l.iter().position(|&x| x as usize == fi) {
                l.remove(pos);
            }
        }
        if let Some(to) = to {
            self.list_mut(to).push_back(fi as u16);
        }
        self.flows[fi].list = to;
    }

    /// The host load of queue `fi` (Linux: max of its hosts' bulk-flow counts, ≥ 1).
    fn host_load(&self, fi: usize) -> u32 {
        let f = &self.flows[fi];
        let mut load = 1u32;
        if self.params.mode.dsrc() {
            load = load.max(self.hosts[f.srchost as usize].srchost_bulk_flow_count as u32);
        }
        if self.params.mode.ddst() {
            load = load.max(self.hosts[f.dsthost as usize].dsthost_bulk_flow_count as u32);
        }
        load
    }

    fn host_bulk(&mut self, fi: usize, up: bool) {
        let (s, d) = (self.flows[fi].srchost as usize, self.flows[fi].dsthost as usize);
        let step = |c: &mut u16| *c = if up { c.wrapping_add(1) } else { c.wrapping_sub(1) };
        if self.params.mode.dsrc() {
            step(&mut self.hosts[s].srchost_bulk_flow_count);
        }
        if self.params.mode.ddst() {
            step(&mut self.hosts[d].dsthost_bulk_flow_count);
        }
    }

    /// Linux `cake_enqueue` (egress, one tin, no GSO).
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime, events: &mut Vec<FrontEvent>) -> Enqueued {
        let now_i = now.0 as i64;
        let src = self.src_host(pkt.flow, pkt.dst);
        let fi = self.classify(pkt.flow, src, pkt.dst);
        if self.len == 0 && self.time_next_packet < now_i {
            self.failsafe_next_packet = now_i;
            self.time_next_packet = now_i;
        }
        pkt.t_enq = now;
        self.flows[fi].buf.push_back(pkt);
        let mut arrival_pos = Some(self.flows[fi].buf.len() - 1);
        self.flows[fi].backlog += pkt.size as u64;
        self.buffer_used += pkt.size as u64;
        let acked = match self.params.ack_filter {
            AckFilter::Off => None,
            AckFilter::On => self.ack_filter(fi, false),
            AckFilter::Aggressive => self.ack_filter(fi, true),
        };
        if let Some(i) = acked {
            let ack = self.flows[fi].buf.remove(i).expect("the filter names a queued ACK");
            arrival_pos = arrival_pos.map(|p| p - 1);
            self.flows[fi].backlog -= ack.size as u64;
            self.buffer_used -= ack.size as u64;
            self.ack_drops += 1;
            events.push(FrontEvent { flow: ack.flow, reason: Reason::Forced, marked: false, qlen: self.len, pkt: ack });
        } else {
            self.len += 1;
        }
        match self.flows[fi].set {
            CakeSet::None | CakeSet::Decaying => {
                if self.flows[fi].set == CakeSet::Decaying {
                    self.decaying_flow_count -= 1;
                }
                self.move_tail(fi, Some(List::New));
                self.flows[fi].set = CakeSet::Sparse;
                self.sparse_flow_count += 1;
                let load = self.host_load(fi);
                self.flows[fi].deficit = ((self.flow_quantum * quantum_div(load)) >> 16) as i32;
            }
            CakeSet::SparseWait => {
                self.flows[fi].set = CakeSet::Bulk;
                self.sparse_flow_count -= 1;
                self.bulk_flow_count += 1;
                self.host_bulk(fi, true);
            }
            _ => {}
        }
        let mut dropped_arrival = false;
        while self.buffer_used > self.buffer_limit {
            let Some(victim) = self.drop_longest(now, events, fi, &mut arrival_pos) else { break };
            dropped_arrival |= victim;
        }
        if dropped_arrival {
            return Enqueued::Dropped(Reason::Overflow);
        }
        Enqueued::Queued { marked: None }
    }

    /// Linux `cake_drop`: drop the head of the longest queue (ties: lowest index) and
    /// tell its COBALT. Returns whether the packet dropped is the arrival at `fi` (then
    /// not in `events`: the caller reports it).
    fn drop_longest(&mut self, now: SimTime, events: &mut Vec<FrontEvent>, fi: usize, arrival: &mut Option<usize>) -> Option<bool> {
        let mut best = 0usize;
        for (i, f) in self.flows.iter().enumerate() {
            if f.backlog > self.flows[best].backlog {
                best = i;
            }
        }
        let cp = self.cparams.clone();
        let f = &mut self.flows[best];
        let p = f.buf.pop_front()?;
        f.cvars.queue_full(&cp, now);
        f.backlog -= p.size as u64;
        self.buffer_used -= p.size as u64;
        self.len -= 1;
        let is_arrival = best == fi && *arrival == Some(0);
        if best == fi {
            *arrival = arrival.and_then(|a| a.checked_sub(1));
        }
        if !is_arrival {
            events.push(FrontEvent { flow: p.flow, reason: Reason::Overflow, marked: false, qlen: self.len, pkt: p });
        }
        Some(is_arrival)
    }

    /// Linux `cake_dequeue` (one tin, egress).
    pub fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        let mut first_flow = true;
        'begin: loop {
            if self.len == 0 || self.wake_at(now).is_some() {
                return None;
            }
            'retry: loop {
                let list = if first_flow && !self.decaying_flows.is_empty() {
                    List::Decaying
                } else if !self.new_flows.is_empty() {
                    List::New
                } else if !self.old_flows.is_empty() {
                    List::Old
                } else if !self.decaying_flows.is_empty() {
                    List::Decaying
                } else {
                    debug_assert!(false, "packets queued but no queue listed");
                    return None;
                };
                let fi = self.list_mut(list)[0] as usize;
                first_flow = false;
                if self.flows[fi].deficit <= 0 {
                    if self.flows[fi].set == CakeSet::Sparse {
                        if self.flows[fi].buf.is_empty() {
                            self.flows[fi].set = CakeSet::SparseWait;
                        } else {
                            self.sparse_flow_count -= 1;
                            self.bulk_flow_count += 1;
                            self.host_bulk(fi, true);
                            self.flows[fi].set = CakeSet::Bulk;
                        }
                    }
                    let load = self.host_load(fi);
                    let dither = (rng.next_u64() as u32) >> 16;
                    self.flows[fi].deficit += ((self.flow_quantum * quantum_div(load) + dither) >> 16) as i32;
                    self.move_tail(fi, Some(List::Old));
                    continue 'retry;
                }
                loop {
                    let Some(mut p) = self.flows[fi].buf.pop_front() else {
                        self.queue_emptied(fi, now);
                        continue 'begin;
                    };
                    let f = &mut self.flows[fi];
                    f.backlog -= p.size as u64;
                    self.buffer_used -= p.size as u64;
                    self.len -= 1;
                    let d = f.cvars.should_drop(&self.cparams, &p, now, rng);
                    self.last_sojourn_ns = f.cvars.last_sojourn_ns;
                    if let Some(r) = d.mark {
                        p.ecn |= ecn::CE;
                        events.push(FrontEvent { flow: p.flow, reason: r, marked: true, qlen: self.len, pkt: p });
                    }
                    // the last packet of a queue may be marked, never dropped
                    if d.drop.is_none() || self.flows[fi].buf.is_empty() {
                        let len = self.adjusted_len(p.size);
                        self.advance_shaper(len);
                        self.flows[fi].deficit -= len as i32;
                        return Some(p);
                    }
                    let r = d.drop.unwrap_or(Reason::Early);
                    events.push(FrontEvent { flow: p.flow, reason: r, marked: false, qlen: self.len, pkt: p });
                }
            }
        }
    }

    /// A visited queue turned out empty: COBALT is told; the queue rests in the decaying
    /// rotation until its COBALT state has decayed, then leaves the rotations.
    fn queue_emptied(&mut self, fi: usize, now: SimTime) {
        let cp = self.cparams.clone();
        let f = &mut self.flows[fi];
        f.cvars.queue_empty(&cp, now);
        let c = &f.cvars;
        let busy = c.p_drop != 0.0 || c.count != 0 || (now.0 as i64) < c.drop_next;
        let set = f.set;
        if busy {
            self.move_tail(fi, Some(List::Decaying));
            match set {
                CakeSet::Bulk => {
                    self.bulk_flow_count -= 1;
                    self.host_bulk(fi, false);
                    self.decaying_flow_count += 1;
                }
                CakeSet::Sparse | CakeSet::SparseWait => {
                    self.sparse_flow_count -= 1;
                    self.decaying_flow_count += 1;
                }
                _ => {}
            }
            self.flows[fi].set = CakeSet::Decaying;
        } else {
            self.move_tail(fi, None);
            match set {
                CakeSet::Sparse | CakeSet::SparseWait => self.sparse_flow_count -= 1,
                CakeSet::Bulk => {
                    self.bulk_flow_count -= 1;
                    self.host_bulk(fi, false);
                }
                _ => self.decaying_flow_count -= 1,
            }
            self.flows[fi].set = CakeSet::None;
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }
    pub fn bytes(&self) -> u64 {
        self.buffer_used
    }
}

impl PacketOwner for Cake {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, _rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Enqueued {
        Cake::enqueue(self, pkt, now, events)
    }
    fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        Cake::dequeue(self, now, rng, events)
    }
    fn len(&self) -> u32 {
        self.len
    }
    fn bytes(&self) -> u64 {
        self.buffer_used
    }
}

impl Aqm for Cake {
    /// Not used: the wrapper calls [`Cake::enqueue`] (CAKE owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "Cake is driven through Cake::enqueue");
        Verdict::Enqueue
    }
    /// Linux's dequeue returns at once when nothing is queued: nothing to do.
    fn on_idle(&mut self, _now: SimTime) {}
    fn state(&self) -> AqmState {
        let count: u64 = self.flows.iter().map(|f| f.cvars.count as u64).sum();
        AqmState { delay: self.last_sojourn_ns as f64 * 1e-9, count: count as f64, ..AqmState::default() }
    }
}

#[cfg(test)]
#[path = "cake_tests.rs"]
mod tests;
