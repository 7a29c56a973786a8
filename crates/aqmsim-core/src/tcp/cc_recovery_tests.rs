//! Where ns-3.37's `TcpSocketBase::ProcessAck` feeds the congestion control around loss
//! recovery (leaving CA_LOSS and CA_RECOVERY) and DCTCP's reduction on a loss; the senders
//! run on `cc_tests`' hand-made pipes.

use super::*;

/// After a retransmission timeout ns-3 is in CA_LOSS until the cumulative ACK reaches the
/// recovery point (the highest packet sent before the timeout); the ACK that reaches it
/// reports only the packets beyond it to IncreaseWindow (`TcpSocketBase::ProcessAck`,
/// segsAcked = ackNumber − m_recover), an ACK below it all it covers. Here the receiver
/// holds every packet sent but the ACKs of the last window are lost: the go-back-N
/// retransmission of the first one is answered by an ACK of everything, which must leave
/// cwnd at 1 (it used to add the whole window through CUBIC's byte-counting slow start).
/// A second run holds all but one packet m: the first ACK reaches m − 1 < recover and
/// counts all it covers (slow start: cwnd = 1 + those packets), the next one reaches
/// recover and adds nothing.
#[test]
fn cubic_ack_ending_timeout_recovery_counts_only_packets_beyond_recover() {
    for hole in [None, Some(7)] {
        let mut p = params(Variant::Cubic);
        p.hystart = false;
        p.window = 1000.0;
        let (mut snd, mut sink) = pair(&p);
        let mut out = Vec::new();
        let mut t = 0.0;
        snd.start_bulk(SimTime::ZERO, &mut out);
        // Four loss-free rounds of slow start (cwnd 2 → 24: the ACK of packet 0 counts nothing).
        for _ in 0..4 {
            t += 0.1;
            let now = SimTime::from_secs(t);
            let acks: Vec<Packet> = out.drain(..).filter_map(|d| sink.recv(&d, now)).collect();
            for a in acks {
                snd.recv_ack(&a, now, &mut out);
            }
        }
        assert_eq!(snd.cwnd, 24.0);
        // The next window arrives (except packet hole), every ACK of it is lost.
        let base = snd.highest_ack;
        let round: Vec<Packet> = out.drain(..).collect();
        assert_eq!(round.len(), 24);
        t += 0.1;
        for d in &round {
            if hole.map(|h| d.seq != base + h).unwrap_or(true) {
                sink.recv(d, SimTime::from_secs(t));
            }
        }
        t += 1.0;
        snd.on_timeout(SimTime::from_secs(t), &mut out);
        assert_eq!(snd.cwnd, 1.0);
        let recover = snd.recover;
        assert_eq!(recover, snd.maxseq);
        assert_eq!(out.len(), 1, "go-back-N sends the first unacknowledged packet");
        assert_eq!(out[0].seq, base + 1);
        t += 0.1;
        let now = SimTime::from_secs(t);
        let a = sink.recv(&out.pop().unwrap(), now).unwrap();
        snd.recv_ack(&a, now, &mut out);
        match hole {
            None => {
                assert_eq!(a.seq, recover);
                assert_eq!(snd.cwnd, 1.0, "the ACK reaching recover adds nothing");
            }
            Some(h) => {
                assert_eq!(a.seq, base + h - 1);
                assert_eq!(snd.cwnd, 1.0 + (h - 1) as f64, "below recover: all it covers");
                // Go-back-N goes on from base + h; its ACK reaches recover.
                let cwnd = snd.cwnd;
                let first = out.iter().find(|d| d.seq == base + h).cloned().unwrap();
                out.clear();
                t += 0.1;
                let now = SimTime::from_secs(t);
                let a = sink.recv(&first, now).unwrap();
                assert_eq!(a.seq, recover);
                snd.recv_ack(&a, now, &mut out);
                assert_eq!(snd.cwnd, cwnd, "the ACK reaching recover adds nothing");
            }
        }
    }
}

/// ns-3.37's `TcpDctcp::GetSsThresh` is (1 − α/2)·cwnd for every caller: `EnterCwr` (ECE),
/// `EnterRecovery` (fast retransmit) and `ReTxTimeout` — it does not fall back to
/// `TcpLinuxReno`'s halving on a loss. No marks here, so α decays from 1 by 15/16 per
/// window; the one loss (fast retransmit) must cut cwnd by α/2 with the α of that moment,
/// not by half.
#[test]
fn dctcp_loss_reduction_uses_alpha_as_ns3() {
    let mut p = params(Variant::Dctcp);
    p.ecn = true;
    p.window = 1000.0;
    let (mut snd, mut sink) = pair(&p);
    let mut pipe = Pipe::new(0.05, 0.001);
    pipe.lose = vec![1500];
    let mut prev = (snd.cwnd, 1.0);
    let mut cut = None;
    drive(&mut snd, &mut sink, &mut pipe, 30.0, &no_mark, &mut |s, _| {
        if s.stats.fast_retransmits == 1 && cut.is_none() {
            cut = Some((prev.0, prev.1, s.ssthresh, s.cwnd));
        }
        prev = (s.cwnd, s.dctcp().unwrap().alpha);
    });
    let (before, alpha, ssthresh, cwnd) = cut.expect("one fast retransmit");
    assert!(alpha < 0.9 && alpha > 0.0, "α decayed: {alpha}");
    assert!(before >= 20.0, "cwnd before the loss {before}");
    assert_eq!(ssthresh, (((1.0 - alpha / 2.0) * before) as i32).max(2));
    assert_eq!(cwnd, ssthresh as f64);
    assert!(ssthresh as f64 > before / 2.0 + 2.0, "not Linux Reno's halving");
    assert_eq!(snd.stats.timeouts, 0);
}

/// ns-3.37 leaves fast recovery on the ACK that passes the recovery point by setting
/// cwnd = ssthresh and then calling IncreaseWindow with every packet that ACK covers
/// (`TcpSocketBase::ProcessAck`, CA_RECOVERY → CA_OPEN): CUBIC starts its epoch there,
/// banks the packets in `m_cWndCnt` and adds one packet if they reach cnt. (In the ns-3
/// dumbbell 258 of 277 recovery exits raise cwnd above ssthresh at once.)
#[test]
fn cubic_recovery_exit_ack_feeds_increase_window() {
    use crate::monitor::tcp::TcpState;
    let mut prev = (TcpState::SlowStart, 0u32, 0i32);
    let mut exit = None;
    cubic_one_loss(&mut |s, _| {
        let st = s.tcp_state();
        let c = s.cubic().unwrap();
        if prev.0 == TcpState::FastRecovery && st != TcpState::FastRecovery && exit.is_none() {
            exit = Some((s.cwnd, s.ssthresh, prev.1, s.highest_ack - prev.2, c.last_cnt, c.cwnd_cnt, c.epoch_start));
        }
        prev = (st, c.cwnd_cnt, s.highest_ack);
    });
    let (cwnd, ssthresh, bank, covered, cnt, left, epoch) = exit.expect("a recovery");
    assert!(covered >= 30, "the exit ACK covers the window held by the receiver: {covered}");
    assert!(epoch.is_some(), "the epoch starts on the exit ACK");
    let total = bank + covered as u32;
    assert!(total >= cnt, "{total} < cnt {cnt}");
    assert_eq!(cwnd, ssthresh as f64 + 1.0);
    assert_eq!(left, total - cnt);
}
