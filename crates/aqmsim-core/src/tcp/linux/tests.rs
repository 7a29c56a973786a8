//! Hand-computed sequences of the Linux/ns-3 sender (MSS 1000 bytes, IW 10).

use super::rtt::RttMeanDev;
use super::{CongState, LinuxSender};
use crate::packet::{Kind, Packet};
use crate::tcp::TcpParams;
use crate::time::SimTime;

fn sender() -> LinuxSender {
    LinuxSender::new(TcpParams::linux(), 0, 1)
}

fn ack(cum: i32, sack: &[(i32, i32)]) -> Packet {
    let mut a = Packet::new(Kind::Ack, 0, cum, 40, 0, SimTime::ZERO);
    a.set_sack(sack);
    a
}

fn t(ms: u64) -> SimTime {
    SimTime(ms * 1_000_000)
}

/// Sequence numbers of what a call sent.
fn seqs(out: &mut Vec<Packet>) -> Vec<i32> {
    out.drain(..).map(|p| p.seq).collect()
}

#[test]
fn starts_with_ten_segments_and_counts_bytes_not_acks() {
    let mut s = sender();
    let mut out = Vec::new();
    s.start_bulk(t(0), &mut out);
    assert_eq!(seqs(&mut out), (0..10).collect::<Vec<_>>());
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (10_000, u32::MAX));
    // a delayed ACK of two segments grows cwnd by one SMSS, not two (RFC 3465, L = 1)
    s.recv_ack(&ack(1, &[]), t(100), &mut out);
    assert_eq!(s.tcb.cwnd, 11_000);
    // pipe 8 segments, cwnd 11: three new segments
    assert_eq!(seqs(&mut out), vec![10, 11, 12]);
    assert_eq!(s.bytes_in_flight(), 11_000);
}

#[test]
fn congestion_avoidance_adds_mss_squared_over_cwnd_per_ack() {
    let mut s = sender();
    let mut out = Vec::new();
    s.tcb.ssthresh = 5_000;
    s.start_bulk(t(0), &mut out);
    out.clear();
    s.recv_ack(&ack(0, &[]), t(100), &mut out);
    assert_eq!(s.tcb.cwnd, 10_100, "10 000 + 1000²/10 000");
    s.recv_ack(&ack(2, &[]), t(101), &mut out);
    assert_eq!(s.tcb.cwnd, 10_199, "+ ⌊10⁶/10 100⌋ = 99, once per ACK however many segments it acks");
}

/// Segment 0 of a window of 10 is lost; segments 1..11 are SACKed one by one, then the
/// retransmission arrives. Every cwnd and every send worked out by hand from RFC 6675 and
/// RFC 6937 (PRR-SSRB) with ns-3's bytes-in-flight ssthresh.
#[test]
fn one_loss_in_a_window_of_ten_prr_sequence() {
    let mut s = sender();
    let mut out = Vec::new();
    s.start_bulk(t(0), &mut out);
    out.clear();
    // dupACK 1 and 2: Disorder; pipe shrinks by the SACKed segment, so one new segment each
    s.recv_ack(&ack(-1, &[(1, 1)]), t(100), &mut out);
    assert_eq!((s.state, s.dupacks, seqs(&mut out)), (CongState::Disorder, 1, vec![10]));
    s.recv_ack(&ack(-1, &[(1, 2)]), t(101), &mut out);
    assert_eq!((s.dupacks, seqs(&mut out)), (2, vec![11]));
    // dupACK 3: segment 0 lost (3 SACKed above it); recovery. Flight = 12 sent − 3 SACKed −
    // 1 lost = 8 000 bytes: ssthresh 4 000 (ns-2 would take cwnd/2 = 5 packets).
    s.recv_ack(&ack(-1, &[(1, 3)]), t(102), &mut out);
    assert_eq!(s.state, CongState::Recovery);
    assert_eq!(s.tcb.ssthresh, 4_000);
    assert_eq!(s.prr.recover_fs, 12_000);
    // sndcnt = max(⌈1000·4000/12000⌉ − 0, 1 SMSS) = 1000: cwnd = 8000 + 1000; the fast
    // retransmit of segment 0
    assert_eq!(s.tcb.cwnd, 9_000);
    let rtx: Vec<_> = out.iter().map(|p| (p.seq, p.rtx())).collect();
    assert_eq!(rtx, vec![(0, true)]);
    out.clear();
    assert_eq!(s.bytes_in_flight(), 9_000);
    // the proportional part: pipe > ssthresh, cwnd = pipe + ⌈prr_delivered·4000/12000⌉ − prr_out
    let expect = [
        (4, 8_000, vec![]),      // ⌈666.7⌉ − 1000 < 0 → 0
        (5, 7_000, vec![]),      // 1000 − 1000
        (6, 6_334, vec![]),      // 1334 − 1000
        (7, 5_667, vec![]),      // 1667 − 1000
        (8, 4_000, vec![]),      // pipe = ssthresh: SSRB, min(delivered, ssthresh − pipe = 0)
        (9, 4_000, vec![12]),    // pipe 3000: min(1000, 1000) → one new segment
        (10, 4_000, vec![13]),
        (11, 4_000, vec![14]),
    ];
    for (k, (hi, cwnd, sent)) in expect.into_iter().enumerate() {
        s.recv_ack(&ack(-1, &[(1, hi)]), t(103 + k as u64), &mut out);
        assert_eq!((s.tcb.cwnd, seqs(&mut out)), (cwnd, sent), "SACK of 1..={hi}");
    }
    assert_eq!(s.prr.out, 4_000);
    // the retransmission arrives: cumulative ACK of 0..=11 = RecoveryPoint → Open,
    // cwnd = ssthresh, then one avoidance step: 4000 + 1000²/4000
    s.recv_ack(&ack(11, &[]), t(120), &mut out);
    assert_eq!(s.state, CongState::Open);
    assert_eq!(s.tcb.cwnd, 4_250);
    // pipe 3 segments (12, 13, 14): one more fits
    assert_eq!(seqs(&mut out), vec![15]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.retransmitted, 1);
}

