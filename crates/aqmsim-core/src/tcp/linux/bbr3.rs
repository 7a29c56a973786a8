//! BBR v3 as draft-ietf-ccwg-bbr specifies it (`variant = "bbr3"` on `stack = "linux"`):
//! the draft's pseudo-code, step by step, on the delivery-rate samples of `rate.rs`;
//! Linux's BBRv3 (google/bbr, branch v3) read where the draft leaves a choice. The loss
//! response and the bounds live in `bbr3_model.rs`. Every reading and departure:
//! docs/tcp/bbr3.md.
//!
//! Units: rates in bit/s (what the pacer takes), volumes in bytes, times in ns.

use super::cc::{CcEvent, CongestionOps, Tcb};
use super::rate::CongCtlIn;
use crate::rng::Rng;
use std::collections::VecDeque;

/// Startup's pacing gain, 4 ln 2 (`BBR.StartupPacingGain`).
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// `BBR.DefaultCwndGain` (Startup, Drain, ProbeBW but UP).
pub const DEFAULT_CWND_GAIN: f64 = 2.0;
/// `BBR.DrainPacingGain` (the draft's 0.5; Linux's BBRv3 uses 1/2.885 = 0.35).
pub const DRAIN_PACING_GAIN: f64 = 0.5;
pub const PROBE_DOWN_PACING_GAIN: f64 = 0.9;
pub const PROBE_UP_PACING_GAIN: f64 = 1.25;
pub const PROBE_UP_CWND_GAIN: f64 = 2.25;
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// `BBR.LossThresh`, `BBR.Beta`, `BBR.Headroom`, `BBR.PacingMarginPercent` / 100.
pub const LOSS_THRESH: f64 = 0.02;
pub const BETA: f64 = 0.7;
pub const HEADROOM: f64 = 0.15;
pub const PACING_MARGIN: f64 = 0.01;
pub const FULL_BW_THRESH: f64 = 1.25;
pub const FULL_BW_COUNT: u32 = 3;
/// `BBRStartupFullLossCnt`: loss events in a round to leave Startup on loss.
pub const STARTUP_FULL_LOSS_CNT: u32 = 6;
pub const MIN_RTT_FILTER_NS: u64 = 10_000_000_000;
pub const PROBE_RTT_INTERVAL_NS: u64 = 5_000_000_000;
pub const PROBE_RTT_DURATION_NS: u64 = 200_000_000;
const EXTRA_ACKED_FILTER_ROUNDS: u64 = 10;
/// Most rounds between bandwidth probes (Reno coexistence bound).
pub const MAX_PROBE_ROUNDS: u64 = 63;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl State {
    pub const NAMES: [&'static str; 7] =
        ["STARTUP", "DRAIN", "PROBE_BW_DOWN", "PROBE_BW_CRUISE", "PROBE_BW_REFILL", "PROBE_BW_UP", "PROBE_RTT"];
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    pub fn is_probe_bw(self) -> bool {
        matches!(self, State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp)
    }
}

/// `BBR.ack_phase`: what the ACKs now arriving say about bandwidth probing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// A windowed max over packet-timed rounds (exact: a monotone deque), for extra_acked.
#[derive(Clone, Debug, Default)]
pub(super) struct RoundMax {
    q: VecDeque<(u64, f64)>,
}

impl RoundMax {
    /// Add `v` at round `t`; the max over rounds t − win + 1 … t.
    pub(super) fn update(&mut self, t: u64, v: f64, win: u64) -> f64 {
        while self.q.back().is_some_and(|b| b.1 <= v) {
            self.q.pop_back();
        }
        self.q.push_back((t, v));
        while self.q.front().is_some_and(|f| t.saturating_sub(f.0) >= win) {
            self.q.pop_front();
        }
        self.q.front().map_or(0.0, |f| f.1)
    }
}

/// BBR v3's state (the draft's `BBR.*`); public fields for the tests and the state series.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    pub state: State,
    /// (time ns, state) of every state change.
    pub states: Vec<(u64, State)>,
    pub(super) rng: Rng,
    pub(super) initialized: bool,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    /// Output: cwnd (bytes; kept here, as Linux's `cong_control` owns it), pacing rate.
    pub cwnd: u32,
    pub pacing_rate: f64,
    pub send_quantum: f64,
    // rounds
    pub round_count: u64,
    pub round_start: bool,
    pub(super) next_round_delivered: u64,
    // bandwidth model: max_bw over 2 ProbeBW cycles (bw_hi[1] the current cycle)
    pub(super) bw_hi: [f64; 2],
    pub max_bw: f64,
    pub bw_shortterm: f64,
    pub bw: f64,
    pub cycle_count: u64,
    // volume model
    pub min_rtt_ns: u64,
    pub(super) min_rtt_stamp: u64,
    pub(super) probe_rtt_min_delay: u64,
    pub(super) probe_rtt_min_stamp: u64,
    pub probe_rtt_expired: bool,
    pub extra_acked: f64,
    pub(super) extra_acked_filter: RoundMax,
    pub(super) extra_acked_interval_start: u64,
    pub(super) extra_acked_delivered: f64,
    pub offload_budget: f64,
    pub max_inflight: f64,
    pub inflight_longterm: f64,
    pub inflight_shortterm: f64,
    // congestion signals
    pub bw_latest: f64,
    pub inflight_latest: f64,
    pub is_loss_in_round: bool,
    pub(super) loss_round_delivered: u64,
    pub loss_round_start: bool,
    pub(super) loss_events_in_round: u32,
    // startup
    pub full_bw_reached: bool,
    pub full_bw_now: bool,
    pub full_bw: f64,
    pub full_bw_count: u32,
    pub(super) drain_start_round: u64,
    // ProbeBW
    pub ack_phase: AckPhase,
    pub is_bw_probe_sample: bool,
    pub(super) bw_probe_up_acked: f64,
    pub(super) probe_up_acked_per_inc: f64,
    pub(super) bw_probe_up_rounds: u32,
    pub rounds_since_probe_up: u64,
    pub bw_probe_wait_ns: u64,
    pub cycle_stamp: u64,
    pub prev_probe_too_high: bool,
    pub prev_probe_precautionary: bool,
    // ProbeRTT and recovery
    pub(super) probe_rtt_done_stamp: u64,
    pub(super) probe_rtt_round_done: bool,
    pub prior_cwnd: u32,
    pub in_recovery: bool,
    /// After a retransmission timeout: the recovery point (ns-3's Loss state ends there).
    pub(super) loss_until: Option<i32>,
    pub(super) cwnd_limited: [bool; 2],
    pub(super) app_limited_req: bool,
    /// Per ACK: the sample's rate (0 = none), `C.inflight`, MSS.
    pub(super) rs_bw: f64,
    pub(super) inflight: f64,
    pub(super) delivered_now: u64,
    pub(super) mss: f64,
    pub(super) now: u64,
}

