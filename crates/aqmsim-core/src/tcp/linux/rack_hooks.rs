//! The sender's side of RACK-TLP (`rack.rs`), reached only by a flow with
//! `loss_detection = "rack"`: when RACK runs (every ACK, the reordering timer), entering
//! recovery on the losses it marks (PRR then does the reduction, as for RFC 6675), and the
//! tail loss probe (its timer, the probe, the repaired-loss response), as Linux's
//! `tcp_rack_mark_lost`, `tcp_rack_reo_timeout`, `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe` and `tcp_process_tlp_ack`.

use super::cc::CcEvent;
use super::rack::{Rack, PTO_NO_RTT_NS, WC_DELACK_NS};
use super::sender::{CongState, LinuxSender};
use crate::packet::Packet;
use crate::time::{Dur, SimTime};

impl LinuxSender {
    /// Detect losses with RACK-TLP instead of RFC 6675's DupThresh (IsLost by count no
    /// longer marks; the scoreboard's DupThresh is set out of reach).
    pub fn enable_rack(&mut self) {
        self.rack = Some(Box::new(Rack::new(self.p.dupacks)));
        self.sb.dupthresh = u32::MAX;
    }

    /// RACK's and TLP's timers, the earliest (none without RACK).
    #[inline]
    pub(super) fn rack_deadline(&self) -> Option<SimTime> {
        let r = self.rack.as_deref()?;
        match (r.reo_deadline, r.pto_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// `send_seg` sent `seg`: its transmit time; after new data (not a probe) the probe
    /// timer restarts.
    /// (Only the check inlined into `send_seg`: without RACK it costs the sender nothing.)
    #[inline(always)]
    pub(super) fn rack_sent(&mut self, seg: i32, rtx: bool, now: SimTime) {
        if self.rack.is_some() {
            self.rack_sent_now(seg, rtx, now);
        }
    }

    #[inline(never)]
    fn rack_sent_now(&mut self, seg: i32, rtx: bool, now: SimTime) {
        let Some(r) = self.rack.as_deref_mut() else { return };
        r.sent(seg, now.0 as i64);
        if !rtx && !self.probing {
            self.schedule_tlp(now);
        }
    }

    /// The ACK's SACK blocks: the segments they newly deliver are RACK's too.
    pub(super) fn rack_sack(&mut self, pkt: &Packet, now: SimTime) -> u32 {
        let blocks = (0..pkt.nsack as usize).map(|i| pkt.sack_block(i));
        let Some(r) = self.rack.as_deref_mut() else { return self.sb.update_sack(blocks) };
        r.begin_ack();
        self.sb.update_sack_each(blocks, |s| r.delivered(s, now.0 as i64))
    }

    /// Before the cumulative ACK moves from `old_una` to `ack`: the segments it delivers
    /// that no SACK had.
    #[inline]
    pub(super) fn rack_acked(&mut self, old_una: i32, ack: i32, now: SimTime) {
        let Some(r) = self.rack.as_deref_mut() else { return };
        for s in old_una..ack.min(self.sb.high) {
            if !self.sb.is_sacked(s) {
                r.delivered(s, now.0 as i64);
            }
        }
        r.end_ack();
        r.discard(ack.min(self.sb.high).max(self.sb.una));
    }

    /// After the ACK's own processing: the probe episode (RFC 8985 §7.4), RACK's loss
    /// detection (§6.2 step 5), recovery on a loss it found, and the probe timer.
    #[inline]
    pub(super) fn rack_after_ack(&mut self, ack: i32, old_una: i32, newly_sacked: u32, delivered: u32, now: SimTime, out: &mut Vec<Packet>) {
        let Some(r) = self.rack.as_deref_mut() else { return };
        if let Some(end) = r.tlp_end {
            if matches!(self.state, CongState::Recovery | CongState::Loss) {
                // recovery or a timeout took over the episode (Linux `tcp_init_cwnd_reduction`)
                r.tlp_end = None;
            } else if ack >= end {
                if !r.tlp_is_retrans || (ack == old_una && newly_sacked == 0) {
                    // new data delivered, or a pure duplicate ACK: the original and the
                    // probe both arrived (no DSACK here)
                    r.tlp_end = None;
                } else if ack > end {
                    r.tlp_end = None;
                    self.tlp_repaired(now);
                }
            }
        }
        self.rack_detect(now);
        if self.sb.lost > 0 && matches!(self.state, CongState::Open | CongState::Disorder) {
            self.rack_enter_recovery(delivered, now, out);
        }
        let ok = self.tlp_allowed();
        if !ok {
            if let Some(r) = self.rack.as_deref_mut() {
                r.pto_deadline = None;
            }
        } else if ack > old_una {
            self.schedule_tlp(now);
        }
    }

    /// Recovery on the losses RACK marked (PRR does the reduction); it takes over the
    /// probe episode, so a later ACK past TLP.end_seq is no second response.
    fn rack_enter_recovery(&mut self, delivered: u32, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp_end = None;
        }
        self.enter_recovery(delivered, now, out);
    }

    /// Run RACK_detect_loss and set the reordering timer.
    fn rack_detect(&mut self, now: SimTime) -> u32 {
        let in_recovery = matches!(self.state, CongState::Recovery | CongState::Loss);
        let Some(r) = self.rack.as_deref_mut() else { return 0 };
        let reo = r.reo_wnd(in_recovery, self.sb.sacked, self.rtt.srtt);
        let (n, timeout) = r.detect_loss(&mut self.sb, now.0 as i64, reo);
        r.reo_deadline = (timeout > 0).then(|| now + Dur(timeout as u64));
        n
    }

    /// A probe could be armed (RFC 8985 §7.2, Linux `tcp_schedule_loss_probe`): data in
    /// flight, nothing SACKed, not in recovery or after a timeout, no probe outstanding.
    fn tlp_allowed(&self) -> bool {
        matches!(self.state, CongState::Open | CongState::Cwr)
            && self.sb.sacked == 0
            && self.sb.outstanding() > 0
            && self.rack.as_deref().is_some_and(|r| r.tlp_end.is_none())
    }

    /// PTO = 2·SRTT (+ WCDelAckT with one segment in flight; 1 s before an RTT sample),
    /// no later than the RTO.
    fn schedule_tlp(&mut self, now: SimTime) {
        let ok = self.tlp_allowed();
        let (srtt, samples, one) = (self.rtt.srtt, self.rtt.samples, self.sb.outstanding() == 1);
        let rto = self.rtx_deadline;
        let Some(r) = self.rack.as_deref_mut() else { return };
        if !ok {
            r.pto_deadline = None;
            return;
        }
        let pto = if samples > 0 { 2 * srtt + if one { WC_DELACK_NS } else { 0 } } else { PTO_NO_RTT_NS };
        let d = now + Dur(pto.max(0) as u64);
        r.pto_deadline = Some(rto.map_or(d, |t| d.min(t)));
    }

    /// A RACK or TLP timer at `now` (before the retransmission timer's).
    #[inline]
    pub(super) fn rack_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let Some(r) = self.rack.as_deref_mut() else { return };
        if r.reo_deadline == Some(now) {
            // RFC 8985 §6.3 / Linux `tcp_rack_reo_timeout`
            r.reo_deadline = None;
            let n = self.rack_detect(now);
            if self.sb.lost > 0 && matches!(self.state, CongState::Open | CongState::Disorder) {
                self.rack_enter_recovery(0, now, out);
            } else if n > 0 {
                self.send_pending(now, out);
            }
        }
        let Some(r) = self.rack.as_deref_mut() else { return };
        if r.pto_deadline == Some(now) {
            r.pto_deadline = None;
            self.send_probe(now, out);
        }
    }

