//! Links and static routing.
//!
//! A link is one direction: an output queue, a transmitter (one packet on the wire at a
//! time, serialisation `size·8/rate`), and a propagation delay. A packet's arrival at the
//! far end is scheduled when its transmission *starts* (start + serialisation + delay is
//! known then); the packet waits meanwhile in the simulation's store of packets in flight
//! (`Simulation::store`), named by its `Deliver` or `Forward` event. The end of a transmission is an
//! event (`TxDone`) only when a packet is waiting behind it; a link that goes idle is
//! noticed lazily, at the next arrival, with the exact time it went idle
//! (`busy_until`). An uncongested access link thus costs one event per packet, not two.

use crate::aqm::QueueDisc;
use crate::time::{Dur, SimTime};
use std::collections::VecDeque;

/// One direction of a link. The fields every packet touches come first, in the first
/// cache lines (`repr(C)` keeps this order; the struct is cache-line aligned); the queue
/// discipline and what only monitors and reports read come after.
#[repr(C, align(64))]
pub struct Link {
    // ---- cache line 0: what every packet reads or writes
    /// End of the current (or last) transmission.
    pub busy_until: SimTime,
    pub delay: Dur,
    /// Serialisation time of `tx_size` bytes (a cache of the last one computed).
    tx_dur: Dur,
    /// ns per byte on this link (8e9 / rate).
    ns_per_byte: f64,
    /// Event number reserved for the end of the current transmission.
    pub txdone_seq: u64,
    tx_size: u32,
    pub to: u32,
    /// The link that may hand this one packets without an event (cut-through, see
    /// `Simulation::start_tx`), or `NO_FEEDER`.
    pub cut_from: u32,
    /// Packets on their way here by an event, from the links that may hand packets to
    /// this one by cut-through (`cut_from`, or the inputs of a merge): while any is, no
    /// packet may cut through past it.
    pub pending: u32,
    /// A `TxDone` event is scheduled for `busy_until`. Whenever packets wait in the queue,
    /// this is true.
    pub txdone_pending: bool,
    /// The queue has been told it is idle since `busy_until`.
    pub idle_notified: bool,
    /// The queue lets a packet pass untouched when it is empty and the link idle
    /// ([`QueueDisc::transparent_when_idle`]).
    pub transparent: bool,
    /// Departures from this link are noted (the primary monitored link's marked departures,
    /// the queueing delays of monitored links with `monitor.delays`).
    pub note: bool,
    /// Some link downstream takes this link's packets by cut-through (set by the
    /// simulation; see `Simulation::start_tx`).
    pub feeds_cut: bool,
    /// The discipline wants to hear when the queue goes idle (RED's idle-time correction).
    pub idle_matters: bool,
    /// `drop_seqs` is not empty.
    pub has_drop_seqs: bool,
    /// Packets from several links may cut through to this one (set by the simulation; see
    /// `Simulation::cut_through`), when they get here no later than `lookahead` after
    /// their decision.
    pub merge_ok: bool,
    /// `dev_cap > 0`: a device queue sits between the discipline and the transmitter
    /// (`sim/device_queue.rs`).
    pub has_dev: bool,
    // ---- cache line 1
    /// The least time a packet sent on any link that feeds this one takes to get here
    /// (the feeder's delay plus the serialisation of the smallest packet in the run).
    pub lookahead: Dur,
    /// Cumulative busy (transmitting) time, counted in full when a transmission starts.
    pub busy_ns: u64,
    /// Busy time of the transmissions started in the current utilisation bin (plus what
    /// carried over from the previous one).
    pub bin_busy_ns: u64,
    /// Packets (and their bytes) that cut through the idle, empty queue: counted here, on
    /// the line the packet touches anyway, and added to the queue's statistics by
    /// [`Link::settle_counts`].
    cut_pkts: u64,
    cut_bytes: u64,
    // ---- the rest
    /// Data sequence numbers lost on entering (first transmission only), sorted.
    pub drop_seqs: Vec<i32>,
    pub queue: QueueDisc,
    pub from: u32,
    pub rate_bps: f64,
    pub name: String,
    pub bin_start: SimTime,
    /// Packets lost that way.
    pub lost: u64,
    /// `rate_schedule`: `(time s, rate b/s)` from 0 on; empty for a constant rate. The
    /// simulation applies each change at its time ([`Link::set_rate`]).
    pub schedule: Vec<(f64, f64)>,
    /// The device queue (`queue.device_queue`, ns-3's `TxQueue`): up to `dev_cap` packets
    /// the discipline has handed on (with when), waiting for the transmitter; empty when
    /// `dev_cap` is 0.
    pub dev: VecDeque<(crate::packet::Packet, SimTime)>,
    pub dev_cap: u32,
}