impl Bbr3 {
    /// `OnInit` (the parts that need no RTT; the rest at the first ACK with one).
    pub fn new(rng: Rng) -> Bbr3 {
        Bbr3 {
            state: State::Startup,
            states: Vec::new(),
            rng,
            initialized: false,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: DEFAULT_CWND_GAIN,
            cwnd: 0,
            pacing_rate: 0.0,
            send_quantum: 0.0,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            bw_hi: [0.0; 2],
            max_bw: 0.0,
            bw_shortterm: f64::INFINITY,
            bw: 0.0,
            cycle_count: 0,
            min_rtt_ns: u64::MAX,
            min_rtt_stamp: 0,
            probe_rtt_min_delay: u64::MAX,
            probe_rtt_min_stamp: 0,
            probe_rtt_expired: false,
            extra_acked: 0.0,
            extra_acked_filter: RoundMax::default(),
            extra_acked_interval_start: 0,
            extra_acked_delivered: 0.0,
            offload_budget: 0.0,
            max_inflight: 0.0,
            inflight_longterm: f64::INFINITY,
            inflight_shortterm: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            is_loss_in_round: false,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_events_in_round: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0.0,
            full_bw_count: 0,
            drain_start_round: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0.0,
            probe_up_acked_per_inc: f64::INFINITY,
            bw_probe_up_rounds: 0,
            rounds_since_probe_up: 0,
            bw_probe_wait_ns: 0,
            cycle_stamp: 0,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            probe_rtt_done_stamp: 0,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            in_recovery: false,
            loss_until: None,
            cwnd_limited: [false; 2],
            app_limited_req: false,
            rs_bw: 0.0,
            inflight: 0.0,
            delivered_now: 0,
            mss: 1.0,
            now: 0,
        }
    }

