//! TCP Prague (`variant = "prague"`), as the L4S team's `net/ipv4/tcp_prague.c` (v0.7) in its
//! fractional-window mode, re-expressed over the linux stack. Every rule and departure is in
//! docs/tcp/prague.md; in short:
//!
//! * ECT(1) on every data packet and AccECN feedback (set by the scenario builder); the
//!   control sets cwnd after every ACK (Linux's `cong_control`, so no PRR) and the pacing
//!   rate (`sets_pacing_rate`).
//! * A fractional window `frac` (segments · 2^20). Per ACK, of the `delivered` segments the
//!   `ce` CE-marked ones do not grow it; the first CE ever halves it (`alpha_mode` 0).
//!   Slow start: cwnd += acked up to ssthresh, frac = cwnd. Additive increase:
//!   frac += max(acked, round(acked · ai · 2^20 / frac) · 1500 / MTU), ai = 2^20 (one MSS
//!   per RTT) or, once RTT-independent (4 rounds after slow start, srtt ≤ 100 ms), scaled by
//!   (srtt / rtt_target)² for srtt < rtt_target (25 ms): the rate then grows as a 25 ms
//!   flow's would (RFC 9331 §4.3's RTT independence, the reference's `RTT_CONTROL_RATE`).
//!   cwnd then steps by one segment per ACK toward ⌈frac⌉ (at least 2); a step down sets
//!   ssthresh = cwnd.
//! * α: once per round (snd_una past the round's snd_nxt; when RTT-independent, also at
//!   least 25 ms since the last update), upscaled α ← α − α/16 + (CE · 2^24 / delivered)
//!   over the round (EWMA gain 1/16; α = upscaled / 16, 24 fractional bits); not before a
//!   first CE.
//! * On entering CWR (the sender's once-per-round ECN response, ecn.rs): frac −=
//!   (α · frac + 2^24) / 2^25 (α/2, rounded); when RTT-independent, at most once per 25 ms.
//!   Not while in loss recovery.
//! * Loss (fast recovery or RTO): frac halves, no growth until the loss is repaired (the
//!   cumulative ACK passes the data outstanding then); an RTO also sets cwnd to 1 segment,
//!   as Linux's `tcp_enter_loss`.
//! * Pacing: rate = MSS · max(⌊frac⌋, packets in flight) / srtt, doubled while
//!   cwnd < ssthresh / 2 (the reference's rate in MTU bytes is the same spacing).
//! * With `prague_ecn_fallback` 1 or 2, the Classic ECN AQM detector of
//!   `prague_classic.rs`; with 1, its α floor on entering CWR.

use super::cc::{CongestionOps, Tcb};
use super::prague_classic::ClassicDetector;
use super::rate::CongCtlIn;

pub const CWND_UNIT: u32 = 20;
pub const ONE_CWND: u64 = 1 << CWND_UNIT;
/// α's fixed point (24 fractional bits), defined beside the Classic ECN AQM detector whose
/// score shares it.
pub use super::prague_classic::{ALPHA_BITS, MAX_ALPHA};
pub const SHIFT_G: u32 = 4;
/// Rounds after slow start before the RTT independence applies (`DEFAULT_RTT_TRANSITION`).
pub const RTT_TRANSITION: u32 = 4;
/// srtt above which the increase is not scaled (`MAX_SCALED_RTT`, 100 ms), µs.
pub const MAX_SCALED_RTT_US: u64 = 100_000;
/// The reference MTU of the additive increase (`MTU_SYS`), bytes.
pub const MTU_SYS: u64 = 1500;
const MIN_CWND: u32 = 2;

#[derive(Clone, Debug)]
pub struct Prague {
    /// Linux's `tp->snd_cwnd` and `snd_ssthresh`, segments.
    pub cwnd: u32,
    pub ssthresh: u32,
    pub frac: u64,
    pub upscaled_alpha: u64,
    pub ai: u64,
    pub round: u32,
    pub saw_ce: bool,
    pub in_loss: bool,
    /// The cumulative ACK that ends the loss episode (segment).
    loss_end: i32,
    next_seq: i32,
    delivered: u64,
    delivered_ce: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    alpha_stamp_ns: u64,
    cwr_stamp_ns: u64,
    /// srtt in Linux's units (µs · 8) at the latest ACK.
    srtt8: u64,
    /// `rtt_target` in µs · 8 (0: no RTT independence).
    target8: u64,
    /// Wire bytes of a full segment (`tcp_mss_to_mtu`).
    mtu: u64,
    started: bool,
    /// The Classic ECN AQM detector (`prague_ecn_fallback` 1 or 2), else None.
    pub classic: Option<ClassicDetector>,
}

