//! pcap traces: each traced packet as an IPv4 datagram with synthetic TCP or UDP headers,
//! so that Wireshark and tshark decode aqmsim's packets, sequence analysis included.
//!
//! The file is classic pcap with nanosecond timestamps (magic `0xa1b23c4d`) and link type
//! `LINKTYPE_RAW` (101: an IPv4 packet with no link-layer header). Only the headers are
//! captured (`incl_len` = IP + TCP/UDP header); `orig_len` is the IP total length, so tools
//! show "[Packet size limited during capture]" for the payload, never "Malformed".
//!
//! Headers are a pure function of the packet and its flow (no per-flow state): the same
//! packet gives the same bytes at every link and event. The mapping (see `docs/pcap.md`):
//!
//! - addresses: node `n` is `10.a.b.c` with `a.b.c` the low 24 bits of `n`; data and UDP go
//!   from the flow's source node to its destination, ACKs back;
//! - ports: flow `f` is sender port `10000 + f % 50000`, receiver port
//!   `5100 + (f / 50000) % 80`, so every flow is its own connection;
//! - IP: DF set, TTL 64, ECN field ECT(0) for `ECT`, CE (`11`) for `CE`, identification the
//!   low 16 bits of the ns-2 packet number (data, UDP) or of the cumulative ACK (ACKs);
//! - TCP bytes: flow `f`'s data starts at ISN [`isn`]`(f)`; with `syn` packet 0 is the SYN
//!   (sequence ISN, options MSS + SACK-permitted); data packet `k` covers bytes
//!   `ISN + 1 + (k - first) * payload` for `payload` bytes (`first` = 1 with a SYN, else 0);
//!   an ACK of cumulative packet `c` acknowledges byte `ISN + 1 + (c + 1 - first) * payload`
//!   (the SYN's ACK is ISN + 1) and carries sequence [`sink_isn`]`(f) + 1` (the receiver
//!   sends no data, no SYN-ACK is synthesized); SACK blocks become byte ranges; ECE and CWR
//!   flags from the packet's bits; window 65535; checksums valid for an all-zero payload.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{FlowInfo, Where};
use crate::packet::{ecn, Kind, Packet};
use crate::time::NS_PER_SEC;

/// pcap magic number of a file with nanosecond timestamps.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_RAW`: each record is an IPv4 (or IPv6) packet, no link-layer header.
pub const LINKTYPE_RAW: u32 = 101;
/// Captured bytes at most per record (the longest headers written are 20 + 48 bytes).
pub const SNAPLEN: u32 = 128;
/// Constant TCP window field.
pub const WINDOW: u16 = 65_535;

const IP_HDR: usize = 20;
const TCP_HDR: usize = 20;
const UDP_HDR: usize = 8;
const REC_HDR: usize = 16;
/// Record header + IP + TCP with the longest options (3 SACK blocks: 4 + 24 bytes).
const MAX_RECORD: usize = REC_HDR + IP_HDR + TCP_HDR + 28;

const TH_SYN: u8 = 0x02;
const TH_ACK: u8 = 0x10;
const TH_ECE: u8 = 0x40;
const TH_CWR: u8 = 0x80;

/// Initial sequence number of flow `f`'s data (a fixed scramble of the index).
#[inline]
pub fn isn(flow: u32) -> u32 {
    flow.wrapping_mul(0x9E37_79B9) ^ 0x1000_0000
}

/// Sequence number of flow `f`'s receiver (its ACKs carry `sink_isn(f) + 1`).
#[inline]
pub fn sink_isn(flow: u32) -> u32 {
    flow.wrapping_mul(0x85EB_CA6B) ^ 0x2000_0000
}

/// The sender's (data) port of flow `f`.
#[inline]
pub fn sender_port(flow: u32) -> u16 {
    (10_000 + flow % 50_000) as u16
}

/// The receiver's port of flow `f`.
#[inline]
pub fn receiver_port(flow: u32) -> u16 {
    (5_100 + (flow / 50_000) % 80) as u16
}

/// IPv4 address of node `n`: `10.a.b.c` from its low 24 bits.
#[inline]
pub fn address(node: u32) -> [u8; 4] {
    [10, (node >> 16) as u8, (node >> 8) as u8, node as u8]
}

/// Writes a pcap file, one record per [`PcapWriter::write`].
pub struct PcapWriter<W: Write = BufWriter<File>> {
    out: W,
    buf: [u8; MAX_RECORD],
}

impl PcapWriter<BufWriter<File>> {
    /// Create (truncate) `path` and write the pcap global header.
    pub fn create(path: &Path) -> io::Result<Self> {
        PcapWriter::new(BufWriter::with_capacity(1 << 16, File::create(path)?))
    }
}

