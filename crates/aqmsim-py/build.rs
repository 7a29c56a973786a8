//! Stamps the engine's identity into `aqmsim._core.BUILD` (see `build_info` in lib.rs):
//! a hash of the engine's sources (what makes two builds behave the same, so the sweep store
//! can tell a run made by another engine), the git commit when built from a checkout, and
//! the compiler's profile. FNV-1a over sorted paths and contents: stable across Rust
//! versions, unlike `DefaultHasher`, and needs no dependency.

use std::path::{Path, PathBuf};
use std::process::Command;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.file_name().is_some_and(|n| n.to_string_lossy().ends_with("_tests.rs")) {
            // tests do not change what the engine computes: a test-only edit keeps the
            // identity, so stored runs stay valid
        } else if p.extension().is_some_and(|x| x == "rs") || p.file_name().is_some_and(|n| n == "Cargo.toml") {
            out.push(p);
        }
    }
}

fn fnv1a(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= u64::from(*b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).output().ok()?;
    o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let roots = [here.join("../aqmsim-core/src"), here.join("../aqmsim-core/Cargo.toml"), here.join("src"), here.join("Cargo.toml")];
    let mut files = Vec::new();
    for r in &roots {
        println!("cargo:rerun-if-changed={}", r.display());
        if r.is_dir() { walk(r, &mut files) } else { files.push(r.clone()) }
    }
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let rel = f.strip_prefix(&here).unwrap_or(f);
        fnv1a(&mut h, rel.to_string_lossy().as_bytes());
        fnv1a(&mut h, &std::fs::read(f).unwrap_or_default());
    }
    println!("cargo:rustc-env=AQMSIM_SOURCE_HASH={h:016x}");

    // The commit is informative only (a wheel built from an sdist has none): the source
    // hash is what decides whether two engines are the same.
    let commit = git(&["-C", &here.to_string_lossy(), "rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    let dirty = git(&["-C", &here.to_string_lossy(), "status", "--porcelain", "--", "../aqmsim-core", "."])
        .is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=AQMSIM_GIT_COMMIT={commit}{}", if dirty && !commit.is_empty() { "-dirty" } else { "" });
    // Re-stamp when HEAD moves (a checkout) or its branch moves (a commit).
    let branch = git(&["-C", &here.to_string_lossy(), "symbolic-ref", "-q", "HEAD"]);
    for r in ["HEAD"].into_iter().chain(branch.as_deref()) {
        if let Some(gp) = git(&["-C", &here.to_string_lossy(), "rev-parse", "--git-path", r]) {
            let p = if Path::new(&gp).is_absolute() { PathBuf::from(gp) } else { here.join(gp) };
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    println!("cargo:rustc-env=AQMSIM_PROFILE={}", std::env::var("PROFILE").unwrap_or_default());
}
