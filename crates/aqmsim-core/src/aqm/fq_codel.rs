//! FQ-CoDel (RFC 8290), as ns-3.37's `FqCoDelQueueDisc` runs it.
//!
//! Packets are classified into `flows` queues (1024) by a hash of their flow; each queue
//! runs CoDel ([`CodelVars`]) on its own packets. Dequeue is deficit round robin with a
//! byte `quantum` over two lists: queues that just became active (new flows, served
//! first, which favours sparse flows) and the rest (old flows). When the scheduler holds
//! more than `limit` packets, packets are dropped from the head of the queue with the
//! most bytes ("fat flow"), up to `drop_batch` packets or half its bytes.
//!
//! Unlike the FIFO disciplines, FQ-CoDel owns its packets: the queue wrapper
//! ([`super::queue::QueueDisc`]) hands arrivals to [`FqCodel::enqueue`] and asks
//! [`FqCodel::dequeue`] for departures. Its [`Aqm`] implementation serves the monitors
//! (`state`) and the idle notification (a dequeue call that finds nothing).
//!
//! Rules as ns-3.37 (where Linux's `sch_fq_codel.c` differs, it is said):
//! * a queue becomes active (new list, deficit = quantum) when a packet is offered to it,
//!   even if that queue then refuses it as full;
//! * an empty new queue always moves to the old list (Linux: only if the old list is not
//!   empty, else it is removed);
//! * the fat flow is the queue with the most bytes, ties to the queue created first
//!   (Linux: lowest index); its packets are dropped from the head without CoDel;
//! * per-queue CoDel compares the queue's own bytes with `min_bytes` (Linux: its MTU);
//! * ECN marking is on by default (ns-3 and Linux).
//!
//! Classification: `Classify::Hash` mixes the flow number with a perturbation (the run
//! draws one from its seed unless given, as a Linux boot does), so flows can share a
//! queue as in ns-3 or Linux; `Classify::Flow` puts flow f in queue f mod `flows`
//! (no collisions: what the packet-for-packet comparison with ns-3 uses).

use super::codel::{CodelParams, CodelVars};
use super::owner::PacketOwner;
use super::queue::{Enqueued, FrontEvent};
use super::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

/// How packets are mapped to queues.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Classify {
    /// Hash of the flow number salted with `perturbation`, modulo the number of queues.
    Hash { perturbation: u32 },
    /// Flow f → queue f mod flows.
    Flow,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// CoDel's parameters for every queue (ECN on by default here).
    pub codel: CodelParams,
    /// Packets in all queues at most (`MaxSize`, 10240).
    pub limit: u32,
    /// Number of queues (`Flows`, 1024).
    pub flows: u32,
    /// DRR quantum in bytes (`Quantum`; ns-3 takes the device MTU, 1500 on a
    /// point-to-point link).
    pub quantum: u32,
    /// Packets dropped from the fat flow at most per overflow (`DropBatchSize`, 64).
    pub drop_batch: u32,
    pub classify: Classify,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            codel: CodelParams { ecn: true, ..CodelParams::default() },
            limit: 10240,
            flows: 1024,
            quantum: 1500,
            drop_batch: 64,
            classify: Classify::Hash { perturbation: 0 },
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Inactive,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct FlowQueue {
    buf: VecDeque<Packet>,
    bytes: u64,
    deficit: i64,
    status: Status,
    codel: CodelVars,
}

#[derive(Clone, Debug)]
pub struct FqCodel {
    pub params: FqCodelParams,
    /// Queues in the order they were created (ns-3's queue disc classes).
    queues: Vec<FlowQueue>,
    /// Queue number (hash bucket) → 1 + index in `queues`, 0 if not created yet.
    slot: Vec<u32>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: u32,
    bytes: u64,
    last_sojourn_ns: u64,
    /// `mix(perturbation)` of `Classify::Hash`, computed once (not per packet).
    salt: u32,
}

/// A 32-bit mixer (the finaliser of MurmurHash3): flow numbers are small consecutive
/// integers, so they are spread before the modulo.
#[inline]
fn mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

impl FqCodel {
    pub fn new(params: FqCodelParams) -> FqCodel {
        let n = params.flows as usize;
        let salt = match params.classify {
            Classify::Hash { perturbation } => mix(perturbation),
            Classify::Flow => 0,
        };
        FqCodel { params, queues: Vec::new(), slot: vec![0; n], new_flows: VecDeque::new(), old_flows: VecDeque::new(), len: 0, bytes: 0, last_sojourn_ns: 0, salt }
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Queues that have held a packet.
    pub fn queues_created(&self) -> usize {
        self.queues.len()
    }

    /// The queue (hash bucket) a flow's packets go to.
    pub fn bucket(&self, flow: u32) -> u32 {
        match self.params.classify {
            Classify::Hash { .. } => mix(flow ^ self.salt) % self.params.flows,
            Classify::Flow => flow % self.params.flows,
        }
    }

    fn queue_of(&mut self, flow: u32) -> u32 {
        let b = self.bucket(flow) as usize;
        if self.slot[b] == 0 {
            self.queues.push(FlowQueue { buf: VecDeque::new(), bytes: 0, deficit: 0, status: Status::Inactive, codel: CodelVars::default() });
            self.slot[b] = self.queues.len() as u32;
        }
        self.slot[b] - 1
    }

    /// ns-3 `DoEnqueue`: activate the packet's queue, queue it, and on overflow drop from
    /// the fat flow (appended to `events`).
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime, events: &mut Vec<FrontEvent>) -> Enqueued {
        let qi = self.queue_of(pkt.flow);
        let quantum = self.params.quantum as i64;
        let fq = &mut self.queues[qi as usize];
        if fq.status == Status::Inactive {
            fq.status = Status::New;
            fq.deficit = quantum;
            self.new_flows.push_back(qi);
        }
        // the queue's own CoDel refuses a packet beyond MaxSize (the scheduler's)
        if fq.buf.len() as u32 + 1 > self.params.limit {
            // its queue is full (only when one queue alone holds `limit` packets)
            return Enqueued::Dropped(Reason::Overflow);
        }
        pkt.t_enq = now;
        fq.bytes += pkt.size as u64;
        fq.buf.push_back(pkt);
        self.len += 1;
        self.bytes += pkt.size as u64;
        if self.len > self.params.limit {
            self.drop_from_fat_flow(events);
        }
        Enqueued::Queued { marked: None }
    }

