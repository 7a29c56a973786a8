//! Hand-computed sequences of RACK-TLP (`rack.rs`, `rack_hooks.rs`) on the linux sender:
//! MSS 1000 bytes, IW 10, an RTT sample of 100 ms before the data (`syn_rtt`), so
//! SRTT = 100 ms, RTO = max(100 + 4·50, 1 s) = 1 s, min_RTT = 100 ms after the first ACK
//! and reo_wnd = min_RTT/4 = 25 ms. Each test also runs the same ACKs with RFC 6675
//! (`rack = false`) to show what RACK-TLP changes.

use super::{CongState, LinuxSender};
use crate::packet::{Kind, Packet};
use crate::tcp::TcpParams;
use crate::time::SimTime;

fn sender(rack: bool) -> LinuxSender {
    let p = TcpParams { syn_rtt: 0.1, rack, ..TcpParams::linux() };
    LinuxSender::new(p, 0, 1)
}

/// An ACK of everything below `next` with SACK blocks (inclusive segment ranges).
fn ack(next: i32, sack: &[(i32, i32)]) -> Packet {
    let mut a = Packet::new(Kind::Ack, 0, next - 1, 40, 0, SimTime::ZERO);
    a.set_sack(sack);
    a
}

fn t(ms: u64) -> SimTime {
    SimTime(ms * 1_000_000)
}

/// (sequence, retransmitted) of what a call sent.
fn sent(out: &mut Vec<Packet>) -> Vec<(i32, bool)> {
    out.drain(..).map(|p| (p.seq, p.rtx())).collect()
}

/// Ten segments at t = 0; 0..=7 acknowledged at 100 ms; 8 and 9 (the tail) lost.
fn tail_of_two_lost(rack: bool) -> (LinuxSender, Vec<Packet>) {
    let mut s = sender(rack);
    let mut out = Vec::new();
    s.advance(10, t(0), &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    s.recv_ack(&ack(8, &[]), t(100), &mut out);
    assert!(out.is_empty());
    (s, out)
}

#[test]
fn tail_loss_repaired_by_a_probe_without_a_timeout() {
    let (mut s, mut out) = tail_of_two_lost(true);
    // PTO = 2·SRTT = 200 ms from the ACK (two segments out: no delayed-ACK allowance),
    // before the RTO (100 + 1000 ms)
    assert_eq!(s.next_deadline(), Some(t(300)));
    s.on_timer(t(300), &mut out);
    // no new data: the probe is the last segment again; the RTO restarts from the probe
    assert_eq!(sent(&mut out), vec![(9, true)]);
    assert_eq!(s.rack.as_ref().unwrap().tlp_end, Some(10));
    assert_eq!(s.rtx_deadline(), Some(t(1300)));
    // the probe's SACK: segment 9 (sent at 300, RTT 100 ≥ min_RTT) is RACK's; segment 8
    // was sent 400 ms ago > RACK.rtt + reo_wnd = 125 ms: lost, recovery, retransmitted
    s.recv_ack(&ack(8, &[(9, 9)]), t(400), &mut out);
    assert_eq!(s.state, CongState::Recovery);
    assert_eq!(sent(&mut out), vec![(8, true)]);
    // ssthresh from flight at entry: 2 out − 1 SACKed − 1 lost + 1 retransmitted
    // (the probe) = 1000 bytes → NewReno's floor 2·SMSS
    assert_eq!(s.tcb.ssthresh, 2_000);
    s.recv_ack(&ack(10, &[]), t(500), &mut out);
    assert_eq!((s.state, s.sb.outstanding()), (CongState::Open, 0));
    assert_eq!((s.stats.timeouts, s.stats.fast_retransmits, s.stats.retransmitted), (0, 1, 2));
    assert_eq!(s.rack.as_ref().unwrap().probes, 1);
    assert_eq!(s.next_deadline(), None);
    // recovery took the probe episode over: an ACK past TLP.end_seq later is no second
    // congestion response
    s.advance(2, t(500), &mut out);
    assert_eq!(sent(&mut out), vec![(10, false), (11, false)]);
    let cwnd = s.tcb.cwnd;
    s.recv_ack(&ack(12, &[]), t(600), &mut out);
    assert_eq!(s.rack.as_ref().unwrap().tlp_recoveries, 0);
    assert!(s.tcb.cwnd > cwnd);

    // RFC 6675: no ACK ever comes; the retransmission timer at 100 + 1000 ms
    let (mut s, mut out) = tail_of_two_lost(false);
    assert_eq!(s.next_deadline(), Some(t(1100)));
    s.on_timer(t(1100), &mut out);
    assert_eq!((s.stats.timeouts, s.state), (1, CongState::Loss));
}

#[test]
fn probe_repairing_the_last_segment_reduces_cwnd_once_acked_beyond() {
    let mut s = sender(true);
    let mut out = Vec::new();
    s.advance(10, t(0), &mut out);
    out.clear();
    s.recv_ack(&ack(9, &[]), t(100), &mut out); // 0..=8; segment 9 lost
    let cwnd = s.tcb.cwnd;
    assert_eq!(cwnd, 11_000, "slow start: one SMSS per ACK (RFC 3465, L = 1)");
    // one segment out: PTO = 2·100 + 200 (WCDelAckT) = 400 ms
    assert_eq!(s.next_deadline(), Some(t(500)));
    s.on_timer(t(500), &mut out);
    assert_eq!(sent(&mut out), vec![(9, true)]);
    // the probe repaired it: the ACK reaches TLP.end_seq (10), not beyond: no response yet
    s.recv_ack(&ack(10, &[]), t(600), &mut out);
    assert_eq!((s.tcb.cwnd, s.rack.as_ref().unwrap().tlp_recoveries), (12_000, 0));
    // new data, then an ACK beyond TLP.end_seq: the repaired loss is a congestion event
    // (Linux's CWR at once): ssthresh = max(flight/2, 2·SMSS) with 12 out → 6000
    s.advance(12, t(600), &mut out);
    assert_eq!(out.len(), 12);
    out.clear();
    s.recv_ack(&ack(11, &[]), t(700), &mut out);
    assert_eq!(s.rack.as_ref().unwrap().tlp_recoveries, 1);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5_500, 5_500), "flight 11 segments after the ACK of one");
    assert_eq!(s.stats.timeouts, 0);
}

