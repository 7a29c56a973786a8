//! RACK-TLP (RFC 8985), the linux stack's loss detection with `loss_detection = "rack"`
//! (Linux's default since 4.18; ns-3.37 has none). Linux's `tcp_recovery.c` and the loss
//! probe of `tcp_output.c`/`tcp_input.c` are its practical reading.
//!
//! RACK deems a segment lost when a segment sent sufficiently later has been delivered
//! (time, not DupThresh counting): lost when `xmit_ts + RACK.rtt + reo_wnd ≤ now` for a
//! segment sent before the most recently sent delivered one. A lost retransmission is found
//! the same way. TLP sends a probe 2·SRTT after the last send when nothing is SACKed, so
//! that a tail loss gets ACKs (and RACK) instead of waiting for the RTO.
//!
//! This file holds RACK's state and its two rules (`delivered`, `detect_loss`); the sender's
//! side (when they run, the probe, the timers) is in `rack_hooks.rs`. Departures from
//! RFC 8985 and from Linux are listed in `docs/tcp/stack-linux.md` ("RACK-TLP").

use super::scoreboard::Scoreboard;
use std::collections::VecDeque;

/// RFC 8985's worst-case delayed-ACK time WCDelAckT (Linux: `TCP_RTO_MIN`), added to the
/// PTO when one segment is in flight, ns.
pub const WC_DELACK_NS: i64 = 200_000_000;
/// The PTO before any RTT sample (RFC 8985 §7.2: 1 s), ns.
pub const PTO_NO_RTT_NS: i64 = 1_000_000_000;

/// RACK's and TLP's state (RFC 8985 §6.1, §7.1), segments numbered as the scoreboard's.
#[derive(Clone, Debug)]
pub struct Rack {
    /// Last transmission time (ns) of segments `base..`, and whether it was ever
    /// retransmitted (Linux `TCPCB_EVER_RETRANS`: it stays after a timeout).
    segs: VecDeque<(i64, bool)>,
    base: i32,
    /// A segment has been delivered: `xmit_ts`, `end_seq` and `rtt` hold.
    pub has: bool,
    /// RACK.xmit_ts (ns) and RACK.end_seq (one past the segment) of the most recently sent
    /// delivered segment; RACK.rtt (ns) measured on it.
    pub xmit_ts: i64,
    pub end_seq: i32,
    pub rtt: i64,
    /// RACK.min_RTT, ns (i64::MAX before a sample): the least RTT of a segment delivered
    /// and never retransmitted.
    pub min_rtt: i64,
    /// RACK.fack: one past the highest segment delivered.
    pub fack: i32,
    pub reordering_seen: bool,
    /// DupThresh of the reordering window's rule (RFC 8985 §6.2 step 4).
    pub dupthresh: u32,
    /// The reordering timer and the probe timer (PTO).
    pub reo_deadline: Option<crate::time::SimTime>,
    pub pto_deadline: Option<crate::time::SimTime>,
    /// TLP.end_seq (SND.NXT when the probe went out) and TLP.is_retrans.
    pub tlp_end: Option<i32>,
    pub tlp_is_retrans: bool,
    /// Counters: probes sent, losses a probe repaired (cwnd reduced), segments RACK marked.
    pub probes: u64,
    pub tlp_recoveries: u64,
    pub marked_lost: u64,
    /// This ACK's most recently sent delivered segment: (xmit_ts, end_seq, rtt).
    best: Option<(i64, i32, i64)>,
    fack_before: i32,
}

/// RACK_sent_after(t1, seq1, t2, seq2).
#[inline]
fn sent_after(t1: i64, s1: i32, t2: i64, s2: i32) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

impl Rack {
    pub fn new(dupthresh: u32) -> Rack {
        Rack {
            segs: VecDeque::new(),
            base: 0,
            has: false,
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            min_rtt: i64::MAX,
            fack: 0,
            reordering_seen: false,
            dupthresh,
            reo_deadline: None,
            pto_deadline: None,
            tlp_end: None,
            tlp_is_retrans: false,
            probes: 0,
            tlp_recoveries: 0,
            marked_lost: 0,
            best: None,
            fack_before: 0,
        }
    }

