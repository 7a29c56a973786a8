//! Cut-through (packets crossing a single-input hop without an event) must not change a
//! result: every scenario here runs with it on and off and every output is compared.
//! The skipped hop's event numbers are taken "as of" the time the packet reaches the hop
//! (`Scheduler::reserve_as_of`), so events at the same nanosecond keep ns-2's order; the
//! equal-delay, commensurate-rate case below is full of such ties.

use crate::common::*;
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::{RunResults, Simulation};

fn run_both(toml: &str, seed: u64) -> (RunResults, RunResults, u64, u64) {
    let (on, off, eon, eoff, _) = run_both_counting(toml, seed);
    (on, off, eon, eoff)
}

/// `run_both`, and the merge decisions that waited (and became events) with cut-through on.
fn run_both_counting(toml: &str, seed: u64) -> (RunResults, RunResults, u64, u64, (u64, u64)) {
    let spec = from_toml(toml).expect("scenario parses");
    let mut on = Simulation::new(build(&spec, seed).unwrap());
    let mut off = Simulation::new(build(&spec, seed).unwrap());
    off.set_cut_through(false);
    on.run_until(aqmsim_core::time::SimTime::from_secs(1e9));
    off.run_until(aqmsim_core::time::SimTime::from_secs(1e9));
    let (eon, eoff) = (on.events(), off.events());
    assert_eq!(off.merge_decisions(), (0, 0), "no merge decision waits without cut-through");
    let waited = on.merge_decisions();
    (on.finish(), off.finish(), eon, eoff, waited)
}

fn assert_same(a: &RunResults, b: &RunResults, what: &str) {
    let strip = |r: &RunResults| r.summary.items.iter().filter(|(k, _)| k != "events").map(|(k, v)| (k.clone(), v.to_bits())).collect::<Vec<_>>();
    assert_eq!(strip(a), strip(b), "summary, {what}");
    assert_eq!(a.flows.sent, b.flows.sent, "sent, {what}");
    assert_eq!(a.flows.received, b.flows.received, "received, {what}");
    assert_eq!(a.flows.timeouts, b.flows.timeouts, "timeouts, {what}");
    assert_eq!(a.flows.mean_delay_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b.flows.mean_delay_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), "delays, {what}");
    assert_eq!((&a.drops.t, &a.drops.link, &a.drops.flow), (&b.drops.t, &b.drops.link, &b.drops.flow), "drop log, {what}");
    assert_eq!(a.queue.len_pkts, b.queue.len_pkts, "queue samples, {what}");
}

