//! BBR v3's Startup (the full-bandwidth and high-loss exits), Drain, the min_rtt filter
//! and ProbeRTT, and cwnd's save/restore, as draft-ietf-ccwg-bbr's pseudo-code.

use super::bbr3::*;
use super::rate::CongCtlIn;

impl Bbr3 {
    pub(super) fn enter_startup(&mut self) {
        self.set_state(State::Startup);
        self.pacing_gain = STARTUP_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    pub(super) fn enter_drain(&mut self) {
        self.set_state(State::Drain);
        self.pacing_gain = DRAIN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.drain_start_round = self.round_count;
    }

    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    pub(super) fn check_full_bw_reached(&mut self, x: &CongCtlIn) {
        if self.full_bw_now || !self.round_start || x.rs.is_app_limited {
            return;
        }
        if self.rs_bw >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = self.rs_bw;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// `CheckStartupHighLoss` as Linux's `bbr_check_loss_too_high_in_startup`: loss events
    /// (ACKs that mark a loss) counted per round; at a loss-round start in fast recovery with
    /// ≥ 6 of them and a loss rate over `LOSS_THRESH`, the pipe is full.
    pub(super) fn check_startup_high_loss(&mut self, x: &CongCtlIn) {
        if self.full_bw_reached {
            return;
        }
        if x.rs.newly_lost > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
        }
        if self.loss_round_start
            && x.in_recovery
            && self.loss_events_in_round >= STARTUP_FULL_LOSS_CNT
            && Self::is_inflight_too_high(x)
        {
            self.full_bw_reached = true;
            self.inflight_longterm = self.bdp_multiple(self.bw, 1.0).max(self.inflight_latest);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    pub(super) fn check_startup_done(&mut self, x: &CongCtlIn) {
        self.check_startup_high_loss(x);
        if self.state == State::Startup && self.full_bw_reached {
            self.enter_drain();
        }
    }

    pub(super) fn check_drain_done(&mut self) {
        if self.state == State::Drain
            && (self.inflight <= self.inflight_at(self.bw, 1.0) || self.round_count > self.drain_start_round + 3)
        {
            self.enter_probe_bw();
        }
    }

    /// `UpdateMinRTT`: the ProbeRTT filter (5 s) feeds the min_rtt filter (10 s).
    pub(super) fn update_min_rtt(&mut self, x: &CongCtlIn) {
        let now = x.now;
        self.probe_rtt_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL_NS;
        let rtt = x.rs.rtt_ns;
        if rtt > 0 && (rtt < self.probe_rtt_min_delay || self.probe_rtt_expired) {
            self.probe_rtt_min_delay = rtt;
            self.probe_rtt_min_stamp = now;
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_FILTER_NS;
        if self.probe_rtt_min_delay < self.min_rtt_ns || min_rtt_expired {
            self.min_rtt_ns = self.probe_rtt_min_delay;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }

    pub(super) fn check_probe_rtt(&mut self, x: &CongCtlIn) {
        if self.state != State::ProbeRtt && self.probe_rtt_expired {
            self.set_state(State::ProbeRtt);
            self.pacing_gain = 1.0;
            self.cwnd_gain = PROBE_RTT_CWND_GAIN;
            self.save_cwnd();
            self.probe_rtt_done_stamp = 0;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round(x.delivered);
        }
        if self.state == State::ProbeRtt {
            self.app_limited_req = true; // MarkConnectionAppLimited
            if self.probe_rtt_done_stamp == 0 && self.inflight <= self.probe_rtt_cwnd() {
                self.probe_rtt_done_stamp = x.now + PROBE_RTT_DURATION_NS;
                self.probe_rtt_round_done = false;
                self.start_round(x.delivered);
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && x.now > self.probe_rtt_done_stamp {
                    self.probe_rtt_min_stamp = x.now;
                    self.restore_cwnd();
                    self.exit_probe_rtt();
                }
            }
        }
    }

    pub(super) fn exit_probe_rtt(&mut self) {
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down();
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    pub(super) fn save_cwnd(&mut self) {
        if !self.in_loss_recovery() && self.state != State::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    pub(super) fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    pub(super) fn in_loss_recovery(&self) -> bool {
        self.in_recovery || self.loss_until.is_some()
    }
}
