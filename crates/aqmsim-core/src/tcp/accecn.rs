//! AccECN feedback (RFC 9768) between the linux stack's sink and sender: the ACE field only
//! (no AccECN option). The wire format both ends share, so it sits beside the sink, not
//! inside `linux/`; it depends on nothing in `tcp/`.
//!
//! * Receiver: `r.cep` starts at 5 (RFC 9768; Linux's TCP_ACCECN_CEP_INIT_OFFSET: the first data ACK carries ACE = 0b101)
//!   and counts every CE-marked data packet received, duplicates included; every ACK carries
//!   its three low bits as AE|CWR|ECE (`ecn::AE` = 4, `ecn::CWR` = 2, `ecn::ECE` = 1 of the
//!   ACE value). A CE packet after a non-CE one is ACKed at once (RFC 9768's
//!   change-triggered ACK); with at most 2 segments per delayed ACK no more than 2 CE marks
//!   wait for an ACK, within RFC 9768's bound on the marks one ACK may wait for (Linux: 6).
//! * Sender: `s.cep` starts at 5; on an ACK that newly delivers (ACKs or SACKs) `d` packets,
//!   Δ = (ACE − s.cep) mod 8; when `d` > 7 the counter may have wrapped and the sender takes
//!   the conservative reading (§3.2.2.5 "safety against ambiguity" in its simple form,
//!   Appendix A.2.1, as Linux's `__tcp_accecn_process` without the option): the largest
//!   value ≤ `d` congruent to Δ mod 8, `d − ((d − Δ) mod 8)`. An ACK that delivers nothing
//!   is not read (its ACE is taken up by the next one: the counter is cumulative).
//! * Negotiation (§3.1): aqmsim's linux stack has no handshake packets, so the handshake's
//!   outcome is set from both ends: AccECN when the sender asks (`accecn`) and the receiver
//!   supports it (`sink_accecn`, true), else RFC 3168 feedback (RFC 9768 §3.1's fallback when
//!   the SYN/ACK answers as an RFC 3168 receiver).
//!
//! The congestion control gets the per-ACK delivered and newly CE-marked packets in
//! `Tcb::delivered` and `Tcb::delivered_ce`. A classic control (NewReno, CUBIC) responds to
//! Δ > 0 as to an RFC 3168 ECE: once per window (ecn.rs), and no CWR flag is sent (AccECN
//! has no CWR on data).

use crate::packet::ecn;

/// The initial value of both counters (RFC 9768; Linux's `TCP_ACCECN_CEP_INIT_OFFSET`).
pub const CEP_INIT: u32 = 5;

/// The 3-bit ACE field of a counter value, as ACK flags: AE (4), CWR (2), ECE (1).
#[inline]
pub fn ace_bits(cep: u32) -> u8 {
    let v = cep & 7;
    (if v & 4 != 0 { ecn::AE } else { 0 }) | (if v & 2 != 0 { ecn::CWR } else { 0 }) | (if v & 1 != 0 { ecn::ECE } else { 0 })
}

/// The ACE value (0..=7) of an ACK's flags.
#[inline]
pub fn ace_of(flags: u8) -> u32 {
    (flags & ecn::AE != 0) as u32 * 4 + (flags & ecn::CWR != 0) as u32 * 2 + (flags & ecn::ECE != 0) as u32
}

/// Newly CE-marked packets an ACK with ACE value `ace` reports, the sender's counter at
/// `s_cep` and `delivered` packets newly delivered by the ACK (the wrap rule above).
#[inline]
pub fn ce_delta(ace: u32, s_cep: u32, delivered: u32) -> u32 {
    if delivered == 0 {
        return 0;
    }
    let delta = ace.wrapping_sub(s_cep) & 7;
    if delivered <= 7 {
        delta
    } else {
        delivered - (delivered.wrapping_sub(delta) & 7)
    }
}

/// The receiver's counter (`r.cep`) and the CE state of the last data packet.
#[derive(Clone, Debug)]
pub struct AccEcnRx {
    pub r_cep: u32,
    /// Payload bytes of CE-marked packets (the AccECN option's r.ceb; not sent, reported).
    pub r_ceb: u64,
    last_ce: bool,
}

impl Default for AccEcnRx {
    fn default() -> Self {
        AccEcnRx { r_cep: CEP_INIT, r_ceb: 0, last_ce: false }
    }
}

