//! Quick speed probe: `cargo run --release --example dumbbell_speed -- N [seconds] [rate]`,
//! or `... -- FILE.toml [reps] [nocut]` to time a scenario file (the best of `reps` runs;
//! `nocut` switches cut-through off).
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::Simulation;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args.get(1).filter(|a| a.ends_with(".toml")) {
        let cut = !args.iter().any(|a| a == "nocut");
        return time_file(path, args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3), cut);
    }
    let n: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let rate = args.get(3).cloned().unwrap_or_else(|| "100Mb".into());
    let sc = format!(
        r#"
duration = {secs}
[tcp]
variant = "reno"
packet_size = 1000
[dumbbell.bottleneck]
rate = "{rate}"
delay = "10ms"
queue = {{ kind = "red", limit = 300, min_th = 30, max_th = 90, max_p = 0.1, w_q = 0.002, gentle = false, bytes = false, queue_in_bytes = false }}
[[dumbbell.groups]]
count = {n}
access = {{ rate = "100Mb", delay = "1ms", queue = {{ kind = "droptail", limit = 1000 }} }}
egress = {{ rate = "100Mb", delay = "1ms", queue = {{ kind = "droptail", limit = 1000 }} }}
start = {{ uniform = [0, 1] }}
"#
    );
    let model = build(&from_toml(&sc).unwrap(), 1).unwrap();
    let t0 = Instant::now();
    let sim = Simulation::new(model);
    let r = sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let dep = r.summary.get("bottleneck_departures").unwrap();
    eprintln!(
        "N={n} {secs}s {rate}: wall {wall:.3}s, bottleneck pkts {dep}, {:.0} pkt/s, util {:.3}, drops {}, events {}",
        dep / wall,
        r.summary.get("utilisation").unwrap(),
        r.summary.get("bottleneck_drops").unwrap(),
        r.summary.get("events").unwrap()
    );
}

fn time_file(path: &str, reps: u32, cut: bool) {
    let text = std::fs::read_to_string(path).expect("readable scenario file");
    let spec = from_toml(&text).expect("valid scenario");
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let model = build(&spec, spec.seed).unwrap();
        let t0 = Instant::now();
        let mut sim = Simulation::new(model);
        sim.set_cut_through(cut);
        sim.run_until(aqmsim_core::time::SimTime::from_secs(1e9));
        let (waited, undone) = sim.merge_decisions();
        let r = sim.finish();
        let wall = t0.elapsed().as_secs_f64();
        best = best.min(wall);
        let dep = r.summary.get("bottleneck_departures").unwrap();
        eprintln!(
            "{path}: wall {wall:.3}s, bottleneck pkts {dep}, {:.0} pkt/s (best {:.0}), util {:.4}, drops {}, events {}, merge decisions waited {waited} ({undone} became events)",
            dep / wall,
            dep / best,
            r.summary.get("utilisation").unwrap(),
            r.summary.get("bottleneck_drops").unwrap(),
            r.summary.get("events").unwrap()
        );
    }
}
