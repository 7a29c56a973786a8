//! The flow-queue scheduler every FQ discipline shares (FQ-CoDel, FQ-PIE, FQ-COBALT;
//! CAKE next), as ns-3.37's `FqCoDelQueueDisc` and `FqPieQueueDisc` run it (their
//! scheduling code is the same): packets are classified into `flows` queues; dequeue is
//! deficit round robin with a byte `quantum` over two lists, queues that just became
//! active (new flows, served first) and the rest (old flows); when the scheduler holds
//! more than `limit` packets, packets are dropped from the head of the queue with the most
//! bytes ("fat flow"), up to `drop_batch` packets or half its bytes.
//!
//! Each queue runs its own AQM, a [`FlowAqm`]: it decides an arrival (PIE-like, at
//! enqueue), the head packet as it leaves (CoDel-like, at dequeue), hears when a dequeue
//! finds its queue empty, may run timers lazily (PIE's updates, counted as events against
//! the engine's `max_events` over all queues together), and reports its state to the
//! monitors.
//!
//! Rules as ns-3.37 (where Linux's `sch_fq_codel.c`/`sch_fq_pie.c` differ, it is said):
//! * a queue is created (and its AQM with it, at that time) the first time a packet is
//!   classified to it; it becomes active (new list, deficit = quantum) when a packet is
//!   offered to it, even if its AQM then refuses the packet;
//! * an empty new queue always moves to the old list (Linux: only if the old list is not
//!   empty, else it is removed);
//! * the fat flow is the queue with the most bytes, ties to the queue created first
//!   (Linux: lowest index); its packets are dropped from the head without asking its AQM;
//! * an arrival the queue's AQM refuses is not counted, so it never triggers the fat-flow
//!   drop.
//!
//! Classification: `Classify::Hash` mixes the flow number with a perturbation (the run
//! draws one from its seed unless given, as a Linux boot does), so flows can share a
//! queue as in ns-3 or Linux; `Classify::Flow` puts flow f in queue f mod `flows`
//! (no collisions: what the packet-for-packet comparison with ns-3 uses).

use super::owner::PacketOwner;
use super::queue::{Enqueued, FrontEvent};
use super::{AqmState, FrontAction, QueueView, Reason, Verdict};
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

/// The scheduler's own parameters (ns-3's defaults but the quantum, see each field).
#[derive(Clone, Debug, PartialEq)]
pub struct FqParams {
    /// Packets in all queues at most (`MaxSize`, 10240); also each queue's own limit.
    pub limit: u32,
    /// Number of queues (`Flows`, 1024).
    pub flows: u32,
    /// DRR quantum in bytes (ns-3 takes the device MTU, 1500 on a point-to-point link).
    pub quantum: u32,
    /// Packets dropped from the fat flow at most per overflow (`DropBatchSize`, 64).
    pub drop_batch: u32,
    pub classify: Classify,
}

impl Default for FqParams {
    fn default() -> Self {
        FqParams { limit: 10240, flows: 1024, quantum: 1500, drop_batch: 64, classify: Classify::Hash { perturbation: 0 } }
    }
}