impl AccEcnRx {
    /// A data packet arrived with `flags`: count it; true when it must be ACKed at once (a
    /// CE packet after a non-CE one).
    pub fn on_data(&mut self, flags: u8, payload: u64) -> bool {
        let ce = flags & (ecn::ECT | ecn::CE) == ecn::ECT | ecn::CE;
        if ce {
            self.r_cep = self.r_cep.wrapping_add(1);
            self.r_ceb += payload;
        }
        let now = ce && !self.last_ce;
        self.last_ce = ce;
        now
    }
    /// The ACE flags of an ACK sent now.
    pub fn ack_bits(&self) -> u8 {
        ace_bits(self.r_cep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ace_round_trips_through_the_three_flags() {
        for v in 0..16 {
            assert_eq!(ace_of(ace_bits(v)), v & 7);
        }
        assert_eq!(ace_bits(5), ecn::AE | ecn::ECE);
        assert_eq!(ace_bits(6), ecn::AE | ecn::CWR);
    }

    /// By hand: s.cep = 5. ACE 5, 2 delivered: Δ 0. ACE 7 (2 CE): Δ 2. ACE 1 after s.cep 7:
    /// (1 − 7) mod 8 = 2 — the counter wrapped once, read without ambiguity (2 ≤ 7 delivered).
    /// 10 delivered, ACE 3 after s.cep 1: Δ = 2, and 10 > 7 so it may be 2 or 10: the safe
    /// reading is 10 − ((10 − 2) mod 8) = 10. 10 delivered, Δ = 5: 10 − (5 mod 8) = 5.
    /// 20 delivered, Δ = 1: 20 − (19 mod 8) = 17. No progress: 0 whatever the ACE.
    #[test]
    fn ce_delta_by_hand_with_the_wrap_rule() {
        let mut s = CEP_INIT;
        for (ace, d, want) in [(5, 2, 0), (7, 2, 2), (1, 2, 2), (1, 0, 0), (3, 10, 10), (0, 10, 5), (1, 20, 17)] {
            let got = ce_delta(ace, s, d);
            assert_eq!(got, want, "ace {ace} s.cep {s} delivered {d}");
            s = s.wrapping_add(got);
        }
        assert_eq!(s, CEP_INIT + 2 + 2 + 10 + 5 + 17);
    }

    #[test]
    fn receiver_counts_ce_and_asks_for_an_ack_on_the_first_of_a_run() {
        let mut r = AccEcnRx::default();
        let ce = ecn::ECT | ecn::ECT1 | ecn::CE;
        let got: Vec<(bool, u32)> = [ecn::ECT, ce, ce, ecn::ECT, ce, 0 | ecn::CE]
            .iter()
            .map(|&f| (r.on_data(f, 1000), r.r_cep))
            .collect();
        // CE without ECT (not a packet an ECN queue marks) does not count
        assert_eq!(got, vec![(false, 5), (true, 6), (false, 7), (false, 7), (true, 8), (false, 8)]);
        assert_eq!(r.r_ceb, 3000);
    }

    /// The sink with AccECN and ns-3's delayed ACKs (2 segments), by hand. r.cep from 5;
    /// segment 0 is ACKed at once (ACE 5). 1 ECT held; 2 CE after non-CE: ACK now, cum 2,
    /// ACE 6. 3 CE held; 4 CE: second segment, cum 4, r.cep 8 → ACE 0 (the wrap). 5 held;
    /// 6 CE after non-CE: cum 6, ACE 1. 7 CE held, the timer: cum 7, ACE 2. 8–12 CE: cum 9
    /// ACE 4, cum 11 ACE 6, and 12 by the timer, ACE 7. The sender reads Δ = 0 1 2 1 1 2 2 1
    /// (10 = r.cep − 5). Had the ACKs of 4, 6, 7 and 9 been lost, the ACK of 11 delivers 9
    /// segments with Δ = (6 − 6) mod 8 = 0: the safe reading is 9 − (9 mod 8) = 8, which is
    /// right (3, 4, 6, 7, 8, 9, 10, 11 were CE).
    #[test]
    fn golden_ace_sequence_through_delayed_acks_and_a_wrap() {
        use crate::packet::{Kind, Packet};
        use crate::tcp::TcpSink;
        use crate::time::SimTime;
        let mut sink = TcpSink::new(0, 1, 40, 1000, true, 0.2, false, true);
        sink.ns3_sack = true;
        sink.accecn = Some(AccEcnRx::default());
        let ce = ecn::ECT | ecn::ECT1 | ecn::CE;
        let ect = ecn::ECT | ecn::ECT1;
        let marks = [ect, ect, ce, ce, ce, ect, ce, ce, ce, ce, ce, ce, ce];
        let mut acks = vec![];
        for (seq, &f) in marks.iter().enumerate() {
            let mut d = Packet::new(Kind::Data, 0, seq as i32, 1040, 1, SimTime::ZERO);
            d.ecn = f;
            if let Some(a) = sink.recv(&d, SimTime::ZERO) {
                acks.push((a.seq, ace_of(a.ecn)));
            }
            if seq == 7 || seq == 12 {
                let a = sink.on_delack_timer(sink.delack_gen, SimTime::ZERO).expect("a delayed ACK waits");
                acks.push((a.seq, ace_of(a.ecn)));
            }
        }
        assert_eq!(acks, vec![(0, 5), (2, 6), (4, 0), (6, 1), (7, 2), (9, 4), (11, 6), (12, 7)]);
        let (mut s, mut una, mut deltas) = (CEP_INIT, 0, vec![]);
        for &(cum, ace) in &acks {
            let dlt = ce_delta(ace, s, (cum + 1 - una) as u32);
            deltas.push(dlt);
            s = s.wrapping_add(dlt);
            una = cum + 1;
        }
        assert_eq!(deltas, vec![0, 1, 2, 1, 1, 2, 2, 1]);
        assert_eq!(s - CEP_INIT, 10);
        // the lost-ACK case: after the ACK of 2 (s.cep 6), the ACK of 11 (ACE 6)
        assert_eq!(ce_delta(6, 6, 11 - 2), 8);
    }
}
