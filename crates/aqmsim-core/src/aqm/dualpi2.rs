//! DualPI2, the Dual-Queue Coupled AQM of RFC 9332, as Linux 6.18's `sch_dualpi2` runs it.
//!
//! Two FIFOs: the L queue takes packets whose IP ECN field matches `ecn_mask` (default:
//! ECT(1) or CE, RFC 9331 §5.3), the C queue takes the rest. A PI controller (RFC 9332's
//! "PI2") updates a base probability p' every `t_update` from the queueing delay; Classic
//! packets are dropped (Not-ECT) or marked (ECT) with p_C = p'² (two draws, both must
//! hit), L4S packets are marked with the coupled p_CL = k·p' and, besides, whenever their
//! sojourn (or the L queue's length) exceeds the step threshold. Dequeue is Linux's WRR
//! between the queues with C-queue protection (`c_protection`, 10 %).
//!
//! Rules, all from Linux's `sch_dualpi2.c` (the RFC's pseudo-code where it agrees):
//! * **probability in 32-bit fixed point**: p' = `prob` / (2³² − 1); α and β are given in
//!   Hz, turned into Linux's netlink units (round(Hz · 256)) and then into its internal
//!   units (`dualpi2_scale_alpha_beta`); each update adds
//!   `((d − target)·α + (d − d_old)·β) / 64` (d in ns, integer division toward zero),
//!   saturating at 0 and 2³² − 1 (Linux's wrap tests), capped at (2³² − 1)/k without
//!   `drop_overload`;
//! * **queueing delay**: at an update, d = max(L head's sojourn, C head's sojourn), each 0
//!   for an empty queue (Linux's `get_queue_delays`); the RFC's pseudo-code uses the C
//!   queue's alone;
//! * **random tests**: `roll(p)` is `u ≤ p` with u a uniform 32-bit integer (the top 32 bits
//!   of one draw of the link's RNG); a Classic hit takes two rolls (the second only when the
//!   first hits); L4S, one roll of k·prob. No test at all while fewer than 2·`mtu` bytes
//!   remain queued (the packet being decided not counted at dequeue);
//! * **overload** (k·prob > 2³² − 1): Classic packets are dropped even if ECT; with
//!   `drop_overload`, L4S packets face the Classic test and are dropped on a hit, else
//!   marked; without, they are always marked (and prob is capped so this never happens);
//! * **where**: at dequeue (`drop_early = false`, Linux's default), else at enqueue;
//!   step marks always at dequeue, for packets that found at least `min_qlen_step`
//!   packets in the L queue on arrival;
//! * **scheduler**: credit starts at `mtu`·(wc − wl); the L queue is served while it has
//!   packets and (the C queue is empty or credit ≤ 0); serving L with C waiting adds
//!   wc·size, serving C with L waiting subtracts wl·size, applied only if the packet is
//!   sent (not dropped); finding both empty resets the credit;
//! * **limit**: an arrival finding `limit` packets is dropped (overflow).
//!
//! Not modelled (see docs/aqm/dualpi2.md): Linux's byte `memory_limit` (skb truesize),
//! `split_gso` (aqmsim has no GSO), the LLLL class and tc filters, the time-shifted FIFO
//! scheduler of the RFC (Linux ships the WRR), the drift of Linux's re-armed hrtimer.
//!
//! **Lazy timer**, as [`super::pie`]: an update due at a time ≤ `now` runs before the
//! packet event at `now`, at its own due time; updates are counted against `max_events`.

use super::owner::PacketOwner;
use super::periodic::Periodic;
use super::queue::{Enqueued, FrontEvent};
use super::{Aqm, AqmState, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

#[path = "dualpi2_params.rs"]
mod params;
pub use params::*;

/// A queued packet with what Linux keeps in its `dualpi2_skb_cb`.
#[derive(Copy, Clone, Debug)]
struct Held {
    pkt: Packet,
    apply_step: bool,
}

/// What the PI2 test decided for one packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    Pass,
    Mark,
    Drop,
}