    /// TLP_send_probe (RFC 8985 §7.3): a new segment if the receive window allows, else
    /// the last one sent again; cwnd is not asked. Then the RTO restarts.
    fn send_probe(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.tlp_allowed() {
            return;
        }
        let mss = self.tcb.mss as u64;
        let new_data = self.sb.high < self.curseq && (self.sb.outstanding() as u64 + 1) * mss <= self.rwnd;
        let seg = if new_data { self.sb.high } else { self.sb.high - 1 };
        self.probing = true;
        self.send_seg(seg, now, out);
        self.probing = false;
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp_is_retrans = !new_data;
            r.tlp_end = Some(self.sb.high);
            r.probes += 1;
        }
        self.rtx_deadline = Some(now + Dur(self.rto_ns as u64));
    }

    /// An ACK above the probe's retransmission: it repaired a loss. The congestion
    /// response of Linux's `tcp_process_tlp_ack` (a CWR, at once): ssthresh from the
    /// congestion control, cwnd = ssthresh.
    fn tlp_repaired(&mut self, _now: SimTime) {
        self.cc.on_event(&mut self.tcb, CcEvent::Recovery);
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, self.bytes_in_flight());
        self.tcb.cwnd = self.tcb.cwnd.min(self.tcb.ssthresh).max(self.tcb.mss);
        self.cc.on_event(&mut self.tcb, CcEvent::CompleteCwr);
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp_recoveries += 1;
        }
    }
}