/// Segment 0 lost, then its fast retransmission lost too: RACK finds the second loss from
/// the delivery of a segment sent after the retransmission; RFC 6675 waits for the RTO.
fn lost_retransmission(rack: bool) -> (LinuxSender, Vec<(i32, bool)>) {
    let mut s = sender(rack);
    let mut out = Vec::new();
    let mut log = Vec::new();
    s.advance(40, t(0), &mut out);
    out.clear();
    // SACKs of 1, 2, 3 at 100..102 ms; each frees one segment: 10, 11 (Disorder)
    for (k, hi) in [1, 2, 3].into_iter().enumerate() {
        s.recv_ack(&ack(0, &[(1, hi)]), t(100 + k as u64), &mut out);
        log.extend(sent(&mut out));
    }
    // at the third, DupThresh SACKed: reo_wnd = 0 and segment 0 (sent at 0, RACK.rtt
    // 102) is lost at 102 (RFC 6675 says the same): recovery and the fast retransmit
    assert_eq!(s.state, CongState::Recovery);
    assert_eq!(log, vec![(10, false), (11, false), (0, true)]);
    // SACKs of 4..=9 at 103..108: PRR (ssthresh 4000, RecoverFS 12 000) lets cwnd fall
    // from 9000 with pipe (8000, 7000, 6000, 5000: ⌈pd·4000/12000⌉ − 1000 ≤ 334), then
    // SSRB at pipe 4000 (0) and 3000 (one segment): 12 at 108
    log.clear();
    for (k, hi) in [4, 5, 6, 7, 8, 9].into_iter().enumerate() {
        s.recv_ack(&ack(0, &[(1, hi)]), t(103 + k as u64), &mut out);
        log.extend(sent(&mut out));
    }
    assert_eq!(log, vec![(12, false)]);
    // 10 and 11 (sent at 100 and 101) SACKed at 200 and 201: pipe 3000 → 13, 14. They
    // went out before the retransmission of 0 (102): RACK does not mark it
    log.clear();
    s.recv_ack(&ack(0, &[(1, 10)]), t(200), &mut out);
    s.recv_ack(&ack(0, &[(1, 11)]), t(201), &mut out);
    assert_eq!(sent(&mut out), vec![(13, false), (14, false)]);
    assert!(!s.sb.is_marked_lost(0) || s.sb.is_retransmitted(0));
    // 12 (sent at 108) SACKed at 207 (RACK.rtt 99): sent after 0's retransmission, which
    // is 207 − 102 = 105 ms old > RACK.rtt + reo_wnd (0 in recovery): lost again. PRR
    // first (pipe 15 out − 12 SACKed − 1 lost + 1 retransmitted = 3000: SSRB
    // min(1000, 4000 − 3000) → cwnd 4000), then RACK takes 0 out of flight (pipe 2000):
    // 0 again, and 15
    s.recv_ack(&ack(0, &[(1, 12)]), t(207), &mut out);
    log.extend(sent(&mut out));
    (s, log)
}

