//! Structure-aware: the bytes choose a valid scenario (the examples, the paper scenarios
//! and `crates/aqmsim-core/tests/fuzz_seeds`) and 1-4 edits of it (extreme values, deleted or duplicated entries, fields
//! where they do not belong), run through both parsers (`aqmsim_core::fuzzing::mutate`).
#![no_main]
use aqmsim_core::fuzzing::{check_value, mutate, toml_to_value, Bytes, Choices};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

fn bases() -> &'static Vec<Value> {
    static B: OnceLock<Vec<Value>> = OnceLock::new();
    B.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut dirs = vec![root.join("examples"), root.join("crates/aqmsim-core/tests/fuzz_seeds")];
        for e in std::fs::read_dir(root.join("python/aqmsim/papers")).into_iter().flatten().flatten() {
            dirs.push(e.path().join("scenarios"));
        }
        dirs.sort();
        let mut files: Vec<_> = dirs.iter().flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten()).map(|e| e.path()).collect();
        files.retain(|p| p.extension().is_some_and(|x| x == "toml"));
        files.sort();
        let v: Vec<Value> = files.iter().filter_map(|f| toml_to_value(&std::fs::read_to_string(f).ok()?)).collect();
        assert!(!v.is_empty(), "no corpus scenarios under {}", root.display());
        v
    })
}

fuzz_target!(|data: &[u8]| {
    let b = bases();
    let mut c = Bytes(data);
    let base = &b[c.below(b.len())];
    let v = mutate(base, &mut c);
    check_value(&v, 1);
});