impl<W: Write> PcapWriter<W> {
    /// A writer on any byte sink; writes the global header.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone, sigfigs: 0
        h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, buf: [0; MAX_RECORD] })
    }

    /// One record: `pkt` of `flow` as seen at `at.t`. (Which events go to which file is the
    /// caller's choice; Wireshark's retransmission analysis assumes each packet is written
    /// once, at one place.)
    pub fn write(&mut self, at: &Where, pkt: &Packet, flow: &FlowInfo) -> io::Result<()> {
        let n = encode(&mut self.buf, at.t.0, pkt, flow);
        self.out.write_all(&self.buf[..n])
    }

    /// Flush and close.
    pub fn finish(self) -> io::Result<()> {
        self.into_inner().map(|_| ())
    }

    /// Flush and hand back the sink.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Byte sequence number of the start of data packet `k` (the SYN, when there is one, is
/// `isn` itself).
#[inline]
fn data_byte(isn: u32, k: i32, flow: &FlowInfo) -> u32 {
    let first = flow.syn as i32;
    isn.wrapping_add(1).wrapping_add((k.wrapping_sub(first) as u32).wrapping_mul(flow.payload))
}

/// Write one record (header + captured bytes) at the start of `buf`; returns its length.
fn encode(buf: &mut [u8; MAX_RECORD], t_ns: u64, pkt: &Packet, flow: &FlowInfo) -> usize {
    let f = pkt.flow;
    let (src, dst) = match pkt.kind {
        Kind::Ack => (flow.dst, flow.src),
        _ => (flow.src, flow.dst),
    };
    let ip = &mut buf[REC_HDR..];
    let (proto, l4_len, ip_len) = match pkt.kind {
        Kind::Udp => {
            let ip_len = pkt.size.clamp((IP_HDR + UDP_HDR) as u32, 65_535);
            let l4 = &mut ip[IP_HDR..];
            l4[0..2].copy_from_slice(&sender_port(f).to_be_bytes());
            l4[2..4].copy_from_slice(&receiver_port(f).to_be_bytes());
            l4[4..6].copy_from_slice(&((ip_len as usize - IP_HDR) as u16).to_be_bytes());
            l4[6..8].fill(0);
            (17u8, UDP_HDR, ip_len)
        }
        Kind::Data | Kind::Ack => {
            let (hlen, seg) = tcp_header(&mut ip[IP_HDR..], pkt, flow);
            let ip_len = (IP_HDR as u32 + hlen as u32 + seg).min(65_535);
            (6u8, hlen, ip_len)
        }
    };
    // IPv4 header.
    // the two ECN bits of the TOS byte: ECT(0) 10, ECT(1) 01, CE 11 (RFC 3168 §5)
    let tos = ecn::codepoint(pkt.ecn).bits();
    ip[0] = 0x45;
    ip[1] = tos;
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&(pkt.seq as u16).to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF
    ip[8] = 64;
    ip[9] = proto;
    ip[10..12].fill(0);
    ip[12..16].copy_from_slice(&address(src));
    ip[16..20].copy_from_slice(&address(dst));
    let c = !fold(sum(&ip[..IP_HDR], 0));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    // Transport checksum over the pseudo-header and the header; the payload (not captured)
    // counts as zeros.
    let l4_total = ip_len - IP_HDR as u32;
    let pseudo = sum(&ip[12..20], proto as u32 + l4_total);
    let ck_at = if proto == 6 { IP_HDR + 16 } else { IP_HDR + 6 };
    let mut c = !fold(sum(&ip[IP_HDR..IP_HDR + l4_len], pseudo));
    if proto == 17 && c == 0 {
        c = 0xffff;
    }
    ip[ck_at..ck_at + 2].copy_from_slice(&c.to_be_bytes());
    // Record header.
    let incl = (IP_HDR + l4_len) as u32;
    buf[0..4].copy_from_slice(&((t_ns / NS_PER_SEC) as u32).to_le_bytes());
    buf[4..8].copy_from_slice(&((t_ns % NS_PER_SEC) as u32).to_le_bytes());
    buf[8..12].copy_from_slice(&incl.to_le_bytes());
    buf[12..16].copy_from_slice(&ip_len.to_le_bytes());
    REC_HDR + incl as usize
}

