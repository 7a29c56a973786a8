//! BBR v3's state machine driven by hand-built rate samples (MSS 1000, IW 10, srtt and
//! RTT samples 40 ms): each transition on the draft's condition, the loss responses,
//! ProbeRTT; and the rate sampler's per-packet fields BBR v3 reads.

use super::bbr3::*;
use super::cc::{CcEvent, CongestionOps, Tcb};
use super::rate::{CongCtlIn, RateSample};
use crate::rng::Rng;

const MS: u64 = 1_000_000;
const MSS: u32 = 1000;

struct Drive {
    b: Bbr3,
    t: Tcb,
    delivered: u64,
    rtt_ms: u64,
    recovery: bool,
}

/// One ACK: delivering `acked` bytes, a rate sample of `rate` bit/s, a round start when
/// `round`, `in_flight` bytes after it; `lost` bytes lost since the sample's packet left
/// (`newly` of them marked on this ACK) with `tx` bytes in flight when it left.
#[derive(Clone, Copy)]
struct Ack {
    rate: f64,
    round: bool,
    in_flight: u32,
    lost: u64,
    newly: u64,
    tx: u32,
    acked: u32,
    app_limited: bool,
}

fn ack(rate: f64, round: bool, in_flight: u32) -> Ack {
    Ack { rate, round, in_flight, lost: 0, newly: 0, tx: in_flight, acked: 2000, app_limited: false }
}

impl Drive {
    fn new(seed: u64) -> Drive {
        Drive { b: Bbr3::new(Rng::new(seed, 7)), t: Tcb::new(10 * MSS, u32::MAX, MSS), delivered: 0, rtt_ms: 40, recovery: false }
    }
    fn at(&mut self, now_ms: u64, a: Ack) -> f64 {
        self.delivered += a.acked as u64;
        let d = 20_000i64;
        let rs = RateSample {
            delivery_rate: a.rate,
            delivered: d,
            interval_ns: (d as f64 * 8.0 / a.rate * 1e9) as u64,
            acked_sacked: a.acked,
            prior_in_flight: a.in_flight + a.acked,
            prior_delivered: if a.round { self.delivered } else { 0 },
            is_app_limited: a.app_limited,
            tx_in_flight: a.tx,
            lost: a.lost,
            newly_lost: a.newly,
            rtt_ns: self.rtt_ms * MS,
            ..Default::default()
        };
        let x = CongCtlIn {
            now: now_ms * MS,
            srtt_ns: 40 * MS,
            bytes_in_flight: a.in_flight,
            mss: MSS,
            initial_cwnd: 10 * MSS,
            in_recovery: self.recovery,
            delivered: self.delivered,
            tx_item_delivered: 0,
            rs: &rs,
        };
        self.b.cong_control(&mut self.t, &x).unwrap()
    }
    /// Startup at 3, 6, 12 Mb/s then three rounds at 12.5 Mb/s: the pipe is full (Drain).
    fn fill_pipe(&mut self) -> u64 {
        let mut now = 0;
        for bw in [3e6, 6e6, 12e6, 12.5e6, 12.5e6, 12.5e6] {
            now += 40;
            self.at(now, ack(bw, true, 100_000));
        }
        now
    }
    fn states(&self) -> Vec<State> {
        self.b.states.iter().map(|s| s.1).collect()
    }
}

const BDP_12M5: f64 = 12.5e6 / 8.0 * 0.040; // 62 500 bytes

#[test]
fn startup_gains_then_drain_on_a_bandwidth_plateau() {
    let mut d = Drive::new(1);
    let mut now = 0;
    for bw in [3e6, 6e6, 12e6] {
        now += 40;
        let p = d.at(now, ack(bw, true, 100_000));
        assert_eq!(d.b.state, State::Startup);
        // pacing: 2.77 × bw, 1 % margin; cwnd gain 2
        assert!((p - 2.77 * bw * 0.99).abs() < 1.0, "{p}");
        assert_eq!(d.b.cwnd_gain, 2.0);
    }
    // growth under 25 % for three rounds (12.5 < 1.25 × 12): full_bw_reached on the third
    for k in 0..3 {
        now += 40;
        d.at(now, ack(12.5e6, true, 100_000));
        assert_eq!(d.b.state == State::Drain, k == 2, "round {k}");
    }
    assert!(d.b.full_bw_reached);
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (0.5, 2.0));
    // the pacing rate falls to 0.5 × max_bw once the pipe is full
    let p = d.at(now + 1, ack(12.5e6, false, 100_000));
    assert!((p - 0.5 * 12.5e6 * 0.99).abs() < 1.0);
}

