//! Threshold ECN of paper 004 (Liu & Jain, "mark-front"): congestion is the *instantaneous*
//! queue exceeding T; the signal goes either to the arriving packet (mark-tail), to the
//! packet leaving the head of the queue (mark-front), or is a drop from the head
//! (drop-front).
//!
//! Rules, with q the number of packets in the buffer counting the packet concerned:
//! - mark-tail: on arrival, if q = waiting + 1 > T, mark the arrival (CE);
//! - mark-front: when a packet leaves, if q = waiting + 1 (itself included) > T, mark it;
//! - drop-front: on arrival, if q > T, drop the packet at the head (Lakshman et al.).
//!
//! A full buffer (`limit` waiting packets, the paper's "buffer size") drops the arrival with
//! mark-tail and the head with mark-front and drop-front (§6.3: "the mark-front strategy
//! marks and drops the packets from the front of the queue"). Choice: a congestion signal
//! that falls on a packet which is not ECN-capable is a drop of that packet (RFC 3168 §5);
//! with ECN-capable TCP this touches only the SYN.

use super::{Aqm, AqmState, FrontAction, QueueView, Reason, Verdict};
use crate::packet::{ecn, Packet};
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Where {
    MarkTail,
    MarkFront,
    DropFront,
}

impl Where {
    pub fn parse(s: &str) -> Option<Where> {
        match s {
            "mark_tail" | "tail" => Some(Where::MarkTail),
            "mark_front" | "front" => Some(Where::MarkFront),
            "drop_front" => Some(Where::DropFront),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Where::MarkTail => "mark_tail",
            Where::MarkFront => "mark_front",
            Where::DropFront => "drop_front",
        }
    }
}

#[derive(Clone, Debug)]
pub struct EcnThreshold {
    /// T, packets.
    pub threshold: u32,
    /// Buffer, packets waiting.
    pub limit: u32,
    pub mode: Where,
}

impl Aqm for EcnThreshold {
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        if q.len_pkts >= self.limit {
            return match self.mode {
                Where::MarkTail => Verdict::Drop(Reason::Overflow),
                Where::MarkFront | Where::DropFront => Verdict::DropHead(Reason::Overflow),
            };
        }
        let over = q.len_pkts + 1 > self.threshold;
        match self.mode {
            Where::MarkTail if over => {
                if pkt.has(ecn::ECT) {
                    Verdict::Mark(Reason::Early)
                } else {
                    Verdict::Drop(Reason::Early)
                }
            }
            Where::DropFront if over => Verdict::DropHead(Reason::Early),
            _ => Verdict::Enqueue,
        }
    }

    fn on_dequeue(&mut self, pkt: &Packet, q: &QueueView, _now: SimTime, _rng: &mut Rng) -> FrontAction {
        if self.mode == Where::MarkFront && q.len_pkts + 1 > self.threshold {
            if pkt.has(ecn::ECT) {
                FrontAction::Mark(Reason::Early)
            } else {
                FrontAction::Drop(Reason::Early)
            }
        } else {
            FrontAction::Pass
        }
    }

    fn state(&self) -> AqmState {
        AqmState { avg: 0.0, p: 0.0, max_p: 0.0, min_th: self.threshold as f64, max_th: self.threshold as f64, ..AqmState::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{AnyAqm, QueueDisc};
    use crate::packet::Kind;

    fn ect(seq: i32) -> Packet {
        let mut p = Packet::new(Kind::Data, 0, seq, 1000, 1, SimTime::ZERO);
        p.ecn = ecn::ECT;
        p
    }

    #[test]
    fn mark_tail_marks_the_arrival_that_crosses_t() {
        let mut q = QueueDisc::new(AnyAqm::Threshold(EcnThreshold { threshold: 3, limit: 10, mode: Where::MarkTail }));
        let mut rng = Rng::new(1, 1);
        for s in 0..5 {
            q.enqueue(ect(s), SimTime::ZERO, &mut rng);
        }
        // packets 0,1,2 fill to 3 (not > 3); packets 3 and 4 make 4 and 5 > 3: marked
        let marked: Vec<bool> = (0..5).map(|_| q.dequeue(SimTime::ZERO, &mut rng).unwrap().has(ecn::CE)).collect();
        assert_eq!(marked, vec![false, false, false, true, true]);
    }

    #[test]
    fn mark_front_marks_departures_while_the_queue_exceeds_t() {
        let mut q = QueueDisc::new(AnyAqm::Threshold(EcnThreshold { threshold: 3, limit: 10, mode: Where::MarkFront }));
        let mut rng = Rng::new(1, 1);
        for s in 0..5 {
            q.enqueue(ect(s), SimTime::ZERO, &mut rng);
        }
        // at each departure the buffer holds 5, 4, 3, 2, 1 (itself included)
        let marked: Vec<(i32, bool)> = (0..5).map(|_| {
            let p = q.dequeue(SimTime::ZERO, &mut rng).unwrap();
            (p.seq, p.has(ecn::CE))
        }).collect();
        assert_eq!(marked, vec![(0, true), (1, true), (2, false), (3, false), (4, false)]);
        assert_eq!(q.front_events.len(), 2);
    }

    #[test]
    fn full_buffer_drops_tail_or_front() {
        for (mode, dropped_seq) in [(Where::MarkTail, 3), (Where::MarkFront, 0), (Where::DropFront, 0)] {
            let mut q = QueueDisc::new(AnyAqm::Threshold(EcnThreshold { threshold: 100, limit: 3, mode }));
            let mut rng = Rng::new(1, 1);
            for s in 0..4 {
                q.enqueue(ect(s), SimTime::ZERO, &mut rng);
            }
            let left: Vec<i32> = (0..3).map(|_| q.dequeue(SimTime::ZERO, &mut rng).unwrap().seq).collect();
            assert!(!left.contains(&dropped_seq), "{mode:?}: {left:?}");
            assert!(q.conserved());
        }
    }
}
