//! BBR v1 as ns-3.37's `TcpBbr` (`variant = "bbr"` on `stack = "linux"`): the congestion
//! control sets cwnd and the pacing rate itself on every ACK (`CongControl`) from the
//! delivery-rate samples of `rate.rs`. Constants, order of the steps and ns-3's quirks as
//! in docs/ns3-tcp-reference.md; departures in docs/tcp/bbr.md.

use super::cc::{CcEvent, CongestionOps, Tcb};
use super::rate::CongCtlIn;
use super::windowed_filter::MaxFilter;
use crate::rng::Rng;

/// STARTUP's pacing and cwnd gain (ns-3 `HighGain`).
pub const HIGH_GAIN: f64 = 2.89;
/// PROBE_BW's pacing gain cycle.
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const BW_WINDOW_ROUNDS: u64 = 10;
const RTT_WINDOW_NS: u64 = 10_000_000_000;
const PROBE_RTT_NS: u64 = 200_000_000;
const CWND_GAIN_PROBE_BW: f64 = 2.0;
const EXTRA_ACKED_GAIN: u32 = 1;
const EXTRA_ACKED_WIN_RTT_LEN: u32 = 5;
const ACK_EPOCH_RESET_THRESH: u32 = 1 << 12;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    /// The modes' names, in their numbers' order (ns-3.37's `TcpBbr::BbrMode_t`).
    pub const NAMES: [&'static str; 4] = ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT"];
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

#[derive(Clone, Debug)]
pub struct Bbr {
    pub mode: Mode,
    /// (time ns, mode) of every mode change, for the state series and the tests.
    pub modes: Vec<(u64, Mode)>,
    rng: Rng,
    initialized: bool,
    max_bw: MaxFilter,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    delivered: u64,
    pub pipe_filled: bool,
    full_bw: f64,
    full_bw_count: u32,
    pub min_rtt_ns: Option<u64>,
    min_rtt_stamp: u64,
    min_rtt_expired: bool,
    probe_rtt_done: Option<u64>,
    probe_rtt_round_done: bool,
    idle_restart: bool,
    pub cycle_index: usize,
    cycle_stamp: u64,
    prior_cwnd: u32,
    packet_conservation: bool,
    target_cwnd: u32,
    send_quantum: u32,
    pacing_rate: f64,
    extra_acked: [u32; 2],
    extra_acked_idx: usize,
    extra_acked_win_rtt: u32,
    ack_epoch_acked: u32,
    ack_epoch_ns: u64,
    in_recovery: bool,
    /// `tcp.ns3_quirks`: `InitPacingRate` takes the RTT in whole milliseconds, and
    /// `UpdateAckAggregation` the ACK epoch's length in whole seconds, as ns-3.37.
    pub ns3_quirks: bool,
}

impl Bbr {
    pub fn new(rng: Rng) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            modes: Vec::new(),
            rng,
            initialized: false,
            max_bw: MaxFilter::default(),
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            delivered: 0,
            pipe_filled: false,
            full_bw: 0.0,
            full_bw_count: 0,
            min_rtt_ns: None,
            min_rtt_stamp: 0,
            min_rtt_expired: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            cycle_index: 0,
            cycle_stamp: 0,
            prior_cwnd: 0,
            packet_conservation: false,
            target_cwnd: 0,
            send_quantum: 0,
            pacing_rate: 0.0,
            extra_acked: [0; 2],
            extra_acked_idx: 0,
            extra_acked_win_rtt: 0,
            ack_epoch_acked: 0,
            ack_epoch_ns: 0,
            in_recovery: false,
            ns3_quirks: false,
        }
    }

    /// Rounds counted so far (ns-3 `m_roundCount`).
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    fn set_mode(&mut self, m: Mode, now: u64) {
        self.mode = m;
        self.modes.push((now, m));
    }

    fn enter_startup(&mut self, now: u64) {
        self.set_mode(Mode::Startup, now);
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_probe_bw(&mut self, now: u64) {
        self.set_mode(Mode::ProbeBw, now);
        self.pacing_gain = 1.0;
        self.cwnd_gain = CWND_GAIN_PROBE_BW;
        // ns-3: GAIN_CYCLE_LENGTH − 1 − ⌊U(0, 6)⌋, then advanced once
        self.cycle_index = 7 - self.rng.uniform_range(0.0, 6.0) as usize;
        self.advance_cycle(now);
    }

    fn advance_cycle(&mut self, now: u64) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// InFlight(gain): gain × BtlBw × rtProp + 3 send quanta (+2 MSS in phase 0), bytes.
    fn in_flight(&self, gain: f64, x: &CongCtlIn) -> u32 {
        let Some(min_rtt) = self.min_rtt_ns else { return x.initial_cwnd };
        let quanta = 3.0 * self.send_quantum as f64;
        let bdp = self.max_bw.best() * (min_rtt as f64 * 1e-9) / 8.0;
        let extra = if self.mode == Mode::ProbeBw && self.cycle_index == 0 { 2.0 * x.mss as f64 } else { 0.0 };
        (gain * bdp + quanta + extra) as u32
    }

    fn save_cwnd(&mut self, t: &Tcb) {
        if !self.in_recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = t.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(t.cwnd);
        }
    }

    fn init(&mut self, t: &Tcb, x: &CongCtlIn) {
        self.initialized = true;
        self.next_round_delivered = 0;
        self.round_count = 0;
        self.round_start = false;
        self.enter_startup(x.now);
        // ns-3's InitPacingRate: the nominal bandwidth cwnd / RTT (a whole DataRate; the RTT
        // in whole milliseconds, at least 1, with ns3_quirks) is the filter's zero value
        let rtt_s = if self.ns3_quirks { (x.srtt_ns / 1_000_000).max(1) as f64 * 1e-3 } else { x.srtt_ns as f64 * 1e-9 };
        let nominal = (t.cwnd as f64 * 8.0 / rtt_s).floor();
        self.pacing_rate = self.pacing_gain * nominal;
        self.max_bw = MaxFilter::new(0, nominal);
        self.ack_epoch_ns = x.now;
    }

    /// ns-3.37's `UpdateRound` reads the sample's `m_priorDelivered` (the largest
    /// `delivered` stamp of any segment delivered so far: the sample keeps it across ACKs),
    /// not `m_txItemDelivered` (the stamp of the last segment the ACK delivered, which
    /// after a SACK of older blocks is smaller and ends rounds late).
    fn update_round(&mut self, x: &CongCtlIn) {
        if x.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        } else {
            self.round_start = false;
        }
    }

    fn update_btl_bw(&mut self, x: &CongCtlIn) {
        let rs = x.rs;
        if rs.delivery_rate == 0.0 {
            return;
        }
        self.update_round(x);
        if rs.delivery_rate >= self.max_bw.best() || !rs.is_app_limited {
            self.max_bw.update(self.round_count, rs.delivery_rate, BW_WINDOW_ROUNDS);
        }
    }

    fn update_ack_aggregation(&mut self, t: &Tcb, x: &CongCtlIn) {
        let rs = x.rs;
        if rs.acked_sacked == 0 || rs.delivered < 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtt = (self.extra_acked_win_rtt + 1).min(31);
            if self.extra_acked_win_rtt >= EXTRA_ACKED_WIN_RTT_LEN {
                self.extra_acked_win_rtt = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let mut epoch_s = x.now.saturating_sub(self.ack_epoch_ns) as f64 * 1e-9;
        if self.ns3_quirks {
            // ns-3.37 keeps the epoch's length in a uint32_t of seconds: 0 for any epoch
            // under a second, so nothing is expected and every byte acked in it is extra
            epoch_s = epoch_s.trunc();
        }
        let mut expected = (self.max_bw.best() * epoch_s / 8.0) as u32;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_RESET_THRESH {
            self.ack_epoch_acked = 0;
            self.ack_epoch_ns = x.now;
            expected = 0;
        }
        self.ack_epoch_acked += rs.acked_sacked;
        let extra = self.ack_epoch_acked.saturating_sub(expected).min(t.cwnd);
        if extra > self.extra_acked[self.extra_acked_idx] {
            self.extra_acked[self.extra_acked_idx] = extra;
        }
    }

    fn check_cycle_phase(&mut self, x: &CongCtlIn) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full = self.min_rtt_ns.is_some_and(|m| x.now - self.cycle_stamp > m);
        let next = if self.pacing_gain == 1.0 {
            full
        } else if self.pacing_gain > 1.0 {
            full && (x.rs.bytes_loss > 0 || x.rs.prior_in_flight >= self.in_flight(self.pacing_gain, x))
        } else {
            full || x.rs.prior_in_flight <= self.in_flight(1.0, x)
        };
        if next {
            self.advance_cycle(x.now);
        }
    }

    fn check_full_pipe(&mut self, x: &CongCtlIn) {
        if self.pipe_filled || !self.round_start || x.rs.is_app_limited {
            return;
        }
        if self.max_bw.best() >= self.full_bw * 1.25 {
            self.full_bw = self.max_bw.best();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.pipe_filled = true;
        }
    }

    fn check_drain(&mut self, t: &mut Tcb, x: &CongCtlIn) {
        if self.mode == Mode::Startup && self.pipe_filled {
            self.set_mode(Mode::Drain, x.now);
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
            // ns-3's quirk: entering DRAIN sets ssthresh
            t.ssthresh = self.in_flight(1.0, x);
        }
        if self.mode == Mode::Drain && x.bytes_in_flight <= self.in_flight(1.0, x) {
            self.enter_probe_bw(x.now);
        }
    }

    fn update_rt_prop(&mut self, x: &CongCtlIn) {
        self.min_rtt_expired = x.now > self.min_rtt_stamp + RTT_WINDOW_NS;
        let rtt = x.srtt_ns;
        if rtt > 0 && (self.min_rtt_ns.map_or(true, |m| rtt <= m) || self.min_rtt_expired) {
            self.min_rtt_ns = Some(rtt);
            self.min_rtt_stamp = x.now;
        }
    }

    fn check_probe_rtt(&mut self, t: &mut Tcb, x: &CongCtlIn) {
        if self.mode != Mode::ProbeRtt && self.min_rtt_expired && !self.idle_restart {
            self.set_mode(Mode::ProbeRtt, x.now);
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(t);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            let min_pipe = 4 * x.mss;
            match self.probe_rtt_done {
                None if x.bytes_in_flight <= min_pipe => {
                    self.probe_rtt_done = Some(x.now + PROBE_RTT_NS);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = self.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && x.now > done {
                        self.min_rtt_stamp = x.now;
                        t.cwnd = t.cwnd.max(self.prior_cwnd);
                        if self.pipe_filled {
                            self.enter_probe_bw(x.now);
                        } else {
                            self.enter_startup(x.now);
                        }
                    }
                }
                None => {}
            }
        }
        if x.rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn set_pacing_rate(&mut self, gain: f64) {
        let rate = gain * self.max_bw.best();
        if self.pipe_filled || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    fn set_cwnd(&mut self, t: &mut Tcb, x: &CongCtlIn) {
        let rs = x.rs;
        let min_pipe = 4 * x.mss;
        'done: {
            if rs.acked_sacked == 0 {
                break 'done;
            }
            if x.in_recovery {
                if rs.bytes_loss > 0 {
                    t.cwnd = (t.cwnd as i64 - rs.bytes_loss as i64).max(x.mss as i64) as u32;
                }
                if self.packet_conservation {
                    t.cwnd = t.cwnd.max(x.bytes_in_flight + rs.acked_sacked);
                    break 'done;
                }
            }
            let aggr = if self.pipe_filled {
                let max_aggr = (self.max_bw.best() * 0.1 / 8.0) as u32;
                (EXTRA_ACKED_GAIN * self.extra_acked[0].max(self.extra_acked[1])).min(max_aggr)
            } else {
                0
            };
            self.target_cwnd = self.in_flight(self.cwnd_gain, x) + aggr;
            if self.pipe_filled {
                t.cwnd = t.cwnd.saturating_add(rs.acked_sacked).min(self.target_cwnd);
            } else if t.cwnd < self.target_cwnd || self.delivered < x.initial_cwnd as u64 {
                t.cwnd = t.cwnd.saturating_add(rs.acked_sacked);
            }
            t.cwnd = t.cwnd.max(min_pipe);
        }
        if self.mode == Mode::ProbeRtt {
            t.cwnd = t.cwnd.min(min_pipe);
        }
    }
}