#[test]
fn an_app_limited_round_does_not_count_toward_a_full_pipe() {
    let mut d = Drive::new(1);
    let mut now = 0;
    for bw in [3e6, 6e6, 12e6] {
        now += 40;
        d.at(now, ack(bw, true, 100_000));
    }
    for _ in 0..5 {
        now += 40;
        d.at(now, Ack { app_limited: true, ..ack(12.5e6, true, 100_000) });
    }
    assert_eq!(d.b.state, State::Startup);
}

#[test]
fn drain_ends_at_one_bdp_in_flight_then_down_and_cruise() {
    let mut d = Drive::new(1);
    let now = d.fill_pipe();
    assert_eq!(d.b.state, State::Drain);
    d.at(now + 1, ack(12.5e6, false, BDP_12M5 as u32 + 1000));
    assert_eq!(d.b.state, State::Drain, "in flight above Inflight(1.0)");
    d.at(now + 2, ack(12.5e6, false, BDP_12M5 as u32 - 1000));
    // Inflight(1.0) reached: ProbeBW_DOWN, and on the same ACK in flight ≤ BDP: CRUISE
    assert_eq!(d.states(), vec![State::Startup, State::Drain, State::ProbeBwDown, State::ProbeBwCruise]);
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (1.0, 2.0));
}

#[test]
fn drain_ends_after_three_rounds_and_down_waits_for_the_queue() {
    let mut d = Drive::new(1);
    let mut now = d.fill_pipe();
    for _ in 0..4 {
        now += 40;
        d.at(now, ack(12.5e6, true, 90_000));
    }
    // round_count > drain_start_round + 3: ProbeBW_DOWN though in flight is above the BDP
    assert_eq!(d.b.state, State::ProbeBwDown);
    assert_eq!(d.b.pacing_gain, 0.9);
    now += 1;
    d.at(now, ack(12.5e6, false, 70_000));
    assert_eq!(d.b.state, State::ProbeBwDown, "queue not drained yet");
    d.at(now + 1, ack(12.5e6, false, 60_000));
    assert_eq!(d.b.state, State::ProbeBwCruise);
}

/// Cruise from `now`; returns the time REFILL began (2–3 s of wall clock at most).
fn cruise_until_refill(d: &mut Drive, mut now: u64) -> u64 {
    let start = now;
    while d.b.state != State::ProbeBwRefill {
        now += 40;
        // not a round start: only the wall-clock bound can end CRUISE
        d.at(now, ack(12.5e6, false, 60_000));
        assert!(now - start < 3_100, "no REFILL within 3.1 s");
    }
    now
}

#[test]
fn probe_bw_cycle_refill_up_down_on_the_drafts_conditions() {
    let mut d = Drive::new(3);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    let start = d.b.cycle_stamp;
    let wait = d.b.bw_probe_wait_ns;
    assert!((2_000 * MS..3_000 * MS).contains(&wait), "{wait}");
    let t_refill = cruise_until_refill(&mut d, now + 1);
    // the wall-clock bound: the first ACK after cycle_stamp + bw_probe_wait
    assert!(t_refill * MS > start + wait && t_refill * MS <= start + wait + 40 * MS);
    assert_eq!(d.b.ack_phase, AckPhase::Refilling);
    assert_eq!(d.b.pacing_gain, 1.0);
    // one round of REFILL, then UP: gains 1.25 / 2.25, samples from now are probe samples
    d.at(t_refill + 40, ack(12.5e6, true, 60_000));
    assert_eq!(d.b.state, State::ProbeBwUp);
    assert!(d.b.is_bw_probe_sample);
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (1.25, 2.25));
    // no growth for three rounds (full_bw_now): DOWN, the probe was not too high
    let mut now = t_refill + 40;
    for _ in 0..3 {
        assert_eq!(d.b.state, State::ProbeBwUp);
        now += 40;
        d.at(now, ack(12.5e6, true, 70_000));
    }
    assert_eq!(d.b.state, State::ProbeBwDown);
    assert!(!d.b.prev_probe_too_high);
    assert_eq!(d.b.pacing_gain, 0.9);
}

