//! `taskcheck load`: 10,000 tasks at concurrency 64 against the reference receiver pass, and
//! defects that only show across many tasks are caught.

mod common;

use common::*;
use serde_json::Value;

fn load(receiver: &str, extra: &[&str], tag: &str) -> (i32, String, Value) {
    let report = temp_path(&format!("{tag}.json"));
    let mut args = vec![
        "load",
        "--stdio",
        receiver,
        "--summary-json",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = taskcheck(&args);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let doc = std::fs::read_to_string(report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), text, doc)
}

#[test]
fn ten_thousand_tasks_at_concurrency_64_pass() {
    let (code, out, doc) = load(
        &reference(&[]),
        &["--tasks", "10000", "--concurrency", "64"],
        "load-10k",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(doc["completed"], 10000, "{out}");
    assert_eq!(doc["failures"], serde_json::json!([]));
    for stage in ["create", "tasksGet", "timeToResult"] {
        assert!(
            doc["latency"][stage]["p99Ms"].as_f64().unwrap() > 0.0,
            "{stage}: {out}"
        );
    }
}

#[test]
fn load_catches_defects_of_many_tasks() {
    for (fault, rule) in [
        ("duplicate-task-id", "tasks.id.unique"),
        (
            "result-without-related-task",
            "tasks.meta.result-related-task",
        ),
        ("numeric-task-id", "tasks.id.string"),
    ] {
        let (code, out, doc) = load(
            &reference(&[fault]),
            &["--tasks", "300", "--concurrency", "16"],
            fault,
        );
        assert_eq!(code, 1, "{fault}: {out}");
        let kinds: Vec<&str> = doc["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&rule), "{fault}: {kinds:?}\n{out}");
    }
}

#[test]
fn the_extensions_reference_passes_a_load_and_its_defects_are_caught() {
    let (code, out, doc) = load(
        &ext_reference(&[]),
        &["--tasks", "2000", "--concurrency", "32"],
        "load-ext",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("speaks the ext-tasks design"), "{out}");
    assert_eq!(doc["completed"], 2000, "{out}");
    assert_eq!(doc["limits"]["rule"], Value::Null, "{out}");
    for (fault, rule) in [
        ("ttl-not-ttl-ms", "ext-tasks.task.fields"),
        ("lazy-creation", "ext-tasks.create.durable"),
        ("completed-without-result", "ext-tasks.get.completed-result"),
        ("sequential-task-id", ""),
    ] {
        let (code, out, doc) = load(
            &ext_reference(&[fault]),
            &["--tasks", "100", "--concurrency", "16"],
            &format!("load-ext-{fault}"),
        );
        let kinds: Vec<&str> = doc["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        match rule {
            // guessable ids are no defect load can see: it must not accuse them
            "" => assert_eq!((code, kinds.len()), (0, 0), "{fault}: {out}"),
            _ => assert!(
                code == 1 && kinds.contains(&rule),
                "{fault}: {kinds:?}\n{out}"
            ),
        }
    }
}

#[test]
fn load_reports_like_run_and_fails_on_a_should_only_under_fail_on_should() {
    let report = temp_path("load-report.json");
    let json = [
        "--tasks",
        "50",
        "--concurrency",
        "8",
        "--report-json",
        report.to_str().unwrap(),
    ];
    let read =
        || -> Value { serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap() };
    // clean: what every completed task was judged by held, and the ttl granted is information
    let (code, out, _) = load(&reference(&[]), &json, "load-clean");
    assert_eq!(code, 0, "{out}");
    let doc = read();
    let schema: Value = serde_json::from_str(mcp_taskcheck::report::REPORT_SCHEMA).unwrap();
    assert!(jsonschema::is_valid(&schema, &doc), "{doc:#}");
    let passed = rules_with(&doc, &["pass"]);
    assert_eq!(passed.len(), 4, "{passed:?}");
    assert_eq!(rules_with(&doc, &["info"]), ["tasks.resources.limits"]);
    // a SHOULD broken warns, and fails the run only under --fail-on should
    let faulty = reference(&["timestamps-without-offset"]);
    let (code, out, _) = load(&faulty, &json, "load-should");
    assert_eq!(code, 0, "a SHOULD warns\n{out}");
    assert!(out.contains("\nexit 0: conformant"), "{out}");
    assert_eq!(
        rules_with(&read(), &["warn"]),
        ["tasks.ttl.timestamps-rfc3339"],
        "{out}"
    );
    let (code, out, _) = load(
        &faulty,
        &["--tasks", "50", "--fail-on", "should"],
        "load-should-fail",
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn a_receiver_that_cannot_start_is_a_harness_error() {
    let (code, out, _) = load("/nonexistent/receiver", &["--tasks", "5"], "load-missing");
    assert_eq!(code, 3, "{out}");
}

#[test]
fn the_duration_bounds_a_load() {
    let start = std::time::Instant::now();
    let (code, out, doc) = load(
        &reference(&[]),
        &[
            "--tasks",
            "100000000",
            "--concurrency",
            "8",
            "--duration-s",
            "1",
        ],
        "load-bounded",
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert!(doc["started"].as_u64().unwrap() < 100_000_000);
}

#[test]
fn a_receiver_that_limits_concurrent_tasks_is_reported_not_accused() {
    let (code, out, doc) = load(
        &format!("{} --max-tasks 4", reference(&[])),
        &["--tasks", "200", "--concurrency", "32"],
        "load-limited",
    );
    assert_eq!(code, 0, "limiting is what the spec recommends\n{out}");
    assert_eq!(doc["failures"], serde_json::json!([]), "{out}");
    let rejected = doc["limits"]["rejected"].as_u64().unwrap();
    assert!(rejected > 0, "the limit was never reached\n{out}");
    assert_eq!(
        doc["completed"].as_u64().unwrap() + rejected,
        200,
        "every task either completed or was rejected\n{out}"
    );
    assert_eq!(
        doc["limits"]["longTtl"], "was capped to 3600000 ms",
        "the reference caps ttl at an hour\n{out}"
    );
    assert!(
        out.contains("INFO tasks.resources.limits:") && out.contains("creations rejected"),
        "{out}"
    );
}
