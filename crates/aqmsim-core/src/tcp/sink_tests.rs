//! The sinks' hand-computed sequences (`sink.rs`): ns-2's ACK rules, DCTCP's echo, ns-3's
//! CE echo, SACK list and timestamp echo.

use super::*;

fn data(seq: i32) -> Packet {
    Packet::new(Kind::Data, 0, seq, 1040, 1, SimTime::ZERO)
}

#[test]
fn cumulative_and_sack_blocks() {
    let mut s = TcpSink::new(0, 0, 40, 40, false, 0.1, true, true);
    for q in [0, 1, 2] {
        assert_eq!(s.recv(&data(q), SimTime::ZERO).unwrap().seq, q);
    }
    // lose 3, receive 4, 5, then 7
    let a = s.recv(&data(4), SimTime::ZERO).unwrap();
    assert_eq!((a.seq, a.nsack, a.sack_block(0), a.size), (2, 1, (4, 4), 48));
    let a = s.recv(&data(5), SimTime::ZERO).unwrap();
    assert_eq!((a.seq, a.nsack, a.sack_block(0)), (2, 1, (4, 5)));
    let a = s.recv(&data(7), SimTime::ZERO).unwrap();
    assert_eq!((a.seq, a.nsack, a.sack_block(0), a.sack_block(1)), (2, 2, (7, 7), (4, 5)));
    // the hole fills: cumulative jumps to 5
    let a = s.recv(&data(3), SimTime::ZERO).unwrap();
    assert_eq!((a.seq, a.nsack, a.sack_block(0)), (5, 1, (7, 7)));
    assert_eq!(s.stats.delivered, 6);
}

#[test]
fn ecn_echo_until_cwr() {
    let mut s = TcpSink::new(0, 0, 40, 40, false, 0.1, true, true);
    let mut d = data(0);
    d.ecn = ecn::ECT | ecn::CE;
    assert!(s.recv(&d, SimTime::ZERO).unwrap().has(ecn::ECE));
    let mut d1 = data(1);
    d1.ecn = ecn::ECT;
    assert!(s.recv(&d1, SimTime::ZERO).unwrap().has(ecn::ECE));
    let mut d2 = data(2);
    d2.ecn = ecn::ECT | ecn::CWR;
    assert!(!s.recv(&d2, SimTime::ZERO).unwrap().has(ecn::ECE));
}

#[test]
fn delayed_ack_every_second_packet() {
    let mut s = TcpSink::new(0, 0, 40, 40, true, 0.1, true, true);
    assert!(s.recv(&data(0), SimTime::ZERO).is_some(), "SYN acked at once");
    assert!(s.recv(&data(1), SimTime::ZERO).is_none());
    assert_eq!(s.recv(&data(2), SimTime::ZERO).unwrap().seq, 2);
    assert!(s.recv(&data(3), SimTime::ZERO).is_none());
    let g = s.delack_gen;
    assert_eq!(s.on_delack_timer(g, SimTime::ZERO).unwrap().seq, 3);
    // out of order is acked at once
    assert_eq!(s.recv(&data(5), SimTime::ZERO).unwrap().seq, 3);
}

fn ect(seq: i32, ce: bool) -> Packet {
    let mut d = data(seq);
    d.ecn = ecn::ECT | if ce { ecn::CE } else { 0 };
    d
}

/// RFC 8257 §3.2 without delayed ACKs: each ACK carries ECE iff the packet it answers
/// had CE; CWR changes nothing.
#[test]
fn dctcp_echo_is_exact_per_packet() {
    let mut s = TcpSink::new(0, 0, 40, 40, false, 0.1, false, true);
    s.dctcp = true;
    let pattern = [true, false, true, true, false, false, true, false, true];
    for (q, &ce) in pattern.iter().enumerate() {
        let mut d = ect(q as i32, ce);
        if q == 3 {
            d.ecn |= ecn::CWR;
        }
        let a = s.recv(&d, SimTime::ZERO).unwrap();
        assert_eq!((a.seq, a.has(ecn::ECE)), (q as i32, ce), "packet {q}");
        assert!(s.flushed.is_none());
    }
}

