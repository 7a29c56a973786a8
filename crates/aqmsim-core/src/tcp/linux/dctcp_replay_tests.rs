//! DCTCP's sender against ns-3.37 on a network's ACK stream (issue 24, the DCTCP case of
//! the network-level table). Ten DCTCP flows under CoDel with a 1 ms CE threshold make an
//! ACK stream no single flow does: CE marks alternate within a window, so ns-3's DCTCP
//! receiver sends many early ACKs of the old CE state (`CeState0to1`/`1to0`), most of them
//! duplicates of the previous ACK, with or without ECE. `testdata/ns3_dctcp_ack_replay.txt`
//! holds the first 600 ACKs flow 0 of that case (seed 1) received in ns-3, and ns-3's cwnd
//! after each; replayed into the linux sender at their times, the sender's cwnd after
//! every ACK equals ns-3's (whole segments, the trace's unit) — CWR entries, PRR over the
//! round, α from the duplicate ACKs (one segment each, `PktsAcked`) and the ECN state a
//! duplicate ACK without ECE clears.

use super::LinuxSender;
use crate::packet::{ecn, Kind, Packet};
use crate::tcp::{TcpParams, Variant};
use crate::time::SimTime;

const REPLAY: &str = include_str!("testdata/ns3_dctcp_ack_replay.txt");

/// (time ns, cumulative ACK in segments, ECE, ns-3's cwnd after it in segments) per ACK,
/// and the time of the first data segment.
fn replay() -> (u64, Vec<(u64, i32, bool, u32)>) {
    let mut lines = REPLAY.lines();
    let first: u64 = lines.next().unwrap().rsplit(' ').nth(1).unwrap().parse().unwrap();
    let rows = lines
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let v: Vec<u64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            (v[0], v[1] as i32, v[2] == 1, v[3] as u32)
        })
        .collect();
    (first, rows)
}

#[test]
fn dctcp_cwnd_follows_ns3_on_a_ten_flow_ack_stream() {
    let (first, rows) = replay();
    assert_eq!(rows.len(), 600);
    let mut p = TcpParams::linux();
    p.variant = Variant::Dctcp;
    p.ecn = true;
    // the fixture's ACKs carry no timestamps (ns-3's did: they only set the RTO here)
    p.timestamps = false;
    let mut s = LinuxSender::new(p, 0, 1);
    let mut out = Vec::new();
    s.start_bulk(SimTime(first), &mut out);
    let (mut dups, mut dup_ece, mut prev) = (0, 0, 0);
    let mut got = Vec::new();
    for &(t, cum, ece, _) in &rows {
        let now = SimTime(t);
        while s.next_deadline().is_some_and(|d| d <= now) {
            let d = s.next_deadline().unwrap();
            s.on_timer(d, &mut out);
        }
        let mut a = Packet::new(Kind::Ack, 0, cum - 1, 40, 0, now);
        if ece {
            a.ecn = ecn::ECE;
        }
        if cum == prev {
            dups += 1;
            dup_ece += ece as u32;
        }
        prev = cum;
        s.recv_ack(&a, now, &mut out);
        out.clear();
        got.push(s.tcb.cwnd / 1000);
    }
    // the stream has what one flow's does not: duplicates of both kinds
    assert!(dups > 50 && dup_ece > 25 && dups - dup_ece > 25, "{dups} {dup_ece}");
    let want: Vec<u32> = rows.iter().map(|r| r.3).collect();
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(first_diff, None, "first difference at ACK {first_diff:?}: aqmsim {:?} ns-3 {:?}",
               first_diff.map(|i| &got[i.saturating_sub(3)..(i + 4).min(got.len())]),
               first_diff.map(|i| &want[i.saturating_sub(3)..(i + 4).min(want.len())]));
    assert!(s.stats.ecn_responses > 30, "{}", s.stats.ecn_responses);
}
