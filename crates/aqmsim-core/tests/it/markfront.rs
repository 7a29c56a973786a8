//! Paper 004's analysis: with one ECN Reno flow and a plain threshold T on the
//! instantaneous queue, the largest queue is at most 2T + rd − 1 with mark-tail and at most
//! T + rd with mark-front (Theorems 2–3), and close to those bounds when T is large.
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::Simulation;

/// Paper 004's basic model: 10 Mb/s access links, a 1.5 Mb/s, 20 ms r1→r2 link, 1000-byte
/// packets (1040 on the wire), 40-byte ACKs; access delays of 3 ms give a base RTT of 59 ms.
fn max_queue(t: u32, mode: &str) -> (u32, f64) {
    let sc = format!(
        r#"
duration = 10
[tcp]
variant = "reno"
ecn = true
window = 10000
[dumbbell.bottleneck]
rate = "1.5Mb"
delay = "20ms"
queue = {{ kind = "ecn_threshold", threshold = {t}, limit = 10000, mode = "{mode}" }}
[[dumbbell.groups]]
access = {{ rate = "10Mb", delay = "3ms" }}
egress = {{ rate = "10Mb", delay = "3ms" }}
"#
    );
    let model = build(&from_toml(&sc).unwrap(), 1).unwrap();
    let r = Simulation::new(model).run();
    assert_eq!(r.summary.get("bottleneck_drops").unwrap(), 0.0, "a large buffer loses nothing");
    // r: propagation both ways plus serialisation of a data packet and an ACK on each hop.
    let tx = |bytes: f64, rate: f64| bytes * 8.0 / rate;
    let r_s = 2.0 * (0.003 + 0.020 + 0.003) + 2.0 * tx(1040.0, 10e6) + tx(1040.0, 1.5e6) + 2.0 * tx(40.0, 10e6) + tx(40.0, 1.5e6);
    let d = 1.5e6 / (1040.0 * 8.0);
    (r.summary.get("max_queue_pkts").unwrap() as u32, r_s * d)
}

/// The theorems use the real number rd. Packets are whole: when the marked packet P
/// arrives the pipe holds ⌈rd⌉ packets (so w(s0) = T + ⌈rd⌉) and when the last packet of the
/// grown window arrives it holds ⌊rd⌋, which gives the integer forms
/// mark-tail ≤ 2T + 2⌈rd⌉ − ⌊rd⌋ − 1 and mark-front ≤ T + ⌈rd⌉ (within 1.3 packets of the
/// paper's lines here).
#[test]
fn buffer_requirement_bounds_of_mark_tail_and_mark_front() {
    for t in [2u32, 5, 10, 20, 40, 80] {
        let (tail, rd) = max_queue(t, "mark_tail");
        let (front, _) = max_queue(t, "mark_front");
        let (b_tail, b_front) = (2.0 * t as f64 + rd - 1.0, t as f64 + rd);
        let int_tail = 2.0 * t as f64 + 2.0 * rd.ceil() - rd.floor() - 1.0;
        let int_front = t as f64 + rd.ceil();
        assert!(tail as f64 <= int_tail, "T={t}: mark-tail max {tail} > {int_tail} (paper: 2T+rd-1 = {b_tail:.1})");
        assert!(front as f64 <= int_front, "T={t}: mark-front max {front} > {int_front} (paper: T+rd = {b_front:.1})");
        assert!(front < tail || t < 3, "T={t}: mark-front needs less buffer than mark-tail ({front} vs {tail})");
        if t as f64 >= rd {
            // Tight when T is large (the paper: "when T ≥ rd the upper bound is tight").
            assert!(tail as f64 >= b_tail - 1.0, "T={t}: mark-tail max {tail} far below {b_tail:.1}");
            assert!(front as f64 >= b_front - 1.0, "T={t}: mark-front max {front} far below {b_front:.1}");
        }
    }
}
