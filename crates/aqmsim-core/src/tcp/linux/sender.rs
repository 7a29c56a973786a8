//! The Linux/ns-3 sender: windows in bytes, RFC 6675 SACK loss recovery with PRR, ns-3.37's
//! `TcpSocketBase` ACK processing (`ReceivedAck`, `ProcessAck`, `DupAck`, `EnterRecovery`,
//! `ReTxTimeout`, `SendPendingData`) re-expressed over segment-numbered packets.
//!
//! Packets carry segment numbers (segment `n` holds bytes `n·MSS .. (n+1)·MSS`), the sink is
//! the packet-counting one with SACK and ns-3's delayed ACKs; every window (cwnd, ssthresh,
//! pipe, PRR's counters) is in bytes and has no packet rounding.

use super::cc::{CongestionOps, Tcb};
use super::pacing::Pacer;
use super::prr::Prr;
use super::rtt::RttMeanDev;
use super::scoreboard::Scoreboard;
use crate::packet::{Kind, Packet};
use crate::tcp::stats::SenderStats;
use crate::tcp::TcpParams;
use crate::time::{Dur, SimTime};
use std::collections::VecDeque;

/// ns-3's congestion states (`TcpSocketState::TcpCongState_t`; CWR comes with ECN).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CongState {
    Open,
    Disorder,
    Recovery,
    Loss,
    /// Reducing after an ECN-Echo (`ecn.rs`).
    Cwr,
}

/// ns-3's clock granularity G of the RTO rule (`ClockGranularity`, 1 ms).
const GRANULARITY_NS: i64 = 1_000_000;
/// Largest RTO after backoff (ns-3: 60 s).
const MAX_RTO_NS: i64 = 60_000_000_000;
/// The last segment a bulk flow sends.
const MAXSEQ: i32 = i32::MAX - 2 * crate::tcp::params::MAX_WINDOW as i32;

#[derive(Clone, Debug)]
pub struct LinuxSender {
    pub p: TcpParams,
    pub flow: u32,
    pub dst: u32,
    pub tcb: Tcb,
    /// Receiver window cap, bytes.
    pub rwnd: u64,
    pub sb: Scoreboard,
    /// One past the last segment the application has given.
    pub curseq: i32,
    pub state: CongState,
    pub dupacks: u32,
    /// RecoveryPoint (HighData at the last congestion event), segment number.
    pub recover: i32,
    recover_active: bool,
    first_partial: bool,
    rtx_data_acked: bool,
    pub prr: Prr,
    pub cc: Box<dyn CongestionOps>,
    pub rtt: RttMeanDev,
    /// Current RTO, ns (backoff included).
    pub rto_ns: i64,
    min_rto_ns: i64,
    /// Sends not yet acknowledged for RTT samples: (first seg, end seg, time, retransmitted).
    history: VecDeque<(i32, i32, SimTime, bool)>,
    pub(super) rtx_deadline: Option<SimTime>,
    pub(crate) rtt_sample: f64,
    pub stats: SenderStats,
    pub(super) ecn: super::ecn::EcnSender,
    pub pacer: Pacer,
    /// Delivery-rate sampling, for a congestion control that sets the rate (BBR).
    pub rate: Option<Box<super::rate::RateSampler>>,
    /// RACK-TLP (`loss_detection = "rack"`, `rack.rs`, `rack_hooks.rs`); None: RFC 6675.
    pub rack: Option<Box<super::rack::Rack>>,
    /// A loss probe is going out (it does not restart the probe timer).
    pub(super) probing: bool,
}