/// The AQM each flow queue runs. `Cfg` is shared by every queue; the state is per queue.
pub trait FlowAqm: Sized {
    type Cfg;
    /// A queue's AQM, created at `now` (when its first packet is classified).
    fn create(cfg: &Self::Cfg, now: SimTime) -> Self;
    /// Decide `pkt` offered to this queue, which holds `q` (before it) and may hold
    /// `limit` packets: `Enqueue`, `Mark` (queued with CE) or `Drop` (never `DropHead`).
    fn on_arrival(&mut self, cfg: &Self::Cfg, pkt: &Packet, q: &QueueView, limit: u32, now: SimTime, rng: &mut Rng) -> Verdict;
    /// The head packet `pkt` left the queue (`q` is what is left): pass, mark or drop it
    /// (`rng`: the link's, for a discipline that draws at dequeue).
    fn on_head(&mut self, cfg: &Self::Cfg, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> FrontAction;
    /// As [`FlowAqm::on_head`], for an AQM that can both mark and drop one head packet
    /// (COBALT: a CE mark, then BLUE's drop): the mark's reason, then the drop's.
    fn on_head_both(&mut self, cfg: &Self::Cfg, pkt: &Packet, q: &QueueView, now: SimTime, rng: &mut Rng) -> (Option<Reason>, Option<Reason>) {
        match self.on_head(cfg, pkt, q, now, rng) {
            FrontAction::Pass => (None, None),
            FrontAction::Mark(r) => (Some(r), None),
            FrontAction::Drop(r) => (None, Some(r)),
        }
    }
    /// A dequeue found this queue empty.
    fn on_empty(&mut self, cfg: &Self::Cfg, now: SimTime);
    /// The scheduler removed packets without asking (the fat-flow drop); `q` is what is left.
    fn on_purged(&mut self, _cfg: &Self::Cfg, _q: &QueueView, _now: SimTime) {}
    /// Run timers due by `now` (before the monitors read the state).
    fn advance(&mut self, _cfg: &Self::Cfg, _now: SimTime) {}
    /// Timer events run so far, the limit on them, and when one was first due past it.
    fn timer_events(&self) -> u64 {
        0
    }
    fn set_timer_budget(&mut self, _total: u64) {}
    fn over_budget(&self) -> Option<SimTime> {
        None
    }
    /// The delay it acts on (s), its drop count and its probability, for the monitors.
    fn state(&self) -> AqmState;
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Inactive,
    New,
    Old,
}

#[derive(Clone, Debug)]
pub(super) struct FlowQueue<A> {
    buf: VecDeque<Packet>,
    bytes: u64,
    deficit: i64,
    status: Status,
    pub(super) aqm: A,
}

impl<A> FlowQueue<A> {
    fn view(&self) -> QueueView {
        QueueView { len_pkts: self.buf.len() as u32, len_bytes: self.bytes }
    }
}

/// The scheduler and its queues, each with an `A`.
#[derive(Clone, Debug)]
pub struct FlowQueues<A: FlowAqm> {
    pub params: FqParams,
    pub cfg: A::Cfg,
    /// Queues in the order they were created (ns-3's queue disc classes).
    pub(super) queues: Vec<FlowQueue<A>>,
    /// Queue number (hash bucket) → 1 + index in `queues`, 0 if not created yet.
    slot: Vec<u32>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: u32,
    bytes: u64,
    /// Index of the queue that last decided a head packet (its state goes to the monitors).
    last_served: Option<u32>,
    /// `mix(perturbation)` of `Classify::Hash`, computed once (not per packet).
    salt: u32,
    /// Timer events of all queues, the limit on them, when one was first due past it.
    timer_events: u64,
    timer_budget: u64,
    over_budget: Option<SimTime>,
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

impl<A: FlowAqm> FlowQueues<A> {
    pub fn new(params: FqParams, cfg: A::Cfg) -> FlowQueues<A> {
        let n = params.flows as usize;
        let salt = match params.classify {
            Classify::Hash { perturbation } => mix(perturbation),
            Classify::Flow => 0,
        };
        FlowQueues { params, cfg, queues: Vec::new(), slot: vec![0; n], new_flows: VecDeque::new(), old_flows: VecDeque::new(), len: 0, bytes: 0, last_served: None, salt, timer_events: 0, timer_budget: u64::MAX, over_budget: None }
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

    fn queue_of(&mut self, flow: u32, now: SimTime) -> u32 {
        let b = self.bucket(flow) as usize;
        if self.slot[b] == 0 {
            let aqm = A::create(&self.cfg, now);
            self.queues.push(FlowQueue { buf: VecDeque::new(), bytes: 0, deficit: 0, status: Status::Inactive, aqm });
            self.slot[b] = self.queues.len() as u32;
        }
        self.slot[b] - 1
    }

    /// Call `f` on queue `qi` and its AQM with the timer budget that is left, counting
    /// the timer events it runs.
    #[inline]
    fn touch<R>(&mut self, qi: u32, f: impl FnOnce(&mut FlowQueue<A>, &A::Cfg) -> R) -> R {
        let q = &mut self.queues[qi as usize];
        let before = q.aqm.timer_events();
        q.aqm.set_timer_budget(before.saturating_add(self.timer_budget.saturating_sub(self.timer_events)));
        let r = f(q, &self.cfg);
        self.timer_events += q.aqm.timer_events() - before;
        if let Some(t) = q.aqm.over_budget() {
            self.over_budget = Some(self.over_budget.map_or(t, |o| o.min(t)));
        }
        r
    }

    /// ns-3 `DoEnqueue`: activate the packet's queue, let its AQM decide, queue it, and on
    /// overflow drop from the fat flow (appended to `events`).
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Enqueued {
        let qi = self.queue_of(pkt.flow, now);
        let quantum = self.params.quantum as i64;
        {
            let fq = &mut self.queues[qi as usize];
            if fq.status == Status::Inactive {
                fq.status = Status::New;
                fq.deficit = quantum;
                self.new_flows.push_back(qi);
            }
        }
        let limit = self.params.limit;
        let verdict = self.touch(qi, |fq, cfg| fq.aqm.on_arrival(cfg, &pkt, &fq.view(), limit, now, rng));
        let marked = match verdict {
            Verdict::Enqueue => None,
            Verdict::Mark(r) => {
                pkt.ecn |= ecn::CE;
                Some(r)
            }
            Verdict::Drop(r) | Verdict::DropHead(r) => return Enqueued::Dropped(r),
        };
        pkt.t_enq = now;
        let fq = &mut self.queues[qi as usize];
        fq.bytes += pkt.size as u64;
        fq.buf.push_back(pkt);
        self.len += 1;
        self.bytes += pkt.size as u64;
        if self.len > self.params.limit {
            self.drop_from_fat_flow(now, events);
        }
        Enqueued::Queued { marked }
    }

    /// ns-3 `FqCoDelDrop`/`FqPieDrop`: drop from the head of the queue with the most bytes
    /// until half of its bytes or `drop_batch` packets are gone.
    fn drop_from_fat_flow(&mut self, now: SimTime, events: &mut Vec<FrontEvent>) {
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
            events.push(FrontEvent { flow: p.flow, reason: super::Reason::Overflow, marked: false, qlen: self.len, pkt: p });
            count += 1;
            if !(count < self.params.drop_batch && dropped_bytes < threshold) {
                break;
            }
        }
        self.touch(fat as u32, |fq, cfg| fq.aqm.on_purged(cfg, &fq.view(), now));
    }

