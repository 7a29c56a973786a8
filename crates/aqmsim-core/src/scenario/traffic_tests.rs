//! The traffic models' distributions (seeded sample means against the true ones) and
//! their checks (the error names the field and the range).

use super::*;
use crate::rng::{stream, Rng};
use serde_json::json;

fn size(v: Value) -> SizeModel {
    parse_size(&v, "web.size").unwrap()
}

fn size_err(v: Value) -> String {
    parse_size(&v, "dumbbell.groups[1].web.size").unwrap_err().to_string()
}

fn sample_mean(m: &SizeModel, n: usize, seed: u64) -> f64 {
    let mut r = Rng::new(seed, stream::WEB);
    (0..n).map(|_| m.draw(&mut r)).sum::<f64>() / n as f64
}

#[test]
fn exponential_and_fixed_sizes_have_their_means() {
    let e = size(json!({"exponential": {"mean": 50000}}));
    let m = sample_mean(&e, 200_000, 1);
    // standard error 50000/√200000 ≈ 112 bytes: 1 % is ~4.5 standard errors
    assert!((m / 50000.0 - 1.0).abs() < 0.01, "{m}");
    assert_eq!(sample_mean(&size(json!({"fixed": 15000})), 10, 1), 15000.0);
}

#[test]
fn bounded_pareto_has_the_truncated_mean() {
    // Pareto shape 1.2 has infinite variance: the sample mean of the untruncated one
    // converges too slowly to test; truncated at 10 MB its mean is finite and computable.
    let p = size(json!({"pareto": {"mean": 50000, "shape": 1.2}, "max": 1e7}));
    // closed form: xm = 50000·0.2/1.2; E[X | X ≤ M] = a·xm^a·(xm^(1−a) − M^(1−a)) / ((a−1)(1 − (xm/M)^a))
    let (a, xm, big): (f64, f64, f64) = (1.2, 50000.0 * 0.2 / 1.2, 1e7);
    let want = a * xm.powf(a) * (xm.powf(1.0 - a) - big.powf(1.0 - a)) / ((a - 1.0) * (1.0 - (xm / big).powf(a)));
    assert!((p.mean() / want - 1.0).abs() < 1e-3, "numeric {} vs closed form {want}", p.mean());
    let m = sample_mean(&p, 400_000, 2);
    assert!((m / want - 1.0).abs() < 0.05, "sample {m} vs {want}");
    // never beyond max, never below the scale
    let mut r = Rng::new(3, 0);
    for _ in 0..10_000 {
        let x = p.draw(&mut r);
        assert!((xm * 0.999..=big).contains(&x), "{x}");
    }
}

#[test]
fn pareto_with_a_light_tail_has_its_mean() {
    let p = size(json!({"pareto": {"mean": 50000, "shape": 3.0}}));
    let m = sample_mean(&p, 400_000, 4);
    assert!((m / 50000.0 - 1.0).abs() < 0.01, "{m}");
}

#[test]
fn empirical_cdf_is_piecewise_linear() {
    // half the mass uniform on [1000, 3000], half on [3000, 11000]: mean 0.5·2000 + 0.5·7000
    let e = size(json!({"empirical": [[1000, 0.0], [3000, 0.5], [11000, 1.0]]}));
    assert_eq!(e.quantile(0.25), 2000.0);
    assert_eq!(e.quantile(0.75), 7000.0);
    let m = sample_mean(&e, 200_000, 5);
    assert!((m / 4500.0 - 1.0).abs() < 0.01, "{m}");
    // an atom at the first point
    let a = size(json!({"empirical": [[500, 0.5], [1500, 1.0]]}));
    assert_eq!(a.quantile(0.3), 500.0);
    assert_eq!(a.quantile(0.75), 1000.0);
}

