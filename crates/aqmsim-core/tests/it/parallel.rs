//! A run on two threads (`sim/parallel.rs`) must give the results of the same run on one,
//! bit for bit: every table of every scenario here is compared whole, events count
//! included, and the split is checked to have run (not fallen back to one thread).

use aqmsim_core::scenario::{build::build, from_toml, Model};
use aqmsim_core::sim::{run_model_threads, run_on_two_threads, RunResults, Simulation};

fn model(toml: &str, seed: u64) -> Model {
    build(&from_toml(toml).expect("scenario parses"), seed).expect("scenario builds")
}

/// Every output of a run, as text (f64s in their shortest exact form).
fn everything(r: &RunResults) -> Vec<(&'static str, String)> {
    vec![
        ("summary", format!("{:?}", r.summary)),
        ("queue", format!("{:?}", r.queue)),
        ("drops", format!("{:?}", (&r.drops.t, &r.drops.link, &r.drops.flow, &r.drops.reason, &r.drops.action, &r.drops.qlen))),
        ("tcp", format!("{:?}", r.tcp)),
        ("rtt", format!("{:?}", r.rtt)),
        ("phases", format!("{:?}", r.phases)),
        ("delay_cdf", format!("{:?}", r.delay_cdf)),
        ("flows", format!("{:?}", r.flows)),
        ("links", format!("{:?}", r.links)),
    ]
}

fn assert_same(one: &RunResults, two: &RunResults, what: &str) {
    for ((name, a), (_, b)) in everything(one).into_iter().zip(everything(two)) {
        assert!(a == b, "{what}: the {name} table differs on two threads");
    }
}

/// The scenario on one thread and on two; panics if it cannot split.
fn check(toml: &str, seeds: &[u64], what: &str) -> RunResults {
    let mut last = None;
    for &seed in seeds {
        let one = Simulation::new(model(toml, seed)).try_run().expect("runs");
        let two = run_on_two_threads(model(toml, seed)).unwrap_or_else(|| panic!("{what}: should run on two threads")).expect("runs");
        assert_same(&one, &two, &format!("{what}, seed {seed}"));
        last = Some(two);
    }
    last.expect("a seed")
}

fn dumbbell(queue: &str, groups: &str, duration: f64, extra: &str) -> String {
    format!(
        r#"
duration = {duration}
[tcp]
stack = "linux"
[dumbbell.bottleneck]
rate = "10Mb"
delay = "10ms"
queue = {queue}
{groups}
{extra}
"#
    )
}

fn group(count: u32, tcp: &str, access_delay: &str) -> String {
    format!(
        r#"
[[dumbbell.groups]]
count = {count}
access = {{ rate = "100Mb", delay = {access_delay} }}
egress = {{ rate = "100Mb", delay = "1ms" }}
start = {{ uniform = [0, 1] }}
tcp = {tcp}
"#
    )
}

const MONITOR: &str = r#"
[monitor]
queues = ["R1->R2"]
sample_interval = 0.05
link_interval = 0.5
delays = true
tcp_flows = [0, 3]
"#;

