//! Client receivers (`taskcheck client`): the reference client passes every client scenario
//! over HTTP and stdio, every reference-client fault fails exactly its rules, and a client that
//! never connects or dies is reported, not waited for.

mod common;

use common::*;
use mcp_taskcheck::designs::tasks_2025::reference::faults::client_faults;
use mcp_taskcheck::spec::{self, Status};
use std::time::{Duration, Instant};

/// Fails if a process whose command line contains `marker` still runs.
fn assert_nothing_left(marker: &str) {
    let left = std::process::Command::new("pgrep")
        .args(["-f", marker])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "a client ({marker}) was left running"
    );
}

fn assert_clean(stdio: bool, tag: &str) {
    let (code, out, doc) = run_client(&reference_client(&[]), stdio, &[], tag);
    assert_all_pass(code, &out, &doc);
    // only client scenarios ran
    for s in doc["scenarios"].as_array().unwrap() {
        assert!(s["id"].as_str().unwrap().starts_with("client-"), "{s}");
    }
    // every rule a clean run judges can be made to fail by a reference-client fault
    let faulted: Vec<&str> = client_faults()
        .iter()
        .flat_map(|f| f.rules)
        .copied()
        .collect();
    for rule in rules_with(&doc, &["pass"]) {
        let status = spec::rule(&rule).map(|r| r.status);
        assert!(
            faulted.contains(&rule.as_str()) || status != Some(Status::Checked),
            "{rule} passes for the reference client, but no reference-client fault fails it"
        );
    }
}

#[test]
fn the_reference_client_passes_every_client_scenario_over_http() {
    assert_clean(false, "client-clean-http");
}

#[test]
fn the_reference_client_passes_every_client_scenario_over_stdio() {
    assert_clean(true, "client-clean-stdio");
}

#[test]
fn ten_http_runs_of_the_reference_client_give_identical_verdicts() {
    // a message that slipped between "no GET stream yet" and the client opening it once went
    // unanswered in about one run in six: any such race shows here
    let runs: Vec<usize> = (0..10).collect();
    let verdicts = in_parallel(&runs, 4, |i| {
        let tag = format!("client-det-{i}");
        let (code, out, doc) = run_client(&reference_client(&[]), false, &[], &tag);
        vec![format!("{code}\n{}", doc["rules"]), out]
    });
    let first = &verdicts[0];
    for run in verdicts.chunks(2) {
        assert_eq!(run[0], *first, "verdicts differ between runs:\n{}", run[1]);
    }
}

