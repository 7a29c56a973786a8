//! The ns-2 variants' ACK processing: `Agent/TCP` (Tahoe), `Agent/TCP/Reno` and
//! `Agent/TCP/Newreno` (tcp.cc, tcp-reno.cc, tcp-newreno.cc: `recv`, `dupack_action`, the
//! partial ACKs of NewReno). Sack1's is in `sack1.rs`.

use super::plugin_glue::Hook;
use super::{CwndAction, TcpSender};
use crate::packet::ecn;
use crate::tcp::plugin::CcStateEvent;
use crate::packet::Packet;
use crate::time::SimTime;

impl TcpSender {
    pub(super) fn recv_tahoe(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let seqno = ack.seq;
        if seqno > self.last_ack {
            self.recv_newack_helper(ack, now);
            if self.last_ack == 0 && self.p.delay_growth {
                self.cwnd = self.initial_window();
            }
        } else if seqno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.dupacks {
                self.dupack_action_tahoe(now);
            } else if self.dupacks < self.p.dupacks && self.p.limited_transmit {
                self.send_one(now, out);
            }
        }
        // aggressive_maxburst_ 1: always try to send.
        self.send_much(false, now, out);
    }

    pub(super) fn dupack_action_tahoe(&mut self, now: SimTime) {
        let recovered = self.highest_ack > self.recover;
        if !(recovered || self.highest_ack == 0) {
            if self.p.ecn && self.last_cwnd_action == CwndAction::Ecn {
                self.last_cwnd_action = CwndAction::DupAck;
                if self.cc.is_plugin() {
                    // fast recovery without a reduction (the window was cut for the echo)
                    self.plugin_hook(now, Hook::Event(CcStateEvent::Recovery));
                }
                self.slowdown(Self::CLOSE_CWND_ONE);
                self.reset_rtx_timer(false, false, now);
                self.stats.fast_retransmits += 1;
            }
            return; // bug_fix_
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::DupAck;
        self.slowdown(Self::CLOSE_SSTHRESH_HALF | Self::CLOSE_CWND_ONE);
        self.reset_rtx_timer(false, false, now);
        self.stats.fast_retransmits += 1;
    }

    pub(super) fn recv_reno(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let seqno = ack.seq;
        if seqno > self.last_ack {
            if self.last_cwnd_action == CwndAction::DupAck {
                self.last_cwnd_action = CwndAction::Exited;
            }
            self.dupwnd = 0;
            self.recv_newack_helper(ack, now);
            if self.last_ack == 0 && self.p.delay_growth {
                self.cwnd = self.initial_window();
            }
        } else if seqno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.dupacks {
                self.dupack_action_reno(now, out, false);
            } else if self.dupacks > self.p.dupacks && self.last_cwnd_action == CwndAction::DupAck {
                self.dupwnd += 1;
            } else if self.dupacks < self.p.dupacks && self.p.limited_transmit {
                self.send_one(now, out);
            }
        }
        if self.dupacks == 0 || self.dupacks > self.p.dupacks - 1 {
            self.send_much(false, now, out);
        }
    }

    /// Reno and NewReno fast retransmit (they differ only in `allow_fast_retransmit`).
    pub(super) fn dupack_action_reno(&mut self, now: SimTime, out: &mut Vec<Packet>, newreno: bool) {
        let recovered = self.highest_ack > self.recover;
        let allow = !newreno && self.last_cwnd_action == CwndAction::DupAck;
        if !(recovered || allow || self.highest_ack == 0) {
            if self.p.ecn && self.last_cwnd_action == CwndAction::Ecn {
                self.last_cwnd_action = CwndAction::DupAck;
                if self.cc.is_plugin() {
                    // fast recovery without a reduction (the window was cut for the echo)
                    self.plugin_hook(now, Hook::Event(CcStateEvent::Recovery));
                }
                self.reset_rtx_timer(true, false, now);
                let s = self.last_ack + 1;
                self.output(s, now, out);
                self.dupwnd = self.p.dupacks;
                self.stats.fast_retransmits += 1;
            }
            return; // bug_fix_
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::DupAck;
        if self.cc.is_plugin() {
            self.plugin_hook(now, Hook::Event(CcStateEvent::Recovery));
        }
        if newreno {
            self.reset_rtx_timer(true, false, now);
            self.slowdown(Self::CLOSE_SSTHRESH_HALF | Self::CLOSE_CWND_HALF);
        } else {
            self.slowdown(Self::CLOSE_SSTHRESH_HALF | Self::CLOSE_CWND_HALF);
            self.reset_rtx_timer(true, false, now);
        }
        let s = self.last_ack + 1;
        self.output(s, now, out);
        self.dupwnd = self.p.dupacks;
        self.stats.fast_retransmits += 1;
    }

    pub(super) fn recv_newreno(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let seqno = ack.seq;
        if self.cc.is_plugin() && seqno >= self.last_ack {
            let acked = if seqno > self.last_ack { (seqno - self.last_ack) as u32 } else { 1 };
            self.plugin_hook(now, Hook::PktsAcked(acked, ack.has(ecn::ECE)));
        }
        if seqno > self.last_ack {
            if seqno >= self.recover || self.last_cwnd_action != CwndAction::DupAck {
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    if self.last_cwnd_action == CwndAction::DupAck {
                        self.last_cwnd_action = CwndAction::Exited;
                        if self.cc.is_plugin() {
                            self.plugin_hook(now, Hook::Event(CcStateEvent::CompleteCwr));
                        }
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(ack, now);
                if self.last_ack == 0 && self.p.delay_growth {
                    self.cwnd = self.initial_window();
                }
            } else {
                // Partial ACK (partial_window_deflation_ 1, newreno_changes1_ 1).
                if !self.firstpartial {
                    self.firstpartial = true;
                    self.newtimer(seqno, now);
                }
                let deflate = (seqno - self.last_ack) as u32;
                if self.dupwnd > deflate {
                    self.dupwnd -= deflate - 1;
                } else {
                    self.cwnd -= (deflate - self.dupwnd) as f64;
                    self.dupwnd = 1;
                }
                if self.cwnd < 1.0 {
                    self.cwnd = 1.0;
                }
                self.last_ack = seqno;
                self.highest_ack = seqno;
                if self.t_seqno < seqno + 1 {
                    self.t_seqno = seqno + 1;
                }
                if self.rtt_active && seqno >= self.rtt_seq {
                    self.rtt_active = false;
                    self.rtt.reset_backoff();
                }
                let s = self.last_ack + 1;
                self.output(s, now, out);
            }
        } else if seqno == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.p.dupacks {
                self.dupack_action_reno(now, out, true);
            } else if self.dupacks > self.p.dupacks && self.last_cwnd_action == CwndAction::DupAck {
                self.dupwnd += 1;
            } else if self.dupacks < self.p.dupacks && self.p.limited_transmit {
                self.send_one(now, out);
            }
        }
        // aggressive_maxburst_ 1: whether or not the ACK was valid.
        if self.dupacks == 0 {
            self.send_much(false, now, out);
        } else if self.dupacks > self.p.dupacks - 1 {
            self.send_much_burst(now, out, 2);
        }
    }
}
