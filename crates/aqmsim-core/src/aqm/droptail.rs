//! DropTail (FIFO, drop the arrival when full), with ns-2 2.35's limit semantics.
//!
//! ns-2's `DropTail::enque` refuses a packet when `len + 1 >= limit` (packets) or
//! `bytes + size >= limit_bytes`: the buffer `limit` includes the packet being transmitted,
//! so at most `limit − 1` packets wait. We follow ns-2 so the two simulators drop the same
//! packets; the scenario reference documents it.

use super::{Aqm, AqmState, QueueView, Reason, Verdict};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct DropTail {
    /// Limit in packets (ns-2 `limit_`).
    pub limit: u32,
    /// Limit in bytes, when the queue is measured in bytes.
    pub limit_bytes: Option<u64>,
    /// On overflow drop the head of the queue instead of the arrival (ns-2 `drop_front_`).
    pub drop_front: bool,
}

impl DropTail {
    pub fn packets(limit: u32) -> Self {
        DropTail { limit, limit_bytes: None, drop_front: false }
    }
    pub fn bytes(limit_bytes: u64) -> Self {
        DropTail { limit: u32::MAX, limit_bytes: Some(limit_bytes), drop_front: false }
    }
}

impl Aqm for DropTail {
    #[inline]
    fn on_enqueue(&mut self, pkt: &Packet, q: &QueueView, _now: SimTime, _rng: &mut Rng) -> Verdict {
        let full = match self.limit_bytes {
            Some(lb) => q.len_bytes + pkt.size as u64 >= lb,
            None => q.len_pkts + 1 >= self.limit,
        };
        if full {
            if self.drop_front {
                Verdict::DropHead(Reason::Overflow)
            } else {
                Verdict::Drop(Reason::Overflow)
            }
        } else {
            Verdict::Enqueue
        }
    }
    fn state(&self) -> AqmState {
        AqmState::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

    #[test]
    fn drops_when_len_plus_one_reaches_limit() {
        let mut d = DropTail::packets(3);
        let mut rng = Rng::new(1, 1);
        let p = Packet::new(Kind::Data, 0, 1, 1000, 0, SimTime::ZERO);
        let v = |n| QueueView { len_pkts: n, len_bytes: n as u64 * 1000 };
        assert_eq!(d.on_enqueue(&p, &v(0), SimTime::ZERO, &mut rng), Verdict::Enqueue);
        assert_eq!(d.on_enqueue(&p, &v(1), SimTime::ZERO, &mut rng), Verdict::Enqueue);
        assert_eq!(d.on_enqueue(&p, &v(2), SimTime::ZERO, &mut rng), Verdict::Drop(Reason::Overflow));
    }

    #[test]
    fn byte_limit() {
        let mut d = DropTail::bytes(2500);
        let mut rng = Rng::new(1, 1);
        let p = Packet::new(Kind::Data, 0, 1, 1000, 0, SimTime::ZERO);
        let q1 = QueueView { len_pkts: 1, len_bytes: 1000 };
        let q2 = QueueView { len_pkts: 2, len_bytes: 2000 };
        assert_eq!(d.on_enqueue(&p, &q1, SimTime::ZERO, &mut rng), Verdict::Enqueue);
        assert_eq!(d.on_enqueue(&p, &q2, SimTime::ZERO, &mut rng), Verdict::Drop(Reason::Overflow));
    }
}
