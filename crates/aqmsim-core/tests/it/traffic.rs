//! The RFC 7928 traffic models in whole runs: web transfers and their completion times,
//! on/off sources, bursty CBR, and a link whose rate changes.

use crate::common::run;
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::{RunResults, Simulation};
use aqmsim_core::time::SimTime;

/// Two nodes, one 10 Mb/s, 10 ms link; `flow` is the body of one `[[flows]]` entry.
fn two_nodes(duration: f64, link_extra: &str, flow: &str) -> String {
    format!(
        r#"
duration = {duration}
nodes = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "10Mb"
delay = "10ms"
queue = {{ kind = "droptail", limit = 1000 }}
{link_extra}
[[flows]]
src = "A"
dst = "B"
{flow}
"#
    )
}

const ONE_TRANSFER: &str = r#"
app = "web"
web = { arrival_rate = 5.0, size = { fixed = 15000 }, max_transfers = 1 }
tcp = { variant = "reno", syn = true, window_init = 10, window = 1000 }
"#;

#[test]
fn one_transfer_on_an_idle_path_completes_in_the_hand_computed_time() {
    let r = run(&two_nodes(5.0, "", ONE_TRANSFER), 1);
    let f = &r.flows;
    assert_eq!(f.app, vec!["web".to_string()]);
    assert_eq!(f.size_bytes, vec![15000]);
    // 15 000 bytes = 15 packets of 1000 bytes payload (1040 on the wire, 0.832 ms at
    // 10 Mb/s); the SYN and every ACK are 40 bytes (0.032 ms); one-way delay 10 ms.
    //   SYN out and its ACK back:                  2 · (0.032 + 10)       = 20.064 ms
    //   IW10: packets 1–10 leave back to back; the ACK of packet 1 returns at
    //     20.064 + 0.832 + 10 + 0.032 + 10                                = 40.928 ms
    //   slow start: each ACK opens the window by one and releases two packets, so the
    //   link sends 11–15 back to back from then on; packet 15 finishes at
    //     40.928 + 5 · 0.832                                              = 45.088 ms
    //   and its ACK is back 10 + 0.032 + 10 ms later                      = 65.120 ms
    let fct = f.fct_s[0];
    assert!((fct - 0.065120).abs() < 1e-9, "FCT {fct}");
    assert_eq!(f.sent[0], 16, "the SYN and 15 data packets, nothing resent");
    let s = |k: &str| r.summary.get(k).unwrap();
    assert_eq!((s("transfers"), s("transfers_done")), (1.0, 1.0));
    assert_eq!((s("fct_mean_s"), s("fct_p50_s"), s("fct_p99_s")), (fct, fct, fct));
}

#[test]
fn a_transfer_not_done_by_the_end_counts_at_its_elapsed_time() {
    // 1 MB at 10 Mb/s takes ≥ 0.8 s; the run ends at 0.5 s
    let flow = ONE_TRANSFER.replace("fixed = 15000", "fixed = 1000000").replace("arrival_rate = 5.0", "arrival_rate = 100.0");
    let r = run(&two_nodes(0.5, "", &flow), 1);
    assert!(r.flows.fct_s[0].is_nan(), "the flow's own FCT: not done");
    assert_eq!(r.summary.get("transfers"), Some(1.0));
    assert_eq!(r.summary.get("transfers_done"), Some(0.0));
    // the summary's statistics count it at end − start, a lower bound of its FCT
    let elapsed = 0.5 - r.flows.start[0];
    assert!(elapsed > 0.0 && elapsed < 0.5);
    for k in ["fct_mean_s", "fct_p50_s", "fct_p99_s"] {
        assert!((r.summary.get(k).unwrap() - elapsed).abs() < 1e-9, "{k}");
    }
}

