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
pub mod ecn {
    /// ECN-Capable Transport (IP).
    pub const ECT: u8 = 1;
    /// Congestion Experienced (IP), set by a marking queue.
    pub const CE: u8 = 2;
    /// ECN-Echo (TCP, on ACKs).
    pub const ECE: u8 = 4;
    /// Congestion Window Reduced (TCP, on data).
    pub const CWR: u8 = 8;
}

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
    /// Data: a retransmission.
    pub rtx: bool,
    /// Number of valid entries of `sack`.
    pub nsack: u8,
    /// Data: when the source handed it to the network. ACK: echo of that for the acked packet.
    pub t_sent: SimTime,
    /// When it entered the queue it is in now (queueing delay).
    pub t_enq: SimTime,
    /// SACK blocks `[start, end]` inclusive, most recent first.
    pub sack: [(i32, i32); MAX_SACK],
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
            rtx: false,
            nsack: 0,
            t_sent: now,
            t_enq: now,
            sack: [(0, 0); MAX_SACK],
        }
    }
    #[inline]
    pub fn has(&self, bit: u8) -> bool {
        self.ecn & bit != 0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        assert!(std::mem::size_of::<super::Packet>() <= 72);
    }
}