#[test]
fn timeout_sets_one_segment_and_ssthresh_from_flight() {
    let mut s = sender();
    let mut out = Vec::new();
    s.start_bulk(t(0), &mut out);
    out.clear();
    // initial RTO 1 s (ns-3)
    assert_eq!(s.rtx_deadline(), Some(t(1000)));
    s.on_timeout(t(1000), &mut out);
    assert_eq!((s.state, s.tcb.cwnd, s.tcb.ssthresh), (CongState::Loss, 1_000, 5_000));
    let rtx: Vec<_> = out.iter().map(|p| (p.seq, p.rtx())).collect();
    assert_eq!(rtx, vec![(0, true)]);
    assert_eq!(s.rtx_deadline(), Some(t(3000)), "backed off to 2 s");
    out.clear();
    // the ACK of the retransmission: slow start from 1 segment, Loss until 10 is acked
    s.recv_ack(&ack(0, &[]), t(3100), &mut out);
    assert_eq!((s.state, s.tcb.cwnd), (CongState::Loss, 2_000));
    assert_eq!(seqs(&mut out), vec![1, 2]);
}

#[test]
fn rtt_mean_deviation_as_ns3() {
    let mut r = RttMeanDev::new();
    r.sample(100_000_000);
    assert_eq!((r.srtt, r.rttvar), (100_000_000, 50_000_000));
    // RTO = max(srtt + max(1 ms, 4·rttvar), 1 s)
    assert_eq!(r.rto(1_000_000, 1_000_000_000), 1_000_000_000);
    assert_eq!(r.rto(1_000_000, 200_000_000), 300_000_000);
    r.sample(180_000_000);
    // srtt += (180−100)/8; rttvar += (80 − 50)/4
    assert_eq!((r.srtt, r.rttvar), (110_000_000, 57_500_000));
}