/// Write the TCP header of `pkt` (checksum 0) at the start of `h`; returns the header
/// length and the segment's payload length.
fn tcp_header(h: &mut [u8], pkt: &Packet, flow: &FlowInfo) -> (usize, u32) {
    let f = pkt.flow;
    let isn = isn(f);
    let mut flags = 0u8;
    if pkt.has(ecn::ECE) {
        flags |= TH_ECE;
    }
    if pkt.has(ecn::CWR) {
        flags |= TH_CWR;
    }
    let (sport, dport, seq, ack, seg);
    let mut opt = 0usize;
    let o = &mut h[TCP_HDR..];
    match pkt.kind {
        Kind::Ack => {
            (sport, dport) = (receiver_port(f), sender_port(f));
            seq = sink_isn(f).wrapping_add(1);
            ack = data_byte(isn, pkt.seq.wrapping_add(1), flow);
            flags |= TH_ACK;
            seg = 0;
            let n = pkt.nsack as usize;
            if n > 0 {
                o[0] = 1; // NOP
                o[1] = 1;
                o[2] = 5; // SACK
                o[3] = (2 + 8 * n) as u8;
                for i in 0..n {
                    let (lo, hi) = pkt.sack_block(i);
                    let at = 4 + 8 * i;
                    o[at..at + 4].copy_from_slice(&data_byte(isn, lo, flow).to_be_bytes());
                    o[at + 4..at + 8]
                        .copy_from_slice(&data_byte(isn, hi.wrapping_add(1), flow).to_be_bytes());
                }
                opt = 4 + 8 * n;
            }
        }
        _ if flow.syn && pkt.seq == 0 => {
            (sport, dport) = (sender_port(f), receiver_port(f));
            seq = isn;
            ack = 0;
            flags |= TH_SYN;
            seg = 0;
            let mss = flow.payload.min(65_535) as u16;
            o[0] = 2; // MSS
            o[1] = 4;
            o[2..4].copy_from_slice(&mss.to_be_bytes());
            o[4] = 1; // NOP, NOP, SACK permitted
            o[5] = 1;
            o[6] = 4;
            o[7] = 2;
            opt = 8;
        }
        _ => {
            (sport, dport) = (sender_port(f), receiver_port(f));
            seq = data_byte(isn, pkt.seq, flow);
            ack = sink_isn(f).wrapping_add(1);
            flags |= TH_ACK;
            seg = flow.payload;
        }
    }
    let hlen = TCP_HDR + opt;
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..8].copy_from_slice(&seq.to_be_bytes());
    h[8..12].copy_from_slice(&ack.to_be_bytes());
    // the AE flag (RFC 9768, the bit before CWR: the data-offset byte's lowest)
    h[12] = ((hlen / 4) as u8) << 4 | pkt.has(ecn::AE) as u8;
    h[13] = flags;
    h[14..16].copy_from_slice(&WINDOW.to_be_bytes());
    h[16..20].fill(0); // checksum, urgent pointer
    (hlen, seg)
}

