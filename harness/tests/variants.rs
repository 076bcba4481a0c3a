//! No check accuses a correct receiver: every legal variant of the reference receiver (a
//! behaviour the spec allows, `reference --variant NAME`) passes the whole suite with no
//! failure, warning or error, over stdio and over Streamable HTTP.

mod common;

use common::*;
use mcp_taskcheck::designs::tasks_2025::reference::variants::VARIANTS;

/// What is wrong with one variant's run: any failure, warning or error.
fn accusations(name: &str, code: i32, out: &str, doc: &serde_json::Value) -> Vec<String> {
    let bad = rules_with(doc, &["fail", "warn", "error"]);
    match (code, bad.is_empty()) {
        (0, true) => Vec::new(),
        _ => vec![format!(
            "variant {name}: exit {code}, accused of {bad:?}\n{out}"
        )],
    }
}

#[test]
fn every_legal_variant_passes_over_stdio() {
    let problems = in_parallel(VARIANTS, 3, |v| {
        let receiver = format!("{BIN} reference --variant {}", v.name);
        let (code, out, doc) = run(&receiver, &["--jobs", "4"], &format!("variant-{}", v.name));
        accusations(v.name, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_legal_variant_passes_over_http() {
    let problems = in_parallel(VARIANTS, 3, |v| {
        let server = HttpReference::start(&["--variant", v.name]);
        let (code, out, doc) = run_against(
            &["--url", &server.url],
            &["--jobs", "4"],
            &format!("variant-http-{}", v.name),
        );
        accusations(v.name, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn variants_are_listed_and_unknown_ones_are_usage_errors() {
    let out = taskcheck(&["reference", "--list-variants"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), VARIANTS.len(), "{text}");
    let out = taskcheck(&["reference", "--variant", "no-such-variant"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--list-variants"));
}
