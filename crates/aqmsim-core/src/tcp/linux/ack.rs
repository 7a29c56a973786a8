//! The sender's ACK processing, as ns-3.37's `TcpSocketBase` does it (`ReceivedAck`,
//! `ProcessAck`, `EstimateRtt`, `NewAck`, `DupAck`, `EnterRecovery`): the RTT sample, the
//! cumulative and SACK information, PRR's reduction, entering recovery and the fast
//! retransmit. The sender itself, its timers and its sends are in `sender.rs`.

use super::sender::{CongState, LinuxSender, GRANULARITY_NS};
use crate::packet::Packet;
use crate::time::{Dur, SimTime};

impl LinuxSender {
    /// ns-3 `EstimateRtt`: a sample when the oldest send not yet acknowledged is covered
    /// and was not retransmitted (Karn); from the echoed timestamp when the ACK carries one
    /// (`TcpOptionTS::ElapsedTimeFromTsValue`: whole ms, a zero sample becomes 1 µs), else
    /// from the send time.
    #[inline(always)]
    fn estimate_rtt(&mut self, ack: i32, ts_ecr: Option<u32>, now: SimTime) {
        let mut m = None;
        if let Some(&(_, end, t, retx)) = self.history.front() {
            if !retx && ack >= end {
                m = Some(match ts_ecr {
                    Some(ecr) => {
                        let now_ms = crate::packet::ts_ms(now);
                        if now_ms > ecr {
                            (now_ms - ecr) as i64 * 1_000_000
                        } else {
                            1_000
                        }
                    }
                    None => now.saturating_since(t).0 as i64,
                });
            }
        }
        while self.history.front().is_some_and(|h| h.1 <= ack) {
            self.history.pop_front();
        }
        if let Some(m) = m {
            self.rtt.sample(m);
            self.rto_ns = self.rtt.rto(GRANULARITY_NS, self.min_rto_ns);
            self.rtt_sample = m as f64 * 1e-9;
        }
    }

    /// ns-3 `NewAck`: restart the timer with the estimator's RTO (backoff cleared).
    fn new_ack(&mut self, reset_rto: bool, now: SimTime) {
        if reset_rto {
            if self.rtt.samples > 0 {
                self.rto_ns = self.rtt.rto(GRANULARITY_NS, self.min_rto_ns);
            }
            self.rtx_deadline = Some(now + Dur(self.rto_ns as u64));
        }
        if self.sb.outstanding() == 0 && self.sb.high >= self.curseq {
            self.rtx_deadline = None;
        }
    }

    /// An ACK arrived: `ack.seq` is the highest in-order segment, so the cumulative ACK
    /// (next segment expected) is `ack.seq + 1`.
    pub fn recv_ack(&mut self, pkt: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        self.stats.acks += 1;
        let ack = pkt.seq + 1;
        let ts_ecr = self.p.timestamps.then(|| self.take_ts(pkt));
        self.estimate_rtt(ack, ts_ecr, now);
        let blocks = (0..pkt.nsack as usize).map(|i| pkt.sack_block(i));
        let (prior, sacked) = match self.rate.is_some() {
            true => {
                let (prior, sacked) = self.rate_prior(pkt, now);
                (Some(prior), sacked)
            }
            false => (None, None),
        };
        let newly_sacked = match sacked {
            Some(n) => n, // (rate_prior applied the blocks)
            None if self.rack.is_some() => self.rack_sack(pkt, now),
            None => self.sb.update_sack(blocks),
        };
        let old_una = self.sb.una;
        if ack < old_una {
            return;
        }
        self.rack_acked(old_una, ack, now);
        if ack > old_una && ack < self.recover && self.state == CongState::Recovery {
            self.rtx_data_acked = (old_una..ack).any(|s| self.sb.is_retransmitted(s) && !self.sb.is_sacked(s));
        }
        let newly_acked = self.sb.discard_upto(ack);
        self.tcb.now_ns = now.0 as i64;
        self.tcb.last_acked = ack;
        self.tcb.high_tx = self.sb.high;
        self.tcb.last_rtt_ns = self.rtt.srtt;
        let delivered = (newly_sacked + newly_acked) * self.mss();
        self.tcb.delivered = newly_sacked + newly_acked;
        self.tcb.delivered_ce = 0;
        self.on_ecn_echo(pkt, ack, old_una, delivered);
        self.tcb.ece_rcvd = self.ecn.state == super::ecn::EcnState::EceRcvd;
        self.rate_before_process();
        self.process_ack(ack, newly_sacked > 0, delivered, old_una, now, out);
        if let Some(prior) = prior {
            self.cong_control(ack, prior, delivered, now);
        }
        self.rtx_data_acked = false;
        self.rack_after_ack(ack, old_una, newly_sacked, delivered, now, out);
        if !self.cc.sets_pacing_rate() {
            self.pacer.update(self.tcb.cwnd, self.tcb.ssthresh, self.bytes_in_flight(), self.rtt.srtt);
            if let Some(bps) = self.cc.pacing_rate() {
                self.pacer.set_rate(bps); // a plug-in's own rate (plugin_ops.rs)
            }
        }
        self.send_pending(now, out);
    }