impl Link {
    pub fn new(from: u32, to: u32, rate_bps: f64, delay_s: f64, queue: QueueDisc, name: String) -> Link {
        Link {
            transparent: queue.transparent_when_idle(),
            note: false,
            idle_matters: queue.cares_about_idle(),
            feeds_cut: false,
            cut_from: NO_FEEDER,
            pending: 0,
            from,
            to,
            rate_bps,
            delay: Dur::from_secs(delay_s),
            queue,
            busy_until: SimTime::ZERO,
            txdone_pending: false,
            txdone_seq: 0,
            idle_notified: true,
            tx_size: 0,
            tx_dur: Dur::ZERO,
            name,
            busy_ns: 0,
            bin_busy_ns: 0,
            cut_pkts: 0,
            cut_bytes: 0,
            bin_start: SimTime::ZERO,
            drop_seqs: Vec::new(),
            has_drop_seqs: false,
            merge_ok: false,
            lookahead: Dur::ZERO,
            lost: 0,
            ns_per_byte: 8e9 / rate_bps,
            schedule: Vec::new(),
            has_dev: false,
            dev: VecDeque::new(),
            dev_cap: 0,
        }
    }

    /// Put an `n`-packet device queue under the discipline (0: none).
    pub fn set_device_queue(&mut self, n: u32) {
        self.dev_cap = n;
        self.has_dev = n > 0;
        self.dev = VecDeque::with_capacity(n as usize);
    }

    /// The rate from now on: transmissions that start from now on take `size·8/rate`; the
    /// one on the wire keeps the rate it started with.
    pub fn set_rate(&mut self, rate_bps: f64) {
        self.rate_bps = rate_bps;
        self.ns_per_byte = 8e9 / rate_bps;
        // no packet has this size: the cached serialisation time is stale
        self.tx_size = u32::MAX;
    }

    /// The shortest serialisation time `bytes` ever take on this link, at its highest rate
    /// `top` (`LinkModel::max_rate`): what a lookahead may count on.
    pub fn fastest_tx_time(&mut self, bytes: u32, top: f64) -> Dur {
        if top == self.rate_bps {
            return self.tx_time(bytes);
        }
        Dur(crate::time::round_positive(bytes as f64 * 8e9 / top))
    }

    /// Lose the first transmissions of these data sequence numbers on entering.
    pub fn set_drop_seqs(&mut self, mut seqs: Vec<i32>) {
        seqs.sort_unstable();
        self.has_drop_seqs = !seqs.is_empty();
        self.drop_seqs = seqs;
    }

    /// Count a packet that cut through the idle, empty queue.
    #[inline]
    pub fn count_cut_through(&mut self, size: u32) {
        self.cut_pkts += 1;
        self.cut_bytes += size as u64;
    }

    /// Add the packets counted by [`Link::count_cut_through`] to the queue's statistics
    /// (before reading them).
    pub fn settle_counts(&mut self) {
        if self.cut_pkts > 0 {
            self.queue.count_passed(self.cut_pkts, self.cut_bytes);
            self.cut_pkts = 0;
            self.cut_bytes = 0;
        }
    }

    /// Serialisation time of `bytes`, rounded to the nearest nanosecond.
    #[inline]
    pub fn tx_time(&mut self, bytes: u32) -> Dur {
        if self.tx_size != bytes {
            self.tx_size = bytes;
            self.tx_dur = Dur(crate::time::round_positive(bytes as f64 * self.ns_per_byte));
        }
        self.tx_dur
    }

