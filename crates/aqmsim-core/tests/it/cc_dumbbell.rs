//! CUBIC and DCTCP through the whole engine (scenario → build → Simulation), and their
//! scenario fields.

use crate::common::run;
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::RunResults;

/// A 10 Mb/s, 20 ms dumbbell; `groups` are the `[[dumbbell.groups]]` tables.
fn dumbbell(queue: &str, top_tcp: &str, groups: &str, duration: f64) -> String {
    format!(
        r#"
name = "cc dumbbell"
duration = {duration}
seed = 1
[tcp]
window = 500
{top_tcp}
[dumbbell.bottleneck]
rate = "10Mb"
delay = "20ms"
queue = {queue}
{groups}
"#
    )
}

fn group(count: u32, tcp: &str) -> String {
    format!(
        r#"
[[dumbbell.groups]]
count = {count}
access = {{ rate = "100Mb", delay = {{ uniform = ["1ms", "5ms"] }} }}
egress = {{ rate = "100Mb", delay = "1ms" }}
start = {{ uniform = [0, 1] }}
tcp = {tcp}
"#
    )
}

fn conservation(r: &RunResults) {
    let s = &r.summary;
    let g = |k: &str| s.get(k).unwrap();
    assert_eq!(g("bottleneck_arrivals"), g("bottleneck_departures") + g("bottleneck_drops") + g("bottleneck_queued_end"));
    let sum = |v: &Vec<u64>| v.iter().sum::<u64>() as f64;
    assert_eq!(sum(&r.flows.queue_arrivals), g("bottleneck_arrivals"));
    assert_eq!(sum(&r.flows.queue_drops), g("bottleneck_drops"));
    assert_eq!(sum(&r.flows.queue_marks), g("marks"));
    assert!(g("throughput_bps") <= 10e6 * 1.0001);
    for (i, (&d, &sent)) in r.flows.delivered.iter().zip(&r.flows.sent).enumerate() {
        assert!(d <= sent, "flow {i} delivered more than it sent");
    }
}