#[test]
fn poisson_arrivals_count() {
    let w = parse_web(&WebSpec { arrival_rate: 2.0, size: json!({"fixed": 1000}), max_transfers: None }, "web").unwrap();
    // 2/s over 10 000 s: 20 000 expected, standard deviation √20000 ≈ 141
    let n = w.transfers(0.0, 10_000.0, &mut Rng::new(7, stream::WEB)).len() as f64;
    assert!((n - 20_000.0).abs() < 5.0 * 141.0, "{n}");
    // the cap, and the window [from, until)
    let capped = parse_web(&WebSpec { arrival_rate: 2.0, size: json!({"fixed": 1000}), max_transfers: Some(5) }, "web").unwrap();
    let t = capped.transfers(3.0, 10_000.0, &mut Rng::new(7, 1));
    assert_eq!(t.len(), 5);
    assert!(t.iter().all(|&(s, b)| s > 3.0 && b == 1000));
}

#[test]
fn period_draws_have_their_means() {
    let mut r = Rng::new(11, stream::ONOFF);
    let n = 200_000;
    let e = parse_period(&json!({"exponential": "2s"}), "on").unwrap();
    let m = (0..n).map(|_| e.draw(&mut r)).sum::<f64>() / n as f64;
    assert!((m / 2.0 - 1.0).abs() < 0.01, "{m}");
    let p = parse_period(&json!({"pareto": {"mean": "500ms", "shape": 2.5}}), "off").unwrap();
    let m = (0..n).map(|_| p.draw(&mut r)).sum::<f64>() / n as f64;
    assert!((m / 0.5 - 1.0).abs() < 0.02, "{m}");
    assert_eq!(parse_period(&json!("1.5s"), "on").unwrap(), PeriodDist::Fixed(1.5));
    assert_eq!(parse_period(&json!(0.25), "on").unwrap(), PeriodDist::Fixed(0.25));
}

#[test]
fn bad_sizes_name_the_field_and_range() {
    let e = size_err(json!({"pareto": {"mean": 50000, "shape": 0.9}}));
    assert_eq!(e, "dumbbell.groups[1].web.size.pareto.shape: must be > 1 (a finite mean) and ≤ 100, got 0.9");
    let e = size_err(json!({"pareto": {"mean": 50000}}));
    assert!(e.starts_with("dumbbell.groups[1].web.size.pareto.shape: missing"), "{e}");
    let e = size_err(json!({"lognormal": {"mean": 5}}));
    assert!(e.starts_with("dumbbell.groups[1].web.size.lognormal: unknown field"), "{e}");
    let e = size_err(json!({"fixed": 1000, "exponential": {"mean": 5}}));
    assert!(e.contains("exactly one distribution"), "{e}");
    let e = size_err(json!({"fixed": 0}));
    assert_eq!(e, "dumbbell.groups[1].web.size.fixed: must be in [1, 1e12] bytes, got 0");
    let e = size_err(json!({"empirical": [[1000, 0.2], [900, 1.0]]}));
    assert!(e.starts_with("dumbbell.groups[1].web.size.empirical[1][0]: sizes must increase"), "{e}");
    let e = size_err(json!({"empirical": [[1000, 0.2], [2000, 0.9]]}));
    assert!(e.starts_with("dumbbell.groups[1].web.size.empirical[1][1]: the last cumulative probability must be 1"), "{e}");
    let e = size_err(json!({"empirical": [[1000, 0.5], [2000, 0.4], [3000, 1]]}));
    assert!(e.contains("must not decrease"), "{e}");
    let e = size_err(json!({"fixed": 5000, "max": 1000}));
    assert!(e.starts_with("dumbbell.groups[1].web.size.max: must be ≥"), "{e}");
    let e = size_err(json!(50000));
    assert!(e.starts_with("dumbbell.groups[1].web.size: expected one of"), "{e}");
}

#[test]
fn bad_web_and_periods_name_the_field() {
    let w = WebSpec { arrival_rate: 0.0, size: json!({"fixed": 1}), max_transfers: None };
    assert_eq!(parse_web(&w, "flows[0].web").unwrap_err().to_string(), "flows[0].web.arrival_rate: must be in (0, 1e6] transfers per second, got 0");
    let w = WebSpec { arrival_rate: 1.0, size: json!({"fixed": 1}), max_transfers: Some(0) };
    assert!(parse_web(&w, "w").unwrap_err().to_string().starts_with("w.max_transfers: must be in [1, 100000]"));
    let e = parse_period(&json!({"pareto": {"mean": "1s", "shape": 1.0}}), "g.onoff.on").unwrap_err().to_string();
    assert_eq!(e, "g.onoff.on.pareto.shape: must be > 1 (a finite mean) and ≤ 100, got 1");
    let e = parse_period(&json!({"uniform": ["1s", "2s"]}), "g.onoff.off").unwrap_err().to_string();
    assert!(e.starts_with("g.onoff.off.uniform: unknown field"), "{e}");
    let e = parse_period(&json!("0s"), "g.onoff.off").unwrap_err().to_string();
    assert_eq!(e, "g.onoff.off: must be a time in (0, 1e6] s, got 0");
    let e = parse_period(&json!([1]), "g.onoff.off").unwrap_err().to_string();
    assert!(e.starts_with("g.onoff.off: expected a time"), "{e}");
}

