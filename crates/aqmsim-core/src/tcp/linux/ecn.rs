//! ECN on the Linux/ns-3 sender (RFC 3168 as ns-3.37's `TcpSocketBase` runs it, `UseEcn`
//! On): every data segment is ECT(0); an ACK of new data with ECE, echoing data beyond the
//! last echo, reduces once per window — ssthresh from the bytes in flight, then PRR brings
//! cwnd down over the round (state CWR) — and the next new segment carries CWR. CWR ends when
//! the cumulative ACK passes the data outstanding at the reduction: cwnd = ssthresh.
//!
//! This file holds the sender's ECN state and the bits of its segments; what an ACK's echo
//! does to the sender is in `ecn_hooks.rs`.

use crate::packet::ecn;

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
    pub(super) echo_seq: i32,
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