impl CongestionOps for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    /// ns-3: `SaveCwnd` and ssthresh unchanged.
    fn ssthresh(&mut self, t: &Tcb, _bytes_in_flight: u32) -> u32 {
        t.ssthresh
    }
    fn increase_window(&mut self, _t: &mut Tcb, _segs_acked: u32) {}
    /// ns-3's `CongestionStateSet(CA_RECOVERY)`: cwnd = bytes in flight + max(the ACK's
    /// delivered bytes, MSS); packet conservation for the first round.
    fn recovery_entry(&mut self, t: &mut Tcb, in_flight: u32, delivered: u32) {
        t.cwnd = in_flight + delivered.max(t.mss);
    }
    fn clone_box(&self) -> Box<dyn CongestionOps> {
        Box::new(self.clone())
    }
    fn sets_pacing_rate(&self) -> bool {
        true
    }
    fn on_event(&mut self, t: &mut Tcb, ev: CcEvent) {
        match ev {
            CcEvent::Recovery => {
                self.save_cwnd(t);
                self.in_recovery = true;
                self.packet_conservation = true;
            }
            CcEvent::Loss => {
                self.save_cwnd(t);
                self.in_recovery = false;
                self.round_start = true;
            }
            CcEvent::CompleteCwr => {
                // ns-3.37 leaves cwnd = ssthresh here (its trace: 57 272 at the end of
                // the first recovery of the check scenario), no RestoreCwnd
                self.in_recovery = false;
                self.packet_conservation = false;
            }
        }
    }
    /// ns-3's `CongestionStateSet(CA_OPEN)` once the handshake is done: initialised with its
    /// RTT (rtProp and its 10 s window start there), the pacing rate set before any data.
    fn established(&mut self, t: &mut Tcb, x: &CongCtlIn) -> Option<f64> {
        self.init(t, x);
        self.min_rtt_ns = Some(x.srtt_ns);
        self.min_rtt_stamp = x.now;
        self.prior_cwnd = t.cwnd;
        self.target_cwnd = t.cwnd;
        self.send_quantum = x.mss;
        Some(self.pacing_rate)
    }
    fn cong_control(&mut self, t: &mut Tcb, x: &CongCtlIn) -> Option<f64> {
        if x.srtt_ns == 0 {
            return None; // no RTT yet: ns-3 has the handshake's (docs/tcp/bbr.md)
        }
        if !self.initialized {
            self.init(t, x);
        }
        self.delivered = x.delivered;
        self.update_btl_bw(x);
        self.update_ack_aggregation(t, x);
        self.check_cycle_phase(x);
        self.check_full_pipe(x);
        self.check_drain(t, x);
        self.update_rt_prop(x);
        self.check_probe_rtt(t, x);
        self.set_pacing_rate(self.pacing_gain);
        self.send_quantum = x.mss;
        self.set_cwnd(t, x);
        Some(self.pacing_rate)
    }
    fn mode_changes(&self) -> Vec<(u64, u8)> {
        self.modes.iter().map(|&(t, m)| (t, m as u8)).collect()
    }
    /// BtlBw (the windowed maximum of the delivery-rate samples) and RTprop.
    fn model(&self) -> Option<(f64, f64)> {
        Some((self.max_bw.best(), self.min_rtt_ns.map_or(0.0, |m| m as f64 * 1e-9)))
    }
}