/// RFC 8257 §3.2 with delayed ACKs (the two-state machine, ns-3's CeState0to1 /
/// CeState1to0): a CE change while an ACK is held sends that ACK at once with the old
/// state and the cumulative ACK from before the new packet.
#[test]
fn dctcp_echo_with_delayed_acks() {
    let mut s = TcpSink::new(0, 0, 40, 40, true, 0.1, true, true);
    s.dctcp = true;
    let t = SimTime::ZERO;
    assert!(s.recv(&data(0), t).is_some(), "SYN acked at once");
    assert!(s.recv(&ect(1, false), t).is_none());
    let a = s.recv(&ect(2, false), t).unwrap();
    assert_eq!((a.seq, a.has(ecn::ECE)), (2, false));
    assert!(s.recv(&ect(3, false), t).is_none(), "3 held");
    // CE appears: 3's ACK goes now without ECE; 4 is held in the new state.
    assert!(s.recv(&ect(4, true), t).is_none());
    let f = s.flushed.take().expect("early ACK");
    assert_eq!((f.seq, f.has(ecn::ECE)), (3, false));
    let a = s.recv(&ect(5, true), t).unwrap();
    assert_eq!(
        (a.seq, a.has(ecn::ECE)),
        (5, true),
        "4 and 5 acked together with ECE"
    );
    assert!(s.flushed.is_none());
    // CE goes away with nothing held: no early ACK; 6 is held without ECE.
    assert!(s.recv(&ect(6, false), t).is_none());
    assert!(s.flushed.is_none());
    // CE again: 6's ACK goes early without ECE; 7 is held and its timer ACK has ECE.
    assert!(s.recv(&ect(7, true), t).is_none());
    let f = s.flushed.take().unwrap();
    assert_eq!((f.seq, f.has(ecn::ECE)), (6, false));
    let g = s.delack_gen;
    let a = s.on_delack_timer(g, t).unwrap();
    assert_eq!((a.seq, a.has(ecn::ECE)), (7, true));
    // CE goes away while 8 (CE) is held: 8's ACK goes early with ECE.
    assert!(s.recv(&ect(8, true), t).is_none());
    assert!(s.recv(&ect(9, false), t).is_none());
    let f = s.flushed.take().unwrap();
    assert_eq!((f.seq, f.has(ecn::ECE)), (8, true));
    let a = s.recv(&ect(10, false), t).unwrap();
    assert_eq!((a.seq, a.has(ecn::ECE)), (10, false));
}

/// ns-3.37's echo rule: the TSval of the segment at the next expected sequence number,
/// at or below the highest ACK sent. A delayed ACK echoes its first segment's, an ACK
/// of out-of-order data the last in-order one taken, the hole's retransmission its own.
#[test]
fn timestamp_echo_follows_ns3() {
    let mut s = TcpSink::new(0, 0, 40, 1000, true, 0.2, false, true);
    s.ts = Some(TsEcho::default());
    let at = |seq: i32, us: u64| Packet::new(Kind::Data, 0, seq, 1052, 1, SimTime(us * 1000));
    let now = SimTime(50_000_000);
    let a = s.recv(&at(0, 1_200), now).unwrap();
    assert_eq!((a.seq, a.ts(), a.size), (0, (50, 1), 52), "first segment ACKed at once");
    assert!(s.recv(&at(1, 3_700), now).is_none());
    let a = s.recv(&at(2, 5_100), now).unwrap();
    assert_eq!((a.seq, a.ts()), (2, (50, 3)), "the first of the two segments");
    let a = s.recv(&at(4, 9_000), now).unwrap();
    assert_eq!((a.seq, a.ts(), a.size), (2, (50, 3), 60), "out of order: 12 + one SACK block");
    let a = s.recv(&at(3, 12_000), SimTime(51_000_000)).unwrap();
    assert_eq!((a.seq, a.ts()), (4, (51, 12)), "the retransmission that fills the hole");
}