#[derive(Clone, Debug)]
pub struct DualPi2 {
    pub params: DualPi2Params,
    l: VecDeque<Held>,
    c: VecDeque<Held>,
    bytes: u64,
    target: u64,
    t_update: u64,
    /// Internal α, β (Linux `pi2_alpha`, `pi2_beta`).
    alpha: u32,
    beta: u32,
    /// ns, or packets with `Step::Packets`.
    step_thresh: u64,
    credit: i64,
    credit_init: i64,
    /// p' · (2³² − 1) (Linux `pi2_prob`).
    prob: u32,
    /// The delay of the last update, ns (Linux `last_qdelay`).
    last_qdelay: u64,
    /// The PI2 update every `t_update`, run lazily and counted ([`Periodic`]).
    timer: Periodic,
    /// Marks made by the step threshold (Linux `step_marks`).
    pub step_marks: u64,
}

impl DualPi2 {
    /// Panics on parameters the scenario builder refuses.
    pub fn new(params: DualPi2Params) -> DualPi2 {
        assert!(params.coupling >= 1 && params.c_protection <= 100 && params.mtu >= 1 && params.limit >= 1);
        let ns = |s: f64| SimTime::from_secs(s).0;
        let t_update = ns(params.t_update);
        assert!(t_update >= 1, "t_update must be ≥ 1 ns");
        let (wc, wl) = (params.c_protection as i64, 100 - params.c_protection as i64);
        let credit_init = params.mtu as i64 * (wc - wl);
        let step_thresh = match params.step {
            Step::Time(s) => ns(s),
            Step::Packets(n) => n as u64,
        };
        DualPi2 {
            l: VecDeque::new(),
            c: VecDeque::new(),
            bytes: 0,
            target: ns(params.target),
            t_update,
            alpha: scale_alpha_beta(netlink_alpha_beta(params.alpha)),
            beta: scale_alpha_beta(netlink_alpha_beta(params.beta)),
            step_thresh,
            credit: credit_init,
            credit_init,
            prob: 0,
            last_qdelay: 0,
            timer: Periodic::new(SimTime(t_update)),
            step_marks: 0,
            params,
        }
    }

    /// Linux's internal (α, β).
    pub fn gains(&self) -> (u32, u32) {
        (self.alpha, self.beta)
    }
    /// The base probability p' in fixed point (Linux `pi2_prob`).
    pub fn prob(&self) -> u32 {
        self.prob
    }
    /// p'.
    pub fn p_base(&self) -> f64 {
        self.prob as f64 / MAX_PROB as f64
    }
    /// Packets in the L and the C queue.
    pub fn lens(&self) -> (usize, usize) {
        (self.l.len(), self.c.len())
    }
    /// The WRR credit (> 0: the C queue is served next when both have packets).
    pub fn credit(&self) -> i64 {
        self.credit
    }

    /// Does a packet with these `ecn` flags go to the L queue?
    pub fn is_l(&self, flags: u8) -> bool {
        ecn::codepoint(flags).bits() & self.params.ecn_mask as u8 != 0
    }

    /// Run every update due at a time ≤ `now`, each at its own due time, within the budget.
    pub fn catch_up(&mut self, now: SimTime) {
        while let Some(t) = self.timer.take_due(now, self.t_update) {
            self.prob = self.calculate_probability(t);
        }
    }
    pub fn updates(&self) -> u64 {
        self.timer.count()
    }
    pub fn set_update_budget(&mut self, total: u64) {
        self.timer.set_budget(total)
    }
    pub fn over_budget(&self) -> Option<SimTime> {
        self.timer.over_budget()
    }

    /// Linux `get_queue_delays`: each head's sojourn at `t`, 0 when empty; (L, C).
    pub fn queue_delays(&self, t: SimTime) -> (u64, u64) {
        let d = |q: &VecDeque<Held>| q.front().map_or(0, |h| t.saturating_since(h.pkt.t_enq).0);
        (d(&self.l), d(&self.c))
    }

    /// Linux `calculate_probability` at time `t`.
    fn calculate_probability(&mut self, t: SimTime) -> u32 {
        let (ql, qc) = self.queue_delays(t);
        let qdelay = ql.max(qc);
        let delta = self.pi_delta(qdelay);
        self.last_qdelay = qdelay;
        let new = step_prob(self.prob, delta);
        if !self.params.drop_overload {
            return new.min(MAX_PROB / self.params.coupling as u32);
        }
        new
    }