/// One's-complement sum of big-endian 16-bit words (even length), added to `acc`.
#[inline]
fn sum(b: &[u8], mut acc: u32) -> u32 {
    for w in b.chunks_exact(2) {
        acc += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    acc
}

#[inline]
fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;
    use crate::trace::TraceEvent;

    fn flow(syn: bool) -> FlowInfo {
        FlowInfo { src: 1, dst: 2, tcp: true, payload: 1000, header: 40, syn }
    }
    fn at(ns: u64) -> Where {
        Where { t: SimTime(ns), secs: ns as f64 * 1e-9, ev: TraceEvent::Dequeue, from: 1, to: 3 }
    }
    fn bytes(pkts: &[(Packet, FlowInfo)]) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        for (p, f) in pkts {
            w.write(&at(1_500_000_250), p, f).unwrap();
        }
        w.into_inner().unwrap()
    }

    #[test]
    fn global_header_is_nanosecond_raw_ipv4() {
        let b = bytes(&[]);
        assert_eq!(
            b,
            [
                0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
                128, 0, 0, 0, 101, 0, 0, 0
            ]
        );
    }

    /// The TOS byte's two ECN bits of each codepoint (RFC 3168 §5): CE whatever it was sent as.
    #[test]
    fn tos_ecn_bits_of_each_codepoint() {
        for (flags, tos) in [(0, 0u8), (ecn::ECT, 0b10), (ecn::ECT | ecn::ECT1, 0b01), (ecn::ECT | ecn::CE, 0b11), (ecn::ECT | ecn::ECT1 | ecn::CE, 0b11)] {
            let mut p = Packet::new(Kind::Data, 0, 1, 1040, 2, SimTime::ZERO);
            p.ecn = flags;
            assert_eq!(bytes(&[(p, flow(true))])[24 + 16 + 1], tos, "flags {flags:#b}");
        }
    }

    #[test]
    fn first_data_packet_byte_exact() {
        let mut p = Packet::new(Kind::Data, 0, 1, 1040, 2, SimTime::ZERO);
        p.ecn = ecn::ECT;
        let b = bytes(&[(p, flow(true))]);
        #[rustfmt::skip]
        let want: [u8; 16 + 40] = [
            // record: 1 s, 500 000 250 ns, 40 bytes captured of 1040
            1, 0, 0, 0, 0xfa, 0x65, 0xcd, 0x1d, 40, 0, 0, 0, 0x10, 0x04, 0, 0,
            // IPv4: ECT(0), length 1040, id 1 (the packet number), DF, TTL 64, TCP,
            // checksum 0x22e3 (computed by hand), 10.0.0.1 -> 10.0.0.2
            0x45, 0x02, 0x04, 0x10, 0x00, 0x01, 0x40, 0x00, 64, 6, 0x22, 0xe3,
            10, 0, 0, 1, 10, 0, 0, 2,
            // TCP: 10000 -> 5100, seq ISN+1 = 0x10000001, ack 0x20000001, offset 5, ACK,
            // window 65535, checksum 0x2cec (by hand, zero payload), urgent 0
            0x27, 0x10, 0x13, 0xec, 0x10, 0, 0, 0x01, 0x20, 0, 0, 0x01, 0x50, 0x10,
            0xff, 0xff, 0x2c, 0xec, 0, 0,
        ];
        assert_eq!(&b[24..], &want[..]);
    }

    #[test]
    fn syn_ack_and_sack_blocks() {
        let f = flow(true);
        let mut syn = Packet::new(Kind::Data, 0, 0, 40, 2, SimTime::ZERO);
        syn.ecn = ecn::ECE;
        let mut ack = Packet::new(Kind::Ack, 0, 2, 56, 1, SimTime::ZERO);
        ack.set_sack(&[(5, 6), (4, 4)]);
        ack.ecn = ecn::ECE;
        let b = bytes(&[(syn, f.clone()), (ack, f)]);
        let syn_ip = &b[24 + 16..24 + 16 + 28 + 20];
        assert_eq!(u16::from_be_bytes([syn_ip[2], syn_ip[3]]), 48, "20 + 28");
        let tcp = &syn_ip[20..];
        assert_eq!(&tcp[4..8], &0x1000_0000u32.to_be_bytes(), "SYN at the ISN");
        assert_eq!((tcp[12], tcp[13]), (0x70, TH_SYN | TH_ECE));
        assert_eq!(&tcp[20..28], &[2, 4, 0x03, 0xe8, 1, 1, 4, 2], "MSS 1000, SACK-permitted");
        let r = &b[24 + 16 + 48..];
        assert_eq!(u32::from_le_bytes(r[8..12].try_into().unwrap()), 20 + 40);
        let ip = &r[16..];
        assert_eq!(&ip[12..20], &[10, 0, 0, 2, 10, 0, 0, 1], "ACKs go back");
        let tcp = &ip[20..];
        assert_eq!(&tcp[0..4], &[0x13, 0xec, 0x27, 0x10]);
        // cumulative ACK 2 (packets 0..2 arrived): next byte is that of packet 3
        let byte = |k: u32| 0x1000_0001 + (k - 1) * 1000;
        assert_eq!(&tcp[8..12], &byte(3).to_be_bytes());
        assert_eq!((tcp[12], tcp[13]), (0xa0, TH_ACK | TH_ECE));
        assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
        let edges: Vec<u32> =
            tcp[24..40].chunks(4).map(|c| u32::from_be_bytes(c.try_into().unwrap())).collect();
        assert_eq!(edges, [byte(5), byte(7), byte(4), byte(5)]);
    }

    #[test]
    fn checksums_verify_and_udp() {
        let mut f = flow(false);
        let mut pkts = vec![];
        for k in 0..200 {
            let mut d = Packet::new(Kind::Data, k * 7919, k as i32 * 13 - 1, 1040, 2, SimTime::ZERO);
            d.ecn = (k % 16) as u8;
            let mut a = Packet::new(Kind::Ack, k * 31, k as i32 - 1, 40, 1, SimTime::ZERO);
            a.set_sack(&[(k as i32 + 3, k as i32 + 9)][..(k % 2) as usize]);
            pkts.push((d, f.clone()));
            pkts.push((a, f.clone()));
        }
        f.tcp = false;
        f.payload = 210;
        pkts.push((Packet::new(Kind::Udp, 3, 9, 210, 2, SimTime::ZERO), f));
        let b = bytes(&pkts);
        let mut at = 24;
        let mut n = 0;
        while at < b.len() {
            let incl = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
            let orig = u32::from_le_bytes(b[at + 12..at + 16].try_into().unwrap());
            let ip = &b[at + 16..at + 16 + incl];
            assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as u32, orig);
            assert_eq!(fold(sum(&ip[..20], 0)), 0xffff, "IP checksum");
            let l4 = orig - 20;
            assert_eq!(fold(sum(&ip[20..], sum(&ip[12..20], ip[9] as u32 + l4))), 0xffff);
            at += 16 + incl;
            n += 1;
        }
        assert_eq!(n, 401);
        let udp = &b[b.len() - 28..];
        assert_eq!((udp[9], u16::from_be_bytes([udp[24], udp[25]])), (17, 190));
    }
}