impl Prague {
    pub fn new(window_init: u32, rtt_target_s: f64, mtu: u32, ecn_fallback: u8) -> Prague {
        Prague {
            cwnd: window_init.max(1),
            ssthresh: u32::MAX,
            frac: (window_init.max(1) as u64) << CWND_UNIT,
            upscaled_alpha: 0,
            ai: ONE_CWND,
            round: 0,
            saw_ce: false,
            in_loss: false,
            loss_end: 0,
            next_seq: 0,
            delivered: 0,
            delivered_ce: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            alpha_stamp_ns: 0,
            cwr_stamp_ns: 0,
            srtt8: 0,
            target8: (rtt_target_s * 1e6).round() as u64 * 8,
            mtu: mtu as u64,
            started: false,
            // (its slow averages start from the first RTT sample: this model's flows have
            // no handshake to give prague_init a smoothed RTT)
            classic: (ecn_fallback > 0).then(|| ClassicDetector::new(ecn_fallback, 0)),
        }
    }

    /// α (24 fractional bits).
    pub fn alpha(&self) -> u64 {
        self.upscaled_alpha >> SHIFT_G
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    fn rtt_indep(&self) -> bool {
        self.target8 > 0 && !self.in_slow_start() && self.round >= RTT_TRANSITION
    }

    /// `prague_ai_ack_increase` with `prague_rate_scaled_ai_ack_increase`.
    fn update_ai(&mut self) {
        let rtt = self.srtt8;
        self.ai = if self.target8 == 0 || self.round < RTT_TRANSITION || rtt == 0 || rtt > MAX_SCALED_RTT_US * 8 || rtt >= self.target8 {
            ONE_CWND
        } else {
            // round(rtt² · 2^20 / target²)
            let div = self.target8 as u128 * self.target8 as u128;
            ((((rtt as u128) << CWND_UNIT) * rtt as u128 + div / 2) / div) as u64
        };
    }

    fn cwnd_from_frac(&self) -> u32 {
        (((self.frac + ONE_CWND - 1) >> CWND_UNIT) as u32).max(MIN_CWND)
    }

    fn new_round(&mut self, snd_nxt: i32) {
        self.next_seq = snd_nxt;
        self.old_delivered = self.delivered;
        self.old_delivered_ce = self.delivered_ce;
        if !self.in_slow_start() {
            self.round = self.round.saturating_add(1);
        }
        self.update_ai();
    }

    /// `prague_update_cwnd`: `acked_sacked` segments delivered by the ACK, `ce` of them CE.
    pub fn update_cwnd(&mut self, acked_sacked: u32, ce: u32) {
        let mut acked = acked_sacked as i64;
        if ce > 0 {
            if !self.saw_ce {
                self.frac = (self.frac + 1) >> 1;
            }
            self.saw_ce = true;
            acked -= ce as i64;
        }
        if acked > 0 && !self.in_loss {
            if self.in_slow_start() {
                let grown = (self.cwnd as u64 + acked as u64).min(self.ssthresh as u64) as u32;
                acked -= (grown - self.cwnd) as i64;
                self.cwnd = grown;
                self.frac = (self.cwnd as u64) << CWND_UNIT;
                if acked == 0 {
                    self.update_ai();
                    return;
                }
            }
            // increase = round(acked · ai · 2^20 / frac) · MTU_SYS / MTU (integer division)
            let mut inc = acked as u128 * self.ai as u128;
            if self.frac > 0 {
                let f = self.frac as u128;
                inc = ((inc << CWND_UNIT) + f / 2) / f;
            }
            let inc = (inc * MTU_SYS as u128 / self.mtu as u128) as u64;
            self.frac += inc.max(acked as u64);
        }
        let target = self.cwnd_from_frac();
        if self.cwnd > target {
            self.cwnd -= 1;
            self.ssthresh = self.cwnd;
            self.update_ai();
        } else if self.cwnd < target {
            self.cwnd += 1;
            self.update_ai();
        }
    }

    /// `prague_update_alpha` (with the round bookkeeping of `prague_new_round`).
    pub fn update_alpha(&mut self, now_ns: u64, snd_nxt: i32) {
        if self.saw_ce {
            if let Some(d) = self.classic.as_mut() {
                d.round();
            }
            let mut ecn = self.delivered_ce - self.old_delivered_ce;
            if ecn > 0 {
                let acked = (self.delivered - self.old_delivered).max(1);
                ecn = (ecn << ALPHA_BITS) / acked;
            }
            let a = self.upscaled_alpha - (self.upscaled_alpha >> SHIFT_G) + ecn;
            self.alpha_stamp_ns = now_ns;
            self.upscaled_alpha = a.min(MAX_ALPHA << SHIFT_G);
        }
        self.new_round(snd_nxt);
    }

    fn should_update_ewma(&self, snd_una: i32, now_ns: u64) -> bool {
        snd_una >= self.next_seq && (!self.rtt_indep() || now_ns.saturating_sub(self.alpha_stamp_ns) >= self.target8 / 8 * 1000)
    }

    /// `prague_enter_cwr`.
    pub fn cwr(&mut self, now_ns: u64) {
        if self.in_loss || (self.rtt_indep() && now_ns.saturating_sub(self.cwr_stamp_ns) < self.target8 / 8 * 1000) {
            return;
        }
        self.cwr_stamp_ns = now_ns;
        let alpha = self.classic.as_ref().map_or(self.alpha(), |d| d.alpha(self.alpha()));
        let reduction = ((alpha as u128 * self.frac as u128 + MAX_ALPHA as u128) >> (ALPHA_BITS + 1)) as u64;
        self.frac -= reduction;
    }

    /// `prague_enter_loss`.
    pub fn loss(&mut self, high_tx: i32) {
        self.frac -= self.frac >> 1;
        self.in_loss = true;
        self.loss_end = high_tx;
    }

    /// The pacing rate, bit/s of payload (see the module doc).
    pub fn pacing_rate(&self, mss: u32, bytes_in_flight: u32, srtt_ns: u64) -> Option<f64> {
        if srtt_ns == 0 {
            return None;
        }
        let inflight = ((self.frac >> CWND_UNIT) as u32).max(bytes_in_flight / mss.max(1)).max(1);
        let mut bps = mss as f64 * 8.0 * inflight as f64 / (srtt_ns as f64 * 1e-9);
        if self.cwnd < self.ssthresh / 2 {
            bps *= 2.0;
        }
        Some(bps)
    }

    fn write(&self, t: &mut Tcb) {
        t.cwnd = self.cwnd.saturating_mul(t.mss);
        t.ssthresh = self.ssthresh.saturating_mul(t.mss);
    }
}

impl CongestionOps for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }
    /// Linux's `prague_ssthresh`: unchanged (the control sets it as cwnd steps down); the
    /// detector's gains follow it (`prague_update_rtt_scaling`).
    fn ssthresh(&mut self, t: &Tcb, _bytes_in_flight: u32) -> u32 {
        if let Some(d) = self.classic.as_mut() {
            d.rtt_scaling(self.ssthresh);
        }
        t.ssthresh
    }
    fn increase_window(&mut self, _t: &mut Tcb, _segs_acked: u32) {}
    fn sets_pacing_rate(&self) -> bool {
        true
    }
    fn enter_cwr(&mut self, t: &mut Tcb) {
        self.cwr(t.now_ns as u64);
    }
    fn on_event(&mut self, t: &mut Tcb, ev: super::cc::CcEvent) {
        match ev {
            super::cc::CcEvent::Recovery => self.loss(t.high_tx),
            super::cc::CcEvent::Loss => {
                // tcp_enter_loss: cwnd = 1 (nothing is in flight after an RTO here)
                self.loss(t.high_tx);
                self.cwnd = 1;
                self.write(t);
            }
            super::cc::CcEvent::CompleteCwr => {}
        }
    }
    fn cong_control(&mut self, t: &mut Tcb, x: &CongCtlIn) -> Option<f64> {
        self.srtt8 = x.srtt_ns * 8 / 1000;
        if let Some(d) = self.classic.as_mut() {
            if x.rs.rtt_ns > 0 {
                d.rtt_sample(x.rs.rtt_ns / 1000); // prague_pkts_acked
            }
        }
        if !self.started {
            // prague_init's first round
            self.started = true;
            self.new_round(t.high_tx);
        }
        if self.in_loss && t.last_acked >= self.loss_end {
            self.in_loss = false; // prague_ca_open
        }
        self.delivered += t.delivered as u64;
        self.delivered_ce += t.delivered_ce as u64;
        self.update_cwnd(t.delivered, t.delivered_ce);
        if self.should_update_ewma(t.last_acked, x.now) {
            self.update_alpha(x.now, t.high_tx);
        }
        self.write(t);
        self.pacing_rate(t.mss, x.bytes_in_flight, x.srtt_ns)
    }
    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
    fn classic_ecn_rounds(&self) -> Option<(u64, u64)> {
        self.classic.as_ref().map(|d| (d.rounds, d.classic_rounds))
    }
}

#[cfg(test)]
#[path = "prague_tests.rs"]
mod tests;