/// The scoreboard: a block reported again adds nothing, runs merge when a hole between
/// them is SACKed, lost marking follows ns-3's count from the top, NextSeg's rule 3 stays
/// below the highest SACK.
#[test]
fn scoreboard_runs_lost_marking_and_next_seg() {
    use super::scoreboard::Scoreboard;
    let mut sb = Scoreboard::new(3);
    for _ in 0..20 {
        sb.sent_new();
    }
    assert_eq!(sb.update_sack([(5, 6)].into_iter()), 2);
    assert_eq!(sb.update_sack([(5, 6)].into_iter()), 0, "reported again");
    assert_eq!((sb.lost, sb.next_seg(true)), (0, (None, Some(0))));
    // three SACKed above 0..=4 (5, 6, 9): those five are lost; 7, 8 are not (2 above them)
    assert_eq!(sb.update_sack([(9, 9), (5, 6)].into_iter()), 1);
    assert_eq!(sb.lost, 5);
    assert!((0..5).all(|s| sb.is_marked_lost(s)) && !sb.is_marked_lost(7));
    assert_eq!(sb.in_flight(), 20 - 3 - 5);
    assert_eq!(sb.next_seg(true), (Some(0), None));
    for s in 0..5 {
        sb.mark_retrans(s);
    }
    // rule 1 exhausted: rule 3 offers 7 (below the highest SACK, 9), never 10
    assert_eq!(sb.next_seg(true), (None, Some(7)));
    sb.mark_retrans(7);
    sb.mark_retrans(8);
    assert_eq!(sb.next_seg(true), (None, None));
    // 7..=8 SACKed: runs 5..=9 merge; the retransmitted, SACKed 7 and 8 stay counted (ns-3)
    assert_eq!(sb.update_sack([(5, 9)].into_iter()), 2);
    assert_eq!((sb.sacked, sb.retrans, sb.in_flight()), (5, 7, 20 - 5 - 5 + 7));
    // cumulative ACK to 7: 0..=4 newly delivered (5, 6 were SACKed)
    assert_eq!(sb.discard_upto(7), 5);
    assert_eq!((sb.sacked, sb.lost, sb.retrans), (3, 0, 2));
    assert_eq!(sb.update_sack([(7, 9)].into_iter()), 0);
}

/// ECN: an ECE on the first ACK of a window of 10 (no delayed ACKs). ssthresh from the
/// 9 000 bytes in flight; PRR over the round (ns-3 runs DoRecovery twice on the ACK that
/// enters CWR: from EnterCwr and from ProcessAck); CWR on the next new segment; out of CWR
/// when the cumulative ACK passes segment 9: cwnd = ssthresh, then one avoidance step.
#[test]
fn ece_reduces_once_per_window_through_prr() {
    use crate::packet::ecn;
    let mut p = TcpParams::linux();
    p.ecn = true;
    let mut s = LinuxSender::new(p, 0, 1);
    let mut out = Vec::new();
    s.start_bulk(t(0), &mut out);
    assert!(out.iter().all(|d| d.ecn == ecn::ECT));
    out.clear();
    let ece = |cum: i32| {
        let mut a = ack(cum, &[]);
        a.ecn = ecn::ECE;
        a
    };
    s.recv_ack(&ece(0), t(100), &mut out);
    assert_eq!((s.state, s.tcb.ssthresh, s.tcb.cwnd), (CongState::Cwr, 4_500, 10_000));
    assert_eq!(out.iter().map(|d| (d.seq, d.ecn)).collect::<Vec<_>>(), vec![(10, ecn::ECT | ecn::CWR)]);
    out.clear();
    let expect: [(u32, Vec<i32>); 9] = [
        (9_500, vec![]),
        (9_000, vec![11]),
        (8_500, vec![]),
        (8_000, vec![12]),
        (7_500, vec![]),
        (7_000, vec![13]),
        (6_500, vec![]),
        (6_000, vec![14]),
        (5_500, vec![]),
    ];
    for (k, (cwnd, sent)) in expect.into_iter().enumerate() {
        // the sink keeps echoing until it sees CWR: one reduction only
        s.recv_ack(&ece(1 + k as i32), t(101 + k as u64), &mut out);
        assert!(out.iter().all(|d| d.ecn == ecn::ECT), "CWR once");
        assert_eq!((s.state, s.tcb.cwnd, seqs(&mut out)), (CongState::Cwr, cwnd, sent), "ACK of {}", 1 + k);
    }
    assert_eq!(s.stats.ecn_responses, 1);
    s.recv_ack(&ack(10, &[]), t(120), &mut out);
    assert_eq!((s.state, s.tcb.cwnd), (CongState::Open, 4_722));
}

/// `timestamps = true`: segments carry the 12-byte option; the RTT sample is the echoed
/// TSval's age in whole ms (ns-3 `ElapsedTimeFromTsValue`), 1 µs when under a millisecond,
/// under the same Karn/history condition (no sample from a duplicate ACK).
#[test]
fn timestamp_rtt_samples_in_whole_milliseconds() {
    let mut s = LinuxSender::new(TcpParams { timestamps: true, ..TcpParams::linux() }, 0, 1);
    let mut out = Vec::new();
    s.start_bulk(SimTime(400_000), &mut out); // sent at 0.4 ms: TSval 0
    assert!(out.iter().all(|p| p.size == 1000 + 40 + 12));
    out.clear();
    let mut a = ack(1, &[]);
    a.set_ts(42, 0);
    s.recv_ack(&a, SimTime(42_900_000), &mut out);
    assert_eq!(s.take_rtt_sample(), Some(0.042), "42 ms − 0 ms, not 42.5 ms");
    assert_eq!((s.tcb.ts_val, s.tcb.ts_ecr), (42, 0));
    let mut a = ack(3, &[]);
    a.set_ts(43, 42);
    s.recv_ack(&a, SimTime(42_950_000), &mut out);
    assert_eq!(s.rtt.srtt, 36_750_125, "srtt 42 ms + (1 µs − 42 ms)/8: the same millisecond gives 1 µs");
    s.take_rtt_sample();
    // a duplicate ACK takes no sample; an older TSval is not kept
    let mut a = ack(3, &[(5, 5)]);
    a.set_ts(40, 1);
    s.recv_ack(&a, SimTime(50_000_000), &mut out);
    assert_eq!(s.take_rtt_sample(), None);
    assert_eq!((s.tcb.ts_val, s.tcb.ts_ecr), (43, 42));
}

