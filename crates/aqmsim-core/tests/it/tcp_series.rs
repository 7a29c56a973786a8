//! The TCP state series (`monitor.tcp_flows`): what it logs is what the senders hold, at
//! every instant, and its transitions are ns-2's window rules.

use crate::common::dumbbell;
use aqmsim_core::monitor::tcp::TcpLog;
use aqmsim_core::monitor::TcpState;
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::{Agent, Simulation};
use aqmsim_core::time::SimTime;

fn traced(variant: &str, seed: u64) -> Simulation {
    let sc = dumbbell(4, r#"{ kind = "droptail", limit = 8 }"#, 20.0, &format!("window = 40\nvariant = \"{variant}\""))
        + "\n[monitor]\ntcp_flows = \"all\"\n";
    let sc = sc.replacen("variant = \"reno\"\n", "", 1);
    Simulation::new(build(&from_toml(&sc).unwrap(), seed).unwrap())
}

/// The last row logged for `flow`, if any.
fn last_row(log: &TcpLog, flow: u32) -> Option<usize> {
    log.flow.iter().rposition(|&f| f == flow)
}

#[test]
fn the_series_is_the_senders_state_at_every_instant() {
    for variant in ["tahoe", "reno", "newreno", "sack"] {
        let mut sim = traced(variant, 3);
        let mut checked = 0;
        for k in 1..=2000 {
            sim.run_until(SimTime::from_secs(k as f64 * 0.01));
            for (fi, f) in sim.flows.iter().enumerate() {
                let Agent::Tcp { snd, .. } = &f.agent else { unreachable!() };
                let Some(i) = last_row(&sim.tcp_log, fi as u32) else { continue };
                let s = snd.snapshot();
                let l = &sim.tcp_log;
                let row = (l.cwnd[i], l.ssthresh[i], l.srtt[i], l.rttvar[i], l.rto[i], l.outstanding[i], l.state[i]);
                assert_eq!(row, (s.cwnd, s.ssthresh, s.srtt, s.rttvar, s.rto, s.outstanding, s.state as u8), "{variant} flow {fi} at step {k}");
                checked += 1;
            }
        }
        assert!(checked > 4000, "{variant}: {checked}");
        let r = sim.finish();
        // the RTT samples: one per timed packet, each at least the path's propagation RTT
        assert!(!r.rtt.rtt.is_empty() && r.rtt.rtt.iter().all(|&x| x >= 2.0 * (0.020 + 0.001 + 0.001)), "{variant}");
    }
}

/// ns-2's window rules, read off the series: cwnd ≥ 1; entering fast recovery halves the
/// window (ssthresh = max(2, ⌊min(cwnd, window)/2⌋), Reno/NewReno cwnd = min(cwnd, window)/2);
/// a timeout (or a further backoff) restarts cwnd at 1. Returns (halvings, timeouts).
fn check_window_rules(l: &TcpLog, variant: &str, window: f64) -> (u32, u32) {
    let (mut halvings, mut timeouts) = (0, 0);
    for i in 0..l.t.len() {
        // ns-2 halves the window on a fast retransmit without a floor (tcp.cc, slowdown():
        // CLOSE_CWND_HALF sets cwnd_ = windowd() / 2), so three duplicate ACKs right after
        // a timeout (cwnd 1) give 0.5; a window under 1 sends nothing until the next timeout
        // sets it to 1 again, so it is never halved twice.
        assert!(l.cwnd[i] >= 0.5 && l.ssthresh[i] >= 2 && l.outstanding[i] >= 0, "{variant} row {i}");
        let Some(p) = l.flow[..i].iter().rposition(|&f| f == l.flow[i]) else { continue };
        let (was, now) = (l.state[p], l.state[i]);
        let half = l.cwnd[p].min(window) / 2.0;
        if now == TcpState::FastRecovery as u8 && was != now {
            halvings += 1;
            assert_eq!(l.ssthresh[i], (half as i32).max(2), "{variant} row {i}: ssthresh after a fast retransmit");
            if variant != "sack" {
                assert_eq!(l.cwnd[i], half, "{variant} row {i}: cwnd after a fast retransmit");
            }
        }
        if now == TcpState::Timeout as u8 && (was != now || l.rto[i] > l.rto[p]) {
            timeouts += 1;
            assert_eq!(l.cwnd[i], 1.0, "{variant} row {i}: cwnd after a timeout");
        }
    }
    (halvings, timeouts)
}

#[test]
fn fast_retransmit_halves_and_a_timeout_restarts_at_one() {
    for variant in ["reno", "newreno", "sack", "tahoe"] {
        let r = traced(variant, 5).run();
        let (halvings, timeouts) = check_window_rules(&r.tcp, variant, 40.0);
        assert!(timeouts > 0, "{variant}: no timeout seen");
        if variant != "tahoe" {
            assert!(halvings > 0, "{variant}: no fast retransmit seen");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]
    /// The same rules on random dumbbells: variant, flows, buffer, window, rates, delays,
    /// delayed ACKs, seed.
    #[test]
    fn window_rules_hold_on_random_scenarios(
        v in 0usize..4, n in 1u32..8, limit in 3u32..40, window in 4u32..80,
        bneck_kb in 200u32..5000, delay_ms in 1u32..80, delack: bool, seed in 0u64..1000,
    ) {
        let variant = ["tahoe", "reno", "newreno", "sack"][v];
        let sc = format!(
            r#"
duration = 15
[tcp]
variant = "{variant}"
window = {window}
delayed_ack = {delack}
[dumbbell.bottleneck]
rate = "{bneck_kb}Kb"
delay = "{delay_ms}ms"
queue = {{ kind = "droptail", limit = {limit} }}
[[dumbbell.groups]]
count = {n}
access = {{ rate = "10Mb", delay = {{ uniform = ["1ms", "5ms"] }} }}
start = {{ uniform = [0, 1] }}
[monitor]
tcp_flows = "all"
"#
        );
        let r = crate::common::run(&sc, seed);
        proptest::prop_assert!(!r.tcp.t.is_empty());
        check_window_rules(&r.tcp, variant, window as f64);
    }
}

#[test]
fn a_periodic_series_has_one_row_per_flow_per_interval() {
    let sc = dumbbell(3, r#"{ kind = "droptail", limit = 8 }"#, 5.0, "") + "\n[monitor]\ntcp_flows = [0, 2]\ntcp_interval = \"100ms\"\n";
    let r = crate::common::run(&sc, 1);
    // t = 0, 0.1, …, 4.9 for flows 0 and 2 (the run ends at 5 s before anything else at
    // that instant, as ns-2's finish does)
    assert_eq!(r.tcp.t.len(), 2 * 50);
    assert!(r.tcp.flow.iter().all(|&f| f == 0 || f == 2));
}