impl LinuxSender {
    pub fn new(p: TcpParams, flow: u32, dst: u32) -> LinuxSender {
        let mss = p.packet_size;
        let tcb = Tcb::new((p.window_init * mss as f64) as u32, u32::MAX, mss);
        // ns-3's handshake gives its estimator a first sample (`syn_rtt`)
        let mut rtt = RttMeanDev::new();
        if p.syn_rtt > 0.0 {
            rtt.sample((p.syn_rtt * 1e9).round() as i64);
        }
        let mut s = LinuxSender {
            flow,
            dst,
            tcb,
            rwnd: (p.window * mss as f64) as u64,
            sb: Scoreboard::with_rule3_any(p.dupacks, p.ns3_quirks),
            curseq: 0,
            state: CongState::Open,
            dupacks: 0,
            recover: 0,
            recover_active: false,
            first_partial: true,
            rtx_data_acked: false,
            prr: Prr { wrap32: p.ns3_quirks, ..Prr::default() },
            cc: super::cc::for_variant(&p),
            rto_ns: if rtt.samples > 0 { rtt.rto(GRANULARITY_NS, (p.min_rto * 1e9) as i64) } else { (p.rto_init * 1e9) as i64 },
            rtt,
            min_rto_ns: (p.min_rto * 1e9) as i64,
            history: VecDeque::new(),
            rtx_deadline: None,
            rtt_sample: f64::NAN,
            stats: SenderStats::default(),
            ecn: super::ecn::EcnSender::for_params(&p),
            pacer: Pacer::new(p.pacing),
            rate: None,
            rack: None,
            probing: false,
            p,
        };
        if s.p.rack {
            s.enable_rack();
        }
        s
    }

    pub fn rtx_deadline(&self) -> Option<SimTime> {
        self.rtx_deadline
    }
    /// The earliest of the retransmission, pacing and RACK-TLP timers (what the engine
    /// schedules).
    pub fn next_deadline(&self) -> Option<SimTime> {
        let d = match (self.rtx_deadline, self.pacer.next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if self.rack.is_none() {
            return d;
        }
        [d, self.rack_deadline()].into_iter().flatten().min()
    }
    /// A timer event at `now`: the pacing timer (ns-3 `NotifyPacingPerformed`: send what
    /// the window allows, one segment), RACK-TLP's and/or the retransmission timer.
    #[inline(always)]
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.pacer.expire(now) {
            self.send_pending(now, out);
        }
        self.rack_timer(now, out);
        if self.rtx_deadline == Some(now) {
            self.on_timeout(now, out);
        }
    }
    #[inline]
    fn mss(&self) -> u32 {
        self.tcb.mss
    }
    /// Bytes in flight (RFC 6675 pipe, ns-3 `BytesInFlight`).
    pub fn bytes_in_flight(&self) -> u32 {
        self.sb.in_flight() * self.mss()
    }
    fn unacked_bytes(&self) -> u64 {
        self.sb.outstanding() as u64 * self.mss() as u64
    }

    // ------------------------------------------------------------------ application

    pub fn start_bulk(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.curseq = MAXSEQ;
        self.cc_established(now);
        self.send_pending(now, out);
    }
    pub fn stop(&mut self) {
        self.curseq = self.sb.high;
    }
    pub fn advance(&mut self, n: i32, now: SimTime, out: &mut Vec<Packet>) {
        self.curseq = self.curseq.saturating_add(n).min(MAXSEQ);
        self.send_pending(now, out);
    }

    // ------------------------------------------------------------------ sending

    #[inline(always)]
    pub(super) fn send_seg(&mut self, seg: i32, now: SimTime, out: &mut Vec<Packet>) {
        let rtx = seg < self.sb.high;
        if self.rate.is_some() {
            self.rate_sent(seg, now);
        }
        if rtx {
            self.sb.mark_retrans(seg);
            self.stats.retransmitted += 1;
            // Karn: a sample never comes from a retransmitted segment
            // entries are one per segment, consecutive from the front's
            if let Some(first) = self.history.front().map(|h| h.0) {
                if let Some(h) = self.history.get_mut((seg - first).max(0) as usize).filter(|h| h.0 == seg) {
                    h.3 = true;
                }
            }
        } else {
            self.sb.sent_new();
            self.history.push_back((seg, seg + 1, now, false));
        }
        let size = self.p.packet_size + self.p.header + if self.p.timestamps { crate::packet::TS_OPTION_BYTES } else { 0 };
        let mut pkt = Packet::new(Kind::Data, self.flow, seg, size, self.dst, now);
        pkt.tag = rtx as u8;
        pkt.ecn = self.ecn.data_bits(seg, rtx);
        out.push(pkt);
        self.stats.sent += 1;
        self.stats.sent_bytes += size as u64;
        if self.rtx_deadline.is_none() {
            self.rtx_deadline = Some(now + Dur(self.rto_ns as u64));
        }
        if matches!(self.state, CongState::Recovery | CongState::Cwr) {
            self.prr.sent(self.mss());
        }
        self.rack_sent(seg, rtx, now);
    }

