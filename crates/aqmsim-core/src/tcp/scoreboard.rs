//! The SACK scoreboard of ns-2 2.35's `Agent/TCP/Sack1` (`ScoreBoardRQ`): a data structure
//! of its own, fed with ACKs, that knows nothing of the sender.
//!
//! The scoreboard keeps the SACKed ranges above the cumulative ACK as sorted, merged,
//! half-open ranges `[start, end)`. Every hole below the highest SACKed block counts as
//! lost and is retransmitted once per recovery (`next_retran` / `mark_retran`); the Sack1
//! recovery that uses it (`pipe < cwnd`) is in `sender/sack1.rs`.

use crate::packet::Packet;

#[derive(Clone, Debug)]
pub struct ScoreBoard {
    /// SACKed ranges, half-open, sorted, disjoint, non-adjacent.
    ranges: Vec<(i32, i32)>,
    /// Cumulative ACK + 1.
    sack_min: i32,
    /// Retransmission pointer.
    h_seqno: i32,
    /// The last update changed what is known.
    pub changed: bool,
}

impl Default for ScoreBoard {
    fn default() -> Self {
        ScoreBoard { ranges: Vec::new(), sack_min: -1, h_seqno: -1, changed: false }
    }
}

impl ScoreBoard {
    fn total(&self) -> i64 {
        self.ranges.iter().map(|&(a, b)| (b - a) as i64).sum()
    }

    fn add(&mut self, start: i32, end: i32) {
        if end <= start {
            return;
        }
        let (mut s, mut e) = (start, end);
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        let mut placed = false;
        for &(a, b) in &self.ranges {
            if b < s {
                out.push((a, b));
            } else if a > e {
                if !placed {
                    out.push((s, e));
                    placed = true;
                }
                out.push((a, b));
            } else {
                s = s.min(a);
                e = e.max(b);
            }
        }
        if !placed {
            out.push((s, e));
        }
        self.ranges = out;
    }

    /// ns-2 `UpdateScoreBoard(last_ack, ack)`.
    pub fn update(&mut self, cumack: i32, ack: &Packet) {
        let old = self.total();
        self.changed = false;
        if self.sack_min <= cumack {
            self.sack_min = cumack + 1;
            if !self.ranges.is_empty() {
                let m = self.sack_min;
                self.ranges.retain(|&(_, b)| b > m);
                if let Some(first) = self.ranges.first_mut() {
                    if first.0 < m {
                        first.0 = m;
                    }
                }
                self.changed = true;
            }
        }
        for i in 0..ack.nsack as usize {
            // The sink's blocks are inclusive; the scoreboard's are half-open.
            let (lo, hi) = ack.sack_block(i);
            self.add(lo, hi + 1);
        }
        self.changed = self.changed || old != self.total();
    }

    /// ns-2 `GetNextRetran`: the next hole below some SACKed block, or None.
    pub fn next_retran(&mut self) -> Option<i32> {
        if self.h_seqno < self.sack_min {
            self.h_seqno = self.sack_min;
        }
        let seq = self.h_seqno;
        for (i, &(a, b)) in self.ranges.iter().enumerate() {
            if a > seq {
                return if seq > 0 { Some(seq) } else { None };
            }
            if a <= seq && b >= seq {
                if i + 1 < self.ranges.len() && b > 0 {
                    if b > self.h_seqno {
                        self.h_seqno = b;
                    }
                    return Some(b);
                }
                return None;
            }
        }
        None
    }

    pub fn mark_retran(&mut self, s: i32) {
        if s >= self.h_seqno {
            self.h_seqno = s + 1;
        }
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.h_seqno = -1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;
    use crate::time::SimTime;

    fn ack_with(cum: i32, blocks: &[(i32, i32)]) -> Packet {
        let mut a = Packet::new(Kind::Ack, 0, cum, 40, 0, SimTime::ZERO);
        a.set_sack(blocks);
        a
    }

    #[test]
    fn holes_below_the_highest_block_are_retransmitted_once() {
        let mut sb = ScoreBoard::default();
        // cum ack 4; 5 lost; 6-7 sacked; 8 lost; 9 sacked; 10 lost (nothing above).
        sb.update(4, &ack_with(4, &[(9, 9), (6, 7)]));
        assert!(sb.changed);
        assert_eq!(sb.next_retran(), Some(5));
        sb.mark_retran(5);
        assert_eq!(sb.next_retran(), Some(8));
        sb.mark_retran(8);
        assert_eq!(sb.next_retran(), None, "10 has no SACKed block above it");
        // A duplicate ACK that brings nothing new does not count.
        sb.update(4, &ack_with(4, &[(9, 9)]));
        assert!(!sb.changed);
    }
}
