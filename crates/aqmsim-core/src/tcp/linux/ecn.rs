//! ECN on the Linux/ns-3 sender (RFC 3168 as ns-3.37's `TcpSocketBase` runs it, `UseEcn`
//! On): every data segment is ECT(0); an ACK of new data with ECE, echoing data beyond the
//! last echo, reduces once per window — ssthresh from the bytes in flight, then PRR brings
//! cwnd down over the round (state CWR) — and the next new segment carries CWR. CWR ends when
//! the cumulative ACK passes the data outstanding at the reduction: cwnd = ssthresh.

use super::sender::{CongState, LinuxSender};
use crate::packet::{ecn, Packet};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EcnState {
    Idle,
    /// ECE received, CWR not yet sent.
    EceRcvd,
    CwrSent,
}

#[derive(Clone, Debug)]
pub struct EcnSender {
    pub on: bool,
    /// The IP codepoint of data: ECT(1) (`ect = "ect1"`, Prague) instead of ECT(0).
    pub ect: u8,
    pub state: EcnState,
    /// The cumulative ACK of the last ECE taken (ns-3 `m_ecnEchoSeq`).
    echo_seq: i32,
    /// The segment that last carried CWR (ns-3 `m_ecnCWRSeq`).
    cwr_seq: i32,
    /// AccECN feedback negotiated (`accecn.rs`): the sender's counter `s.cep`, else None.
    pub s_cep: Option<u32>,
}

impl EcnSender {
    pub fn new(on: bool) -> Self {
        EcnSender { on, ect: ecn::ECT, state: EcnState::Idle, echo_seq: 0, cwr_seq: -1, s_cep: None }
    }

    /// A flow's: ECT(1) with `ect = "ect1"`; AccECN when both ends' settings negotiate it
    /// (the handshake's outcome, accecn.rs).
    pub fn for_params(p: &crate::tcp::TcpParams) -> Self {
        let mut e = EcnSender::new(p.ecn);
        if p.ect1 {
            e.ect = ecn::ECT | ecn::ECT1;
        }
        if p.ecn && p.accecn && p.sink_accecn {
            e.s_cep = Some(crate::tcp::accecn::CEP_INIT);
        }
        e
    }

    /// The ECN bits of data segment `seg`: ECT when on (retransmissions too, as ns-3), and
    /// CWR on the first new segment after an echo.
    pub fn data_bits(&mut self, seg: i32, rtx: bool) -> u8 {
        if !self.on {
            return 0;
        }
        let mut bits = self.ect;
        if self.state == EcnState::EceRcvd && self.echo_seq > self.cwr_seq && !rtx && self.s_cep.is_none() {
            self.state = EcnState::CwrSent;
            self.cwr_seq = seg;
            bits |= ecn::CWR;
        }
        bits
    }
}

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
