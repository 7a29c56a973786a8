use crate::common::*;
use aqmsim_core::scenario::{build::build, from_toml};
use aqmsim_core::sim::Simulation;

#[test]
fn same_seed_bit_identical_different_seed_differs() {
    let sc = dumbbell(5, red_packet_mode(), 10.0, "");
    let a = run(&sc, 3);
    let b = run(&sc, 3);
    let c = run(&sc, 4);
    assert_eq!(a.summary.items, b.summary.items);
    assert_eq!(a.queue.len_pkts, b.queue.len_pkts);
    assert_eq!(a.queue.avg.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b.queue.avg.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    assert_eq!(a.drops.t, b.drops.t);
    assert_ne!(a.summary.items, c.summary.items);
}

#[test]
fn every_arrival_is_departed_dropped_or_queued_and_bounds_hold() {
    for q in [r#"{ kind = "droptail", limit = 20 }"#, red_packet_mode()] {
        let sc = dumbbell(8, q, 15.0, "");
        let spec = from_toml(&sc).unwrap();
        let model = build(&spec, 2).unwrap();
        let sim = Simulation::new(model);
        let r = sim.run();
        let s = &r.summary;
        let arr = s.get("bottleneck_arrivals").unwrap();
        let dep = s.get("bottleneck_departures").unwrap();
        let drop = s.get("bottleneck_drops").unwrap();
        let queued = s.get("bottleneck_queued_end").unwrap();
        assert_eq!(arr, dep + drop + queued, "conservation for {q}");
        let sum = |v: &Vec<u64>| v.iter().sum::<u64>() as f64;
        assert_eq!(sum(&r.flows.queue_arrivals), arr, "per-flow arrivals add up");
        assert_eq!(sum(&r.flows.queue_drops), drop, "per-flow drops add up");
        assert_eq!(sum(&r.flows.queue_marks), s.get("marks").unwrap());
        assert!(drop > 0.0, "the scenario should congest the bottleneck");
        let limit = if q.contains("droptail") { 19 } else { 50 };
        assert!(r.queue.len_pkts.iter().all(|&l| l <= limit), "queue bound for {q}");
        assert!(s.get("max_queue_pkts").unwrap() <= limit as f64);
        assert!(r.links.utilisation.iter().all(|&u| (0.0..=1.0 + 1e-12).contains(&u)));
        let u = s.get("utilisation").unwrap();
        assert!(u > 0.8 && u <= 1.0, "utilisation {u}");
        // throughput cannot exceed the bottleneck
        assert!(s.get("throughput_bps").unwrap() <= 1.5e6 * 1.0001);
    }
}

#[test]
fn red_drops_are_mostly_early_droptail_only_overflow() {
    let r = run(&dumbbell(8, red_packet_mode(), 20.0, ""), 1);
    let s = &r.summary;
    assert!(s.get("drops_early").unwrap() > 0.0);
    let d = run(&dumbbell(8, r#"{ kind = "droptail", limit = 50 }"#, 20.0, ""), 1);
    assert_eq!(d.summary.get("drops_early").unwrap(), 0.0);
    assert!(d.summary.get("drops_overflow").unwrap() > 0.0);
    // RED keeps a shorter queue than DropTail with the same buffer.
    assert!(s.get("time_avg_queue_pkts").unwrap() < d.summary.get("time_avg_queue_pkts").unwrap());
}

#[test]
fn the_resolved_scenario_is_itself_a_valid_scenario_with_the_same_results() {
    let sc = dumbbell(4, red_packet_mode(), 5.0, "");
    let spec = from_toml(&sc).unwrap();
    let model = build(&spec, 9).unwrap();
    let resolved = model.resolved.to_string();
    let again = aqmsim_core::scenario::from_json(&resolved).expect("resolved form parses");
    let model2 = build(&again, 9).unwrap();
    assert_eq!(model2.resolved, model.resolved, "resolving is idempotent");
    let a = Simulation::new(model).run();
    let b = Simulation::new(model2).run();
    assert_eq!(a.summary.items, b.summary.items);
}

#[test]
fn validation_is_linear_in_flows() {
    // A complexity guard, not a benchmark: the route check used to search the network once
    // per flow (100 000 flows: 124 s and 2 GB); one pass over connected parts takes ~2 s.
    use aqmsim_core::scenario::{build::build, from_toml};
    let sc = r#"
duration = 1
[dumbbell.bottleneck]
rate = "10Mb"
delay = "10ms"
[[dumbbell.groups]]
count = 100000
access = { rate = "100Mb", delay = "1ms" }
"#;
    let t = std::time::Instant::now();
    let m = build(&from_toml(sc).unwrap(), 1).unwrap();
    assert_eq!(m.flows.len(), 100_000);
    assert!(t.elapsed().as_secs_f64() < 30.0, "building 100 000 flows took {:?}", t.elapsed());
}
