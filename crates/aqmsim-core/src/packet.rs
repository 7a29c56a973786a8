//! Packets: a small `Copy` struct moved by value through queues and links.
//!
//! Sequence numbers count packets, as in ns-2's one-way TCP agents. A packet carries what
//! the monitors need (send time for end-to-end delay, enqueue time for queueing delay) and
//! up to three SACK blocks on ACKs.

use crate::time::SimTime;

/// What a packet is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// TCP data (or the SYN, sequence number 0, when the flow opens with one).
    Data = 0,
    /// TCP acknowledgement.
    Ack = 1,
    /// Unresponsive UDP (CBR) datagram.
    Udp = 2,
}

/// IP ECN and TCP ECN flags, one bit each.
///
/// The IP field's four codepoints (RFC 3168, RFC 9331) are spelled with three bits:
/// Not-ECT = neither `ECT` nor `CE`; ECT(0) = `ECT`; ECT(1) = `ECT | ECT1`; CE = `ECT | CE`
/// (a marking queue sets `CE` and keeps the rest, so the sender's ECT(0)/ECT(1) choice stays
/// readable for monitors; on the wire CE is `11` whichever it was: [`codepoint`]).
pub mod ecn {
    /// ECN-Capable Transport (IP): ECT(0), or ECT(1) with [`ECT1`].
    pub const ECT: u8 = 1;
    /// Congestion Experienced (IP), set by a marking queue.
    pub const CE: u8 = 2;
    /// ECN-Echo (TCP, on ACKs).
    pub const ECE: u8 = 4;
    /// Congestion Window Reduced (TCP, on data).
    pub const CWR: u8 = 8;
    /// With [`ECT`]: the packet was sent ECT(1), the L4S identifier (RFC 9331).
    pub const ECT1: u8 = 16;
    /// AccECN's AE flag (RFC 9768): with CWR and ECE, the 3-bit ACE counter on an ACK.
    pub const AE: u8 = 32;

    /// The IP ECN field's codepoint.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub enum Codepoint {
        NotEct,
        Ect0,
        Ect1,
        Ce,
    }

    impl Codepoint {
        /// The two-bit IP ECN field (RFC 3168: ECT(0) = 0b10, ECT(1) = 0b01, CE = 0b11).
        pub fn bits(self) -> u8 {
            match self {
                Codepoint::NotEct => 0b00,
                Codepoint::Ect1 => 0b01,
                Codepoint::Ect0 => 0b10,
                Codepoint::Ce => 0b11,
            }
        }
    }

    /// The codepoint of `flags` (a packet's `ecn` byte).
    #[inline]
    pub fn codepoint(flags: u8) -> Codepoint {
        if flags & CE != 0 {
            Codepoint::Ce
        } else if flags & ECT == 0 {
            Codepoint::NotEct
        } else if flags & ECT1 != 0 {
            Codepoint::Ect1
        } else {
            Codepoint::Ect0
        }
    }

    /// RFC 9331 §5.3's classifier: ECT(1) or CE is L4S traffic.
    #[inline]
    pub fn is_l4s(flags: u8) -> bool {
        flags & CE != 0 || flags & (ECT | ECT1) == ECT | ECT1
    }
}

/// ns-3's `TcpOptionTS::NowToTsValue`: a time in whole milliseconds, low 32 bits (the
/// timestamp option's TSval, `tcp.timestamps`).
#[inline]
pub fn ts_ms(t: SimTime) -> u32 {
    (t.0 / 1_000_000) as u32
}

/// Bytes the timestamp option adds to a segment (10, padded to 12; with SACK blocks the
/// SACK option's 2-byte kind/length fills the padding, so an ACK is header + 12 + 8·n).
pub const TS_OPTION_BYTES: u32 = 12;

/// Maximum SACK blocks carried on an ACK (ns-2 `maxSackBlocks_` 3).
pub const MAX_SACK: usize = 3;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Packet {
    /// Flow index (dense, from 0).
    pub flow: u32,
    /// Data: sequence number of this packet. ACK: cumulative ack (highest in-order seqno).
    pub seq: i32,
    /// Size on the wire, bytes (headers included).
    pub size: u32,
    /// Destination node.
    pub dst: u32,
    pub kind: Kind,
    /// `ecn::*` bits.
    pub ecn: u8,
    /// Data: 1 for a retransmission ([`Packet::rtx`]). ACK: the sink's count of ACKs sent,
    /// mod 256, which tells apart duplicate ACKs that are otherwise identical (packet traces
    /// match packets by content).
    pub tag: u8,
    /// Number of valid entries of `sack`.
    pub nsack: u8,
    /// Data: when the source handed it to the network. ACK: echo of that for the acked packet.
    pub t_sent: SimTime,
    /// When it entered the queue it is in now (queueing delay).
    pub t_enq: SimTime,
    /// SACK blocks `[start, end]` inclusive, most recent first, as offsets above `seq`
    /// (the cumulative ACK): see [`Packet::sack_block`]. Offsets keep the packet at 48
    /// bytes, so that a packet in flight with its arrival time and event number fills
    /// exactly one cache line.
    sack: [(u16, u16); MAX_SACK],
}

