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
fn a_transfer_not_done_by_the_end_has_no_fct() {
    // 1 MB at 10 Mb/s takes ≥ 0.8 s; the run ends at 0.5 s
    let flow = ONE_TRANSFER.replace("fixed = 15000", "fixed = 1000000").replace("arrival_rate = 5.0", "arrival_rate = 100.0");
    let r = run(&two_nodes(0.5, "", &flow), 1);
    assert!(r.flows.fct_s[0].is_nan());
    assert_eq!(r.summary.get("transfers"), Some(1.0));
    assert_eq!(r.summary.get("transfers_done"), Some(0.0));
    assert!(r.summary.get("fct_p50_s").unwrap().is_nan());
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
    // the resolved scenario holds one entry per source, with its number of transfers
    let res: serde_json::Value = serde_json::from_str(&a.resolved).unwrap();
    let flows = res["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 3 + 2 + 1);
    let n: u64 = flows.iter().filter(|f| f["app"] == "web").map(|f| f["transfers"].as_u64().unwrap()).sum();
    assert_eq!(n as usize, a.flows.app.iter().filter(|x| *x == "web").count());
    assert_eq!(flows[3]["web"]["size"]["pareto"]["shape"], 1.2);
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
}
