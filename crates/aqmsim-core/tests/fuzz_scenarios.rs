//! The short fuzz run on stable Rust (part of `cargo test` and so of `make test`): seeded,
//! structure-aware mutations of every example and paper scenario and of `tests/fuzz_seeds`, each parsed (as JSON and
//! as TOML), built and run with a hard event cap by `aqmsim_core::fuzzing::check_text`.
//! A panic, an invariant violation or an error without a message fails the test, which
//! prints the scenario that did it. `FUZZ_CASES=n` sets the number of mutated scenarios
//! (default 3000); `FUZZ_SEED=s` starts from another seed; `FUZZ_TRACE=file` writes
//! each scenario there before running it (to catch the one that hangs); `FUZZ_VERBOSE=1`
//! prints slow cases. See docs/fuzzing.md.

use aqmsim_core::fuzzing::{check_text, check_value, mutate, toml_to_value, Outcome, Seeded};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every example and paper scenario and the fuzzer's own seeds (`tests/fuzz_seeds`: the
/// linux stack, L4S, the home-router disciplines), with its file name.
fn corpus() -> Vec<(String, String)> {
    let mut dirs = vec![repo().join("examples"), Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_seeds")];
    if let Ok(rd) = std::fs::read_dir(repo().join("python/aqmsim/papers")) {
        let mut papers: Vec<PathBuf> = rd.flatten().map(|e| e.path().join("scenarios")).collect();
        papers.sort();
        dirs.extend(papers);
    }
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
        files.sort();
        for f in files {
            out.push((f.display().to_string(), std::fs::read_to_string(&f).unwrap()));
        }
    }
    out
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

#[test]
fn the_corpus_runs_unchanged() {
    let c = corpus();
    assert!(c.len() >= 10, "expected the examples and paper scenarios, found {}", c.len());
    for (name, text) in &c {
        let r = catch_unwind(|| check_text(text, true, 1));
        assert!(matches!(r, Ok(Outcome::Ran | Outcome::Capped | Outcome::Skipped)), "{name}: {:?}", r.map_err(|e| panic_text(&*e)));
    }
}

#[test]
fn mutated_scenarios_are_run_or_refused() {
    let cases = env_u64("FUZZ_CASES", 3000);
    let seed0 = env_u64("FUZZ_SEED", 0);
    let bases: Vec<(String, Value)> = corpus().into_iter().map(|(n, t)| (n, toml_to_value(&t).expect("corpus TOML"))).collect();
    // Quiet the default hook: a finding is reported once, below, with its scenario.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut counts = [0u64; 4];
    let mut findings: Vec<String> = Vec::new();
    let mut slowest = (0.0, 0, String::new());
    let trace = std::env::var_os("FUZZ_TRACE");
    for i in 0..cases {
        let mut ch = Seeded(seed0.wrapping_add(i).wrapping_mul(0x2545_F491_4F6C_DD1D));
        let (name, base) = &bases[(i as usize) % bases.len()];
        let v = mutate(base, &mut ch);
        if let Some(f) = &trace {
            // the case in hand, for a hang: FUZZ_TRACE=file keeps it there
            std::fs::write(f, format!("case {i} from {name}\n{}\n", serde_json::to_string(&v).unwrap())).unwrap();
        }
        let t0 = std::time::Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| check_value(&v, i)));
        let dt = t0.elapsed().as_secs_f64();
        if dt > 0.5 && std::env::var_os("FUZZ_VERBOSE").is_some() {
            eprintln!("case {i} from {name}: {dt:.2} s");
        }
        if dt > slowest.0 {
            slowest = (dt, i, serde_json::to_string(&v).unwrap());
        }
        match r {
            Ok(outs) => {
                for o in outs.into_iter().flatten() {
                    counts[o as usize] += 1;
                }
            }
            Err(e) => {
                if findings.len() < 20 {
                    findings.push(format!("case {i} (from {name}): {}\n  scenario: {}", panic_text(&*e), serde_json::to_string(&v).unwrap()));
                } else {
                    findings.push(String::new());
                }
            }
        }
    }
    std::panic::set_hook(hook);
    if std::env::var_os("FUZZ_VERBOSE").is_some() {
        eprintln!("slowest case {} ({:.3} s): {}", slowest.1, slowest.0, slowest.2);
    }
    eprintln!(
        "fuzz: {cases} mutated scenarios, {} cases (JSON and TOML): {} refused, {} skipped (> FLOW_CAP flows), {} capped, {} ran; {} findings",
        counts.iter().sum::<u64>(), counts[0], counts[1], counts[2], counts[3], findings.len()
    );
    assert!(findings.is_empty(), "{} of {cases} mutated scenarios failed:\n{}", findings.len(), findings.join("\n"));
}

/// A tool, not a test: replays a cargo-fuzz `scenario_mutate` input, printing the
/// scenario its bytes make and running it:
/// `FUZZ_REPLAY=fuzz/artifacts/scenario_mutate/<file> cargo test --release -p aqmsim-core
/// --test fuzz_scenarios replay -- --ignored --nocapture`.
#[test]
#[ignore = "a tool: set FUZZ_REPLAY=<file> and pass --ignored"]
fn replay() {
    use aqmsim_core::fuzzing::{Bytes, Choices};
    let path = std::env::var_os("FUZZ_REPLAY").expect("FUZZ_REPLAY=<a scenario_mutate input>");
    let data = std::fs::read(path).unwrap();
    let bases: Vec<Value> = corpus().into_iter().map(|(_, t)| toml_to_value(&t).unwrap()).collect();
    let mut c = Bytes(&data);
    let base = &bases[c.below(bases.len())];
    let v = mutate(base, &mut c);
    eprintln!("{}", serde_json::to_string(&v).unwrap());
    let t0 = std::time::Instant::now();
    let out = check_value(&v, 1);
    eprintln!("{out:?} in {:.3} s", t0.elapsed().as_secs_f64());
}
