//! The linux stack's DCTCP receiver against ns-3.37 on a network's arrivals (issue 24, the
//! DCTCP case of the network-level table). `testdata/ns3_dctcp_sink_replay.txt` holds the
//! first 800 data segments flow 0 of `dctcp-codel-ce1ms` (seed 1) delivered in ns-3, with
//! their CE marks (marks alternate within a window there: 10 flows, a 1 ms CE threshold),
//! and the ACKs ns-3's receiver sent for them. Fed to the sink as `sim/linux_hooks.rs`
//! builds it (DCTCP echo as ns-3's, ns-3's SACK list, delayed ACKs every 2 segments or
//! 200 ms), the sink sends the same ACKs: the same cumulative ACK and ECE, one for one —
//! the early ACKs of the old CE state that acknowledge `m_priorRcvNxt` (duplicates) and
//! the delayed-ACK timer's included.

use crate::packet::{ecn, Kind, Packet};
use crate::tcp::TcpSink;
use crate::time::{Dur, SimTime};

const REPLAY: &str = include_str!("testdata/ns3_dctcp_sink_replay.txt");

#[test]
fn dctcp_sink_sends_ns3s_acks_for_ns3s_arrivals() {
    let mut arrivals = Vec::new();
    let mut want = Vec::new();
    for l in REPLAY.lines().filter(|l| !l.starts_with('#')) {
        let v: Vec<&str> = l.split(' ').collect();
        match v[0] {
            "r" => arrivals.push((v[1].parse::<u64>().unwrap(), v[2].parse::<i32>().unwrap(), v[3] == "1")),
            _ => want.push((v[1].parse::<i32>().unwrap(), v[2] == "1")),
        }
    }
    let mut sink = TcpSink::new(0, 0, 40, 1000, true, 0.2, false, true);
    (sink.dctcp, sink.ns3_echo, sink.ns3_sack) = (true, true, true);
    let mut got = Vec::new();
    let mut timer: Option<(SimTime, u32)> = None;
    let (mut early_acks, mut timer_acks) = (0, 0);
    let push = |a: Packet, got: &mut Vec<(i32, bool)>| got.push((a.seq + 1, a.has(ecn::ECE)));
    for &(t, seg, ce) in &arrivals {
        let now = SimTime(t);
        if let Some((at, gen)) = timer.filter(|&(at, _)| at <= now) {
            if let Some(a) = sink.on_delack_timer(gen, at) {
                timer_acks += 1;
                push(a, &mut got);
            }
            timer = None;
        }
        let mut d = Packet::new(Kind::Data, 0, seg, 1040, 1, now);
        d.ecn = if ce { ecn::ECT | ecn::CE } else { ecn::ECT };
        let ack = sink.recv(&d, now);
        if let Some(early) = sink.flushed.take() {
            early_acks += 1;
            push(early, &mut got);
        }
        if let Some(a) = ack {
            push(a, &mut got);
        }
        if sink.wants_timer() {
            timer = Some((now + Dur::from_secs(0.2), sink.delack_gen));
        }
    }
    // 464 ACKs: 115 early ones of the old CE state, 8 from the delayed-ACK timer
    assert_eq!((got.len(), early_acks, timer_acks), (464, 115, 8));
    let dups = got.windows(2).filter(|w| w[0].0 == w[1].0).count();
    assert!(dups > 50, "{dups} duplicate ACKs");
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(first_diff, None, "first difference at ACK {first_diff:?}: aqmsim {:?} ns-3 {:?}",
               first_diff.map(|i| &got[i.saturating_sub(3)..(i + 4).min(got.len())]),
               first_diff.map(|i| &want[i.saturating_sub(3)..(i + 4).min(want.len())]));
}