#[test]
fn ten_cubic_flows_fill_a_droptail_bottleneck() {
    let sc = dumbbell(r#"{ kind = "droptail", limit = 100 }"#, "", &group(10, r#"{ variant = "cubic" }"#), 20.0);
    let r = run(&sc, 3);
    conservation(&r);
    let s = &r.summary;
    let u = s.get("utilisation").unwrap();
    assert!(u > 0.9, "utilisation {u}");
    assert!(s.get("bottleneck_drops").unwrap() > 0.0, "CUBIC should fill the buffer");
    assert!(r.flows.variant.iter().all(|v| v == "cubic"));
    assert!(r.flows.delivered.iter().all(|&d| d > 100), "every flow gets through: {:?}", r.flows.delivered);
    assert!(r.resolved.contains("\"cubic_beta\":0.7") && r.resolved.contains("\"hystart\":true"), "resolved: cubic fields");
}

#[test]
fn cubic_and_reno_mix_in_one_scenario() {
    let groups = group(5, r#"{ variant = "cubic" }"#) + &group(5, r#"{ variant = "reno" }"#);
    let sc = dumbbell(r#"{ kind = "droptail", limit = 100 }"#, "", &groups, 20.0);
    let r = run(&sc, 5);
    conservation(&r);
    assert!(r.summary.get("utilisation").unwrap() > 0.9);
    let (cubic, reno): (Vec<_>, Vec<_>) = r.flows.variant.iter().zip(&r.flows.delivered).partition(|(v, _)| *v == "cubic");
    assert_eq!((cubic.len(), reno.len()), (5, 5));
    assert!(reno.iter().all(|(_, &d)| d > 100) && cubic.iter().all(|(_, &d)| d > 100));
    // the resolved scenario runs again to the same results (mixing survives resolution)
    let spec = aqmsim_core::scenario::from_json(&r.resolved).expect("resolved form parses");
    let again = aqmsim_core::sim::Simulation::new(build(&spec, 5).unwrap()).run();
    assert_eq!(again.summary.items, r.summary.items);
}

#[test]
fn dctcp_over_a_step_marking_queue_keeps_it_short_without_loss() {
    let q = r#"{ kind = "ecn_threshold", threshold = 20, limit = 200 }"#;
    let sc = dumbbell(q, "", &group(10, r#"{ variant = "dctcp", delayed_ack = true }"#), 20.0);
    let r = run(&sc, 7);
    conservation(&r);
    let s = &r.summary;
    let g = |k: &str| s.get(k).unwrap();
    assert!(g("utilisation") > 0.9, "utilisation {}", g("utilisation"));
    assert!(g("marks") > 0.0);
    // (10 flows, threshold 20, buffer 200: no loss at all; the
    // SYNs are ECT as ns-3's DCTCP sends them, or the step queue would drop them)
    assert_eq!(g("bottleneck_drops"), 0.0, "DCTCP holds the queue near the threshold");
    assert_eq!(g("timeouts"), 0.0);
    assert!(r.flows.delivered.iter().all(|&d| d > 1000), "{:?}", r.flows.delivered);
    assert!(g("max_queue_pkts") < 200.0);
    let q = g("time_avg_queue_pkts");
    assert!((8.0..30.0).contains(&q), "mean queue {q} (threshold 20)");
    assert!(r.resolved.contains("\"dctcp_g\":0.0625") && r.resolved.contains("\"ecn\":true"));
}

fn build_err(sc: &str) -> String {
    let spec = from_toml(sc).expect("parses");
    match build(&spec, 1) {
        Ok(_) => panic!("should be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn cc_fields_are_checked_and_named() {
    let dt = r#"{ kind = "droptail", limit = 100 }"#;
    let e = build_err(&dumbbell(dt, "cubic_beta = 0.5", &group(1, r#"{ variant = "reno" }"#), 1.0));
    assert!(e.contains("tcp.cubic_beta") && e.contains("cubic") && e.contains("reno"), "{e}");
    let e = build_err(&dumbbell(dt, "variant = \"reno\"\ncubic_beta = 0.5", &group(1, r#"{ variant = "cubic" }"#), 1.0));
    assert!(e.contains("tcp.cubic_beta") && e.contains("the variant here is \"reno\""), "{e}");
    let e = build_err(&dumbbell(dt, "variant = \"dctcp\"\necn = false", &group(1, "{}"), 1.0));
    assert!(e.contains("tcp.ecn"), "{e}");
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "cubic", dctcp_g = 0.1 }"#), 1.0));
    assert!(e.contains("dumbbell.groups[0].tcp.dctcp_g") || e.contains("tcp.dctcp_g"), "{e}");
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "dctcp", ecn = false }"#), 1.0));
    assert!(e.contains("tcp.ecn") && e.contains("DCTCP needs ECN"), "{e}");
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "cubic", cubic_beta = 1.0 }"#), 1.0));
    assert!(e.contains("tcp.cubic_beta") && e.contains("(0, 1)"), "{e}");
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "cubic", cubic_c = 0.0 }"#), 1.0));
    assert!(e.contains("tcp.cubic_c"), "{e}");
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "dctcp", dctcp_g = 0.0 }"#), 1.0));
    assert!(e.contains("tcp.dctcp_g") && e.contains("(0, 1]"), "{e}");
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "dctcp", dctcp_alpha_init = 1.5 }"#), 1.0));
    assert!(e.contains("tcp.dctcp_alpha_init") && e.contains("[0, 1]"), "{e}");
    // a top-level table of one variant beside a group of another: its own fields are not
    // inherited by the other group (nor its ecn = false by a DCTCP group)
    let mixed = dumbbell(dt, "variant = \"cubic\"\nhystart = false\necn = false", &(group(1, "{}") + &group(1, r#"{ variant = "reno" }"#) + &group(1, r#"{ variant = "dctcp" }"#)), 1.0);
    let r = run(&mixed, 1);
    assert_eq!(r.flows.variant, ["cubic", "reno", "dctcp"]);
    let j: serde_json::Value = serde_json::from_str(&r.resolved).unwrap();
    let tcp = |i: usize| j["flows"][i]["tcp"].clone();
    assert_eq!(tcp(0)["hystart"], false);
    assert!(tcp(1).get("hystart").is_none() && tcp(1)["ecn"] == false);
    assert!(tcp(2)["ecn"] == true && tcp(2)["dctcp_g"] == 0.0625);
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "vegas" }"#), 1.0));
    assert!(e.contains("cubic, dctcp, bbr"), "{e}");
    // BBR exists on the linux stack only
    let e = build_err(&dumbbell(dt, "", &group(1, r#"{ variant = "bbr" }"#), 1.0));
    assert!(e.contains("tcp.variant") && e.contains("stack = \"linux\""), "{e}");
    // accepted: the fields with their own variant, top level inherited by the group
    let ok = dumbbell(dt, "variant = \"cubic\"\nhystart = false\ntcp_friendliness = true", &group(1, "{}"), 1.0);
    let spec = from_toml(&ok).unwrap();
    let m = build(&spec, 1).unwrap();
    let _ = m;
    let r = run(&ok, 1);
    assert!(r.resolved.contains("\"hystart\":false") && r.resolved.contains("\"tcp_friendliness\":true"), "{}", r.resolved);
}