#[test]
fn dumbbells_give_identical_results_with_fewer_events() {
    let cases = [
        dumbbell(6, red_packet_mode(), 20.0, ""),
        dumbbell(6, r#"{ kind = "droptail", limit = 20 }"#, 20.0, "").replace(r#"variant = "reno""#, r#"variant = "sack""#),
        dumbbell(4, r#"{ kind = "red", limit = 60, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, ecn = true }"#, 20.0, "ecn = true"),
        dumbbell(3, red_packet_mode(), 10.0, "delayed_ack = true"),
    ];
    for (i, sc) in cases.iter().enumerate() {
        for seed in [1, 2] {
            let (on, off, eon, eoff) = run_both(sc, seed);
            assert_same(&on, &off, &format!("case {i} seed {seed}"));
            assert!(eon < eoff * 9 / 10, "case {i}: cut-through should save events ({eon} vs {eoff})");
        }
    }
}

#[test]
fn a_slow_egress_that_queues_and_drops_falls_back_exactly() {
    // Egress (2 Mb/s, 5-packet buffer) slower than the bottleneck (10 Mb/s) it is fed by:
    // packets must often wait there, so most cannot cut through and some are dropped there.
    let sc = r#"
duration = 15
[tcp]
variant = "newreno"
window = 40
[dumbbell.bottleneck]
rate = "10Mb"
delay = "5ms"
queue = { kind = "droptail", limit = 100 }
[[dumbbell.groups]]
count = 2
access = { rate = "100Mb", delay = { uniform = ["1ms", "3ms"] } }
egress = { rate = "2Mb", delay = "2ms", queue = { kind = "droptail", limit = 5 } }
start = { uniform = [0, 1] }
"#;
    for seed in [1, 2, 3] {
        let (on, off, _, _) = run_both(sc, seed);
        assert_same(&on, &off, &format!("seed {seed}"));
        assert!(on.drops.link.iter().any(|&l| on.link_names[l as usize].starts_with("R2->")), "drops at the egress");
    }
}

#[test]
fn one_way_cbr_and_tcp_mixed() {
    let sc = r#"
duration = 10
[tcp]
variant = "reno"
[dumbbell.bottleneck]
rate = "2Mb"
delay = "10ms"
queue = { kind = "red", limit = 40, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002 }
[[dumbbell.groups]]
count = 3
access = { rate = "10Mb", delay = "2ms" }
egress = { rate = "10Mb", delay = "2ms" }
start = { uniform = [0, 1] }
[[dumbbell.groups]]
name = "cbr"
count = 1
app = "cbr"
cbr = { rate = "0.5Mb", packet_size = 500 }
access = { rate = "10Mb", delay = "2ms" }
egress = { rate = "10Mb", delay = "2ms" }
"#;
    let (on, off, eon, eoff) = run_both(sc, 1);
    assert_same(&on, &off, "cbr + tcp");
    assert!(eon < eoff);
}

#[test]
fn equal_delays_and_rates_full_of_ties() {
    // Like the 1 Gb/s benchmark: every delay and serialisation time is a multiple of
    // 320 ns, so many events fall on the same nanosecond. Cut-through must keep their order.
    let sc = r#"
duration = 4
[tcp]
variant = "reno"
packet_size = 1000
window = 100
[dumbbell.bottleneck]
rate = "1Gb"
delay = "10ms"
queue = { kind = "red", limit = 300, min_th = 30, max_th = 90, max_p = 0.1, w_q = 0.002, gentle = false, bytes = false, queue_in_bytes = false }
[[dumbbell.groups]]
count = 30
access = { rate = "100Mb", delay = "1ms", queue = { kind = "droptail", limit = 1000 } }
egress = { rate = "100Mb", delay = "1ms", queue = { kind = "droptail", limit = 1000 } }
start = { uniform = [0, 1] }
"#;
    for seed in [1, 2] {
        let (on, off, eon, eoff) = run_both(sc, seed);
        assert_same(&on, &off, &format!("seed {seed}"));
        assert!(eon < eoff * 9 / 10, "cut-through should save events ({eon} vs {eoff})");
    }
}

#[test]
fn merges_two_way_traffic_and_shared_hosts() {
    // Data both ways over an unmonitored DropTail bottleneck (so both of its directions
    // are merges that packets may cut through), feeders of different delays and rates,
    // a node with two agents, and a CBR source among the TCP flows.
    let sc = r#"
duration = 12
nodes = ["a0", "a1", "a2", "r1", "r2", "b0", "b1", "b2"]
[tcp]
variant = "newreno"
window = 30
[monitor]
queues = ["a0->r1"]
[[links]]
from = "a0"
to = "r1"
rate = "20Mb"
delay = "1ms"
[[links]]
from = "a1"
to = "r1"
rate = "10Mb"
delay = "3ms"
[[links]]
from = "a2"
to = "r1"
rate = "20Mb"
delay = "1ms"
[[links]]
from = "r1"
to = "r2"
rate = "5Mb"
delay = "8ms"
queue = { kind = "droptail", limit = 25 }
reverse_queue = { kind = "droptail", limit = 25 }
[[links]]
from = "r2"
to = "b0"
rate = "20Mb"
delay = "1ms"
[[links]]
from = "r2"
to = "b1"
rate = "10Mb"
delay = "2ms"
[[links]]
from = "r2"
to = "b2"
rate = "20Mb"
delay = "1ms"
[[flows]]
src = "a0"
dst = "b0"
start = { uniform = [0, 1] }
[[flows]]
src = "b1"
dst = "a1"
start = { uniform = [0, 1] }
[[flows]]
src = "a0"
dst = "b2"
start = { uniform = [0, 1] }
[[flows]]
src = "b2"
dst = "a2"
start = { uniform = [0, 1] }
[[flows]]
src = "b0"
dst = "a2"
app = "cbr"
cbr = { rate = "1Mb", packet_size = 200 }
start = { uniform = [0, 1] }
"#;
    for seed in [1, 2, 3] {
        let (on, off, eon, eoff, (waited, undone)) = run_both_counting(sc, seed);
        assert_same(&on, &off, &format!("seed {seed}"));
        assert!(eon < eoff, "shortcuts should save events ({eon} vs {eoff})");
        // data packets (longer than the smallest packet) wait at both merges, and packets
        // of other flows often head there meanwhile
        assert!(waited > 1000 && undone > 100, "seed {seed}: {waited} waited, {undone} became events");
    }
}

#[test]
fn merge_decisions_that_wait_change_nothing() {
    // Linux-stack senders (timestamps: every ACK is longer than the smallest packet, so none
    // reaches the reverse bottleneck within the lookahead) with SACK, losses and delayed
    // ACKs: the ACKs' decisions at the reverse bottleneck wait. With equal egress links no
    // other ACK can overtake one, and nearly every decision waits and is taken later. With
    // the second group's egress shorter by one data packet's transmission at the
    // bottleneck (416 µs) less 0.5 µs, the second group's ACKs can overtake the first's:
    // a waiting decision becomes the event it would have been when another ACK heads for
    // the reverse bottleneck first. Either way the run is the event-by-event run.
    for (variant, flows, extra) in [("bbr", 6, ""), ("cubic", 10, "delayed_ack = true"), ("dctcp", 4, "ecn = true")] {
        let queue = if variant == "dctcp" {
            r#"{ kind = "codel", limit = 200, target = "1ms", ce_threshold = "1ms", ecn = true }"#
        } else {
            r#"{ kind = "codel", limit = 60 }"#
        };
        let group = |egress: &str| {
            format!(
                r#"
[[dumbbell.groups]]
count = {flows}
access = {{ rate = "100Mb", delay = "1ms" }}
egress = {{ rate = "100Mb", delay = "{egress}" }}
start = {{ uniform = [0, 0.5] }}
"#
            )
        };
        for overtaking in [false, true] {
            let sc = format!(
                r#"
duration = 6
[tcp]
stack = "linux"
variant = "{variant}"
window = 200
{extra}
[dumbbell.bottleneck]
rate = "20Mb"
delay = "5ms"
queue = {queue}
{}{}"#,
                group("2ms"),
                group(if overtaking { "1.5845ms" } else { "2ms" })
            );
            for seed in [1, 2] {
                let (on, off, eon, eoff, (waited, undone)) = run_both_counting(&sc, seed);
                let what = format!("{variant}, overtaking {overtaking}, seed {seed}: {waited} decisions waited, {undone} became events");
                assert_same(&on, &off, &what);
                assert!(eon < eoff, "{what}: {eon} vs {eoff} events");
                if overtaking {
                    assert!(undone > 10 && undone < waited, "{what}");
                } else {
                    assert!(waited > 5000 && undone == 0, "{what}");
                }
            }
        }
    }
}
