//! SACK: ns-2 2.35's `Agent/TCP/Sack1` with its list scoreboard (`ScoreBoardRQ`).
//!
//! The scoreboard keeps the SACKed ranges above the cumulative ACK as sorted, merged,
//! half-open ranges `[start, end)`. Every hole below the highest SACKed block counts as
//! lost and is retransmitted once per recovery (`next_retran` / `mark_retran`); during
//! recovery the sender keeps `pipe < cwnd` (an estimate of packets in flight).

use super::sender::TcpSender;
use super::CwndAction;
use crate::packet::Packet;
use crate::time::SimTime;

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

/// Sack1 state beside the common sender state.
#[derive(Clone, Debug, Default)]
pub struct SackState {
    pub sb: ScoreBoard,
    pub fastrecov: bool,
    pub pipe: i32,
    /// Set by a timeout; duplicate ACKs are ignored until a new ACK.
    pub timed_out: bool,
}

impl TcpSender {
    pub(crate) fn recv_sack(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let seqno = ack.seq;
        let valid = seqno >= self.last_ack;
        if !self.sack.fastrecov {
            if seqno > self.last_ack {
                self.firstpartial = false;
                self.recv_newack_helper(ack, now);
                self.sack.timed_out = false;
                self.sack.sb.clear();
                if self.last_ack == 0 && self.p.delay_growth {
                    self.cwnd = self.initial_window();
                }
            } else if seqno == self.last_ack && !self.sack.timed_out {
                self.sack.sb.update(self.highest_ack, ack);
                if self.sack.sb.changed {
                    self.dupacks += 1;
                    if self.dupacks == self.p.dupacks {
                        self.dupack_action_sack(now, out);
                    } else if self.dupacks < self.p.dupacks && self.p.limited_transmit {
                        self.send_one(now, out);
                    }
                }
            }
            if valid && self.dupacks == 0 {
                self.send_much_sack(now, out);
            }
        } else {
            self.sack.pipe -= 1;
            if seqno >= self.recover {
                // Full ACK: leave recovery (ns-2: no window increase on this ACK).
                self.recover = 0;
                self.sack.fastrecov = false;
                let ece = ack.has(crate::packet::ecn::ECE);
                self.newack(seqno, ece, now);
                self.sack.timed_out = false;
                self.sack.sb.clear();
                if !self.cc.is_ns2() && !(self.ect && ece) {
                    // ns-3.37 (CUBIC, DCTCP): cwnd = ssthresh, then IncreaseWindow with the
                    // packets this ACK covers (ProcessAck, CA_RECOVERY -> CA_OPEN); cwnd is
                    // already ssthresh here (Sack1 does not inflate it). As for any new ACK,
                    // not on an ECE (recv_newack_helper).
                    self.opencwnd_cc(now);
                }
            } else if seqno > self.highest_ack {
                // Partial ACK: last_ack is not advanced.
                self.highest_ack = seqno;
                self.sack.sb.update(self.highest_ack, ack);
                self.sack.pipe -= 1;
                self.newtimer(seqno, now);
                self.rtt.reset_backoff();
            } else if !self.sack.timed_out {
                self.sack.sb.update(self.highest_ack, ack);
                if self.sack.sb.changed && self.dupacks > 0 {
                    self.dupacks += 1;
                }
            }
            if valid {
                self.send_much_sack(now, out);
            }
        }
    }

    fn dupack_action_sack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let recovered = self.highest_ack > self.recover;
        if !(recovered || self.highest_ack == 0) {
            if self.p.ecn && self.last_cwnd_action == CwndAction::Ecn {
                self.last_cwnd_action = CwndAction::DupAck;
                self.reset_rtx_timer(true, false, now);
                self.sack.pipe = self.maxseq - self.highest_ack - self.p.dupacks as i32;
                self.sack.fastrecov = true;
                self.sack.sb.mark_retran(self.highest_ack + 1);
                let s = self.last_ack + 1;
                self.output(s, now, out);
                self.stats.fast_retransmits += 1;
            }
            return; // bug_fix_
        }
        self.recover = self.maxseq;
        self.sack.pipe = self.maxseq - self.highest_ack - self.p.dupacks as i32;
        self.reset_rtx_timer(true, false, now);
        self.sack.fastrecov = true;
        self.sack.sb.mark_retran(self.highest_ack + 1);
        self.last_cwnd_action = CwndAction::DupAck;
        self.slowdown(Self::CLOSE_SSTHRESH_HALF | Self::CLOSE_CWND_HALF);
        let s = self.last_ack + 1;
        self.output(s, now, out);
        self.stats.fast_retransmits += 1;
    }

    pub(crate) fn send_much_sack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let mut win = self.window();
        let mut n = 0u32;
        let wnd = self.p.window as i32;
        loop {
            let room = if self.sack.fastrecov {
                self.sack.pipe < self.cwnd as i32
            } else {
                self.t_seqno <= self.last_ack + win
            };
            if !(room && self.last_ack + 1 < self.curseq) {
                break;
            }
            let x = match self.sack.sb.next_retran() {
                None => {
                    let ok = if self.sack.fastrecov {
                        self.t_seqno <= self.highest_ack + wnd
                    } else {
                        self.t_seqno <= self.highest_ack + win
                    };
                    if ok && self.t_seqno < self.curseq {
                        let s = self.t_seqno;
                        self.t_seqno += 1;
                        Some(s)
                    } else {
                        None
                    }
                }
                Some(x) if self.recover > 0 && x <= self.highest_ack + wnd => {
                    self.sack.sb.mark_retran(x);
                    win = self.window();
                    Some(x)
                }
                Some(_) => None,
            };
            let Some(x) = x else { break };
            self.output(x, now, out);
            if self.t_seqno <= x {
                self.t_seqno = x + 1;
            }
            n += 1;
            self.sack.pipe += 1;
            if self.p.max_burst != 0 && n == self.p.max_burst {
                break;
            }
        }
    }

    pub(crate) fn timeout_sack_prologue(&mut self) {
        self.dupacks = 0;
        self.sack.fastrecov = false;
        self.sack.timed_out = true;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.recover = self.maxseq;
        self.sack.sb.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

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