impl Packet {
    pub fn new(kind: Kind, flow: u32, seq: i32, size: u32, dst: u32, now: SimTime) -> Packet {
        Packet {
            flow,
            seq,
            size,
            dst,
            kind,
            ecn: 0,
            tag: 0,
            nsack: 0,
            t_sent: now,
            t_enq: now,
            sack: [(0, 0); MAX_SACK],
        }
    }
    /// A retransmitted data packet.
    #[inline]
    pub fn rtx(&self) -> bool {
        self.kind == Kind::Data && self.tag != 0
    }

    #[inline]
    pub fn has(&self, bit: u8) -> bool {
        self.ecn & bit != 0
    }

    /// An RFC 7323 timestamp option on an ACK of a `timestamps = true` flow: TSval and
    /// TSecr in whole milliseconds (32 bits each, as ns-3's `TcpOptionTS`), carried in
    /// `t_sent` (an ACK with the option has no other use for it).
    #[inline]
    pub fn set_ts(&mut self, tsval: u32, tsecr: u32) {
        self.t_sent = SimTime(((tsval as u64) << 32) | tsecr as u64);
    }
    /// `(TSval, TSecr)` of an ACK that [`Packet::set_ts`] stamped.
    #[inline]
    pub fn ts(&self) -> (u32, u32) {
        ((self.t_sent.0 >> 32) as u32, self.t_sent.0 as u32)
    }

    /// SACK block `i` (`i < nsack`), `[start, end]` inclusive.
    #[inline]
    pub fn sack_block(&self, i: usize) -> (i32, i32) {
        let (lo, hi) = self.sack[i];
        (self.seq.wrapping_add(lo as i32), self.seq.wrapping_add(hi as i32))
    }

    /// Set the SACK blocks (at most [`MAX_SACK`], each above `seq`, which must be set
    /// first). A block further than 65 535 packets above the cumulative ACK cannot be
    /// carried and is left out (a window that large is far beyond any scenario here).
    pub fn set_sack(&mut self, blocks: &[(i32, i32)]) {
        let mut n = 0;
        for &(lo, hi) in blocks.iter().take(MAX_SACK) {
            let (a, b) = (lo.wrapping_sub(self.seq), hi.wrapping_sub(self.seq));
            if (0..=u16::MAX as i32).contains(&a) && (0..=u16::MAX as i32).contains(&b) {
                self.sack[n] = (a as u16, b as u16);
                n += 1;
            }
        }
        self.nsack = n as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_small() {
        assert_eq!(std::mem::size_of::<Packet>(), 48);
    }

    #[test]
    fn sack_blocks_round_trip_as_offsets() {
        let mut a = Packet::new(Kind::Ack, 0, 1000, 40, 0, SimTime::ZERO);
        a.set_sack(&[(1005, 1009), (1002, 1002), (70_000, 70_001)]);
        assert_eq!(a.nsack, 2, "a block 69 000 above the ACK is left out");
        assert_eq!((a.sack_block(0), a.sack_block(1)), ((1005, 1009), (1002, 1002)));
    }

    #[test]
    fn codepoints_as_rfc_3168_spells_them() {
        use ecn::{codepoint, is_l4s, Codepoint::*};
        let cases = [
            (0, NotEct, 0b00, false),
            (ecn::ECT, Ect0, 0b10, false),
            (ecn::ECT | ecn::ECT1, Ect1, 0b01, true),
            (ecn::ECT | ecn::CE, Ce, 0b11, true),
            (ecn::ECT | ecn::ECT1 | ecn::CE, Ce, 0b11, true),
            (ecn::ECE | ecn::CWR | ecn::AE, NotEct, 0b00, false),
        ];
        for (flags, cp, bits, l4s) in cases {
            assert_eq!(codepoint(flags), cp, "flags {flags:#b}");
            assert_eq!(cp.bits(), bits);
            assert_eq!(is_l4s(flags), l4s, "flags {flags:#b}");
        }
    }
}