    pub(super) fn set_state(&mut self, s: State) {
        if self.state != s || self.states.is_empty() {
            self.states.push((self.now, s));
        }
        self.state = s;
    }

    /// `OnInit` at the first ACK with an RTT: min_rtt = srtt, `InitPacingRate`, Startup.
    fn init(&mut self, t: &Tcb, x: &CongCtlIn) {
        self.initialized = true;
        self.cwnd = t.cwnd;
        self.min_rtt_ns = x.srtt_ns;
        self.min_rtt_stamp = x.now;
        self.probe_rtt_min_delay = x.srtt_ns;
        self.probe_rtt_min_stamp = x.now;
        self.extra_acked_interval_start = x.now;
        self.reset_congestion_signals();
        self.reset_short_term_model();
        self.next_round_delivered = 0;
        self.round_count = 0;
        self.round_start = false;
        self.reset_full_bw();
        let nominal = x.initial_cwnd as f64 * 8.0 / (x.srtt_ns as f64 * 1e-9);
        self.pacing_rate = STARTUP_PACING_GAIN * nominal;
        self.enter_startup();
    }

    pub(super) fn start_round(&mut self, delivered: u64) {
        self.next_round_delivered = delivered;
    }

    /// `UpdateRound`, from the newest delivered packet's `P.delivered`.
    fn update_round(&mut self, x: &CongCtlIn) {
        if x.rs.acked_sacked > 0 && x.rs.prior_delivered >= self.next_round_delivered {
            self.start_round(x.delivered);
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.round_start = true;
            self.cwnd_limited = [self.cwnd_limited[1], false];
        } else {
            self.round_start = false;
        }
    }

    /// `UpdateMaxBw`: max filter over this and the previous ProbeBW cycle.
    fn update_max_bw(&mut self, x: &CongCtlIn) {
        self.update_round(x);
        if self.rs_bw > 0.0 && (self.rs_bw >= self.max_bw || !x.rs.is_app_limited) {
            self.bw_hi[1] = self.bw_hi[1].max(self.rs_bw);
            self.max_bw = self.bw_hi[0].max(self.bw_hi[1]);
        }
    }

    /// `AdvanceMaxBwFilter`: a new cycle slot; the oldest one leaves the window.
    pub(super) fn advance_max_bw_filter(&mut self) {
        self.cycle_count += 1;
        self.bw_hi = [self.bw_hi[1], 0.0];
    }

    fn update_congestion_signals(&mut self, x: &CongCtlIn) {
        self.update_max_bw(x);
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion();
        self.is_loss_in_round = false;
    }

    fn update_ack_aggregation(&mut self, x: &CongCtlIn) {
        let interval_s = x.now.saturating_sub(self.extra_acked_interval_start) as f64 * 1e-9;
        let mut expected = self.bw / 8.0 * interval_s;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0.0;
            self.extra_acked_interval_start = x.now;
            expected = 0.0;
        }
        self.extra_acked_delivered += x.rs.acked_sacked as f64;
        let extra = (self.extra_acked_delivered - expected).min(self.cwnd as f64);
        let win = if self.full_bw_reached { EXTRA_ACKED_FILTER_ROUNDS } else { 1 };
        self.extra_acked = self.extra_acked_filter.update(self.round_count, extra, win);
    }

    /// `SetPacingRateWithGain`, 1 % under the gain × bw.
    fn set_pacing_rate(&mut self) {
        let rate = self.pacing_gain * self.bw * (1.0 - PACING_MARGIN);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `SetSendQuantum`: 1 ms at the pacing rate, within [2 MSS, 64 KB].
    fn set_send_quantum(&mut self) {
        self.send_quantum = (self.pacing_rate / 8.0 * 1e-3).min(65_536.0).max(2.0 * self.mss);
    }

    /// `SetCwnd` with `BoundCwndForProbeRTT` and `BoundCwndForModel`.
    fn set_cwnd(&mut self, x: &CongCtlIn) {
        self.update_max_inflight();
        let acked = x.rs.acked_sacked as f64;
        let mut cwnd = self.cwnd as f64;
        if self.full_bw_reached {
            cwnd = (cwnd + acked).min(self.max_inflight);
        } else if cwnd < self.max_inflight || x.delivered < x.initial_cwnd as u64 {
            cwnd += acked;
        }
        cwnd = cwnd.max(self.min_pipe_cwnd());
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        cwnd = cwnd.min(self.model_cwnd_cap());
        self.cwnd = cwnd.min(u32::MAX as f64) as u32;
    }
}

