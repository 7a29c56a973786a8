//! BBR v3's ProbeBW cycle, its loss response (the long- and short-term model:
//! inflight_longterm, bw_shortterm, inflight_shortterm) and the volumes it bounds cwnd
//! with, as draft-ietf-ccwg-bbr's pseudo-code (`bbr3.rs` holds the rest).

use super::bbr3::*;
use super::rate::CongCtlIn;

impl Bbr3 {
    // ------------------------------------------------------------------ volumes

    pub(super) fn min_pipe_cwnd(&self) -> f64 {
        4.0 * self.mss
    }

    /// `BDPMultiple(bw, gain)`: gain × bw × min_rtt (the initial cwnd before an RTT).
    pub(super) fn bdp_multiple(&self, bw: f64, gain: f64) -> f64 {
        if self.min_rtt_ns == u64::MAX {
            return 10.0 * self.mss;
        }
        gain * bw / 8.0 * (self.min_rtt_ns as f64 * 1e-9)
    }

    /// `QuantizationBudget`: at least the offload budget (3 send quanta, TCP) and
    /// MinPipeCwnd, plus 2 MSS in ProbeBW_UP.
    fn quantization_budget(&self, cap: f64) -> f64 {
        let mut cap = cap.max(3.0 * self.send_quantum).max(self.min_pipe_cwnd());
        if self.state == State::ProbeBwUp {
            cap += 2.0 * self.mss;
        }
        cap
    }