#[test]
fn lost_retransmission_detected_by_rack_without_a_timeout() {
    let (s, log) = lost_retransmission(true);
    assert_eq!(log, vec![(0, true), (15, false)], "the second retransmission of 0");
    assert_eq!(s.rack.as_ref().unwrap().marked_lost, 2);
    assert_eq!(s.stats.timeouts, 0);
    // at 207, long before the RTO (1 s after the first send: no cumulative ACK since)
    assert_eq!(s.rtx_deadline(), Some(t(1000)));
    // RFC 6675: segment 0 counts as retransmitted (in flight) until the RTO
    let (mut s, log) = lost_retransmission(false);
    assert_eq!(log, vec![(15, false)], "RFC 6675 sends new data only at 207: 0 stays in flight");
    let mut out = Vec::new();
    let rto = s.rtx_deadline().unwrap();
    s.on_timer(rto, &mut out);
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn reordering_within_reo_wnd_is_not_a_loss() {
    for rack in [true, false] {
        let mut s = sender(rack);
        let mut out = Vec::new();
        s.advance(40, t(0), &mut out);
        out.clear();
        // segment 0 overtaken by 1: a SACK at 100; RACK arms its reordering timer for
        // 0 + RACK.rtt (100) + reo_wnd (25) = 125 ms
        s.recv_ack(&ack(0, &[(1, 1)]), t(100), &mut out);
        if rack {
            assert_eq!(s.rack.as_ref().unwrap().reo_deadline, Some(t(125)));
        }
        // 0 arrives at 110, inside the window: the cumulative ACK; reordering seen
        s.recv_ack(&ack(2, &[]), t(110), &mut out);
        assert_eq!(s.stats.retransmitted, 0);
        if rack {
            let r = s.rack.as_ref().unwrap();
            assert!(r.reordering_seen);
            assert_eq!(r.reo_deadline, None);
        }
        // now segment 2 is overtaken by three: with reordering seen, reo_wnd stays
        // min_RTT/4 = 25 ms even with DupThresh SACKed; at 113 segment 2 (sent at 0,
        // RACK.rtt 113) is lost only at 138
        for (k, hi) in [3, 4, 5].into_iter().enumerate() {
            s.recv_ack(&ack(2, &[(3, hi)]), t(111 + k as u64), &mut out);
        }
        if rack {
            assert_eq!((s.state, s.stats.retransmitted), (CongState::Disorder, 0));
            assert_eq!(s.rack.as_ref().unwrap().reo_deadline, Some(t(138)));
            s.recv_ack(&ack(6, &[]), t(120), &mut out);
            assert_eq!((s.state, s.stats.retransmitted, s.stats.fast_retransmits), (CongState::Open, 0, 0));
        } else {
            // RFC 6675: the third duplicate ACK is a loss (a spurious fast retransmit)
            assert_eq!((s.state, s.stats.fast_retransmits), (CongState::Recovery, 1));
        }
    }
}

#[test]
fn reordering_timer_marks_the_loss_one_sack_cannot() {
    let mut s = sender(true);
    let mut out = Vec::new();
    s.advance(12, t(0), &mut out); // 0..9 in the window
    out.clear();
    // one SACK (segment 1), then nothing more: RFC 6675 has one duplicate ACK only
    s.recv_ack(&ack(0, &[(1, 1)]), t(100), &mut out);
    assert_eq!(sent(&mut out), vec![(10, false)]);
    assert_eq!(s.next_deadline(), Some(t(125)));
    s.on_timer(t(125), &mut out);
    assert_eq!(s.state, CongState::Recovery);
    assert_eq!(sent(&mut out), vec![(0, true)]);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn probe_of_new_data_when_a_whole_flight_is_lost() {
    let mut s = sender(true);
    let mut out = Vec::new();
    s.advance(40, t(0), &mut out); // 0..9 (cwnd 10), every one lost
    out.clear();
    // PTO 2·SRTT after the last send; there is new data and the receive window allows it:
    // segment 10 goes out beyond cwnd as the probe, and the RTO restarts from it
    assert_eq!(s.next_deadline(), Some(t(200)));
    s.on_timer(t(200), &mut out);
    assert_eq!(sent(&mut out), vec![(10, false)]);
    assert_eq!(s.rtx_deadline(), Some(t(1200)));
    let r = s.rack.as_ref().unwrap();
    assert_eq!((r.tlp_end, r.tlp_is_retrans, r.probes), (Some(11), false, 1));
    // its SACK at 300: 0..9, sent 300 ms before, all lost (RACK.rtt 100 + reo_wnd 25);
    // pipe 0, ssthresh NewReno's floor 2·SMSS, PRR-SSRB sends one: the head again
    s.recv_ack(&ack(0, &[(10, 10)]), t(300), &mut out);
    assert_eq!(s.state, CongState::Recovery);
    assert_eq!((s.sb.lost, s.bytes_in_flight()), (10, 1_000));
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2_000, 1_000));
    assert_eq!(sent(&mut out), vec![(0, true)]);
    assert_eq!(s.stats.timeouts, 0);
    // RFC 6675: the probe never goes; the RTO at 1 s
    let mut s = sender(false);
    s.advance(40, t(0), &mut out);
    assert_eq!(s.next_deadline(), Some(t(1000)));
}
