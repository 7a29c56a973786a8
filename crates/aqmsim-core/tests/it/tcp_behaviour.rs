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