#[test]
fn bbr_under_codel_is_the_same_on_two_threads() {
    let sc = dumbbell(r#"{ kind = "codel" }"#, &group(10, r#"{ variant = "bbr" }"#, r#"{ uniform = ["1ms", "20ms"] }"#), 20.0, MONITOR);
    let r = check(&sc, &[1, 2], "BBR, CoDel");
    assert!(!r.tcp.t.is_empty() && !r.drops.t.is_empty() && !r.phases.t.is_empty());
}

#[test]
fn cubic_with_ecn_in_two_rtt_groups_under_fq_codel() {
    let groups = group(4, r#"{ variant = "cubic", ecn = true }"#, r#""5ms""#) + &group(4, r#"{ variant = "cubic", ecn = true }"#, r#""35ms""#);
    let sc = dumbbell(r#"{ kind = "fq_codel", ecn = true }"#, &groups, 20.0, &MONITOR.replace("tcp_flows = [0, 3]", "tcp_flows = [0, 5]\ntcp_interval = 0.1"));
    let r = check(&sc, &[1, 3], "CUBIC, FQ-CoDel, ECN");
    assert!(r.summary.get("marks").unwrap() > 0.0);
}

#[test]
fn dctcp_with_delayed_acks_a_ce_threshold_and_a_device_queue() {
    let groups = group(6, r#"{ variant = "dctcp", ecn = true, delayed_ack = true }"#, r#"{ uniform = ["1ms", "10ms"] }"#);
    let sc = dumbbell(r#"{ kind = "ecn_threshold", threshold = 20, limit = 200, device_queue = 1 }"#, &groups, 15.0, "");
    let r = check(&sc, &[1], "DCTCP");
    assert!(r.summary.get("marks").unwrap() > 0.0);
}

#[test]
fn rack_newreno_with_random_red_beside_cbr_and_onoff_sources() {
    let mut groups = group(5, r#"{ variant = "newreno", loss_detection = "rack" }"#, r#"{ uniform = ["1ms", "20ms"] }"#);
    groups += r#"
[[dumbbell.groups]]
count = 2
app = "cbr"
cbr = { rate = "1Mb", packet_size = 500 }
access = { rate = "100Mb", delay = "3ms" }
start = { uniform = [0, 1] }
[[dumbbell.groups]]
count = 2
app = "onoff"
onoff = { rate = "2Mb", packet_size = 1000, on = { exponential = "0.5s" }, off = { exponential = "0.5s" } }
access = { rate = "100Mb", delay = "2ms" }
"#;
    let sc = dumbbell(r#"{ kind = "red", limit = 100, min_th = 5, max_th = 15, bytes = true }"#, &groups, 20.0, MONITOR);
    check(&sc, &[1, 2], "RACK NewReno, RED, CBR, on/off");
}

#[test]
fn bbr3_under_pie_and_ledbat_under_cake() {
    let sc = dumbbell(r#"{ kind = "pie" }"#, &group(6, r#"{ variant = "bbr3" }"#, r#"{ uniform = ["1ms", "20ms"] }"#), 15.0, MONITOR);
    check(&sc, &[1], "BBR v3, PIE");
    let groups = group(3, r#"{ variant = "ledbat" }"#, r#""5ms""#) + &group(3, r#"{ variant = "cubic" }"#, r#""5ms""#);
    let sc = dumbbell(r#"{ kind = "cake" }"#, &groups, 15.0, "");
    check(&sc, &[1], "LEDBAT and CUBIC, CAKE");
}

#[test]
fn prague_and_cubic_under_dualpi2_with_a_rate_schedule() {
    let groups = group(2, r#"{ variant = "prague" }"#, r#""5ms""#) + &group(2, r#"{ variant = "cubic", ecn = true }"#, r#""5ms""#);
    let sc = dumbbell(r#"{ kind = "dualpi2" }"#, &groups, 15.0, MONITOR)
        .replace("delay = \"10ms\"\n", "delay = \"10ms\"\nrate_schedule = [[\"0s\", \"10Mb\"], [\"5s\", \"4Mb\"], [\"10s\", \"20Mb\"]]\n");
    check(&sc, &[1], "Prague and CUBIC, DualPI2, rate schedule");
}

#[test]
fn many_runs_on_two_threads_agree_whatever_the_threads_timing() {
    // BBR v3's start-up overruns the access links' buffers too: both sides log drops, which
    // are merged in the order of their events (a race there once lost two rows in 40 runs)
    let sc = dumbbell(r#"{ kind = "pie" }"#, &group(6, r#"{ variant = "bbr3" }"#, r#"{ uniform = ["1ms", "20ms"] }"#), 15.0, MONITOR);
    let m = model(&sc, 1);
    let one = Simulation::new(m.clone()).try_run().expect("runs");
    assert!(one.drops.link.iter().any(|&l| one.link_names[l as usize].starts_with('S')), "drops at an access link");
    let one = everything(&one);
    for i in 0..30 {
        let two = everything(&run_on_two_threads(m.clone()).expect("splits").expect("runs"));
        for ((name, a), (_, b)) in one.iter().zip(&two) {
            assert!(a == b, "run {i}: the {name} table differs on two threads");
        }
    }
}

#[test]
fn a_limit_reached_runs_again_on_one_thread() {
    let capped = dumbbell(r#"{ kind = "codel" }"#, &group(5, r#"{ variant = "bbr" }"#, r#""1ms""#), 10.0, "").replace("duration = 10", "duration = 10\nmax_events = 20000");
    assert!(run_on_two_threads(model(&capped, 1)).is_none(), "the split stops at the limit");
    let e1 = Simulation::new(model(&capped, 1)).try_run().err().expect("over max_events").to_string();
    let e2 = run_model_threads(model(&capped, 1), None, Some(2)).err().expect("over max_events").to_string();
    assert_eq!(e1, e2);
    assert!(e1.starts_with("max_events: "), "{e1}");
}

#[test]
fn who_runs_on_two_threads() {
    let linux = dumbbell(r#"{ kind = "codel" }"#, &group(2, r#"{ variant = "cubic" }"#, r#""1ms""#), 100.0, "");
    let plan = Simulation::new(model(&linux, 1)).parallel_plan().expect("a linux dumbbell splits");
    // 1 ms plus the 40-byte ACK at 100 Mb/s (3.2 µs) each way
    assert_eq!((plan.to_network.0, plan.to_senders.0), (1_003_200, 1_003_200));
    // worth a second thread: paced senders and enough packets; not CUBIC unpaced, nor a run
    // too small (20 s at 10 Mb/s: 17 000 packets)
    let paced = linux.replace(r#"{ variant = "cubic" }"#, r#"{ variant = "bbr" }"#);
    assert!(Simulation::new(model(&paced, 1)).parallel_pays());
    assert!(!Simulation::new(model(&linux, 1)).parallel_pays());
    assert!(!Simulation::new(model(&paced.replace("duration = 100", "duration = 20"), 1)).parallel_pays());
    // the ns-2 stack keeps ns-2's single order of events
    let ns2 = linux.replace("stack = \"linux\"", "stack = \"ns2\"").replace(r#"{ variant = "cubic" }"#, r#"{ variant = "sack" }"#);
    assert!(Simulation::new(model(&ns2, 1)).parallel_plan().is_none());
    // a monitor on the senders' side, a packet trace, an access link of no delay: no
    let watched = linux.clone() + "\n[monitor]\nqueues = [\"S0->R1\"]\n";
    assert!(Simulation::new(model(&watched, 1)).parallel_plan().is_none());
    let traced = linux.clone() + "\n[trace]\npath = \"/dev/null\"\n";
    assert!(Simulation::new(model(&traced, 1)).parallel_plan().is_none());
    let instant = linux.replace(r#"delay = "1ms" }"#, r#"delay = "0ms" }"#);
    assert!(Simulation::new(model(&instant, 1)).parallel_plan().is_none());
}
