//! Delivery-rate sampling on the Linux/ns-3 sender, as ns-3.37's `TcpRateLinux`
//! (Linux's `tcp_rate.c`; draft-cheng-iccrg-delivery-rate-estimation), what BBR reads.
//!
//! The connection counts the bytes delivered (ACKed or SACKed) and when; each segment sent
//! remembers the connection's `delivered`, `delivered_time` and `first_sent_time` and
//! whether it left app-limited. When a segment is delivered, the most recently sent one of
//! the ACK gives the sample's start; `generate_sample` closes it: delivered bytes over
//! max(send phase, ACK phase), refused (interval 0) when shorter than the min RTT.
//! Segments are numbered as the sender numbers them (segment `n` = bytes n·MSS…); one
//! `SegRate` per segment from the oldest unacknowledged one.
//!
//! Departure: ns-3 marks "no sample" by a prior time of 0 s (its flows start after the
//! handshake); here it is `None`, so a flow that starts at t = 0 samples its first round.

use crate::time::{Dur, SimTime};
use std::collections::VecDeque;

/// What a segment remembers from when it was (last) sent (ns-3 `TcpTxItem::RateInformation`).
#[derive(Clone, Copy, Debug)]
struct SegRate {
    delivered: u64,
    /// None once delivered (ns-3: `Time::Max()`), so that a SACKed segment counts once.
    delivered_time: Option<SimTime>,
    first_sent: SimTime,
    last_sent: SimTime,
    app_limited: bool,
    /// BBR v3's per-packet state (draft-ietf-ccwg-bbr `P.tx_in_flight`, `P.lost`): bytes in
    /// flight just after it left (itself included), the connection's bytes lost by then,
    /// and whether this send was a retransmission (no RTT sample from it).
    tx_in_flight: u32,
    lost: u64,
    rtx: bool,
}

/// One ACK's sample (ns-3 `TcpRateSample`). Rates in bit/s, times in ns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Bit/s of the last recorded sample (kept across ACKs, as ns-3's member is).
    pub delivery_rate: f64,
    pub is_app_limited: bool,
    /// ns; 0 = no valid sample on this ACK.
    pub interval_ns: u64,
    /// Bytes delivered over the interval; −1 when there is no timing information.
    pub delivered: i64,
    pub prior_delivered: u64,
    pub prior_time: Option<SimTime>,
    pub send_elapsed_ns: u64,
    pub ack_elapsed_ns: u64,
    pub bytes_loss: u32,
    pub prior_in_flight: u32,
    pub acked_sacked: u32,
    /// BBR v3 (draft-ietf-ccwg-bbr `RS.tx_in_flight`, `RS.lost`, `RS.newly_lost`, `RS.rtt`):
    /// bytes in flight when the sample's packet (the newest delivered) was sent, bytes
    /// lost since then, bytes newly marked lost on this ACK, and the RTT of the newest
    /// segment this ACK delivered that was not retransmitted (ns; 0 = none).
    pub tx_in_flight: u32,
    pub lost: u64,
    pub newly_lost: u64,
    pub rtt_ns: u64,
    /// `P.lost` of the sample's packet (C.lost when it was sent).
    pub tx_lost: u64,
}

/// What `CongestionOps::cong_control` reads on an ACK (ns-3's tcb, `TcpRateConnection`
/// and `TcpRateSample`): bytes, ns.
#[derive(Clone, Debug)]
pub struct CongCtlIn<'a> {
    pub now: u64,
    /// ns-3's `m_lastRtt`: the smoothed RTT (0 before the first sample).
    pub srtt_ns: u64,
    pub bytes_in_flight: u32,
    pub mss: u32,
    pub initial_cwnd: u32,
    pub in_recovery: bool,
    pub delivered: u64,
    pub tx_item_delivered: u64,
    pub rs: &'a RateSample,
}