#[test]
fn a_late_large_transfer_weighs_in_the_tail() {
    // Small transfers (15 kB, ~65 ms each on the idle path) beside one 10 MB transfer that
    // starts at once and, held to a window of 20 packets (~8 Mb/s, no queue), cannot be
    // done by the end at 1 s. Counting only the transfers done would give a p99 of ~65 ms.
    let small = ONE_TRANSFER.replace("max_transfers = 1", "max_transfers = 100");
    let big = r#"
[[flows]]
src = "A"
dst = "B"
app = "web"
web = { arrival_rate = 100.0, size = { fixed = 10000000 }, max_transfers = 1 }
tcp = { variant = "reno", syn = true, window_init = 10, window = 20 }
"#;
    let r = run(&(two_nodes(1.0, "", &small) + big), 1);
    let f = &r.flows;
    let n = f.app.len();
    let not_done: Vec<usize> = (0..n).filter(|&i| f.fct_s[i].is_nan()).collect();
    assert_eq!(not_done.len(), 1, "{:?}", f.fct_s);
    assert_eq!(f.size_bytes[not_done[0]], 10_000_000);
    assert!(n > 3, "{n} transfers");
    let mut all: Vec<f64> = (0..n).map(|i| if f.fct_s[i].is_nan() { 1.0 - f.start[i] } else { f.fct_s[i] }).collect();
    let mean = all.iter().sum::<f64>() / n as f64;
    all.sort_by(f64::total_cmp);
    let h = (n - 1) as f64 * 0.99;
    let p99 = all[h.floor() as usize] + (all[h.ceil() as usize] - all[h.floor() as usize]) * h.fract();
    let s = |k: &str| r.summary.get(k).unwrap();
    assert!((s("fct_mean_s") - mean).abs() < 1e-12 && (s("fct_p99_s") - p99).abs() < 1e-12);
    let done_max = f.fct_s.iter().filter(|x| !x.is_nan()).fold(0.0, |a: f64, &b| a.max(b));
    assert!(done_max < 0.2 && s("fct_p99_s") > 0.9, "p99 {} (done: at most {done_max})", s("fct_p99_s"));
    assert_eq!((s("transfers"), s("transfers_done")), (n as f64, (n - 1) as f64));
}

fn web_dumbbell(seed_extra: &str) -> String {
    format!(
        r#"
duration = 30
{seed_extra}
[tcp]
variant = "newreno"
window = 1000
[dumbbell.bottleneck]
rate = "10Mb"
delay = "10ms"
queue = {{ kind = "red", limit = 100 }}
[[dumbbell.groups]]
name = "bulk"
count = 3
access = {{ rate = "100Mb", delay = {{ uniform = ["1ms", "20ms"] }} }}
start = {{ uniform = [0, 1] }}
[[dumbbell.groups]]
name = "web"
count = 2
app = "web"
access = {{ rate = "100Mb", delay = "5ms" }}
web = {{ arrival_rate = 5.0, size = {{ pareto = {{ mean = 50000, shape = 1.2 }}, max = 5e6 }} }}
tcp = {{ window_init = 10 }}
[[dumbbell.groups]]
name = "video"
app = "onoff"
access = {{ rate = "100Mb", delay = "5ms" }}
onoff = {{ rate = "1Mb", packet_size = 1000, on = {{ exponential = "1s" }}, off = {{ pareto = {{ mean = "1s", shape = 1.5 }} }} }}
"#
    )
}

#[test]
fn web_traffic_beside_bulk_flows() {
    let r = run(&web_dumbbell(""), 3);
    let f = &r.flows;
    let web: Vec<usize> = (0..f.app.len()).filter(|&i| f.app[i] == "web").collect();
    // 2 sources × 5/s × 30 s ≈ 300 transfers (σ ≈ 17)
    assert!((200..400).contains(&web.len()), "{} transfers", web.len());
    let done = web.iter().filter(|&&i| !f.fct_s[i].is_nan()).count();
    assert_eq!(r.summary.get("transfers"), Some(web.len() as f64));
    assert_eq!(r.summary.get("transfers_done"), Some(done as f64));
    assert!(done as f64 > 0.9 * web.len() as f64, "{done} of {} done", web.len());
    for &i in &web {
        assert!(f.size_bytes[i] >= 1 && f.start[i] < 30.0 && f.label[i] == "web");
        assert!(f.fct_s[i].is_nan() || f.fct_s[i] > 0.02, "an FCT takes at least a round trip");
    }
    assert!(f.app.iter().filter(|a| *a == "onoff").count() == 1);
    assert!(f.size_bytes.iter().zip(&f.app).all(|(&b, a)| (b > 0) == (a == "web")));
    // Jain's index is over the three bulk flows only
    let bulk: Vec<f64> = (0..3).map(|i| f.throughput_bps[i]).collect();
    let jain = bulk.iter().sum::<f64>().powi(2) / (3.0 * bulk.iter().map(|x| x * x).sum::<f64>());
    assert!((r.summary.get("jain_fairness").unwrap() - jain).abs() < 1e-12);
    // goodput sums every flow
    let total: f64 = f.goodput_bps.iter().sum();
    assert!((r.summary.get("goodput_bps").unwrap() - total).abs() < 1e-6 * total);
}