#[test]
fn reno_coexistence_bound_probes_after_bdp_rounds() {
    // 1 Mb/s × 40 ms = 5 000 bytes: 5 packets, so REFILL after ≤ 5 rounds, long before 2 s
    let mut d = Drive::new(5);
    let mut now = 0;
    for bw in [0.3e6, 0.6e6, 1e6, 1e6, 1e6, 1e6] {
        now += 40;
        d.at(now, ack(bw, true, 20_000));
    }
    d.at(now + 1, ack(1e6, false, 4_000));
    assert_eq!(d.b.state, State::ProbeBwCruise);
    let mut rounds = 0;
    while d.b.state != State::ProbeBwRefill {
        now += 40;
        rounds += 1;
        d.at(now, ack(1e6, true, 4_000));
        assert!(rounds <= 5, "not refilled after {rounds} rounds");
    }
    assert!(rounds >= 4, "{rounds}"); // 5 rounds less the 0 or 1 drawn at DOWN
}

#[test]
fn probe_waits_are_drawn_from_the_seeded_stream() {
    let wait = |seed| {
        let mut d = Drive::new(seed);
        let now = d.fill_pipe();
        d.at(now + 1, ack(12.5e6, false, 60_000));
        d.b.bw_probe_wait_ns
    };
    assert_eq!(wait(11), wait(11));
    let all: std::collections::BTreeSet<u64> = (1..8).map(wait).collect();
    assert!(all.len() > 4, "{all:?}");
}

/// In ProbeBW_UP: losses since the sample's packet left over 2 % of what was then in
/// flight: inflight_longterm = max(tx_in_flight, 0.7 × target), back to DOWN.
#[test]
fn loss_over_two_percent_while_probing_sets_inflight_longterm() {
    let mut d = Drive::new(3);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    let t = cruise_until_refill(&mut d, now + 1);
    d.at(t + 40, ack(12.5e6, true, 60_000));
    assert_eq!(d.b.state, State::ProbeBwUp);
    // 1 % lost: under the threshold, nothing changes
    d.at(t + 41, Ack { lost: 700, newly: 700, tx: 70_000, ..ack(12.5e6, false, 70_000) });
    assert_eq!(d.b.state, State::ProbeBwUp);
    assert!(d.b.inflight_longterm.is_infinite());
    // 3 % lost
    d.at(t + 42, Ack { lost: 2100, newly: 1400, tx: 70_000, ..ack(12.5e6, false, 70_000) });
    assert_eq!(d.b.state, State::ProbeBwDown);
    assert!(d.b.prev_probe_too_high && !d.b.is_bw_probe_sample);
    let target = BDP_12M5.min(d.b.cwnd as f64);
    assert_eq!(d.b.inflight_longterm, 70_000f64.max(0.7 * target));
    // DOWN's cwnd is held at inflight_longterm
    assert!(d.b.cwnd as f64 <= d.b.inflight_longterm);
}

/// Loss outside the probing states: at the end of the round with loss, the short-term
/// model falls to max(latest, 0.7 × itself) and bounds cwnd and the pacing rate.
#[test]
fn loss_while_cruising_cuts_the_short_term_model_by_beta() {
    let mut d = Drive::new(1);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    assert_eq!(d.b.state, State::ProbeBwCruise);
    let cwnd = d.b.cwnd as f64;
    d.at(now + 2, Ack { lost: 1000, newly: 1000, ..ack(5e6, false, 60_000) });
    assert!(d.b.is_loss_in_round && d.b.bw_shortterm.is_infinite());
    // the loss round ends at the next round start: bw_latest 5 Mb/s < 0.7 × 12.5
    let p = d.at(now + 42, ack(5e6, true, 60_000));
    assert_eq!(d.b.bw_shortterm, 0.7 * 12.5e6);
    assert_eq!(d.b.inflight_shortterm, 20_000f64.max(0.7 * cwnd));
    assert_eq!(d.b.bw, 0.7 * 12.5e6);
    assert!((p - 0.7 * 12.5e6 * 0.99).abs() < 1.0, "{p}");
    assert!(d.b.cwnd as f64 <= d.b.inflight_shortterm);
    // a second round with loss: the bounds fall again, to 0.7²
    d.at(now + 43, Ack { lost: 1000, newly: 1000, ..ack(5e6, false, 40_000) });
    d.at(now + 83, ack(5e6, true, 40_000));
    assert!((d.b.bw_shortterm - 0.49 * 12.5e6).abs() < 1e-6);
    // REFILL resets the short-term model
    let t = cruise_until_refill(&mut d, now + 83);
    assert!(t > 0 && d.b.bw_shortterm.is_infinite() && d.b.inflight_shortterm.is_infinite());
}