/// A partial ACK whose new head nothing marks lost yet (no SACK above it): ns-3's
/// `DoRetransmit` takes NextSeg without rule 3, so new data goes (rule 2), not the head;
/// the head is resent once DupThresh SACKs lie above it.
#[test]
fn partial_ack_sends_new_data_when_the_head_is_not_lost() {
    let mut s = sender();
    let mut out = Vec::new();
    s.start_bulk(t(0), &mut out);
    out.clear();
    // 0 lost: 1, 2, 3 SACKed → recovery, 0 resent
    for hi in 1..=3 {
        s.recv_ack(&ack(-1, &[(1, hi)]), t(100 + hi as u64), &mut out);
    }
    assert_eq!(s.state, CongState::Recovery);
    assert!(seqs(&mut out).contains(&0));
    // 0's retransmission fills the hole up to 4; 5 was lost too, nothing above it arrived
    s.recv_ack(&ack(4, &[]), t(200), &mut out);
    let sent = seqs(&mut out);
    assert!(!sent.contains(&5) && sent[0] >= 10, "{sent:?}");
    // three SACKs above 5: now it is lost, the next to resend (as PRR allows)
    for hi in 6..=8 {
        s.recv_ack(&ack(4, &[(6, hi)]), t(200 + hi as u64), &mut out);
    }
    assert_eq!(s.sb.next_seg(true).0, Some(5));
}

/// `ns3_quirks`: ns-3.37's NextSeg rule (3) has no (1.b): once the receive window stops new
/// data it resends a segment merely in flight above the highest SACK (BBR's rate samples
/// then take that resend's fresh `delivered` stamp when the original is SACKed).
#[test]
fn ns3_rule3_resends_above_the_highest_sack() {
    use super::scoreboard::Scoreboard;
    let mut sb = Scoreboard::with_rule3_any(3, true);
    for _ in 0..20 {
        sb.sent_new();
    }
    sb.update_sack([(5, 6), (9, 9)].into_iter());
    for s in [0, 1, 2, 3, 4, 7, 8] {
        sb.mark_retrans(s);
    }
    assert_eq!(sb.next_seg(true), (None, Some(10)), "RFC 6675 (1.b) would give None");
    assert_eq!(sb.next_seg(false), (None, None), "rule 3 only in recovery");
}

/// The delivery-rate sampler (BBR) is handed each SACKed segment once, in the same walk as
/// the scoreboard: a block that every ACK of a recovery reports again, growing, costs it
/// the new segments only (it walked every segment of every block on every ACK before:
/// here 1 + 2 + … + 89 visits instead of 89), and it counts the same bytes delivered.
#[test]
fn sack_blocks_reported_again_reach_the_rate_sampler_once() {
    let p = TcpParams { window_init: 100.0, window: 200.0, ..TcpParams::linux() };
    let mut s = LinuxSender::new(p, 0, 1);
    s.set_cc(Box::new(super::bbr::Bbr::new(crate::rng::Rng::new(1, 7))));
    let mut out = Vec::new();
    s.start_bulk(t(0), &mut out);
    assert_eq!(seqs(&mut out).len(), 100, "the initial window leaves unpaced");
    // segment 0 is lost: every ACK stays at cumulative ACK 0 and SACKs 1..=k
    for k in 1..=89 {
        s.recv_ack(&ack(-1, &[(1, k)]), t(30) + crate::time::Dur(k as u64), &mut out);
    }
    let r = s.rate.as_deref().expect("BBR samples the delivery rate");
    assert_eq!(r.visits, 89);
    assert_eq!(r.delivered, 89 * 1000);
    assert_eq!(s.sb.sacked, 89);
}
