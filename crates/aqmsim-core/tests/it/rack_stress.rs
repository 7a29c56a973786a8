//! `loss_detection = "rack"` (RACK-TLP) through the whole engine under stress: tiny
//! buffers, flows that stop with their tails in flight, each congestion control of the
//! linux stack, ECN. In a debug build the scoreboard's counters are checked on every use.

use crate::common::run;

fn scenario(queue: &str, tcp: &str) -> String {
    let mut s = format!(
        r#"
name = "rack stress"
duration = 12
seed = 1
[dumbbell.bottleneck]
rate = "10Mb"
delay = "20ms"
queue = {queue}
"#
    );
    for k in 0..8 {
        s += &format!(
            r#"
[[dumbbell.groups]]
count = 3
access = {{ rate = "100Mb", delay = {{ uniform = ["1ms", "30ms"] }} }}
start = {{ uniform = [{k}, {k}.5] }}
stop = {stop}
tcp = {tcp}
"#,
            stop = k + 2
        );
    }
    s
}

#[test]
fn rack_flows_survive_tiny_buffers_and_tails_for_every_congestion_control() {
    for (queue, tcp) in [
        (r#"{ kind = "droptail", limit = 5 }"#, r#"{ stack = "linux", loss_detection = "rack" }"#),
        (r#"{ kind = "droptail", limit = 8 }"#, r#"{ stack = "linux", loss_detection = "rack", variant = "cubic", pacing = true }"#),
        (r#"{ kind = "codel", ecn = true }"#, r#"{ stack = "linux", loss_detection = "rack", variant = "dctcp" }"#),
        (r#"{ kind = "droptail", limit = 10 }"#, r#"{ stack = "linux", loss_detection = "rack", variant = "bbr" }"#),
        (r#"{ kind = "fq_codel" }"#, r#"{ stack = "linux", loss_detection = "rack", ecn = true }"#),
    ] {
        let r = run(&scenario(queue, tcp), 3);
        let g = |k: &str| r.summary.get(k).unwrap();
        assert_eq!(g("bottleneck_arrivals"), g("bottleneck_departures") + g("bottleneck_drops") + g("bottleneck_queued_end"), "{tcp}");
        // RFC 6675 on the same: 0.19, 0.54, 0.67, 0.44, 0.60 (RACK-TLP: 0.19, 0.53, 0.67, 0.65, 0.60)
        assert!(g("utilisation") > 0.15, "{tcp}: utilisation {}", g("utilisation"));
        assert!(g("rack_marked_lost") >= 0.0 && g("rack_tlp_probes") >= 0.0, "{tcp}: RACK's counters in the summary");
        for (i, (&d, &sent)) in r.flows.delivered.iter().zip(&r.flows.sent).enumerate() {
            assert!(d > 0 && d <= sent, "{tcp}: flow {i}: delivered {d} of {sent}");
        }
    }
}
