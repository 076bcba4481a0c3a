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
        let options = variant_options(v.name);
        let mut extra = vec!["--jobs", "4"];
        extra.extend(options.iter().map(String::as_str));
        let (code, out, doc) = run(&receiver, &extra, &format!("variant-{}", v.name));
        accusations(v.name, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_legal_variant_passes_over_http() {
    let problems = in_parallel(VARIANTS, 3, |v| {
        let server = HttpReference::start(&["--variant", v.name]);
        let options = variant_options(v.name);
        let mut extra = vec!["--jobs", "4"];
        extra.extend(options.iter().map(String::as_str));
        let (code, out, doc) = run_against(
            &["--url", &server.url],
            &extra,
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

#[test]
fn what_a_receiver_answers_to_operations_it_does_not_declare_is_recorded_never_judged() {
    // declared: the scenarios do not apply
    let scenarios = [
        "--scenario",
        "undeclared-list",
        "--scenario",
        "undeclared-cancel",
        "--scenario",
        "cancel-working",
    ];
    let (code, out, doc) = run(&reference(&[]), &scenarios, "undeclared-ops-declared");
    assert_eq!(code, 0, "{out}");
    let na = rules_with(&doc, &["not-applicable"]);
    assert!(
        na.contains(&"tasks.capability.undeclared-operations".to_string()),
        "{out}"
    );
    // undeclared and refused with -32601 (calls-only), or undeclared and served (the
    // TypeScript SDK, reports/): recorded either way, and the cancel rules do not apply
    let receiver = format!("{BIN} reference --variant calls-only");
    let (code, out, doc) = run(&receiver, &scenarios, "undeclared-ops-calls-only");
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(&doc, &["info"])
            .iter()
            .filter(|r| *r == "tasks.capability.undeclared-operations")
            .count(),
        1,
        "{out}"
    );
    assert!(doc.to_string().contains("(not declared)"), "{out}");
    assert!(
        rules_with(&doc, &["not-applicable"]).contains(&"tasks.cancel.stays-cancelled".to_string()),
        "{out}"
    );
}