impl CongestionOps for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }
    /// Linux's `bbr_ssthresh`: save cwnd, ssthresh stays (BBR sets cwnd itself).
    fn ssthresh(&mut self, t: &Tcb, _bytes_in_flight: u32) -> u32 {
        t.ssthresh
    }
    fn increase_window(&mut self, _t: &mut Tcb, _segs_acked: u32) {}
    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
    fn sets_pacing_rate(&self) -> bool {
        true
    }
    fn on_event(&mut self, t: &mut Tcb, ev: CcEvent) {
        if !self.initialized {
            return;
        }
        match ev {
            // OnEnterFastRecovery: SaveCwnd, SaveStateUponLoss (no undo here: no spurious
            // recovery is detected on this stack)
            CcEvent::Recovery => {
                self.save_cwnd();
                self.in_recovery = true;
            }
            // OnEnterRTO: SaveCwnd, cwnd = inflight + 1 (nothing is in flight after the
            // sender marked everything lost: 1 MSS); restored when the Loss state ends
            CcEvent::Loss => {
                self.save_cwnd();
                self.in_recovery = false;
                self.loss_until = Some(t.high_tx);
                self.cwnd = t.mss;
                t.cwnd = t.mss;
            }
            // leaving fast recovery: RestoreCwnd (bounded by the model on this ACK)
            CcEvent::CompleteCwr => {
                self.in_recovery = false;
                self.restore_cwnd();
            }
        }
    }
    fn cong_control(&mut self, t: &mut Tcb, x: &CongCtlIn) -> Option<f64> {
        if x.srtt_ns == 0 {
            return None; // no RTT yet: the initial window leaves unpaced (docs/tcp/bbr3.md)
        }
        self.now = x.now; // (before init: STARTUP's record is stamped with this ACK's time)
        if !self.initialized {
            self.init(t, x);
        }
        self.mss = x.mss as f64;
        self.inflight = x.bytes_in_flight as f64;
        self.delivered_now = x.delivered;
        self.app_limited_req = false;
        if self.loss_until.is_some_and(|h| t.last_acked >= h) {
            self.loss_until = None;
            self.restore_cwnd();
        }
        // C.is_cwnd_limited: the window was full before this ACK (latched per round)
        self.cwnd_limited[1] |= x.rs.prior_in_flight + x.mss > self.cwnd;
        let rs = x.rs;
        self.rs_bw = if rs.interval_ns > 0 && rs.delivered > 0 {
            rs.delivered as f64 * 8.0 / (rs.interval_ns as f64 * 1e-9)
        } else {
            0.0
        };
        // losses this ACK marked (the draft's per-packet HandleLostPacket, per ACK here)
        if rs.newly_lost > 0 {
            self.handle_lost(x);
        }
        // UpdateModelAndState
        self.update_latest_delivery_signals(x);
        self.update_congestion_signals(x);
        self.update_ack_aggregation(x);
        self.check_full_bw_reached(x);
        self.check_startup_done(x);
        self.check_drain_done();
        self.update_probe_bw_cycle_phase(x);
        self.update_min_rtt(x);
        self.check_probe_rtt(x);
        self.advance_latest_delivery_signals(x);
        self.bw = self.max_bw.min(self.bw_shortterm);
        // UpdateControlParameters
        self.set_pacing_rate();
        self.set_send_quantum();
        self.set_cwnd(x);
        t.cwnd = self.cwnd;
        Some(self.pacing_rate)
    }
    fn per_ack_rate_sample(&self) -> bool {
        true
    }
    fn mark_app_limited(&self) -> bool {
        self.app_limited_req
    }
    fn mode_changes(&self) -> Vec<(u64, u8)> {
        self.states.iter().map(|&(t, s)| (t, s as u8)).collect()
    }
    /// `BBR.bw` (min of max_bw and the short-term bound) and `BBR.min_rtt`.
    fn model(&self) -> Option<(f64, f64)> {
        let min_rtt = if self.min_rtt_ns == u64::MAX { 0.0 } else { self.min_rtt_ns as f64 * 1e-9 };
        Some((self.bw, min_rtt))
    }
}