/// The connection's side (ns-3 `TcpRateConnection`) and the per-segment records.
#[derive(Clone, Debug)]
pub struct RateSampler {
    /// Bytes delivered so far.
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    /// `delivered` at which the app-limited phase ends (0: not app-limited).
    pub app_limited: u64,
    pub tx_item_delivered: u64,
    pub rate_delivered: i64,
    pub rate_interval_ns: u64,
    pub rate_app_limited: bool,
    pub rs: RateSample,
    /// The connection's minimum RTT (ns-3 `m_minRtt`, set by the sender), ns.
    pub min_rtt_ns: u64,
    /// Bytes marked lost so far (draft-ietf-ccwg-bbr `C.lost`; set by the sender).
    pub lost_total: u64,
    /// draft-ietf-ccwg-bbr's per-ACK sample (BBR v3): the sample restarts on every ACK from
    /// the newest packet it delivered (`InitRateSample`, `IsNewestPacket`); off, ns-3's
    /// `TcpRateLinux`, whose sample keeps its start across ACKs unless a packet with a
    /// larger `delivered` comes (BBR v1).
    pub per_ack: bool,
    has_data: bool,
    lost_seen: u64,
    ack_rtt_ns: u64,
    /// ns-3.37's `SkbDelivered` (`tcp.ns3_quirks`): the ACK phase is measured from the
    /// *previous* sample's prior time (it is read before being replaced; Linux reads the new
    /// one), from time 0 before any.
    pub ns3_ack_elapsed: bool,
    /// ns-3.37's `m_bytesInFlight` as `CongControl` reads it (with `ns3_ack_elapsed`): a
    /// traced copy refreshed only by `BytesInFlight()` calls, the last one before
    /// `CongControl` being `ReceivedAck`'s (SACK and cumulative ACK applied) or, when
    /// `ProcessAck` sent a segment (the retransmission on entering recovery or a partial
    /// ACK), `SendDataPacket`'s, taken before that segment counts in flight.
    pub ns3_flight: u32,
    base: i32,
    segs: VecDeque<SegRate>,
    /// Calls of `on_delivered` (tests: the SACK walk's cost).
    #[cfg(test)]
    pub(super) visits: u64,
}

impl RateSampler {
    pub fn new() -> Self {
        RateSampler {
            delivered: 0,
            delivered_time: SimTime::ZERO,
            first_sent_time: SimTime::ZERO,
            app_limited: 0,
            tx_item_delivered: 0,
            rate_delivered: 0,
            rate_interval_ns: 0,
            rate_app_limited: false,
            rs: RateSample::default(),
            min_rtt_ns: u64::MAX,
            lost_total: 0,
            per_ack: false,
            has_data: false,
            lost_seen: 0,
            ack_rtt_ns: u64::MAX,
            ns3_ack_elapsed: false,
            ns3_flight: 0,
            base: 0,
            segs: VecDeque::new(),
            #[cfg(test)]
            visits: 0,
        }
    }

    /// Segment `seg` left (new or retransmitted); `start` = nothing was in flight
    /// (ns-3 `SkbSent` with isStartOfTransmission).
    pub fn on_sent(&mut self, seg: i32, now: SimTime, start: bool) {
        self.on_sent_in_flight(seg, now, start, 0);
    }