#[test]
fn same_seed_same_flows_table() {
    let (a, b, c) = (run(&web_dumbbell(""), 5), run(&web_dumbbell(""), 5), run(&web_dumbbell(""), 6));
    let key = |r: &RunResults| (r.flows.start.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), r.flows.size_bytes.clone(), r.flows.fct_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), r.flows.sent.clone());
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&c));
    // the resolved scenario holds one entry per source, its parameters, not its transfers
    let res: serde_json::Value = serde_json::from_str(&a.resolved).unwrap();
    let flows = res["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 3 + 2 + 1);
    assert_eq!(flows[3]["web"]["size"]["pareto"]["shape"], 1.2);
    assert!(flows[3].get("transfers").is_none());
}

#[test]
fn a_web_scenario_resolves_to_a_scenario_with_the_same_results() {
    // the invariant of `aqmsim validate` and resolved.json: the resolved form re-runs to the
    // same results (the web sources' starts fixed at their draws give the same arrivals)
    let spec = from_toml(&web_dumbbell("")).unwrap();
    let model = build(&spec, 7).unwrap();
    let again = aqmsim_core::scenario::from_json(&model.resolved.to_string()).expect("the resolved form parses");
    let model2 = build(&again, 7).unwrap();
    assert_eq!(model2.resolved, model.resolved, "resolving is idempotent");
    let starts = |m: &aqmsim_core::scenario::Model| m.flows.iter().map(|f| f.start.to_bits()).collect::<Vec<_>>();
    assert_eq!(starts(&model), starts(&model2));
    let (a, b) = (Simulation::new(model).run(), Simulation::new(model2).run());
    let strip = |r: &RunResults| r.summary.items.iter().filter(|(k, _)| k != "wall_seconds").map(|(k, v)| (k.clone(), v.to_bits())).collect::<Vec<_>>();
    assert_eq!(strip(&a), strip(&b));
    assert_eq!((&a.flows.size_bytes, &a.flows.sent), (&b.flows.size_bytes, &b.flows.sent));
    assert_eq!(a.flows.fct_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b.flows.fct_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}

#[test]
fn web_parameters_move_no_other_flows_draws() {
    // Common random numbers across variants: more or fewer transfers from the web group
    // leave the bulk and on/off flows after it with the same starts, TCP boot times and
    // on/off periods. The on/off source is open-loop: its packets sent are its draws.
    let sc = web_dumbbell("").replace("name = \"video\"", "name = \"video\"\nstart = { uniform = [0, 2] }")
        + "[[dumbbell.groups]]\nname = \"late\"\ncount = 2\naccess = { rate = \"100Mb\", delay = \"5ms\" }\nstart = { uniform = [0, 3] }\n";
    let more = sc.replace("arrival_rate = 5.0", "arrival_rate = 9.0");
    let (a, b) = (build(&from_toml(&sc).unwrap(), 4).unwrap(), build(&from_toml(&more).unwrap(), 4).unwrap());
    let others = |m: &aqmsim_core::scenario::Model| {
        m.flows.iter().filter(|f| !matches!(f.app, aqmsim_core::scenario::AppModel::Web { .. })).map(|f| (f.start.to_bits(), f.key, f.label.clone())).collect::<Vec<_>>()
    };
    assert!(b.flows.len() > a.flows.len() + 50, "{} vs {} flows", b.flows.len(), a.flows.len());
    assert_eq!(others(&a), others(&b));
    let (ra, rb) = (Simulation::new(a).run(), Simulation::new(b).run());
    let sent = |r: &RunResults, label: &str| (0..r.flows.app.len()).filter(|&i| r.flows.label[i] == label).map(|i| r.flows.sent[i]).collect::<Vec<_>>();
    assert_eq!(sent(&ra, "video"), sent(&rb, "video"));
    assert!(sent(&ra, "video")[0] > 100);
    // another size distribution: the same arrivals (each draws one level for its time and
    // one for its size), other sizes
    let bigger = build(&from_toml(&sc.replace("mean = 50000", "mean = 80000")).unwrap(), 4).unwrap();
    let web = |m: &aqmsim_core::scenario::Model| {
        m.flows.iter().filter_map(|f| match f.app {
            aqmsim_core::scenario::AppModel::Web { size_bytes, .. } => Some((f.start.to_bits(), size_bytes)),
            _ => None,
        }).unzip::<_, _, Vec<_>, Vec<_>>()
    };
    let (a, c) = (build(&from_toml(&sc).unwrap(), 4).unwrap(), bigger);
    let ((ta, sa), (tc, sc_)) = (web(&a), web(&c));
    assert_eq!(ta, tc);
    assert_ne!(sa, sc_);
    assert_eq!(others(&a), others(&c));
    // without web sources a flow's key is its index, as the streams were keyed before
    // (FLOW_START, TCP and ONOFF by flow index): such scenarios' results are unchanged
    let plain = web_dumbbell("").replace("app = \"web\"", "app = \"ftp\"").replace("web = {", "# web = {");
    let m = build(&from_toml(&plain).unwrap(), 4).unwrap();
    assert!(!m.web && m.flows.iter().enumerate().all(|(i, f)| f.key == i as u64));
}

#[test]
fn web_sources_that_draw_no_transfer_make_a_valid_run() {
    // 0.01 transfers/s over 1 s: most seeds draw none; the scenario is valid whatever the
    // seed, and the run has no flows
    let flow = ONE_TRANSFER.replace("arrival_rate = 5.0", "arrival_rate = 0.01");
    let sc = two_nodes(1.0, "", &flow).replace("[[flows]]", "[monitor]\nqueues = [\"A->B\"]\ndelays = true\n[[flows]]");
    let spec = from_toml(&sc).unwrap();
    let seed = (1..50).find(|&s| build(&spec, s).unwrap().flows.is_empty()).expect("a seed drawing no transfer");
    let r = run(&sc, seed);
    assert!(r.flows.app.is_empty());
    let s = |k: &str| r.summary.get(k).unwrap();
    assert_eq!((s("transfers"), s("transfers_done"), s("bottleneck_arrivals")), (0.0, 0.0, 0.0));
    assert!(s("fct_p50_s").is_nan() && s("fct_mean_s").is_nan());
    assert!(!r.queue.len_pkts.is_empty() && r.queue.len_pkts.iter().all(|&l| l == 0));
    // without web sources, no traffic is still an error
    let none = two_nodes(1.0, "", "").replace("[[flows]]\nsrc = \"A\"\ndst = \"B\"\n", "");
    let e = build(&from_toml(&none).unwrap(), 1).unwrap_err().to_string();
    assert!(e.starts_with("flows: the scenario has no traffic"), "{e}");
}

#[test]
fn a_flow_starting_at_a_rate_change_sends_at_the_new_rate() {
    // the change at 0.4 s runs before the flow's start of that instant: its first packet
    // takes 8 ms (1000 bytes at 1 Mb/s) + 10 ms, not 1 ms + 10 ms
    let flow = r#"app = "cbr"
start = 0.4
cbr = { rate = "100kb", packet_size = 1000 }"#;
    let r = run(&two_nodes(0.45, r#"rate_schedule = [["0s", "8Mb"], ["400ms", "1Mb"]]"#, flow), 1);
    assert_eq!(r.flows.received[0], 1);
    assert!((r.flows.mean_delay_s[0] - 0.018).abs() < 1e-12, "{}", r.flows.mean_delay_s[0]);
}

#[test]
fn cut_through_does_not_change_runs_with_the_new_traffic() {
    // a varying bottleneck, web transfers and an on/off source: every result the same with
    // the shortcut on and off
    let sc = web_dumbbell("").replace("delay = \"10ms\"\n", "delay = \"10ms\"\nrate_schedule = [[\"0s\", \"10Mb\"], [\"10s\", \"2Mb\"], [\"20s\", \"20Mb\"]]\n");
    let spec = from_toml(&sc).unwrap();
    let mut on = Simulation::new(build(&spec, 2).unwrap());
    let mut off = Simulation::new(build(&spec, 2).unwrap());
    off.set_cut_through(false);
    on.run_until(SimTime::from_secs(1e9));
    off.run_until(SimTime::from_secs(1e9));
    assert!(on.events() < off.events());
    let (a, b) = (on.finish(), off.finish());
    let strip = |r: &RunResults| r.summary.items.iter().filter(|(k, _)| k != "events").map(|(k, v)| (k.clone(), v.to_bits())).collect::<Vec<_>>();
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.flows.sent, b.flows.sent);
    assert_eq!(a.flows.fct_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b.flows.fct_s.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert_eq!((&a.drops.t, &a.drops.flow), (&b.drops.t, &b.drops.flow));
    // the time-average rate: 10 s at 10, 10 s at 2, 10 s at 20 Mb/s
    assert_eq!(a.summary.get("bottleneck_rate_bps"), Some(32e6 / 3.0));
    let u = a.summary.get("utilisation").unwrap();
    assert!(u > 0.5 && u <= 1.0, "{u}");
}

fn onoff(on: &str, off: &str, count: u32, duration: f64) -> String {
    format!(
        r#"
duration = {duration}
[dumbbell.bottleneck]
rate = "100Mb"
delay = "10ms"
[[dumbbell.groups]]
count = {count}
app = "onoff"
access = {{ rate = "100Mb", delay = "1ms" }}
onoff = {{ rate = "1Mb", packet_size = 1000, on = {on}, off = {off} }}
"#
    )
}

#[test]
fn onoff_duty_cycle_is_on_over_on_plus_off() {
    // exponential on 0.5 s, off 1.5 s at 1 Mb/s: mean rate 0.25 Mb/s = 31.25 packets/s
    let d = 2000.0;
    let r = run(&onoff(r#"{ exponential = "500ms" }"#, r#"{ exponential = "1500ms" }"#, 4, d), 1);
    let sent: u64 = r.flows.sent.iter().sum();
    let rate = sent as f64 * 8000.0 / (4.0 * d);
    // 4 × 1000 cycles; the count's relative σ is about 1.3 %
    assert!((rate / 0.25e6 - 1.0).abs() < 0.05, "{rate}");
    assert!(r.flows.app.iter().all(|a| a == "onoff"));
    // nothing lost on an idle path: received = sent (but the last packets in flight)
    assert!(r.flows.received.iter().sum::<u64>() + 4 >= sent);
}

#[test]
fn fixed_onoff_bursts_follow_ns2() {
    // on 100 ms at 1 Mb/s (8 ms a packet): bursts of int(12.5 + 0.5) = 13 packets; then an
    // interval plus the 400 ms off: a cycle of 13 · 8 + 400 = 504 ms. The first packet
    // comes an interval plus an off time after the start: 408 ms. In 2 s: packets at
    // 408 + 504·c + 8·k ms (k < 13): cycles c = 0, 1, 2 (the third ends at 1512 + 96 ms), and
    // c = 3 starts at 1920: k ≤ 9 (1992 ms) fits, 2000 ms does not (the run ends first).
    let r = run(&onoff(r#""100ms""#, r#""400ms""#, 1, 2.0), 1);
    assert_eq!(r.flows.sent[0], 13 * 3 + 10);
}

fn cbr_line(burst: u32) -> String {
    format!(
        r#"
duration = 2
nodes = ["A", "R", "B"]
[[links]]
from = "A"
to = "R"
rate = "10Mb"
delay = "1ms"
[[links]]
from = "R"
to = "B"
rate = "1Mb"
delay = "1ms"
queue = {{ kind = "droptail", limit = 2 }}
[monitor]
queues = ["R->B"]
[[flows]]
src = "A"
dst = "B"
app = "cbr"
cbr = {{ rate = "1Mb", packet_size = 1000, burst = {burst} }}
"#
    )
}

#[test]
fn a_burst_arrives_back_to_back() {
    // evenly spaced at the bottleneck's own rate: never a queue, never a drop
    let even = run(&cbr_line(1), 1);
    assert_eq!(even.drops.t.len(), 0);
    // no web source: no transfer keys in the summary
    assert!(even.summary.get("transfers").is_none() && even.summary.get("fct_p50_s").is_none());
    // bursts of 5 every 40 ms reach R 0.8 ms apart (1000 bytes at 10 Mb/s); the 1 Mb/s
    // link sends one in 8 ms, so the first goes on at once, the second waits, and the
    // buffer of 2 (ns-2's DropTail: at most limit − 1 wait beside the one on the wire)
    // drops the other three as they come
    let b = run(&cbr_line(5), 1);
    assert_eq!(b.drops.t.len(), 3 * 50, "three drops in each of the 50 bursts");
    for burst in b.drops.t.chunks(3) {
        assert!((burst[1] - burst[0] - 0.0008).abs() < 1e-9, "{burst:?}");
        assert!((burst[2] - burst[1] - 0.0008).abs() < 1e-9, "{burst:?}");
    }
    let burst_starts: Vec<f64> = b.drops.t.chunks(3).map(|p| p[0]).collect();
    for w in burst_starts.windows(2) {
        assert!((w[1] - w[0] - 0.040).abs() < 1e-9);
    }
    // the same mean rate: 2 s at 1 Mb/s = 250 packets either way
    assert_eq!((even.flows.sent[0], b.flows.sent[0]), (250, 250));
}

#[test]
fn a_rate_change_applies_to_transmissions_starting_from_then() {
    // CBR at 100 kb/s, 1000-byte packets: one every 80 ms, the sixth exactly at 0.4 s, when
    // the link drops from 8 Mb/s (1 ms a packet) to 1 Mb/s (8 ms). The first five take
    // 1 + 10 ms to arrive, the sixth 8 + 10 ms: mean (5·11 + 18) / 6 ms.
    let flow = r#"app = "cbr"
cbr = { rate = "100kb", packet_size = 1000 }"#;
    let sc = two_nodes(0.45, r#"rate_schedule = [["0s", "8Mb"], ["400ms", "1Mb"]]"#, flow);
    let r = run(&sc, 1);
    assert_eq!(r.flows.received[0], 6);
    let want = (5.0 * 0.011 + 0.018) / 6.0;
    assert!((r.flows.mean_delay_s[0] - want).abs() < 1e-12, "{} vs {want}", r.flows.mean_delay_s[0]);
    let res: serde_json::Value = serde_json::from_str(&r.resolved).unwrap();
    assert_eq!(res["links"][0]["rate"], 8e6);
    assert_eq!(res["links"][0]["rate_schedule"][1], serde_json::json!([0.4, 1e6]));
}

#[test]
fn bad_traffic_tables_name_the_field() {
    let e = |sc: &str| build(&from_toml(sc).unwrap(), 1).unwrap_err().to_string();
    let web = two_nodes(5.0, "", &ONE_TRANSFER.replace("fixed = 15000", "pareto = { mean = 50000, shape = 0.9 }"));
    assert_eq!(e(&web), "flows[0].web.size.pareto.shape: must be > 1 (a finite mean) and ≤ 100, got 0.9");
    let no_table = two_nodes(5.0, "", "app = \"web\"");
    assert!(e(&no_table).starts_with("flows[0].web: app = \"web\" needs a web table"));
    let stray = two_nodes(5.0, "", "web = { arrival_rate = 1.0, size = { fixed = 1 } }");
    assert_eq!(e(&stray), "flows[0].web: only allowed with app = \"web\" (the app here is \"ftp\")");
    let burst = two_nodes(5.0, "", "app = \"cbr\"\ncbr = { rate = \"1Mb\", burst = 0 }");
    assert_eq!(e(&burst), "flows[0].cbr.burst: must be in [1, 1000000] packets, got 0");
    let sched = two_nodes(5.0, r#"rate_schedule = [["1s", "8Mb"]]"#, "");
    assert!(e(&sched).starts_with("links[0].rate_schedule[0][0]: the first entry must be at time 0"));
    let on = onoff(r#"{ pareto = { mean = "1s", shape = 0.5 } }"#, "\"1s\"", 1, 1.0);
    assert_eq!(e(&on), "dumbbell.groups[0].onoff.on.pareto.shape: must be > 1 (a finite mean) and ≤ 100, got 0.5");
    let app = two_nodes(5.0, "", "app = \"http\"");
    assert_eq!(e(&app), "flows[0].app: unknown application \"http\" (expected one of: ftp, cbr, web, onoff)");
    // a transfer's packets must fit the sender's sequence numbers: refused on the size
    // distribution (whatever the seed), not clamped
    let huge = ONE_TRANSFER.replace("fixed = 15000", "pareto = { mean = 50000, shape = 1.2 }").replace("window = 1000", "window = 1000, packet_size = 100");
    assert_eq!(
        e(&two_nodes(5.0, "", &huge)),
        "flows[0].web.size: can give a transfer of 1000000000000 bytes, 10000000000 packets of 100 bytes (tcp.packet_size), more than the 1073741823 a transfer may have: give a max ≤ 107374182300 bytes or larger packets"
    );
    let bounded = huge.replace("shape = 1.2 }", "shape = 1.2 }, max = 1e11");
    assert!(build(&from_toml(&two_nodes(5.0, "", &bounded)).unwrap(), 1).is_ok());
    let over = huge.replace("shape = 1.2 }", "shape = 1.2 }, max = 1.1e11");
    assert!(e(&two_nodes(5.0, "", &over)).starts_with("flows[0].web.size: can give a transfer of 10999"));
}