    /// ns-3 `DoDequeue`: deficit round robin over new then old queues, each queue's AQM
    /// deciding its head packets. Drops and marks it makes are appended to `events`.
    pub fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
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
            match self.queue_dequeue(qi, now, rng, events) {
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

    /// One dequeue call on queue `qi`: head packets until its AQM passes (or marks) one.
    fn queue_dequeue(&mut self, qi: u32, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        loop {
            let popped = self.queues[qi as usize].buf.pop_front();
            let Some(mut p) = popped else {
                self.touch(qi, |fq, cfg| fq.aqm.on_empty(cfg, now));
                return None;
            };
            {
                let q = &mut self.queues[qi as usize];
                q.bytes -= p.size as u64;
            }
            self.len -= 1;
            self.bytes -= p.size as u64;
            let (mark, drop) = self.touch(qi, |fq, cfg| fq.aqm.on_head_both(cfg, &p, &fq.view(), now, rng));
            self.last_served = Some(qi);
            if let Some(r) = mark {
                p.ecn |= ecn::CE;
                events.push(FrontEvent { flow: p.flow, reason: r, marked: true, qlen: self.len, pkt: p });
            }
            match drop {
                None => return Some(p),
                Some(r) => events.push(FrontEvent { flow: p.flow, reason: r, marked: false, qlen: self.len, pkt: p }),
            }
        }
    }

    /// Run every queue's timers due by `now`.
    pub fn advance(&mut self, now: SimTime) {
        for qi in 0..self.queues.len() as u32 {
            self.touch(qi, |fq, cfg| fq.aqm.advance(cfg, now));
        }
    }
    /// Timer events run so far, over all queues.
    pub fn timer_events(&self) -> u64 {
        self.timer_events
    }
    /// Allow timer events until [`FlowQueues::timer_events`] reaches `total`.
    pub fn set_timer_budget(&mut self, total: u64) {
        self.timer_budget = total;
    }
    /// When a timer event was first due beyond the budget.
    pub fn over_budget(&self) -> Option<SimTime> {
        self.over_budget
    }

    /// The monitors' view: delay and probability of the queue that last decided a head
    /// packet, drop counts summed over the queues.
    pub fn state(&self) -> AqmState {
        let count: f64 = self.queues.iter().map(|q| q.aqm.state().count).sum();
        let last = self.last_served.map(|qi| self.queues[qi as usize].aqm.state()).unwrap_or_default();
        AqmState { delay: last.delay, p: last.p, count, ..AqmState::default() }
    }

    /// The state of the queue flow `flow` is classified to, if it was created.
    pub fn queue_state(&self, flow: u32) -> Option<AqmState> {
        let s = self.slot[self.bucket(flow) as usize];
        (s > 0).then(|| self.queues[s as usize - 1].aqm.state())
    }
}

/// Every flow-queueing discipline (FQ-CoDel, FQ-PIE, FQ-COBALT) is this scheduler to the
/// queue wrapper: one `PacketOwner` for all of them.
impl<A: FlowAqm> PacketOwner for FlowQueues<A> {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Enqueued {
        FlowQueues::enqueue(self, pkt, now, rng, events)
    }
    fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        FlowQueues::dequeue(self, now, rng, events)
    }
    fn len(&self) -> u32 {
        FlowQueues::len(self)
    }
    fn bytes(&self) -> u64 {
        FlowQueues::bytes(self)
    }
}

impl<A: FlowAqm> FlowQueues<A> {
    /// A dequeue call that finds the scheduler empty (the discipline's `Aqm::on_idle`): the
    /// lists are walked as ns-3 does (new queues become old, old ones inactive, each queue's
    /// AQM hears that it is empty). An empty scheduler asks no AQM about a packet, so
    /// nothing draws and nothing is dropped or marked.
    pub fn on_idle(&mut self, now: SimTime) {
        let (mut none, mut rng) = (Vec::new(), Rng::new(0, 0));
        let got = self.dequeue(now, &mut rng, &mut none);
        debug_assert!(got.is_none() && none.is_empty());
    }
}