    fn process_ack(&mut self, ack: i32, is_dupack: bool, delivered: u32, old_una: i32, now: SimTime, out: &mut Vec<Packet>) {
        let mut exited_recovery = false;
        let old_dupacks = self.dupacks;
        if is_dupack {
            self.dup_ack(ack, delivered, now, out);
        }
        if ack == old_una {
            // a duplicate ACK: ns-3 calls PktsAcked with one segment (unless nothing is out)
            if ack != self.sb.high {
                self.cc.pkts_acked(&mut self.tcb, 1);
            }
            return;
        }
        let mut segs_acked = (ack - old_una) as u32;
        if !is_dupack {
            self.dupacks = 0;
        }
        if ack < self.recover && self.state == CongState::Recovery {
            // partial ACK (RFC 6675 (B))
            if segs_acked >= 1 {
                self.prr_ack(delivered);
            }
            // RACK retransmits only what it marked lost
            if self.rack.is_none() && !(self.sb.is_retransmitted(ack) && !self.sb.is_sacked(ack)) {
                self.retransmit(now, out);
            }
            self.cc.pkts_acked(&mut self.tcb, 1);
            let first = self.first_partial;
            self.new_ack(first, now);
            self.first_partial = false;
            return;
        }
        if ack < self.recover && self.state == CongState::Loss {
            self.cc.pkts_acked(&mut self.tcb, segs_acked);
            self.cc.increase_window(&mut self.tcb, segs_acked);
            self.new_ack(true, now);
            return;
        }
        if self.state == CongState::Cwr {
            self.cc.pkts_acked(&mut self.tcb, segs_acked);
            if segs_acked >= 1 {
                self.prr_ack(delivered);
            }
            self.new_ack(true, now);
            return;
        }
        match self.state {
            CongState::Open => self.cc.pkts_acked(&mut self.tcb, segs_acked),
            CongState::Disorder => {
                if segs_acked >= old_dupacks {
                    self.cc.pkts_acked(&mut self.tcb, segs_acked - old_dupacks);
                }
                if !is_dupack {
                    self.state = CongState::Open;
                }
            }
            CongState::Recovery => {
                self.cc.pkts_acked(&mut self.tcb, segs_acked);
                self.first_partial = true;
                self.state = CongState::Open;
                exited_recovery = true;
                self.dupacks = 0;
            }
            CongState::Loss => {
                self.first_partial = true;
                segs_acked = (ack - self.recover).max(0) as u32;
                self.cc.pkts_acked(&mut self.tcb, segs_acked);
                self.state = CongState::Open;
            }
            _ => {}
        }
        if ack >= self.recover {
            self.recover_active = false;
        }
        if exited_recovery {
            self.new_ack(true, now);
            self.tcb.cwnd = self.tcb.ssthresh;
            self.cc.on_event(&mut self.tcb, super::cc::CcEvent::CompleteCwr);
        }
        if self.state == CongState::Open {
            self.cc.increase_window(&mut self.tcb, segs_acked);
            self.new_ack(true, now);
        }
    }

    /// ns-3 `ProcessOptionTimestamp` at the sender: keep the ACK's TSval and TSecr (for
    /// LEDBAT's one-way delay) unless the TSval is below the largest seen; the TSecr for
    /// the RTT sample either way.
    fn take_ts(&mut self, pkt: &Packet) -> u32 {
        let (val, ecr) = pkt.ts();
        if val >= self.tcb.ts_val {
            self.tcb.ts_val = val;
            self.tcb.ts_ecr = ecr;
        }
        ecr
    }

    pub(super) fn prr_ack(&mut self, delivered: u32) {
        if self.cc.sets_pacing_rate() {
            return; // the control sets cwnd itself (cc.rs)
        }
        let (fl, mss) = (self.bytes_in_flight(), self.mss());
        self.tcb.cwnd = self.prr.on_ack(delivered, fl, self.tcb.ssthresh, mss, self.rtx_data_acked);
    }

    /// RFC 6675 §5 on a duplicate ACK (one that SACKs new data), ns-3 `DupAck`.
    fn dup_ack(&mut self, ack: i32, delivered: u32, now: SimTime, out: &mut Vec<Packet>) {
        match self.state {
            CongState::Loss => return,
            CongState::Recovery => {}
            _ => self.dupacks += 1,
        }
        if self.state == CongState::Open {
            self.state = CongState::Disorder;
        }
        if self.state == CongState::Recovery {
            self.prr_ack(delivered);
        } else if self.state == CongState::Disorder {
            let by_count = self.dupacks == self.sb.dupthresh && (ack >= self.recover || !self.recover_active);
            // ns-3 asks IsLost(HighACK + SMSS), one segment above the cumulative ACK
            if by_count || self.sb.is_lost(ack + 1) {
                self.enter_recovery(delivered, now, out);
            }
        }
    }

    pub(super) fn enter_recovery(&mut self, delivered: u32, now: SimTime, out: &mut Vec<Packet>) {
        let in_flight = self.bytes_in_flight();
        if !self.sb.is_lost(self.sb.una) && !self.sb.is_marked_lost(self.sb.una) {
            self.sb.mark_head_lost();
        }
        self.recover = self.sb.high;
        self.recover_active = true;
        self.cc.on_event(&mut self.tcb, super::cc::CcEvent::Recovery);
        self.cc.recovery_entry(&mut self.tcb, in_flight, delivered);
        self.state = CongState::Recovery;
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, self.bytes_in_flight());
        self.prr.enter(self.unacked_bytes());
        self.prr_ack(delivered);
        self.stats.fast_retransmits += 1;
        self.retransmit(now, out);
    }
}