    /// Transmitting at `now`?
    #[inline]
    pub fn busy(&self, now: SimTime) -> bool {
        now < self.busy_until
    }

    /// Busy time within the bin that started at `bin_start`, up to `now`, and the part of
    /// the current transmission that lies beyond `now`.
    pub fn bin_busy(&self, now: SimTime) -> (u64, u64) {
        let beyond = self.busy_until.saturating_since(now).0;
        (self.bin_busy_ns - beyond, beyond)
    }
}

/// Static routes: for each node with more than one outgoing link, the first-hop link to
/// every destination (shortest path in hops, ties to the lowest link index); nodes with a
/// single outgoing link use it for everything.
pub struct Routes {
    /// Per node: its only outgoing link, `TABLE | row` (look `dst` up in that row of
    /// `table`), or `NO_ROUTE` (no outgoing link).
    first: Vec<u32>,
    /// Rows of `n_nodes` first hops, one row per node with several outgoing links.
    table: Vec<u32>,
    n_nodes: usize,
}

pub const NO_ROUTE: u32 = u32::MAX;
const TABLE: u32 = 1 << 31;

impl Routes {
    pub fn compute(n_nodes: usize, links: &[(u32, u32)]) -> Routes {
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
        for (i, &(f, _)) in links.iter().enumerate() {
            out[f as usize].push(i as u32);
        }
        let mut first_hop = vec![NO_ROUTE; n_nodes];
        let mut table = Vec::new();
        for n in 0..n_nodes {
            match out[n].len() {
                0 => {}
                1 => first_hop[n] = out[n][0],
                _ => {
                    // BFS from n; record the first hop used to reach each node.
                    let mut first = vec![NO_ROUTE; n_nodes];
                    let mut seen = vec![false; n_nodes];
                    seen[n] = true;
                    let mut q = VecDeque::new();
                    for &li in &out[n] {
                        let to = links[li as usize].1 as usize;
                        if !seen[to] {
                            seen[to] = true;
                            first[to] = li;
                            q.push_back(to);
                        }
                    }
                    while let Some(m) = q.pop_front() {
                        for &li in &out[m] {
                            let to = links[li as usize].1 as usize;
                            if !seen[to] {
                                seen[to] = true;
                                first[to] = first[m];
                                q.push_back(to);
                            }
                        }
                    }
                    first_hop[n] = TABLE | (table.len() / n_nodes) as u32;
                    table.extend_from_slice(&first);
                }
            }
        }
        Routes { first: first_hop, table, n_nodes }
    }

    /// The link a packet for `dst` leaves `node` on, or `NO_ROUTE`.
    #[inline]
    pub fn next(&self, node: u32, dst: u32) -> u32 {
        let v = self.first[node as usize];
        if v < TABLE || v == NO_ROUTE {
            v
        } else {
            self.table[(v & !TABLE) as usize * self.n_nodes + dst as usize]
        }
    }
}

/// No link, or more than one, feeds this link (see [`single_feeders`]).
pub const NO_FEEDER: u32 = u32::MAX;

/// What feeds each link, from the route of every packet stream (`paths`: source,
/// destination): the links whose packets go on to it (sorted, each once), and whether some
/// stream starts on it (an agent at its near end sends on it).
pub struct LinkInputs {
    pub links: Vec<Vec<u32>>,
    pub from_agent: Vec<bool>,
}

impl LinkInputs {
    /// The one link whose packets are link `i`'s only input, or [`NO_FEEDER`] (also when
    /// an agent sends on it).
    pub fn single_feeder(&self, i: usize) -> u32 {
        if self.links[i].len() == 1 && !self.from_agent[i] {
            self.links[i][0]
        } else {
            NO_FEEDER
        }
    }
}