    /// Segment `seg` went out at `now_ns` (new when it is the next never sent).
    pub fn sent(&mut self, seg: i32, now_ns: i64) {
        let i = (seg - self.base) as usize;
        if i == self.segs.len() {
            self.segs.push_back((now_ns, false));
        } else if let Some(e) = self.segs.get_mut(i) {
            *e = (now_ns, true);
        }
    }

    /// The cumulative ACK moved to `una`.
    pub fn discard(&mut self, una: i32) {
        while self.base < una && self.segs.pop_front().is_some() {
            self.base += 1;
        }
        self.base = self.base.max(una);
    }

    /// Before an ACK's deliveries.
    pub fn begin_ack(&mut self) {
        self.best = None;
        self.fack_before = self.fack;
    }

    /// Segment `seg` was newly delivered (SACKed, or cumulatively ACKed without having been
    /// SACKed) at `now_ns`: RFC 8985 §6.2 steps 2 and 3.
    pub fn delivered(&mut self, seg: i32, now_ns: i64) {
        let Some(&(t, retx)) = self.segs.get((seg - self.base) as usize) else { return };
        // step 3, RACK_detect_reordering: a never-retransmitted segment below RACK.fack
        if seg + 1 < self.fack_before && !retx {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(seg + 1);
        // step 2, RACK_update: without timestamps, an RTT below min_RTT on a retransmitted
        // segment is taken as the original's delivery (ambiguous), and skipped
        let rtt = now_ns - t;
        if retx && rtt < self.min_rtt {
            return;
        }
        if !retx {
            self.min_rtt = self.min_rtt.min(rtt);
        }
        if self.best.map_or(true, |(bt, be, _)| sent_after(t, seg + 1, bt, be)) {
            self.best = Some((t, seg + 1, rtt));
        }
    }

    /// After an ACK's deliveries: RACK.rtt from the most recently sent delivered segment,
    /// and RACK.xmit_ts/end_seq when it was sent after the current one.
    pub fn end_ack(&mut self) {
        if let Some((t, e, rtt)) = self.best.take() {
            self.rtt = rtt;
            if !self.has || sent_after(t, e, self.xmit_ts, self.end_seq) {
                self.xmit_ts = t;
                self.end_seq = e;
            }
            self.has = true;
        }
    }

    /// RACK.reo_wnd (RFC 8985 §6.2 step 4, without DSACK: RACK.reo_wnd_mult stays 1):
    /// 0 before any reordering is seen while in recovery or with DupThresh segments
    /// SACKed; else min(min_RTT / 4, SRTT).
    pub fn reo_wnd(&self, in_recovery: bool, sacked: u32, srtt_ns: i64) -> i64 {
        if !self.reordering_seen && (in_recovery || sacked >= self.dupthresh) {
            return 0;
        }
        if self.min_rtt == i64::MAX {
            return 0;
        }
        (self.min_rtt / 4).min(srtt_ns)
    }

    /// RACK_detect_loss (RFC 8985 §6.2 step 5): mark lost every segment not delivered and
    /// not already marked lost (unless retransmitted since) that was sent before RACK's
    /// segment more than RACK.rtt + reo_wnd ago. Returns how many it marked and the time
    /// (ns from now) until the next would be, 0 for none (the reordering timer).
    pub fn detect_loss(&mut self, sb: &mut Scoreboard, now_ns: i64, reo_wnd: i64) -> (u32, i64) {
        let (mut n, mut timeout) = (0, 0);
        if !self.has {
            return (0, 0);
        }
        for s in sb.una.max(self.base)..sb.high {
            if sb.is_sacked(s) || (sb.is_marked_lost(s) && !sb.is_retransmitted(s)) {
                continue;
            }
            let Some(&(t, retx)) = self.segs.get((s - self.base) as usize) else { break };
            if !sent_after(self.xmit_ts, self.end_seq, t, s + 1) {
                // never retransmitted: every segment above was sent later still
                if retx {
                    continue;
                }
                break;
            }
            let remaining = t + self.rtt + reo_wnd - now_ns;
            if remaining <= 0 {
                if sb.rack_mark_lost(s) {
                    n += 1;
                }
            } else {
                timeout = timeout.max(remaining);
            }
        }
        self.marked_lost += n as u64;
        (n, timeout)
    }

    /// A retransmission timeout: the timers and the probe episode end (Linux
    /// `tcp_enter_loss`).
    pub fn on_rto(&mut self) {
        self.reo_deadline = None;
        self.pto_deadline = None;
        self.tlp_end = None;
    }
}
