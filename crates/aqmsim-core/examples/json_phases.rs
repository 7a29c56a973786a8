//! Time the phases of a run from scenario JSON, as the Python binding does it:
//! `cargo run --release --example json_phases -- FILE.json [reps]`.
use aqmsim_core::scenario::{build::build, from_json};
use aqmsim_core::sim::Simulation;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable scenario file");
    let reps: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    for _ in 0..reps {
        let t0 = Instant::now();
        let spec = from_json(&text).expect("valid scenario");
        let t1 = Instant::now();
        let model = build(&spec, spec.seed).expect("builds");
        let t2 = Instant::now();
        let sim = Simulation::new(model);
        let t3 = Instant::now();
        let r = sim.run();
        let t4 = Instant::now();
        drop(r);
        let t5 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        eprintln!("parse {:.2} ms, build {:.2} ms, new {:.2} ms, run {:.2} ms, drop {:.2} ms", ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4), ms(t4, t5));
    }
}