    /// `on_sent` that also records the bytes in flight once the segment left (BBR v3).
    #[inline(always)]
    pub fn on_sent_in_flight(&mut self, seg: i32, now: SimTime, start: bool, tx_in_flight: u32) {
        if start {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        if self.segs.is_empty() {
            self.base = seg;
        }
        let r = SegRate {
            delivered: self.delivered,
            delivered_time: Some(self.delivered_time),
            first_sent: self.first_sent_time,
            last_sent: now,
            app_limited: self.app_limited != 0,
            tx_in_flight,
            lost: self.lost_total,
            rtx: false,
        };
        let i = seg - self.base;
        if i < 0 {
            return; // already acknowledged
        }
        let i = i as usize;
        let r = SegRate { rtx: self.segs.get(i).is_some_and(|o| o.delivered_time.is_some()), ..r };
        while self.segs.len() <= i {
            self.segs.push_back(SegRate { delivered_time: None, ..r });
        }
        self.segs[i] = r;
    }

    /// Segment `seg` of `bytes` was ACKed or SACKed (ns-3 `SkbDelivered`).
    pub fn on_delivered(&mut self, seg: i32, bytes: u32, now: SimTime) {
        #[cfg(test)]
        {
            self.visits += 1;
        }
        let i = seg - self.base;
        let Some(r) = (i >= 0).then(|| self.segs.get_mut(i as usize)).flatten() else { return };
        let Some(dt) = r.delivered_time else { return };
        self.delivered += bytes as u64;
        self.delivered_time = now;
        let rs = &mut self.rs;
        let newest = if self.per_ack {
            !self.has_data || r.last_sent >= self.first_sent_time
        } else {
            rs.prior_delivered == 0 || r.delivered > rs.prior_delivered
        };
        if newest {
            self.has_data = true;
            let since = if self.ns3_ack_elapsed { rs.prior_time.unwrap_or(SimTime::ZERO) } else { dt };
            rs.prior_delivered = r.delivered;
            rs.prior_time = Some(dt);
            rs.is_app_limited = r.app_limited;
            rs.send_elapsed_ns = r.last_sent.saturating_since(r.first_sent).0;
            rs.ack_elapsed_ns = now.saturating_since(since).0;
            rs.tx_in_flight = r.tx_in_flight;
            rs.tx_lost = r.lost;
            self.first_sent_time = r.last_sent;
        }
        if !r.rtx {
            self.ack_rtt_ns = self.ack_rtt_ns.min(now.saturating_since(r.last_sent).0);
        }
        r.delivered_time = None;
        self.tx_item_delivered = r.delivered;
    }

    /// The cumulative ACK reached `ack` (segments below it are gone): deliver those not yet
    /// SACKed, in order, and forget them.
    pub fn on_cum_ack(&mut self, ack: i32, bytes: u32, now: SimTime) {
        while self.base < ack && !self.segs.is_empty() {
            self.on_delivered(self.base, bytes, now);
            self.segs.pop_front();
            self.base += 1;
        }
        if self.segs.is_empty() {
            self.base = self.base.max(ack);
        }
    }

    /// ns-3 `CalculateAppLimited`: the application has less than a segment unsent, the
    /// window is not full and every lost segment was retransmitted.
    pub fn calculate_app_limited(&mut self, cwnd: u32, in_flight: u32, mss: u32, unsent: u64, lost: u32, retrans: u32) {
        if unsent < mss as u64 && in_flight < cwnd && lost <= retrans {
            self.app_limited = (self.delivered + in_flight as u64).max(1);
        }
    }

    /// ns-3 `GenerateSample`, once per ACK after its deliveries.
    pub fn generate_sample(&mut self, acked_sacked: u32, lost: u32, prior_in_flight: u32, min_rtt: Dur) -> &RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let rs = &mut self.rs;
        rs.acked_sacked = acked_sacked;
        rs.bytes_loss = lost;
        rs.prior_in_flight = prior_in_flight;
        rs.lost = self.lost_total.saturating_sub(rs.tx_lost);
        rs.newly_lost = self.lost_total.saturating_sub(self.lost_seen);
        self.lost_seen = self.lost_total;
        rs.rtt_ns = if self.ack_rtt_ns == u64::MAX { 0 } else { self.ack_rtt_ns };
        self.ack_rtt_ns = u64::MAX;
        if self.per_ack && !std::mem::take(&mut self.has_data) {
            rs.prior_time = None; // nothing delivered on this ACK
        }
        if rs.prior_time.is_none() {
            rs.delivered = -1;
            rs.interval_ns = 0;
            return &self.rs;
        }
        rs.interval_ns = rs.send_elapsed_ns.max(rs.ack_elapsed_ns);
        rs.delivered = self.delivered as i64 - rs.prior_delivered as i64;
        if rs.interval_ns < min_rtt.0 {
            rs.interval_ns = 0;
            rs.prior_time = None;
            return &self.rs;
        }
        if !rs.is_app_limited
            || rs.delivered as i128 * self.rate_interval_ns as i128 >= self.rate_delivered as i128 * rs.interval_ns as i128
        {
            self.rate_delivered = rs.delivered;
            self.rate_interval_ns = rs.interval_ns;
            self.rate_app_limited = rs.is_app_limited;
            rs.delivery_rate = rs.delivered as f64 * 8.0 / (rs.interval_ns as f64 * 1e-9);
        }
        &self.rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    /// Ten segments at t = 0, ACKed two by two from 100 ms, 1 ms apart: the first ACK's
    /// sample spans the whole round trip (100 ms for 2000 bytes), later ones the same
    /// 100 ms send-to-ACK phase, the delivery counted in bytes.
    #[test]
    fn one_round_of_delayed_acks() {
        let mut r = RateSampler::new();
        for s in 0..10 {
            r.on_sent(s, t(0), s == 0);
        }
        r.on_cum_ack(2, 1000, t(100));
        let rs = r.generate_sample(2000, 0, 10_000, Dur(50_000_000)).clone();
        assert_eq!((rs.delivered, rs.interval_ns, rs.prior_delivered), (2000, 100_000_000, 0));
        assert_eq!(rs.delivery_rate, 160_000.0, "2000 B × 8 / 0.1 s");
        r.on_cum_ack(4, 1000, t(101));
        let rs = r.generate_sample(2000, 0, 8_000, Dur(50_000_000)).clone();
        // the newest segment acked (3) was sent with delivered = 0 at t 0: 4000 B in 101 ms
        assert_eq!((rs.delivered, rs.interval_ns), (4000, 101_000_000));
        assert_eq!(r.delivered, 4000);
    }

    /// Segments sent after the first ACK carry delivered = 2000 and delivered_time 100 ms:
    /// their ACK measures from there (ACK phase), not from t = 0.
    #[test]
    fn second_round_measures_from_the_prior_delivery() {
        let mut r = RateSampler::new();
        r.on_sent(0, t(0), true);
        r.on_sent(1, t(0), false);
        r.on_cum_ack(2, 1000, t(100));
        r.generate_sample(2000, 0, 2000, Dur(0));
        r.on_sent(2, t(100), true);
        r.on_sent(3, t(110), false);
        r.on_cum_ack(4, 1000, t(230));
        let rs = r.generate_sample(2000, 0, 2000, Dur(0)).clone();
        assert_eq!(rs.prior_delivered, 2000);
        assert_eq!(rs.prior_time, Some(t(100)));
        // segments 2 and 3 both carry delivered = 2000; the first delivered (2) gives the
        // start and 3 does not replace it (strictly newer only): send phase 0
        assert_eq!((rs.send_elapsed_ns, rs.ack_elapsed_ns), (0, 130_000_000));
        assert_eq!((rs.delivered, rs.interval_ns), (2000, 130_000_000));
    }

    /// A SACKed segment counts once: its later cumulative ACK adds nothing.
    #[test]
    fn sacked_then_acked_counts_once() {
        let mut r = RateSampler::new();
        for s in 0..4 {
            r.on_sent(s, t(0), s == 0);
        }
        r.on_delivered(2, 1000, t(50));
        r.on_delivered(3, 1000, t(51));
        assert_eq!(r.delivered, 2000);
        r.on_sent(0, t(60), false); // retransmission of the hole
        r.on_cum_ack(4, 1000, t(120));
        assert_eq!(r.delivered, 4000);
    }

    /// An interval below the min RTT gives no sample (and clears the prior time).
    #[test]
    fn interval_shorter_than_min_rtt_is_refused() {
        let mut r = RateSampler::new();
        r.on_sent(0, t(0), true);
        r.on_cum_ack(1, 1000, t(10));
        let rs = r.generate_sample(1000, 0, 1000, Dur(20_000_000)).clone();
        assert_eq!((rs.interval_ns, rs.prior_time, rs.delivery_rate), (0, None, 0.0));
        // the next ACK with nothing newly delivered: no timing information
        let rs = r.generate_sample(0, 0, 0, Dur(20_000_000)).clone();
        assert_eq!((rs.delivered, rs.interval_ns), (-1, 0));
    }

    /// App-limited: set when the application has nothing to send and the window is not full;
    /// segments sent then carry the flag, the sample says so and does not lower the rate
    /// recorded; the phase ends once `delivered` passes the mark.
    #[test]
    fn app_limited_phase() {
        let mut r = RateSampler::new();
        r.on_sent(0, t(0), true);
        r.on_sent(1, t(0), false);
        r.on_cum_ack(2, 1000, t(100));
        r.generate_sample(2000, 0, 2000, Dur(0));
        assert_eq!(r.rs.delivery_rate, 160_000.0);
        r.calculate_app_limited(10_000, 0, 1000, 0, 0, 0);
        assert_eq!(r.app_limited, 2000);
        r.on_sent(2, t(100), true);
        r.on_cum_ack(3, 1000, t(300));
        let rs = r.generate_sample(1000, 0, 1000, Dur(0)).clone();
        assert!(rs.is_app_limited);
        assert_eq!((rs.delivered, rs.interval_ns), (1000, 200_000_000));
        assert_eq!(rs.delivery_rate, 160_000.0, "40 kb/s app-limited does not replace 160 kb/s");
        assert_eq!(r.app_limited, 0, "delivered 3000 > 2000: the phase is over");
        // a window-limited sender (in flight = cwnd) is not app-limited
        r.calculate_app_limited(10_000, 10_000, 1000, 0, 0, 0);
        assert_eq!(r.app_limited, 0);
    }
}