/// Startup ends on loss: in fast recovery, at a loss-round start, ≥ 6 loss events in the
/// round and a loss rate over 2 %.
#[test]
fn startup_exits_on_high_loss_after_six_loss_events() {
    for events in [5, 6] {
        let mut d = Drive::new(1);
        let mut now = 0;
        for bw in [3e6, 6e6] {
            now += 40;
            d.at(now, ack(bw, true, 50_000));
        }
        d.recovery = true;
        for _ in 0..events {
            now += 1;
            d.at(now, Ack { lost: 3000, newly: 1000, tx: 50_000, ..ack(6e6, false, 50_000) });
        }
        now += 40;
        d.at(now, Ack { lost: 3000, tx: 50_000, ..ack(6e6, true, 50_000) });
        if events == 5 {
            assert_eq!(d.b.state, State::Startup);
        } else {
            assert_eq!(d.b.state, State::Drain);
            assert!(d.b.full_bw_reached);
            // inflight_longterm = max(BDP, inflight_latest): 6 Mb/s × 40 ms = 30 000 bytes
            assert!((d.b.inflight_longterm - 30_000f64.max(20_000.0)).abs() < 0.01);
        }
    }
}

/// ProbeRTT: 5 s without a lower RTT sample; cwnd ≤ max(BDP/2, 4 MSS), samples marked
/// app-limited; 200 ms and a round after in flight reached it, back to CRUISE with the
/// saved cwnd (bounded by the model).
#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let mut d = Drive::new(1);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    d.rtt_ms = 45; // later samples never lower min_rtt: the ProbeRTT filter expires at 5 s
    let mut t = now + 1;
    while d.b.state != State::ProbeRtt {
        t += 40;
        d.at(t, ack(12.5e6, false, 60_000));
        assert!(d.b.state != State::ProbeBwRefill || t < 6_000);
    }
    assert!((5_000..5_100).contains(&t), "{t}");
    let before = d.b.prior_cwnd; // saved on entry: CRUISE's cwnd, grown to max_inflight
    assert!(before as f64 >= d.b.max_inflight - 1.0, "{before}");
    assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (1.0, 0.5));
    assert!(d.b.mark_app_limited());
    let half = (BDP_12M5 / 2.0).max(4000.0);
    assert!(d.b.cwnd as f64 <= half, "{}", d.b.cwnd);
    // in flight at the ProbeRTT cwnd: 200 ms and one round from here
    d.at(t + 1, ack(12.5e6, false, half as u32));
    d.at(t + 150, ack(12.5e6, true, half as u32));
    assert_eq!(d.b.state, State::ProbeRtt, "200 ms not over");
    d.at(t + 202, ack(12.5e6, false, half as u32));
    assert_eq!(d.b.state, State::ProbeBwCruise);
    assert_eq!(d.b.cwnd, before, "cwnd restored");
    d.at(t + 203, ack(12.5e6, false, half as u32));
    assert!(!d.b.mark_app_limited(), "samples count again once ProbeRTT is over");
}

/// Recovery: cwnd saved on entry and restored on exit (no PRR: BBR owns cwnd);
/// a retransmission timeout: cwnd 1 MSS until the Loss state's recovery point is ACKed.
#[test]
fn recovery_and_timeout_save_and_restore_cwnd() {
    let mut d = Drive::new(1);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    let before = d.b.cwnd;
    d.b.on_event(&mut d.t, CcEvent::Recovery);
    assert_eq!(d.b.prior_cwnd, before);
    d.t.cwnd = 5000; // what PRR would have set: ignored, cwnd grows by what is ACKed
    d.at(now + 2, ack(12.5e6, false, 60_000));
    assert_eq!(d.t.cwnd, before + 2000);
    d.b.on_event(&mut d.t, CcEvent::CompleteCwr);
    assert!(!d.b.in_recovery);
    d.t.high_tx = 500;
    d.b.on_event(&mut d.t, CcEvent::Loss);
    let saved = d.b.prior_cwnd;
    assert_eq!(saved, before + 2000);
    assert_eq!((d.b.cwnd, d.t.cwnd), (MSS, MSS));
    d.t.last_acked = 400;
    d.at(now + 300, Ack { acked: 1000, ..ack(12.5e6, false, 1000) });
    assert_eq!(d.t.cwnd, 4 * MSS, "1 MSS + 1 000 ACKed, at least MinPipeCwnd");
    d.t.last_acked = 500;
    d.at(now + 340, Ack { acked: 1000, ..ack(12.5e6, false, 1000) });
    assert_eq!(d.t.cwnd, saved + 1000, "restored when the Loss state ends");
}

