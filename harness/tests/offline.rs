//! `taskcheck check`: a recorded trace judged offline gives the verdicts of the live run (for
//! every fault of both references, `tests/common`'s fault runs compare the two rule by rule).

mod common;

use common::*;
use mcp_taskcheck::designs::tasks_2025::monitor::MONITOR_RULES;
use mcp_taskcheck::designs::tasks_2025::reference::faults::FAULTS;
use mcp_taskcheck::scenario;
use serde_json::Value;
use std::collections::BTreeSet;

/// Rules judged by monitors and by no scenario step: offline sees all their evidence.
fn monitor_only() -> BTreeSet<&'static str> {
    let stepped: BTreeSet<String> = scenario::builtin()
        .iter()
        .flat_map(|s| s.judged_rules())
        .collect();
    MONITOR_RULES
        .iter()
        .copied()
        .filter(|r| !stepped.contains(*r))
        .collect()
}

/// The rules broken, as roots or as consequences: a root that a scenario step judges is not
/// in a trace, so offline its consequences are failures of their own.
fn failing(doc: &Value, among: &BTreeSet<&str>) -> Vec<String> {
    rules_with(doc, &["fail", "warn", "error", "consequence"])
        .into_iter()
        .filter(|r| among.contains(r.as_str()))
        .collect()
}

fn live_and_offline(faults: &[&str], tag: &str) -> Vec<String> {
    let only = monitor_only();
    let trace = temp_path(&format!("{tag}.jsonl"));
    let (_, out, live) = run(
        &reference(faults),
        &["--trace", trace.to_str().unwrap()],
        tag,
    );
    let report = temp_path(&format!("{tag}-offline.json"));
    let checked = taskcheck(&[
        "check",
        trace.to_str().unwrap(),
        "--report-json",
        report.to_str().unwrap(),
    ]);
    let offline: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let (want, got) = (failing(&live, &only), failing(&offline, &only));
    let mut problems = Vec::new();
    if want != got {
        problems.push(format!("{tag}: live {want:?}, offline {got:?}\n{out}"));
    }
    let want_code = if rules_with(&offline, &["fail"]).is_empty() {
        0
    } else {
        1
    };
    if checked.status.code() != Some(want_code) {
        problems.push(format!(
            "{tag}: offline exit {:?}, want {want_code}",
            checked.status.code()
        ));
    }
    problems
}

#[test]
fn a_clean_trace_passes_offline() {
    assert_eq!(live_and_offline(&[], "offline-clean"), Vec::<String>::new());
}

#[test]
fn check_judges_only_the_sessions_a_selection_picks() {
    let trace = temp_path("offline-select.jsonl");
    let mut args = vec!["--trace", trace.to_str().unwrap()];
    for id in ["create-poll-result", "cancel-terminal", "unknown-task-id"] {
        args.extend(["--scenario", id]);
    }
    let (code, out, _) = run(&reference(&[]), &args, "offline-select-live");
    assert_eq!(code, 0, "{out}");
    let report = temp_path("offline-select.json");
    // the exit code of `check` and the sessions its report lists
    let check = |select: &[&str]| -> (Option<i32>, Vec<String>) {
        let _ = std::fs::remove_file(&report);
        let mut args = vec!["check", trace.to_str().unwrap()];
        args.extend(["--report-json", report.to_str().unwrap()]);
        args.extend_from_slice(select);
        let code = taskcheck(&args).status.code();
        let doc: Value = std::fs::read_to_string(&report)
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or(Value::Null);
        let ids = doc["scenarios"].as_array().into_iter().flatten();
        (
            code,
            ids.map(|s| s["id"].as_str().unwrap().to_string()).collect(),
        )
    };
    assert_eq!(check(&[]).1.len(), 3);
    // the same meaning as run's: an id, a rule judged, a tag
    let one = check(&["--scenario", "create-poll-result"]);
    assert_eq!(one, (Some(0), vec!["create-poll-result".to_string()]));
    let by_rule = check(&["--rule", "tasks.errors.unknown-task-id"]);
    assert_eq!(by_rule, (Some(0), vec!["unknown-task-id".to_string()]));
    assert_eq!(check(&["--scenario", "no-such-scenario"]).0, Some(2));
}

#[test]
fn a_broken_trace_line_is_a_usage_error_naming_it() {
    let dir = scenario_dir(
        "offline-broken",
        "t.jsonl",
        "{\"seq\":0,\"dir\":\"out\",\"transport\":\"stdio\",\"t_ms\":0}\nnot json\n",
    );
    let path = dir.join("t.jsonl");
    let out = taskcheck(&["check", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("t.jsonl:2:"), "{err}");
}

#[test]
fn a_long_trace_folds_into_counts_with_the_same_totals_rules_and_exit() {
    // a defect every session shows: each session fails the same monitor rules
    let only = monitor_only();
    let fault = FAULTS
        .iter()
        .find(|f| f.name == "created-at-not-rfc3339")
        .expect("the created-at-not-rfc3339 fault");
    assert!(fault.rules.iter().any(|r| only.contains(r)));
    let trace = temp_path("offline-fold.jsonl");
    run(
        &reference(&[fault.name]),
        &["--trace", trace.to_str().unwrap()],
        "offline-fold",
    );
    let check = |fold_after: &str, tag: &str| {
        let report = temp_path(&format!("offline-fold-{tag}.json"));
        let out = taskcheck(&[
            "check",
            trace.to_str().unwrap(),
            "--fold-after",
            fold_after,
            "--report-json",
            report.to_str().unwrap(),
        ]);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
        (out, doc)
    };
    let (whole_out, whole) = check("100000", "whole");
    let (folded_out, folded) = check("0", "folded");
    let text = String::from_utf8_lossy(&folded_out.stdout);
    assert_eq!(whole_out.status.code(), Some(1));
    assert_eq!(folded_out.status.code(), whole_out.status.code(), "{text}");
    assert_eq!(folded["totals"], whole["totals"]);
    assert_eq!(folded["rules"], whole["rules"]);
    assert!(whole.get("folded").is_none());
    let listed = folded["scenarios"].as_array().unwrap().len();
    let sessions = whole["scenarios"].as_array().unwrap().len();
    let folded_sessions = folded["folded"]["sessions"].as_u64().unwrap() as usize;
    assert_eq!(listed + folded_sessions, sessions);
    // a rule not met is shown by its first three sessions at most, unless another needs them
    assert!(listed >= 3 && listed < sessions, "{listed} of {sessions}");
    assert!(text.contains("more session(s) folded"), "{text}");
    let schema: Value = serde_json::from_str(mcp_taskcheck::report::REPORT_SCHEMA).unwrap();
    assert!(jsonschema::is_valid(&schema, &folded), "{folded:#}");
}