#[test]
fn ns3_dctcp_echo_flushes_a_duplicate_ack() {
    // ns-3.37's receiver (the linux stack): no SYN, the first segment ACKed at once
    let mut s = TcpSink::new(0, 0, 40, 40, true, 0.1, false, true);
    (s.dctcp, s.ns3_echo) = (true, true);
    let t = SimTime::ZERO;
    assert_eq!(s.recv(&ect(0, false), t).unwrap().seq, 0);
    assert!(s.recv(&ect(1, false), t).is_none());
    assert_eq!(s.recv(&ect(2, false), t).unwrap().seq, 2);
    assert!(s.recv(&ect(3, false), t).is_none(), "3 held");
    // CE appears: an ACK without ECE at once, but of what was expected when 3 arrived:
    // a duplicate of 2's (3 is not acknowledged); 4 starts a delayed ACK of its own
    assert!(s.recv(&ect(4, true), t).is_none());
    let f = s.flushed.take().expect("early ACK");
    assert_eq!((f.seq, f.has(ecn::ECE)), (2, false));
    let a = s.recv(&ect(5, true), t).unwrap();
    assert_eq!((a.seq, a.has(ecn::ECE)), (5, true), "3, 4 and 5 acked together");
    assert!(s.recv(&ect(6, true), t).is_none());
    // CE goes: the duplicate of 5's ACK, with ECE
    assert!(s.recv(&ect(7, false), t).is_none());
    let f = s.flushed.take().unwrap();
    assert_eq!((f.seq, f.has(ecn::ECE)), (5, true));
    // the timer ACKs 6 and 7 without ECE and leaves the delayed ACK "reserved": the next
    // CE change sends a duplicate with nothing held
    let a = s.on_delack_timer(s.delack_gen, t).unwrap();
    assert_eq!((a.seq, a.has(ecn::ECE)), (7, false));
    assert!(s.recv(&ect(8, true), t).is_none());
    let f = s.flushed.take().expect("a duplicate ACK with nothing held");
    assert_eq!((f.seq, f.has(ecn::ECE)), (6, false));
    // an immediate ACK clears "reserved": a change then sends nothing early
    assert_eq!(s.recv(&ect(9, true), t).unwrap().seq, 9);
    assert!(s.recv(&ect(11, true), t).is_some(), "out of order: at once");
    assert!(s.recv(&ect(10, false), t).is_some());
    assert!(s.flushed.is_none());
    // CE on a segment at or below the last CE one (a retransmission) counts as none
    let mut s = TcpSink::new(0, 0, 40, 40, false, 0.1, false, true);
    (s.dctcp, s.ns3_echo) = (true, true);
    assert!(s.recv(&ect(0, true), t).unwrap().has(ecn::ECE));
    assert!(!s.recv(&ect(0, true), t).unwrap().has(ecn::ECE));
}

#[test]
fn ns3_sack_list_keeps_four_blocks_most_recent_first() {
    let mut s = TcpSink::new(0, 0, 40, 40, false, 0.1, false, true);
    s.ns3_sack = true;
    let t = SimTime::ZERO;
    s.recv(&data(0), t);
    // holes at 1, 3, 5, 7, 9: five blocks, ns-3 keeps four and forgets the oldest
    for q in [2, 4, 6, 8, 10] {
        s.recv(&data(q), t);
    }
    assert_eq!(s.sack_list, [(10, 10), (8, 8), (6, 6), (4, 4)]);
    // 11 extends the first; 3 joins the forgotten block (2) and 4's: [3, 4] moves first
    let a = s.recv(&data(11), t).unwrap();
    assert_eq!((a.nsack, a.sack_block(0), a.sack_block(2)), (3, (10, 11), (6, 6)));
    s.recv(&data(3), t);
    assert_eq!(s.sack_list, [(3, 4), (10, 11), (8, 8), (6, 6)]);
    // 5 fills the gap between [3, 4] and [6, 6]: one block; the ns-2 sink would list
    // only the 16 most recent arrivals' blocks
    s.recv(&data(5), t);
    assert_eq!(s.sack_list, [(3, 6), (10, 11), (8, 8)]);
    // 1 arrives: the cumulative ACK reaches 6 and the blocks below it go
    let a = s.recv(&data(1), t).unwrap();
    assert_eq!((a.seq, s.sack_list.as_slice()), (6, [(10, 11), (8, 8)].as_slice()));
}

/// ns-3's SACK list (`ns3_sack`, the linux stack) makes the blocks alone: the ns-2 sink's
/// list of recent arrivals, which it never reads, is not kept for it (a search, an insertion
/// at the front and a truncation per out-of-order segment), and the blocks are ns-3's.
#[test]
fn ns3_sack_list_keeps_no_recent_arrivals() {
    let mut s = TcpSink::new(0, 0, 40, 40, false, 0.1, false, true);
    s.ns3_sack = true;
    s.recv(&data(0), SimTime::ZERO).unwrap();
    for q in [2, 3, 5] {
        s.recv(&data(q), SimTime::ZERO).unwrap();
    }
    let a = s.recv(&data(7), SimTime::ZERO).unwrap();
    assert_eq!((a.seq, a.nsack, a.sack_block(0), a.sack_block(1), a.sack_block(2)), (0, 3, (7, 7), (5, 5), (2, 3)));
    assert!(s.recent.is_empty(), "{:?}", s.recent);
}