    /// `Inflight(bw, gain)`.
    pub(super) fn inflight_at(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    pub(super) fn update_max_inflight(&mut self) {
        self.offload_budget = 3.0 * self.send_quantum;
        let cap = self.bdp_multiple(self.bw, self.cwnd_gain) + self.extra_acked;
        self.max_inflight = self.quantization_budget(cap);
    }

    pub(super) fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN).max(self.min_pipe_cwnd())
    }

    /// `InflightWithHeadroom`: inflight_longterm less 15 % (at least 1 MSS) for others.
    pub(super) fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = self.mss.max(HEADROOM * self.inflight_longterm);
        (self.inflight_longterm - headroom).max(self.min_pipe_cwnd())
    }

    /// `BoundCwndForModel`'s cap.
    pub(super) fn model_cwnd_cap(&self) -> f64 {
        let mut cap = f64::INFINITY;
        if self.state.is_probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom();
        }
        cap.min(self.inflight_shortterm).max(self.min_pipe_cwnd())
    }

    /// `TargetInflight`: the BDP, unless congestion cut cwnd (bytes).
    pub(super) fn target_inflight(&self) -> f64 {
        self.bdp_multiple(self.bw, 1.0).min(self.cwnd as f64)
    }

    pub(super) fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited[0] || self.cwnd_limited[1]
    }

    // ------------------------------------------------------------------ ProbeBW

    pub(super) fn enter_probe_bw(&mut self) {
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.start_probe_bw_down();
    }

    pub(super) fn start_probe_bw_down(&mut self) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = self.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round(self.delivered_now);
        self.set_state(State::ProbeBwDown);
        self.pacing_gain = PROBE_DOWN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.set_state(State::ProbeBwCruise);
        self.pacing_gain = 1.0;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    pub(super) fn start_probe_bw_refill(&mut self) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0.0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round(self.delivered_now);
        self.set_state(State::ProbeBwRefill);
        self.pacing_gain = 1.0;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    fn start_probe_bw_up(&mut self) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round(self.delivered_now);
        self.reset_full_bw();
        self.full_bw = self.rs_bw;
        self.set_state(State::ProbeBwUp);
        self.pacing_gain = PROBE_UP_PACING_GAIN;
        self.cwnd_gain = PROBE_UP_CWND_GAIN;
        self.raise_inflight_longterm_slope();
    }

    /// `PickProbeWait`: 0 or 1 rounds already counted, 2–3 s of wall clock, from the
    /// flow's seeded stream.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe_up = (self.rng.uniform() * 2.0) as u64;
        self.bw_probe_wait_ns = 2_000_000_000 + (self.rng.uniform() * 1e9) as u64;
    }

    fn is_reno_coexistence_probe_time(&self) -> bool {
        let reno_rounds = (self.target_inflight() / self.mss) as u64;
        self.rounds_since_probe_up >= reno_rounds.min(MAX_PROBE_ROUNDS)
    }

    fn is_time_to_probe_bw(&mut self) -> bool {
        if self.now > self.cycle_stamp + self.bw_probe_wait_ns || self.is_reno_coexistence_probe_time() {
            self.start_probe_bw_refill();
            return true;
        }
        false
    }

    fn is_time_to_cruise(&self) -> bool {
        self.inflight <= self.inflight_with_headroom() && self.inflight <= self.inflight_at(self.max_bw, 1.0)
    }

    fn is_time_to_go_down(&mut self) -> bool {
        if self.prev_probe_too_high && self.inflight >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        if self.is_cwnd_limited() && self.cwnd as f64 >= self.inflight_longterm {
            self.reset_full_bw(); // bw is limited by inflight_longterm
            self.full_bw = self.rs_bw;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    pub(super) fn is_probing_bw(&self) -> bool {
        matches!(self.state, State::Startup | State::ProbeBwRefill | State::ProbeBwUp)
    }

    fn raise_inflight_longterm_slope(&mut self) {
        let growth_this_round = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_acked_per_inc = (self.cwnd as f64 / growth_this_round).max(self.mss);
    }

    fn probe_inflight_longterm_upward(&mut self, x: &CongCtlIn) {
        if !self.is_cwnd_limited() || (self.cwnd as f64) < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += x.rs.acked_sacked as f64;
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = (self.bw_probe_up_acked / self.probe_up_acked_per_inc).floor();
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm += delta * self.mss;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope();
        }
    }

    /// `AdaptLongTermModel`; true when it decided a state transition.
    fn adapt_long_term_model(&mut self, x: &CongCtlIn) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.state.is_probe_bw() && !x.rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.state.is_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high {
                self.start_probe_bw_refill();
                return true;
            }
        }
        if !Self::is_inflight_too_high(x) {
            if self.inflight_longterm.is_infinite() {
                return false;
            }
            if x.rs.tx_in_flight as f64 > self.inflight_longterm {
                self.inflight_longterm = x.rs.tx_in_flight as f64;
            }
            if self.state == State::ProbeBwUp {
                self.probe_inflight_longterm_upward(x);
            }
        }
        false
    }

    /// `UpdateProbeBWCyclePhase`.
    pub(super) fn update_probe_bw_cycle_phase(&mut self, x: &CongCtlIn) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_long_term_model(x) || !self.state.is_probe_bw() {
            return;
        }
        match self.state {
            State::ProbeBwDown => {
                if !self.is_time_to_probe_bw() && self.is_time_to_cruise() {
                    self.start_probe_bw_cruise();
                }
            }
            State::ProbeBwCruise => {
                self.is_time_to_probe_bw();
            }
            State::ProbeBwRefill => {
                if self.round_start {
                    self.is_bw_probe_sample = true;
                    self.start_probe_bw_up();
                }
            }
            State::ProbeBwUp => {
                if self.is_time_to_go_down() {
                    self.prev_probe_too_high = false;
                    self.start_probe_bw_down();
                }
            }
            _ => {}
        }
    }

    // ------------------------------------------------------------------ loss response

    /// `IsInflightTooHigh` (SACK always on here): lost since the sample's packet left
    /// > 2 % of what was in flight then.
    pub fn is_inflight_too_high(x: &CongCtlIn) -> bool {
        x.rs.lost as f64 > x.rs.tx_in_flight as f64 * LOSS_THRESH
    }

    fn handle_inflight_too_high(&mut self, x: &CongCtlIn) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !x.rs.is_app_limited {
            self.inflight_longterm = (x.rs.tx_in_flight as f64).max(self.target_inflight() * BETA);
        }
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down();
        }
    }

    /// `NoteLoss` and `HandleLostPacket`, once per ACK that marked losses: the sample's
    /// packet (the newest delivered) stands for the lost one (Linux's per-ACK check).
    pub(super) fn handle_lost(&mut self, x: &CongCtlIn) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = x.delivered;
            self.save_cwnd();
        }
        self.is_loss_in_round = true;
        if self.is_bw_probe_sample && Self::is_inflight_too_high(x) {
            self.handle_inflight_too_high(x);
        }
    }

    pub(super) fn update_latest_delivery_signals(&mut self, x: &CongCtlIn) {
        self.loss_round_start = false;
        self.bw_latest = self.bw_latest.max(self.rs_bw);
        self.inflight_latest = self.inflight_latest.max(x.rs.delivered.max(0) as f64);
        if x.rs.acked_sacked > 0 && x.rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = x.delivered;
            self.loss_round_start = true;
        }
    }

    pub(super) fn advance_latest_delivery_signals(&mut self, x: &CongCtlIn) {
        if self.loss_round_start {
            self.bw_latest = self.rs_bw;
            self.inflight_latest = x.rs.delivered.max(0) as f64;
        }
    }

    pub(super) fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// Once per round, outside the probing states: after a round with loss, the
    /// short-term model falls to max(latest, 0.7 × itself).
    pub(super) fn adapt_lower_bounds_from_congestion(&mut self) {
        if self.is_probing_bw() || !self.is_loss_in_round {
            return;
        }
        if self.bw_shortterm.is_infinite() {
            self.bw_shortterm = self.max_bw;
        }
        if self.inflight_shortterm.is_infinite() {
            self.inflight_shortterm = self.cwnd as f64;
        }
        self.bw_shortterm = self.bw_latest.max(BETA * self.bw_shortterm);
        self.inflight_shortterm = self.inflight_latest.max(BETA * self.inflight_shortterm);
    }

    pub(super) fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = f64::INFINITY;
    }
}