    /// ns-3's `IsPacingEnabled` (`PaceInitialWindow` false): pacing applies once HighData is
    /// beyond the initial window, so the initial window leaves at once and the timer starts
    /// after its last segment.
    fn pacing_enabled(&self) -> bool {
        self.sb.high as f64 >= self.p.window_init
    }

    /// RFC 6675 (C) / ns-3 `SendPendingData`: while a full segment fits in
    /// min(cwnd, rwnd) − pipe, send NextSeg.
    pub(super) fn send_pending(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        loop {
            if self.pacing_enabled() && self.pacer.blocked(now) {
                break;
            }
            let win = (self.tcb.cwnd as u64).min(self.rwnd);
            let pipe = self.bytes_in_flight() as u64;
            if pipe + self.mss() as u64 > win {
                break;
            }
            // RACK retransmits only what it marked lost (as Linux): no rule (3)
            let (r1, r3) = self.sb.next_seg(self.state == CongState::Recovery && self.rack.is_none());
            let seg = match r1 {
                Some(s) => s,
                None if self.sb.high < self.curseq && self.unacked_bytes() + self.mss() as u64 <= self.rwnd => self.sb.high,
                None => match r3 {
                    Some(s) => s,
                    None => break,
                },
            };
            self.send_seg(seg, now, out);
            if self.pacing_enabled() && self.pacer.sent(now, self.mss()) {
                break;
            }
        }
    }

    /// ns-3 `DoRetransmit`: NextSeg without rule 3 — the first lost segment not yet
    /// retransmitted, else new data while the bytes sent and unacknowledged are within the
    /// receive window (rule 2: on a partial ACK whose head is not yet lost, ns-3 sends new
    /// data), else the head again.
    fn retransmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let seg = match self.sb.next_seg(false).0 {
            Some(s) => s,
            None if self.sb.high < self.curseq && self.unacked_bytes() <= self.rwnd => self.sb.high,
            None => self.sb.una,
        };
        if seg < self.sb.high || (seg == self.sb.high && self.sb.high < self.curseq) {
            self.send_seg(seg, now, out);
            // ns-3's SendDataPacket starts an expired pacing timer for a retransmission too
            if self.pacing_enabled() && !self.pacer.blocked(now) {
                self.pacer.sent(now, self.mss());
            }
        }
    }

    // ------------------------------------------------------------------ ACKs

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

    // ------------------------------------------------------------------ timeout

    /// The retransmission timer fired (ns-3 `ReTxTimeout`).
    pub fn on_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.rtx_deadline = None;
        if self.sb.outstanding() == 0 {
            return;
        }
        self.stats.timeouts += 1;
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_rto();
        }
        let in_flight_before = self.bytes_in_flight();
        self.dupacks = 0;
        self.sb.rto_all_lost();
        // ns-3 asks whether the head was retransmitted after clearing every retransmitted
        // flag, so the answer is always no and every timeout recomputes ssthresh (RFC 5681
        // holds it on a repeated timeout): followed here, for agreement with ns-3.
        let head_rtx = self.sb.head_retransmitted();
        self.recover = self.sb.high;
        self.recover_active = true;
        self.rto_ns = (2 * self.rto_ns).min(MAX_RTO_NS);
        self.history.clear();
        self.tcb.now_ns = now.0 as i64;
        self.tcb.high_tx = self.sb.high;
        self.cc.on_event(&mut self.tcb, super::cc::CcEvent::Loss);
        if self.state != CongState::Loss || !head_rtx {
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, in_flight_before);
        }
        self.cc.on_loss_state(&self.tcb);
        self.state = CongState::Loss;
        self.tcb.cwnd = self.mss();
        self.pacer.next = None;
        self.send_pending(now, out);
    }
}