#[test]
fn send_quantum_and_offload_budget() {
    let mut d = Drive::new(1);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    // 1 ms at 12.5 × 0.99 Mb/s = 1 547 bytes < 2 MSS: 2 MSS; budget 3 quanta
    assert_eq!(d.b.send_quantum, 2000.0);
    assert_eq!(d.b.offload_budget, 6000.0);
    // max_inflight = 2 × BDP + extra_acked
    assert!((d.b.max_inflight - (2.0 * BDP_12M5 + d.b.extra_acked)).abs() < 1e-6);
}

#[test]
fn state_names_and_numbers() {
    assert_eq!(State::ProbeBwUp as u8, 5);
    assert_eq!(State::ProbeRtt.name(), "PROBE_RTT");
    assert_eq!(State::NAMES.len(), 7);
}

/// After a probe that went too high: CRUISE's cwnd keeps 15 % of inflight_longterm free
/// (headroom); the next UP stops when in flight reaches inflight_longterm (precautionary
/// deceleration) and, its feedback over a round later, goes straight back to REFILL
/// (precautionary acceleration) instead of waiting 2–3 s.
#[test]
fn headroom_in_cruise_and_precautionary_probing() {
    let mut d = Drive::new(3);
    let now = d.fill_pipe();
    d.at(now + 1, ack(12.5e6, false, 60_000));
    let t = cruise_until_refill(&mut d, now + 1);
    d.at(t + 40, ack(12.5e6, true, 60_000));
    d.at(t + 42, Ack { lost: 2100, newly: 2100, tx: 70_000, ..ack(12.5e6, false, 70_000) });
    assert_eq!(d.b.state, State::ProbeBwDown);
    let lt = d.b.inflight_longterm;
    // DOWN → CRUISE once in flight is under the headroom and the BDP
    d.at(t + 43, ack(12.5e6, false, 50_000));
    assert_eq!(d.b.state, State::ProbeBwCruise);
    assert!((d.b.cwnd as f64 - (lt - 0.15 * lt)).abs() <= 1.0, "{} vs {}", d.b.cwnd, lt);
    // the next probe: REFILL, UP, then in flight at inflight_longterm: DOWN, precautionary
    d.rtt_ms = 39; // a new min RTT: no ProbeRTT in the way
    let t = cruise_until_refill(&mut d, t + 43);
    d.at(t + 40, ack(12.5e6, true, 50_000));
    assert_eq!(d.b.state, State::ProbeBwUp);
    d.at(t + 41, ack(12.5e6, false, d.b.inflight_longterm as u32));
    assert_eq!(d.b.state, State::ProbeBwDown);
    assert!(d.b.prev_probe_precautionary && !d.b.prev_probe_too_high);
    // the round that ends the probe's feedback: REFILL at once
    d.at(t + 81, ack(12.5e6, true, 50_000));
    assert_eq!(d.b.state, State::ProbeBwRefill);
}

/// ProbeRTT before the pipe was ever full returns to Startup.
#[test]
fn probe_rtt_from_startup_returns_to_startup() {
    let mut d = Drive::new(1);
    d.at(40, ack(1e6, true, 10_000));
    d.rtt_ms = 45;
    let mut t = 40;
    // app-limited samples: the pipe is never judged full
    while d.b.state != State::ProbeRtt {
        t += 40;
        d.at(t, Ack { app_limited: true, ..ack(1e6, true, 4_000) });
        assert!(t < 6_000);
    }
    d.at(t + 1, ack(1e6, false, 4_000));
    d.at(t + 202, ack(1e6, true, 4_000));
    assert_eq!(d.states(), vec![State::Startup, State::ProbeRtt, State::Startup]);
    assert_eq!(d.b.pacing_gain, STARTUP_PACING_GAIN);
}