#[test]
fn schedules_are_checked_and_integrated() {
    let q = |t: &str, r: &str| vec![Quantity::Text(t.into()), Quantity::Text(r.into())];
    let s = parse_schedule(&vec![q("0s", "10Mb"), q("50s", "1Mb"), q("100s", "10Mb")], "x").unwrap();
    assert_eq!(s, vec![(0.0, 10e6), (50.0, 1e6), (100.0, 10e6)]);
    // 50 s at 10 Mb/s + 50 s at 1 Mb/s + 20 s at 10 Mb/s
    assert_eq!(capacity_bits(&s, 120.0), 500e6 + 50e6 + 200e6);
    assert_eq!(capacity_bits(&s, 30.0), 300e6);
    let e = parse_schedule(&vec![q("1s", "10Mb")], "dumbbell.bottleneck.rate_schedule").unwrap_err().to_string();
    assert!(e.starts_with("dumbbell.bottleneck.rate_schedule[0][0]: the first entry must be at time 0"), "{e}");
    let e = parse_schedule(&vec![q("0s", "10Mb"), q("5s", "1Mb"), q("5s", "2Mb")], "r").unwrap_err().to_string();
    assert_eq!(e, "r[2][0]: times must increase, got 5 s after 5 s");
    let e = parse_schedule(&vec![q("0s", "10Mq")], "r").unwrap_err().to_string();
    assert!(e.starts_with("r[0][1]: unknown rate unit"), "{e}");
    assert!(parse_schedule(&vec![], "r").is_err());
    // an entry of another length: named, with the form it must have (not serde's words)
    let mut three = q("0s", "10Mb");
    three.push(Quantity::Num(3.0));
    let e = parse_schedule(&vec![three], "r").unwrap_err().to_string();
    assert_eq!(e, "r[0]: expected [time, rate], e.g. [\"0s\", \"10Mb\"], got a list of 3 value(s)");
    let e = parse_schedule(&vec![q("0s", "10Mb"), vec![Quantity::Num(5.0)]], "r").unwrap_err().to_string();
    assert!(e.starts_with("r[1]: expected [time, rate]"), "{e}");
}

#[test]
fn largest_is_the_draw_at_the_top_level() {
    let top = 1.0 - 1.0 / (1u64 << 53) as f64;
    let fixed = SizeModel { dist: SizeDist::Fixed(15000.5), max: None };
    assert_eq!(fixed.largest(), 15001);
    let exp = SizeModel { dist: SizeDist::Exponential { mean: 1000.0 }, max: None };
    assert_eq!(exp.largest(), (1000.0 * -(1.0 - top).ln()).ceil() as u64); // 36 737
    // unbounded heavy tails reach the 1 TB cap; a max bounds them
    let pareto = SizeModel { dist: SizeDist::Pareto { mean: 50000.0, shape: 1.2 }, max: None };
    assert_eq!(pareto.largest(), 1_000_000_000_000);
    let bounded = SizeModel { max: Some(2e6), ..pareto.clone() };
    assert!((1_999_000..=2_000_000).contains(&bounded.largest()), "{}", bounded.largest());
    let emp = SizeModel { dist: SizeDist::Empirical(vec![(100.0, 0.5), (9000.0, 1.0)]), max: None };
    assert_eq!(emp.largest(), 9000);
    // no draw exceeds it
    let mut r = Rng::new(3, 0);
    for m in [&exp, &bounded, &emp] {
        assert!((0..100_000).all(|_| m.draw(&mut r).ceil() as u64 <= m.largest()));
    }
}
