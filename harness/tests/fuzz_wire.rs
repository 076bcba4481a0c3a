//! `taskcheck fuzz-wire` against the reference receivers of both profiles: clean without a
//! fault over stdio and HTTP, and for each fault the fixed scenarios miss by design (and the
//! extension's unknown-task faults) it names the broken rule, saves the case, and the saved
//! case replays: failing the faulty receiver, passing the correct one.

mod common;

use common::*;
use mcp_taskcheck::designs::ext_tasks;
use mcp_taskcheck::designs::tasks_2025::reference::faults::{by_name, FAULTS};
use mcp_taskcheck::reference::faults::FaultEntry;
use mcp_taskcheck::spec;

fn fuzz_wire(target: &[&str], extra: &[&str]) -> (i32, String) {
    let mut args = vec!["fuzz-wire"];
    args.extend_from_slice(target);
    args.extend_from_slice(&["--timeout-ms", "2000"]);
    args.extend_from_slice(extra);
    let out = taskcheck(&args);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Every input class the reference offers, by the name the summary prints.
const CLASSES: [&str; 11] = [
    "parse-error",
    "invalid-request",
    "unknown-method",
    "bad-task-id",
    "bad-cursor",
    "bad-task-param",
    "odd-ttl",
    "duplicate-id",
    "stray-response",
    "notification",
    "before-init",
];

#[test]
fn fuzz_wire_finds_nothing_wrong_with_the_reference_receiver() {
    let (code, out) = fuzz_wire(
        &["--stdio", &reference(&[])],
        &["--seed", "1", "--cases", "150"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fuzz-wire: 150 case(s)"), "{out}");
    assert!(out.contains("no rule broken"), "{out}");
    for class in CLASSES {
        assert!(
            out.lines().any(|l| l.starts_with(class)),
            "{class} never drawn\n{out}"
        );
    }
}

#[test]
fn fuzz_wire_over_http_is_clean_too() {
    let server = HttpReference::start(&[]);
    let (code, out) = fuzz_wire(&["--url", &server.url], &["--seed", "5", "--cases", "60"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no rule broken"), "{out}");
}

/// Every input class the extension's reference is sent (no initialize, tasks/list or ttl).
const EXT_CLASSES: [&str; 7] = [
    "parse-error",
    "invalid-request",
    "unknown-method",
    "bad-task-id",
    "duplicate-id",
    "stray-response",
    "notification",
];

#[test]
fn fuzz_wire_finds_nothing_wrong_with_the_extensions_reference_over_stdio_and_http() {
    let (code, out) = fuzz_wire(
        &["--stdio", &ext_reference(&[])],
        &["--seed", "1", "--cases", "120"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("speaks the ext-tasks design"), "{out}");
    assert!(out.contains("no rule broken"), "{out}");
    for class in EXT_CLASSES {
        assert!(
            out.lines().any(|l| l.starts_with(class)),
            "{class} never drawn\n{out}"
        );
    }
    let server = HttpReference::start(&["--profile", "ext-tasks"]);
    let (code, out) = fuzz_wire(
        &["--url", &server.url, "--profile", "ext-tasks"],
        &["--seed", "5", "--cases", "80"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no rule broken"), "{out}");
}

/// Each fuzz-wire-only fault, with a seed whose cases reach it.
const FOUND: [(&str, &str); 6] = [
    ("dies-on-odd-ttl", "1"),
    ("silent-on-unknown-method", "1"),
    ("replies-to-notifications", "1"),
    ("parse-error-wrong-code", "1"),
    ("invalid-request-as-parse-error", "1"),
    ("unknown-method-invalid-params", "1"),
];

#[test]
fn every_fuzz_wire_only_fault_is_listed_here() {
    let listed: Vec<&str> = FAULTS
        .iter()
        .filter(|f| f.fuzz_wire_only())
        .map(|f| f.name)
        .collect();
    assert_eq!(listed, FOUND.iter().map(|(f, _)| *f).collect::<Vec<_>>());
}

/// Faults of the extension's reference that fuzz-wire's unknown-task cases reach from seed 1.
const EXT_FOUND: [&str; 3] = [
    "get-unknown-wrong-code",
    "update-unknown-acks",
    "cancel-unknown-acks",
];

#[test]
fn fuzz_wire_names_saves_and_replays_each_fuzz_wire_only_fault() {
    let ext_info = |name: &str| {
        ext_tasks::reference::faults::FAULTS
            .iter()
            .find(|f| f.name == name)
    };
    let found: Vec<(FaultEntry, &str, bool)> = FOUND
        .iter()
        .map(|(f, seed)| (by_name(f).unwrap().entry(), *seed, false))
        .chain(
            EXT_FOUND
                .iter()
                .map(|f| (ext_info(f).unwrap().entry(), "1", true)),
        )
        .collect();
    let problems = in_parallel(&found, 3, |(info, seed, ext)| {
        let fault = info.name;
        let with = |faults: &[&str]| match ext {
            true => ext_reference(faults),
            false => reference(faults),
        };
        let rule = info.rules[0];
        let label = match spec::rule(rule).unwrap().level.is_mandatory() {
            true => "FAIL",
            false => "WARN",
        };
        let dir = temp_path(&format!("fuzz-wire-{fault}"));
        let faulty = with(&[fault]);
        let (code, out) = fuzz_wire(
            &["--stdio", &faulty],
            &[
                "--seed",
                seed,
                "--cases",
                "80",
                "--save-failures",
                dir.to_str().unwrap(),
            ],
        );
        let mut problems = Vec::new();
        let want_code = if label == "FAIL" { 1 } else { 0 };
        let broken: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("FAIL ") || l.starts_with("WARN "))
            .collect();
        if code != want_code
            || broken.len() != 1
            || !broken[0].starts_with(&format!("{label} {rule} "))
        {
            problems.push(format!(
                "{fault}: exit {code}, wanted exactly {label} {rule}\n{out}"
            ));
            return problems;
        }
        let saved: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        let [file] = saved.as_slice() else {
            problems.push(format!("{fault}: saved {} files", saved.len()));
            return problems;
        };
        let file = file.path();
        let replay = |receiver: &str| {
            fuzz_wire(
                &["--stdio", receiver],
                &["--replay", file.to_str().unwrap()],
            )
        };
        let (code, out) = replay(&faulty);
        if code != want_code || !out.contains(&format!("{label} {rule}:")) {
            problems.push(format!("{fault}: the replay gave exit {code}\n{out}"));
        }
        let (code, out) = replay(&with(&[]));
        if code != 0 || out.contains("FAIL") || out.contains("WARN") {
            problems.push(format!(
                "{fault}: the replay accuses the correct receiver\n{out}"
            ));
        }
        problems
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_missing_replay_file_is_a_usage_error_naming_it() {
    let (code, out) = fuzz_wire(
        &["--stdio", &reference(&[])],
        &["--replay", "/nonexistent/case.json"],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("/nonexistent/case.json: cannot read"), "{out}");
}

#[test]
fn fuzz_wire_writes_reports_and_fails_on_a_should_when_told() {
    let faulty = reference(&["parse-error-wrong-code"]);
    let json = temp_path("fuzz-wire-report.json");
    let args = |fail_on: &'static str| {
        vec![
            "--seed",
            "1",
            "--cases",
            "40",
            "--fail-on",
            fail_on,
            "--report-json",
            json.to_str().unwrap(),
        ]
    };
    let (code, out) = fuzz_wire(&["--stdio", &faulty], &args("must"));
    assert_eq!(code, 0, "a SHOULD warns, by default\n{out}");
    let (code, out) = fuzz_wire(&["--stdio", &faulty], &args("should"));
    assert_eq!(code, 1, "--fail-on should fails on it\n{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let scenario = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "fuzz-wire/parse-error")
        .unwrap_or_else(|| panic!("no parse-error scenario\n{report:#}"));
    let check = scenario["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["rule"] == "wire.parse-error")
        .unwrap();
    assert_eq!(check["verdict"], "warn", "{check:#}");
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .contains("case(s) broke it"),
        "{check:#}"
    );
}