pub fn link_inputs(links: &[(u32, u32)], routes: &Routes, paths: impl IntoIterator<Item = (u32, u32)>) -> LinkInputs {
    let mut inputs = LinkInputs { links: vec![Vec::new(); links.len()], from_agent: vec![false; links.len()] };
    for (src, dst) in paths {
        let (mut node, mut prev) = (src, NO_FEEDER);
        let mut hops = 0;
        while node != dst && hops <= links.len() {
            let l = routes.next(node, dst);
            if l == NO_ROUTE {
                break;
            }
            if prev == NO_FEEDER {
                inputs.from_agent[l as usize] = true;
            } else if let Err(k) = inputs.links[l as usize].binary_search(&prev) {
                inputs.links[l as usize].insert(k, prev);
            }
            prev = l;
            node = links[l as usize].1;
            hops += 1;
        }
    }
    inputs
}

/// For every link, the one link whose packets are its only input, or [`NO_FEEDER`] (see
/// [`link_inputs`]). A link that is a stream's first hop is fed by the sending agent, not
/// by a link, so it has no single feeder.
pub fn single_feeders(links: &[(u32, u32)], routes: &Routes, paths: impl IntoIterator<Item = (u32, u32)>) -> Vec<u32> {
    let inputs = link_inputs(links, routes, paths);
    (0..links.len()).map(|i| inputs.single_feeder(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0=R1 1=R2 2=S0 3=D0 4=S1 5=D1; links duplex: 2k is a->b, 2k+1 is b->a.
    fn two_flow_dumbbell() -> (Vec<(u32, u32)>, Routes) {
        let pairs = [(0, 1), (2, 0), (1, 3), (4, 0), (1, 5)];
        let links: Vec<(u32, u32)> = pairs.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        let r = Routes::compute(6, &links);
        (links, r)
    }

    #[test]
    fn dumbbell_routes() {
        let (links, r) = two_flow_dumbbell();
        assert_eq!(links[r.next(2, 3) as usize], (2, 0));
        assert_eq!(links[r.next(0, 3) as usize], (0, 1));
        assert_eq!(links[r.next(1, 3) as usize], (1, 3));
        assert_eq!(links[r.next(1, 4) as usize], (1, 0));
        assert_eq!(links[r.next(0, 4) as usize], (0, 4));
    }

    #[test]
    fn dumbbell_feeders() {
        let (links, r) = two_flow_dumbbell();
        // two TCP flows S0->D0, S1->D1: data and ACKs
        let f = single_feeders(&links, &r, [(2, 3), (3, 2), (4, 5), (5, 4)]);
        assert_eq!(f[0], NO_FEEDER); // R1->R2 merges two access links
        assert_eq!(f[1], NO_FEEDER); // R2->R1 merges two egress links
        assert_eq!(f[2], NO_FEEDER); // S0->R1: the agent sends on it
        assert_eq!(f[3], 1); // R1->S0: only ACKs from R2->R1
        assert_eq!(f[4], 0); // R2->D0: only data from R1->R2
        assert_eq!(f[5], NO_FEEDER); // D0->R2: the sink sends on it
        assert_eq!(f[8], 0); // R2->D1
        // a one-way stream only: R1->S0 carries nothing
        let g = single_feeders(&links, &r, [(2, 3)]);
        assert_eq!((g[3], g[4]), (NO_FEEDER, 0));
    }

    #[test]
    fn hot_fields_fill_the_first_two_cache_lines() {
        let l = Link::new(0, 1, 1e6, 0.01, QueueDisc::new(crate::aqm::AnyAqm::DropTail(crate::aqm::DropTail::packets(5))), String::new());
        let base = &l as *const Link as usize;
        let off = |p: *const u8| p as usize - base;
        assert!(off(&l.has_drop_seqs as *const bool as *const u8) < 64);
        assert!(off(&l.cut_bytes as *const u64 as *const u8) + 8 <= 128);
    }

    #[test]
    fn tx_time_rounds() {
        let q = QueueDisc::new(crate::aqm::AnyAqm::DropTail(crate::aqm::DropTail::packets(5)));
        let mut l = Link::new(0, 1, 1.5e6, 0.02, q, "a->b".into());
        assert_eq!(l.tx_time(1040), Dur(5_546_667));
    }
}
