//! TCP on a tiny deterministic topology: one flow, no random delays.
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::{Agent, Simulation};
use aqmsim_core::time::SimTime;

fn one_flow(bneck: &str, limit: u32, window: u32) -> Simulation {
    let sc = format!(
        r#"
duration = 20
[tcp]
variant = "reno"
window = {window}
[dumbbell.bottleneck]
rate = "{bneck}"
delay = "10ms"
queue = {{ kind = "droptail", limit = {limit} }}
[[dumbbell.groups]]
access = {{ rate = "100Mb", delay = "1ms" }}
egress = {{ rate = "100Mb", delay = "1ms" }}
"#
    );
    Simulation::new(build(&from_toml(&sc).unwrap(), 1).unwrap())
}

fn cwnd(sim: &Simulation) -> f64 {
    match &sim.flows[0].agent {
        Agent::Tcp { snd, .. } => snd.cwnd,
        _ => unreachable!(),
    }
}

#[test]
fn slow_start_doubles_the_window_every_rtt() {
    // RTT ≈ 2·(1 + 10 + 1) ms + serialisation ≈ 24.3 ms; the SYN's ACK returns at ≈ 1 RTT.
    let mut sim = one_flow("100Mb", 1000, 10_000);
    let rtt = 0.0245;
    let mut seen = Vec::new();
    for k in 1..=7 {
        sim.run_until(SimTime::from_secs(k as f64 * rtt + rtt / 2.0));
        seen.push(cwnd(&sim));
    }
    // After the SYN is acked the window is windowInit = 2, then doubles every RTT.
    assert_eq!(seen, vec![2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]);
}

#[test]
fn window_is_capped_by_the_advertised_window() {
    let r = one_flow("100Mb", 1000, 20).run();
    // 20 packets per ~24 ms RTT ≈ 6.9 Mb/s, far below the 100 Mb/s link.
    let thr = r.summary.get("throughput_bps").unwrap();
    assert!(thr > 5e6 && thr < 8e6, "throughput {thr}");
}

#[test]
fn a_congested_reno_flow_recovers_by_fast_retransmit() {
    // 1.5 Mb/s bottleneck with a 10-packet buffer and a large window: losses happen, and
    // Reno repairs (most of) them without a timeout.
    let sim = one_flow("1.5Mb", 10, 1000);
    let r = sim.run();
    let f = &r.flows;
    assert!(f.retransmitted[0] > 0);
    let s = &r.summary;
    assert!(s.get("utilisation").unwrap() > 0.85, "utilisation {:?}", s.get("utilisation"));
}

/// One flow over a 10 Mb/s, 10 ms bottleneck with a large buffer; `drops` are lost on the
/// bottleneck (first transmissions only), so every loss pattern is exact.
fn lossy(variant: &str, drops: &[i32], window: u32, queue: &str, ecn: bool) -> Simulation {
    let seqs: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    let sc = format!(
        r#"
duration = 10
[tcp]
variant = "{variant}"
window = {window}
ecn = {ecn}
[dumbbell.bottleneck]
rate = "10Mb"
delay = "10ms"
queue = {queue}
drop_seqs = [{}]
[[dumbbell.groups]]
access = {{ rate = "100Mb", delay = "1ms" }}
egress = {{ rate = "100Mb", delay = "1ms" }}
"#,
        seqs.join(", ")
    );
    Simulation::new(build(&from_toml(&sc).unwrap(), 1).unwrap())
}

const BIG: &str = r#"{ kind = "droptail", limit = 10000 }"#;

fn snd(sim: &Simulation) -> &aqmsim_core::tcp::TcpSender {
    match &sim.flows[0].agent {
        Agent::Tcp { snd, .. } => snd,
        _ => unreachable!(),
    }
}

/// Step in 100 µs increments until `pred` first holds; returns (state before, state after).
fn step_until(sim: &mut Simulation, pred: impl Fn(&aqmsim_core::tcp::TcpSender) -> bool) -> (f64, f64, i32) {
    let mut t = 0.0;
    let mut before = snd(sim).cwnd;
    while t < 10.0 {
        t += 1e-4;
        sim.run_until(SimTime::from_secs(t));
        let s = snd(sim);
        if pred(s) {
            return (before, s.cwnd, s.ssthresh);
        }
        before = s.cwnd;
    }
    panic!("condition never held");
}

#[test]
fn three_dupacks_trigger_fast_retransmit_and_halve_the_window() {
    let mut sim = lossy("reno", &[60], 1000, BIG, false);
    let (before, after, ssthresh) = step_until(&mut sim, |s| s.stats.fast_retransmits == 1);
    assert_eq!(after, before / 2.0, "cwnd halves on fast retransmit");
    assert_eq!(ssthresh, (before / 2.0) as i32);
    let r = sim.run();
    assert_eq!(r.flows.timeouts[0], 0);
    assert_eq!(r.flows.retransmitted[0], 1);
}

#[test]
fn a_timeout_resets_the_window_to_one_and_backs_off_the_rto() {
    // Lose both packets of the initial window: no ACK comes back, only the timer helps.
    let mut sim = lossy("reno", &[1, 2], 1000, BIG, false);
    let (_, after, ssthresh) = step_until(&mut sim, |s| s.stats.timeouts == 1);
    assert_eq!(after, 1.0);
    assert_eq!(ssthresh, 2);
    assert_eq!(snd(&sim).rtt.backoff_factor(), 2, "RTO backed off");
    let r = sim.run();
    assert_eq!(r.flows.timeouts[0], 1);
    assert_eq!(r.flows.retransmitted[0], 2);
    assert!(r.flows.delivered[0] > 1000, "the flow recovered");
}

#[test]
fn newreno_recovers_two_losses_in_one_window_without_timeout() {
    let r = lossy("newreno", &[60, 63], 1000, BIG, false).run();
    assert_eq!((r.flows.timeouts[0], r.flows.retransmitted[0]), (0, 2));
    // Reno, by contrast, leaves recovery on the partial ACK and needs the timer.
    let reno = lossy("reno", &[60, 63], 1000, BIG, false).run();
    assert_eq!(reno.flows.timeouts[0], 1);
}

#[test]
fn sack_recovers_three_losses_in_one_window_without_timeout() {
    let r = lossy("sack", &[60, 63, 66], 1000, BIG, false).run();
    assert_eq!((r.flows.timeouts[0], r.flows.retransmitted[0]), (0, 3));
    let mut sim = lossy("sack", &[60, 63, 66], 1000, BIG, false);
    let (before, after, _) = step_until(&mut sim, |s| s.stats.fast_retransmits == 1);
    assert_eq!(after, before / 2.0);
}

#[test]
fn an_ecn_echo_halves_the_window_without_a_loss() {
    // RED marking every ECN-capable arrival once 6 packets wait (w_q = 1: avg = q).
    let red = r#"{ kind = "red", limit = 10000, min_th = 5, max_th = 6, max_p = 1.0, mark_p = 2.0, w_q = 1.0, gentle = false, wait = false, ecn = true, bytes = false, queue_in_bytes = false }"#;
    let mut sim = lossy("reno", &[], 1000, red, true);
    let (before, after, _) = step_until(&mut sim, |s| s.stats.ecn_responses == 1);
    assert!(after <= before / 2.0 + 1e-9 && after >= (before - 1.0) / 2.0, "{before} -> {after}");
    let r = sim.run();
    assert_eq!(r.summary.get("bottleneck_drops").unwrap(), 0.0, "no packet lost");
    assert!(r.summary.get("marks").unwrap() > 0.0);
    assert_eq!(r.flows.retransmitted[0], 0);
}