    /// `(d − target)·α + (d − d_old)·β`, in prob units × 64.
    fn pi_delta(&self, qdelay: u64) -> i64 {
        (qdelay as i64 - self.target as i64) * self.alpha as i64 + (qdelay as i64 - self.last_qdelay as i64) * self.beta as i64
    }

    /// Linux `must_drop` for a packet of the L (`in_l`) or C queue, `backlog` bytes queued
    /// besides it; marks it when that is the verdict.
    pub(crate) fn must_drop(&mut self, pkt: &mut Packet, in_l: bool, backlog: u64, draw: &mut dyn FnMut() -> u32) -> Fate {
        if backlog < 2 * self.params.mtu as u64 {
            return Fate::Pass;
        }
        let prob = self.prob;
        let local_l_prob = prob as u64 * self.params.coupling as u64;
        let overload = local_l_prob > MAX_PROB as u64;
        let not_ect = pkt.ecn & (ecn::ECT | ecn::CE) == 0;
        if !in_l {
            // dualpi2_classic_marking: two rolls of P
            if !(draw() <= prob && draw() <= prob) {
                return Fate::Pass;
            }
            if overload || not_ect {
                return Fate::Drop;
            }
        } else if overload {
            // dualpi2_scalable_marking in overload: the Classic test drops, else a mark
            if self.params.drop_overload && draw() <= prob && draw() <= prob {
                return Fate::Drop;
            }
        } else {
            // dualpi2_scalable_marking: one roll of k·P
            if draw() as u64 > local_l_prob {
                return Fate::Pass;
            }
            if not_ect {
                return Fate::Drop;
            }
        }
        // dualpi2_mark: sets CE on an ECN-capable packet (a Not-ECT one passes unmarked)
        if not_ect {
            return Fate::Pass;
        }
        pkt.ecn |= ecn::CE;
        Fate::Mark
    }

    /// Linux `dualpi2_enqueue_skb` (classification included).
    pub(crate) fn enqueue_with(&mut self, mut pkt: Packet, now: SimTime, draw: &mut dyn FnMut() -> u32) -> Enqueued {
        self.catch_up(now);
        if self.len() >= self.params.limit {
            return Enqueued::Dropped(Reason::Overflow);
        }
        let in_l = self.is_l(pkt.ecn);
        let mut marked = None;
        if self.params.drop_early {
            match self.must_drop(&mut pkt, in_l, self.bytes, draw) {
                Fate::Drop => return Enqueued::Dropped(Reason::Early),
                Fate::Mark => marked = Some(Reason::Early),
                Fate::Pass => {}
            }
        }
        pkt.t_enq = now;
        self.bytes += pkt.size as u64;
        if in_l {
            let apply_step = self.l.len() as u64 >= self.params.min_qlen_step as u64;
            self.l.push_back(Held { pkt, apply_step });
        } else {
            self.c.push_back(Held { pkt, apply_step: false });
        }
        Enqueued::Queued { marked }
    }

    /// Linux `dequeue_packet`: the WRR's choice, and the credit change if it is sent.
    fn dequeue_packet(&mut self) -> Option<(Held, bool, i64)> {
        let (l_len, c_len) = (self.l.len(), self.c.len());
        let (h, in_l, change) = if l_len > 0 && (c_len == 0 || self.credit <= 0) {
            let h = self.l.pop_front()?;
            (h, true, if c_len > 0 { self.params.c_protection as i64 } else { 0 })
        } else if c_len > 0 {
            let h = self.c.pop_front()?;
            (h, false, if l_len > 0 { -(100 - self.params.c_protection as i64) } else { 0 })
        } else {
            self.credit = self.credit_init;
            return None;
        };
        self.bytes -= h.pkt.size as u64;
        Some((h, in_l, change * h.pkt.size as i64))
    }