    /// ns-3 `FqCoDelDrop`: drop from the head of the queue with the most bytes until half
    /// of its bytes or `drop_batch` packets are gone.
    fn drop_from_fat_flow(&mut self, events: &mut Vec<FrontEvent>) {
        let mut fat = 0usize;
        let mut max_backlog = 0u64;
        for (i, q) in self.queues.iter().enumerate() {
            if q.bytes > max_backlog {
                max_backlog = q.bytes;
                fat = i;
            }
        }
        let threshold = max_backlog >> 1;
        let (mut dropped_bytes, mut count) = (0u64, 0u32);
        loop {
            let q = &mut self.queues[fat];
            let Some(p) = q.buf.pop_front() else { break };
            q.bytes -= p.size as u64;
            self.len -= 1;
            self.bytes -= p.size as u64;
            dropped_bytes += p.size as u64;
            events.push(FrontEvent { flow: p.flow, reason: Reason::Overflow, marked: false, qlen: self.len, pkt: p });
            count += 1;
            if !(count < self.params.drop_batch && dropped_bytes < threshold) {
                break;
            }
        }
    }

    /// ns-3 `DoDequeue`: deficit round robin over new then old queues, CoDel in each.
    /// Drops and marks CoDel makes are appended to `events`.
    pub fn dequeue(&mut self, now: SimTime, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        let quantum = self.params.quantum as i64;
        loop {
            let (qi, from_new) = loop {
                if let Some(&qi) = self.new_flows.front() {
                    let q = &mut self.queues[qi as usize];
                    if q.deficit <= 0 {
                        q.deficit += quantum;
                        q.status = Status::Old;
                        self.new_flows.pop_front();
                        self.old_flows.push_back(qi);
                        continue;
                    }
                    break (qi, true);
                }
                let &qi = self.old_flows.front()?;
                let q = &mut self.queues[qi as usize];
                if q.deficit <= 0 {
                    q.deficit += quantum;
                    self.old_flows.rotate_left(1);
                    continue;
                }
                break (qi, false);
            };
            match self.codel_dequeue(qi, now, events) {
                Some(p) => {
                    self.queues[qi as usize].deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    let q = &mut self.queues[qi as usize];
                    if from_new {
                        q.status = Status::Old;
                        self.new_flows.pop_front();
                        self.old_flows.push_back(qi);
                    } else {
                        q.status = Status::Inactive;
                        self.old_flows.pop_front();
                    }
                }
            }
        }
    }

    /// One dequeue call on queue `qi`'s CoDel.
    fn codel_dequeue(&mut self, qi: u32, now: SimTime, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        let cp = &self.params.codel;
        let q = &mut self.queues[qi as usize];
        loop {
            let Some(mut p) = q.buf.pop_front() else {
                q.codel.on_empty();
                return None;
            };
            q.bytes -= p.size as u64;
            self.len -= 1;
            self.bytes -= p.size as u64;
            let action = q.codel.on_head(cp, &p, q.bytes, now);
            self.last_sojourn_ns = q.codel.last_sojourn_ns;
            match action {
                FrontAction::Pass => return Some(p),
                FrontAction::Mark(r) => {
                    p.ecn |= ecn::CE;
                    events.push(FrontEvent { flow: p.flow, reason: r, marked: true, qlen: self.len, pkt: p });
                    return Some(p);
                }
                FrontAction::Drop(r) => {
                    events.push(FrontEvent { flow: p.flow, reason: r, marked: false, qlen: self.len, pkt: p });
                }
            }
        }
    }
}

impl PacketOwner for FqCodel {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, _rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Enqueued {
        FqCodel::enqueue(self, pkt, now, events)
    }
    fn dequeue(&mut self, now: SimTime, _rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        FqCodel::dequeue(self, now, events)
    }
    fn len(&self) -> u32 {
        FqCodel::len(self)
    }
    fn bytes(&self) -> u64 {
        FqCodel::bytes(self)
    }
}

impl Aqm for FqCodel {
    /// Not used: the wrapper calls [`FqCodel::enqueue`] (FQ-CoDel owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "FqCodel is driven through FqCodel::enqueue");
        Verdict::Enqueue
    }
    /// A dequeue call that finds the scheduler empty: its lists are walked as ns-3 does
    /// (new queues become old, old ones inactive, each CoDel leaves its dropping state).
    fn on_idle(&mut self, now: SimTime) {
        let mut none = Vec::new();
        let got = self.dequeue(now, &mut none);
        debug_assert!(got.is_none() && none.is_empty());
    }
    fn state(&self) -> AqmState {
        let count: u64 = self.queues.iter().map(|q| q.codel.count as u64).sum();
        AqmState { delay: self.last_sojourn_ns as f64 * 1e-9, count: count as f64, ..AqmState::default() }
    }
}

#[cfg(test)]
#[path = "fq_codel_tests.rs"]
mod tests;
