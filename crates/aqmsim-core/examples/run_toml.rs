//! Run a scenario file and print its summary: `cargo run --release --example run_toml -- FILE [SEED]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: run_toml FILE [SEED]");
    let seed = args.get(2).and_then(|s| s.parse().ok());
    let text = std::fs::read_to_string(path).expect("readable file");
    match aqmsim_core::run_toml(&text, seed) {
        Ok(r) => {
            for (k, v) in &r.summary.items {
                eprintln!("{k} {v}");
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
