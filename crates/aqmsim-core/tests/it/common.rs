use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::{RunResults, Simulation};

pub fn dumbbell(n: u32, queue: &str, duration: f64, extra_tcp: &str) -> String {
    format!(
        r#"
name = "test dumbbell"
duration = {duration}
seed = 1
[tcp]
variant = "reno"
{extra_tcp}
[dumbbell.bottleneck]
rate = "1.5Mb"
delay = "20ms"
queue = {queue}
[[dumbbell.groups]]
count = {n}
access = {{ rate = "10Mb", delay = {{ uniform = ["1ms", "5ms"] }} }}
egress = {{ rate = "10Mb", delay = "1ms" }}
start = {{ uniform = [0, 1] }}
"#
    )
}

pub fn run(toml: &str, seed: u64) -> RunResults {
    let spec = from_toml(toml).expect("scenario parses");
    let model = build(&spec, seed).expect("scenario builds");
    Simulation::new(model).run()
}

pub fn red_packet_mode() -> &'static str {
    r#"{ kind = "red", limit = 50, min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, gentle = false, bytes = false, queue_in_bytes = false }"#
}
