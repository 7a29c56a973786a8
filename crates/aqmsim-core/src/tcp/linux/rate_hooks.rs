//! The sender's side of delivery-rate sampling and `CongControl` (ns-3.37's
//! `TcpSocketBase` calls into `TcpRateLinux` and the congestion control's `CongControl`),
//! reached only when the congestion control sets the pacing rate itself (BBR).

use super::cc::CongestionOps;
use super::rate::{CongCtlIn, RateSampler};
use super::sender::{CongState, LinuxSender};
use crate::packet::Packet;
use crate::time::{Dur, SimTime};

impl LinuxSender {
    /// Run `cc` (ns-3 `SetCongestionControl`); one that sets the pacing rate turns pacing
    /// on and rate sampling with it (ns-3: BBR's `InitPacingRate`).
    pub fn set_cc(&mut self, cc: Box<dyn CongestionOps>) {
        if cc.sets_pacing_rate() {
            self.pacer.on = true;
            let mut r = Box::new(RateSampler::new());
            r.per_ack = cc.per_ack_rate_sample();
            r.ns3_ack_elapsed = self.p.ns3_quirks && !r.per_ack; // ns-3's quirk is BBR v1's sampler
            self.rate = Some(r);
        }
        self.cc = cc;
    }

    /// `SkbSent`: before the segment counts in flight.
    pub(super) fn rate_sent(&mut self, seg: i32, now: SimTime) {
        let in_flight = self.bytes_in_flight();
        let lost = self.sb.lost_marks * self.tcb.mss as u64;
        if let Some(r) = self.rate.as_mut() {
            r.lost_total = lost;
            r.ns3_flight = in_flight; // ns-3's SendDataPacket calls BytesInFlight() first
            r.on_sent_in_flight(seg, now, in_flight == 0, in_flight + self.tcb.mss);
        }
    }

    /// Before the ACK's SACK blocks are applied: its SACKed segments are delivered (ns-3
    /// reads the SACK option before the cumulative ACK); returns what `GenerateSample`
    /// needs from before the ACK (bytes in flight, segments marked lost) and, without RACK,
    /// the segments newly SACKed: the scoreboard's update and the sampler then share one
    /// walk over the blocks, the sampler handed each segment the board newly SACKs, in the
    /// blocks' order. That is every segment its own walk would deliver: one the board had
    /// SACKed already was delivered to the sampler then and not sent since (only RACK's
    /// loss probe sends a SACKed segment), so `on_delivered` would pass over it.
    pub(super) fn rate_prior(&mut self, pkt: &Packet, now: SimTime) -> ((u32, u32), Option<u32>) {
        let prior = (self.bytes_in_flight(), self.sb.lost);
        let (mss, una, high) = (self.tcb.mss, self.sb.una, self.sb.high);
        let Some(r) = self.rate.as_mut() else { return (prior, None) };
        let blocks = (0..pkt.nsack as usize).map(|i| pkt.sack_block(i));
        if self.rack.is_none() {
            let n = self.sb.update_sack_each(blocks, |s| r.on_delivered(s, mss, now));
            return (prior, Some(n));
        }
        for (lo, hi) in blocks {
            for s in lo.max(una)..=hi.min(high - 1) {
                r.on_delivered(s, mss, now);
            }
        }
        (prior, None)
    }

    /// The bulk application starts. With `ns3_quirks`, ns-3's `BulkSendApplication` first
    /// writes 512 bytes, less than a segment, so `CalculateAppLimited` marks the connection
    /// application-limited until the first ACK: the initial window's rate samples are
    /// app-limited. With `syn_rtt` (ns-3's handshake) the congestion control is told the
    /// connection is established, with that RTT, before the first segment leaves.
    pub(super) fn cc_established(&mut self, now: SimTime) {
        let in_flight = self.bytes_in_flight() as u64;
        let Some(r) = self.rate.as_mut() else { return };
        if self.p.ns3_quirks {
            r.app_limited = (r.delivered + in_flight).max(1);
        }
        if self.rtt.samples == 0 {
            return;
        }
        let rs = super::rate::RateSample::default();
        let x = CongCtlIn {
            now: now.0,
            srtt_ns: self.rtt.srtt.max(0) as u64,
            bytes_in_flight: in_flight as u32,
            mss: self.tcb.mss,
            initial_cwnd: (self.p.window_init * self.tcb.mss as f64) as u32,
            in_recovery: false,
            delivered: 0,
            tx_item_delivered: 0,
            rs: &rs,
        };
        if let Some(rate) = self.cc.established(&mut self.tcb, &x) {
            self.pacer.set_rate(rate);
        }
    }

    /// ns-3's `ReceivedAck` refreshes `m_bytesInFlight` just before `ProcessAck`.
    pub(super) fn rate_before_process(&mut self) {
        let in_flight = self.bytes_in_flight();
        if let Some(r) = self.rate.as_mut() {
            r.ns3_flight = in_flight;
        }
    }

    /// After `ProcessAck`: the cumulative ACK's deliveries, the sample, `CongControl`.
    pub(super) fn cong_control(&mut self, ack: i32, prior: (u32, u32), delivered: u32, now: SimTime) {
        let Some(mut r) = self.rate.take() else { return };
        r.on_cum_ack(ack, self.tcb.mss, now);
        if self.rtt.samples > 0 {
            r.min_rtt_ns = r.min_rtt_ns.min(self.rtt.srtt.max(0) as u64);
        }
        let lost = self.sb.lost.abs_diff(prior.1) * self.tcb.mss;
        r.lost_total = self.sb.lost_marks * self.tcb.mss as u64;
        r.generate_sample(delivered, lost, prior.0, Dur(r.min_rtt_ns));
        let x = CongCtlIn {
            now: now.0,
            srtt_ns: self.rtt.srtt.max(0) as u64,
            // ns3_quirks (BBR v1): ns-3's stale m_bytesInFlight, without the segments
            // ProcessAck just retransmitted
            bytes_in_flight: if r.ns3_ack_elapsed { r.ns3_flight } else { self.bytes_in_flight() },
            mss: self.tcb.mss,
            initial_cwnd: (self.p.window_init * self.tcb.mss as f64) as u32,
            in_recovery: self.state == CongState::Recovery,
            delivered: r.delivered,
            tx_item_delivered: r.tx_item_delivered,
            rs: &r.rs,
        };
        if let Some(rate) = self.cc.cong_control(&mut self.tcb, &x) {
            self.pacer.set_rate(rate);
        }
        if self.cc.mark_app_limited() {
            // draft-ietf-ccwg-bbr `MarkConnectionAppLimited` (BBR v3's ProbeRTT)
            r.app_limited = (r.delivered + self.bytes_in_flight() as u64).max(1);
        }
        self.rate = Some(r);
    }
}

impl Default for RateSampler {
    fn default() -> Self {
        RateSampler::new()
    }
}