#[test]
fn every_client_fault_fails_exactly_its_rules() {
    let faults = client_faults();
    let problems = in_parallel(&faults, 4, |fault| {
        let command = reference_client(&[fault.name]);
        let tag = format!("client-fault-{}", fault.name);
        let (code, out, doc) = run_client(&command, true, &["--jobs", "4"], &tag);
        fault_problems(fault, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_client_fault_fails_over_http_too() {
    let command = reference_client(&["result-without-related-task"]);
    let (code, out, doc) = run_client(&command, false, &[], "client-fault-http");
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        rules_with(&doc, &["fail", "warn", "error"]),
        vec!["tasks.meta.result-related-task".to_string()],
        "{out}"
    );
}

#[test]
fn the_client_learns_its_scenario_from_the_environment() {
    let seen = temp_path("client-scenarios.txt");
    let _ = std::fs::remove_file(&seen);
    let command = format!(
        "echo \"$TASKCHECK_SCENARIO\" >> {}; {}",
        seen.display(),
        reference_client(&[])
    );
    let (code, out, _) = run_client(
        &command,
        false,
        &[
            "--scenario",
            "client-create-prompt",
            "--scenario",
            "client-list",
        ],
        "client-env",
    );
    assert_eq!(code, 0, "{out}");
    let mut ids: Vec<String> = std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    ids.sort();
    assert_eq!(ids, ["client-create-prompt", "client-list"]);
}

#[test]
fn taskcheck_never_augments_what_the_client_did_not_declare_unless_a_scenario_says_so() {
    // a scenario that augments sampling without requiring the capability, nor saying it breaks
    // the requestor rule: against a client without tasks, taskcheck reports its own error
    let dir = scenario_dir(
        "client-undeclared",
        "augments.yaml",
        "id: augments-undeclared\ntitle: augments sampling regardless\nreceiver: client\n\
         rules: [tasks.support.undeclared-processed-normally]\nsteps:\n  - send: sampling/createMessage\n    \
         params: {messages: [], maxTokens: 1, task: {ttl: 1000}}\n",
    );
    let (code, out, _) = run_client(
        &reference_client(&["no-tasks-capability"]),
        true,
        &[
            "--scenarios",
            dir.to_str().unwrap(),
            "--scenario",
            "augments-undeclared",
        ],
        "client-undeclared",
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("tasks.capability.requestor-augments-declared-only"),
        "{out}"
    );
}

#[test]
fn a_client_that_never_connects_or_dies_is_an_error_within_the_timeout() {
    for (command, cause) in [
        ("exit 3 #", "exited"),
        ("sleep 29.7 #", "did not initialize within 500 ms"),
        ("echo not-json; sleep 29.7 #", "did not initialize"),
    ] {
        for stdio in [false, true] {
            let start = Instant::now();
            let (code, out, doc) = run_client(
                command,
                stdio,
                &["--connect-timeout-ms", "500", "--scenario", "client-list"],
                "client-absent",
            );
            assert_eq!(code, 3, "{command}: {out}");
            assert!(out.contains(cause), "{command}: {out}");
            assert_eq!(rules_with(&doc, &["pass", "fail"]), Vec::<String>::new());
            assert!(start.elapsed() < Duration::from_secs(10), "{command}");
        }
    }
    assert_nothing_left("sleep 29.7");
}

#[test]
fn a_client_that_sends_garbage_or_a_huge_line_ends_the_run_with_the_cause() {
    // the client writes into its server's stdin, then idles
    for (output, cause) in [
        ("printf \"not json\\n\"", "not JSON"),
        (
            "head -c 20000000 /dev/zero | tr \"\\0\" x",
            "exceeds the 1048576-byte limit",
        ),
    ] {
        let command = format!("sh -c '{output} | \"$@\"; sleep 29.3' sh");
        let start = Instant::now();
        let (code, out, _) = run_client(
            &command,
            true,
            &["--scenario", "client-list", "--max-line-bytes", "1048576"],
            "client-garbage",
        );
        assert_eq!(code, 3, "{out}");
        assert!(
            out.contains("invalid output") && out.contains(cause),
            "{out}"
        );
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_nothing_left("sleep 29.3");
    }
}

#[test]
fn a_client_that_writes_much_to_stdout_and_stderr_is_not_blocked() {
    // 200,000 lines on stdout and stderr before it connects: a full pipe would stop it
    let noisy = format!(
        "sh -c 'seq 200000; seq 200000 >&2; exec \"$@\"' sh {}",
        reference_client(&[])
    );
    for stdio in [false, true] {
        let (code, out, doc) = run_client(&noisy, stdio, &["--scenario", "client-list"], "noisy");
        assert_eq!(code, 0, "{out}");
        assert_eq!(
            rules_with(&doc, &["fail", "warn", "error"]),
            Vec::<String>::new()
        );
    }
}

#[test]
fn taskcheck_answers_the_requests_of_a_client_it_does_not_serve_with_method_not_found() {
    // a stdio client that, once initialized, asks for tools and records the answer
    let answer = temp_path("client-asks.txt");
    let _ = std::fs::remove_file(&answer);
    let script = r#"
import json, subprocess, sys
server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(m):
    server.stdin.write(json.dumps(dict(jsonrpc="2.0", **m)) + "\n"); server.stdin.flush()
send(dict(id=1, method="initialize", params=dict(protocolVersion="2025-11-25", capabilities={}, clientInfo=dict(name="t", version="0"))))
server.stdout.readline()
send(dict(method="notifications/initialized"))
send(dict(id=7, method="tools/list"))
open(sys.argv[1], "w").write(server.stdout.readline())
server.stdout.read()
"#;
    let file = temp_path("client-asks.py");
    std::fs::write(&file, script).unwrap();
    let command = format!("python3 {} {}", file.display(), answer.display());
    // a scenario that gives the client a second to ask
    let dir = scenario_dir(
        "client-asks",
        "idle.yaml",
        "id: idle\ntitle: idle\nreceiver: client\nrules: [tasks.ttl.may-delete-after]\n\
         steps:\n  - wait: 1000\n",
    );
    let selection = ["--scenarios", dir.to_str().unwrap(), "--scenario", "idle"];
    let (_, out, _) = run_client(&command, true, &selection, "client-asks");
    let got: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&answer).expect(&out)).expect(&out);
    assert_eq!(got["id"], 7, "{got}");
    assert_eq!(got["error"]["code"], -32601, "{got}");
}

#[test]
fn an_http_client_without_a_get_stream_or_posting_garbage_is_an_error_not_a_failure() {
    // initializes over HTTP, then never opens the GET stream taskcheck's requests go out on,
    // and (garbage) POSTs a body that is not JSON
    let script = r#"
import json, sys, time, urllib.request
def post(body, session=None):
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session: headers["mcp-session-id"] = session
    return urllib.request.urlopen(urllib.request.Request(sys.argv[2], body, headers))
def message(**m):
    return json.dumps(dict(jsonrpc="2.0", **m)).encode()
r = post(message(id=1, method="initialize", params=dict(protocolVersion="2025-11-25", capabilities=dict(tasks=dict(list={})), clientInfo=dict(name="t", version="0"))))
session = r.headers["mcp-session-id"]
post(message(method="notifications/initialized"), session)
if sys.argv[1] == "garbage":
    try: post(b"not json", session)
    except Exception: pass
time.sleep(30)
"#;
    let file = temp_path("client-http-hostile.py");
    std::fs::write(&file, script).unwrap();
    for (mode, cause) in [
        ("idle", "opened no GET stream"),
        ("garbage", "invalid output"),
    ] {
        let command = format!("python3 {} {mode}", file.display());
        let timeout = [
            "--scenario",
            "client-unknown-task-id",
            "--timeout-ms",
            "1500",
        ];
        let (code, out, _) = run_client(&command, false, &timeout, "client-http-hostile");
        assert_eq!(code, 3, "{mode}: {out}");
        assert!(out.contains(cause), "{mode}: {out}");
        assert!(!out.contains("FAIL"), "{mode}: {out}");
    }
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn the_official_schema_accepts_every_message_of_a_clean_client_run() {
    let schema = OFFICIAL_SCHEMA;
    let (code, out, doc) = run_client(
        &reference_client(&[]),
        true,
        &["--schema", schema],
        "client-official",
    );
    assert_all_pass(code, &out, &doc);
    assert!(rules_with(&doc, &["pass"]).contains(&"tasks.schema.official".to_string()));
}

#[test]
fn a_client_trace_is_judged_offline_with_the_client_capabilities() {
    for (faults, code, failing) in [
        (vec![], 0, vec![]),
        (
            vec!["created-at-drifts"],
            1,
            vec!["tasks.ttl.created-at-constant".to_string()],
        ),
    ] {
        let trace = temp_path("client-trace.jsonl");
        let traced = ["--trace", trace.to_str().unwrap()];
        run_client(&reference_client(&faults), true, &traced, "client-traced");
        let report = temp_path("client-trace-offline.json");
        let checked = taskcheck(&[
            "check",
            trace.to_str().unwrap(),
            "--report-json",
            report.to_str().unwrap(),
        ]);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(checked.status.code(), Some(code), "{faults:?}");
        assert_eq!(rules_with(&doc, &["fail", "warn", "error"]), failing);
    }
}

#[test]
fn the_stdio_relay_reports_a_socket_it_cannot_reach() {
    let out = taskcheck(&["serve", "--connect", "/nonexistent/taskcheck.sock"]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/taskcheck.sock"), "{err}");
}

#[test]
fn a_scenario_for_the_other_side_is_a_usage_error_naming_the_command() {
    let out = taskcheck(&["run", "--stdio", "x", "--scenario", "client-list"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`taskcheck client`"), "{err}");
    let out = taskcheck(&["client", "--command", "x", "--scenario", "cancel-terminal"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`taskcheck run`"), "{err}");
}

#[test]
fn reference_client_faults_are_listed_and_unknown_ones_are_usage_errors() {
    let listed = taskcheck(&["reference-client", "--list-faults"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(text.lines().count(), client_faults().len(), "{text}");
    let bad = taskcheck(&["reference-client", "--fault", "forbidden-accepts-task", "x"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--list-faults"));
}
