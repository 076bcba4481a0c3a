//! Every input a fuzz target once failed on, kept under tests/fixtures/fuzz/<target>/ and
//! run through the target's property on every test run.

use mcp_taskcheck::fuzzing::{scenario_round_trip, yaml_lines};
use std::path::Path;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz")
        .join(target);
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn scenario_parse_regressions_hold() {
    let found = inputs("scenario_parse");
    assert!(!found.is_empty());
    for (name, bytes) in found {
        let text = String::from_utf8(bytes).unwrap();
        scenario_round_trip(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn a_lone_cr_ends_a_yaml_line() {
    assert_eq!(yaml_lines("a\nb\r\nc\rd"), 4);
    assert_eq!(yaml_lines(""), 1);
}