    /// Linux `__dualpi2_qdisc_dequeue`: drops and marks go to `events`.
    pub(crate) fn dequeue_with(&mut self, now: SimTime, draw: &mut dyn FnMut() -> u32, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        self.catch_up(now);
        while let Some((h, in_l, change)) = self.dequeue_packet() {
            let mut pkt = h.pkt;
            let qlen = self.len();
            let mut marked = None;
            if !self.params.drop_early {
                match self.must_drop(&mut pkt, in_l, self.bytes, draw) {
                    Fate::Drop => {
                        events.push(FrontEvent { flow: pkt.flow, reason: Reason::Early, marked: false, qlen, pkt });
                        continue;
                    }
                    Fate::Mark => marked = Some(Reason::Early),
                    Fate::Pass => {}
                }
            }
            if in_l {
                // do_step_aqm
                let q = match self.params.step {
                    Step::Packets(_) => self.l.len() as u64,
                    Step::Time(_) => now.saturating_since(pkt.t_enq).0,
                };
                if h.apply_step && q > self.step_thresh {
                    if pkt.ecn & (ecn::ECT | ecn::CE) == 0 {
                        events.push(FrontEvent { flow: pkt.flow, reason: Reason::Forced, marked: false, qlen, pkt });
                        continue;
                    }
                    pkt.ecn |= ecn::CE;
                    self.step_marks += 1;
                    marked = marked.or(Some(Reason::Forced));
                }
            }
            self.credit += change;
            if let Some(r) = marked {
                events.push(FrontEvent { flow: pkt.flow, reason: r, marked: true, qlen, pkt });
            }
            return Some(pkt);
        }
        None
    }

    pub fn len(&self) -> u32 {
        (self.l.len() + self.c.len()) as u32
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// One PI step on the fixed-point probability, as Linux's wrap-around checks do it.
pub fn step_prob(prob: u32, delta: i64) -> u32 {
    if delta > 0 {
        let new = (prob as i64).wrapping_add((delta as u64 >> 6) as i64) as u32;
        if new < prob {
            MAX_PROB
        } else {
            new
        }
    } else {
        let new = (prob as i64).wrapping_sub((delta.wrapping_neg() as u64 >> 6) as i64) as u32;
        if new > prob {
            0
        } else {
            new
        }
    }
}

/// A uniform 32-bit integer from the link's RNG (Linux `get_random_u32`).
#[inline]
fn u32_draw(rng: &mut Rng) -> u32 {
    (rng.next_u64() >> 32) as u32
}

impl PacketOwner for DualPi2 {
    fn enqueue(&mut self, pkt: Packet, now: SimTime, rng: &mut Rng, _events: &mut Vec<FrontEvent>) -> Enqueued {
        self.enqueue_with(pkt, now, &mut || u32_draw(rng))
    }
    fn dequeue(&mut self, now: SimTime, rng: &mut Rng, events: &mut Vec<FrontEvent>) -> Option<Packet> {
        self.dequeue_with(now, &mut || u32_draw(rng), events)
    }
    fn len(&self) -> u32 {
        DualPi2::len(self)
    }
    fn bytes(&self) -> u64 {
        DualPi2::bytes(self)
    }
}

impl Aqm for DualPi2 {
    /// Not used: the wrapper calls [`PacketOwner::enqueue`] (DualPI2 owns its packets).
    fn on_enqueue(&mut self, _pkt: &Packet, _q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        debug_assert!(false, "DualPi2 is driven through PacketOwner::enqueue");
        Verdict::Enqueue
    }
    fn on_idle(&mut self, now: SimTime) {
        self.catch_up(now);
    }
    fn advance(&mut self, now: SimTime) {
        self.catch_up(now);
    }
    /// `p` = p_C = p'², `max_p` = p_CL = min(k·p', 1), `avg` = p', `delay` = the delay of
    /// the last update (max of the two heads' sojourns), `count` = packets in the L queue.
    fn state(&self) -> AqmState {
        let p = self.p_base();
        AqmState {
            avg: p,
            p: p * p,
            max_p: (p * self.params.coupling as f64).min(1.0),
            delay: self.last_qdelay as f64 * 1e-9,
            count: self.l.len() as f64,
            ..AqmState::default()
        }
    }
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;
