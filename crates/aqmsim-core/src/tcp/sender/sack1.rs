//! Sack1 loss recovery (ns-2 2.35's `Agent/TCP/Sack1`): fast retransmit on the duplicate
//! ACKs that bring new SACK information, retransmission of the scoreboard's holes, and
//! `pipe < cwnd` during recovery. CUBIC and DCTCP run on it too (`cc_glue.rs`).

use super::{CwndAction, TcpSender};
use crate::packet::Packet;
use crate::tcp::scoreboard::ScoreBoard;
use crate::time::SimTime;

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

    pub(super) fn dupack_action_sack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
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
