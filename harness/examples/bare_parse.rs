//! The floor of offline checking: each line of a JSON-lines file parsed into a serde_json
//! `Value`, nothing more. `scripts/measure-performance.sh` times it beside `taskcheck check`
//! of the same trace and prints the ratio.

use std::io::BufRead;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bare_parse FILE");
        std::process::exit(2);
    };
    let file = std::fs::File::open(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let mut messages = 0u64;
    for line in std::io::BufReader::with_capacity(1 << 20, file).lines() {
        let line = line.unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        });
        let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        std::hint::black_box(value);
        messages += 1;
    }
    println!("{messages} lines parsed");
}
