//! What an ACK's ECN echo does to the Linux/ns-3 sender (`ecn.rs` holds its ECN state):
//! leaving CWR, AccECN's CE count, and the once-per-window reduction (ns-3's `EnterCwr`).

use super::ecn::EcnState;
use super::sender::{CongState, LinuxSender};
use crate::packet::{ecn, Packet};

impl LinuxSender {
    /// AccECN feedback was negotiated (`accecn.rs`).
    pub fn ecn_accecn(&self) -> bool {
        self.ecn.s_cep.is_some()
    }

    /// ns-3's `ReceivedAck` before `ProcessAck`: leave CWR once past the recovery point,
    /// then take an ECE that acknowledges new data.
    pub(super) fn on_ecn_echo(&mut self, pkt: &Packet, ack: i32, old_una: i32, delivered: u32) {
        if self.state == CongState::Cwr && ack > self.recover {
            self.state = CongState::Open;
            self.tcb.cwnd = self.tcb.ssthresh;
        }
        if !self.ecn.on {
            return;
        }
        // AccECN: newly CE-marked segments from the ACE counter, and an "echo" when any
        let ece = match self.ecn.s_cep {
            Some(s_cep) => {
                let d = delivered / self.tcb.mss;
                let ce = crate::tcp::accecn::ce_delta(crate::tcp::accecn::ace_of(pkt.ecn), s_cep, d);
                self.ecn.s_cep = Some(s_cep.wrapping_add(ce));
                self.tcb.delivered_ce = ce;
                self.stats.ce_delivered += ce as u64;
                ce > 0
            }
            None => pkt.has(ecn::ECE),
        };
        if ack > old_una && ece {
            if self.ecn.echo_seq < ack {
                self.ecn.echo_seq = ack;
                self.ecn.state = EcnState::EceRcvd;
                if self.state != CongState::Cwr {
                    self.enter_cwr(delivered);
                }
            }
        } else if self.ecn.state == EcnState::EceRcvd && !ece {
            self.ecn.state = EcnState::Idle;
        }
    }

    /// ns-3's `EnterCwr` (from any state, recovery and loss included, as ns-3 does).
    fn enter_cwr(&mut self, delivered: u32) {
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, self.bytes_in_flight());
        self.cc.enter_cwr(&mut self.tcb);
        self.state = CongState::Cwr;
        self.recover = self.sb.high;
        self.prr.enter(self.sb.outstanding() as u64 * self.tcb.mss as u64);
        self.prr_ack(delivered);
        self.stats.ecn_responses += 1;
    }
}
