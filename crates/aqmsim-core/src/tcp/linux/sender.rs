//! The Linux/ns-3 sender: windows in bytes, RFC 6675 SACK loss recovery with PRR, ns-3.37's
//! `TcpSocketBase` ACK processing (`ReceivedAck`, `ProcessAck`, `DupAck`, `EnterRecovery`,
//! `ReTxTimeout`, `SendPendingData`) re-expressed over segment-numbered packets.
//!
//! Packets carry segment numbers (segment `n` holds bytes `n·MSS .. (n+1)·MSS`), the sink is
//! the packet-counting one with SACK and ns-3's delayed ACKs; every window (cwnd, ssthresh,
//! pipe, PRR's counters) is in bytes and has no packet rounding.
//!
//! This file holds the sender, its timers, its sends and the timeout; the ACK processing is
//! in `ack.rs`, the delivery-rate sample in `rate_hooks.rs`, RACK-TLP in `rack_hooks.rs`.

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
pub(super) const GRANULARITY_NS: i64 = 1_000_000;
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
    pub(super) recover_active: bool,
    pub(super) first_partial: bool,
    pub(super) rtx_data_acked: bool,
    pub prr: Prr,
    pub cc: Box<dyn CongestionOps>,
    pub rtt: RttMeanDev,
    /// Current RTO, ns (backoff included).
    pub rto_ns: i64,
    pub(super) min_rto_ns: i64,
    /// Sends not yet acknowledged for RTT samples: (first seg, end seg, time, retransmitted).
    pub(super) history: VecDeque<(i32, i32, SimTime, bool)>,
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
            cc: super::cc_variant::for_variant(&p),
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
    pub(super) fn mss(&self) -> u32 {
        self.tcb.mss
    }
    /// Bytes in flight (RFC 6675 pipe, ns-3 `BytesInFlight`).
    pub fn bytes_in_flight(&self) -> u32 {
        self.sb.in_flight() * self.mss()
    }
    pub(super) fn unacked_bytes(&self) -> u64 {
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
    pub(super) fn retransmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
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
