//! `taskcheck requestor`: each design's reference requestor passes every requestor scenario,
//! and so does each of its legal variants, each of its faults fails exactly its rules, and a
//! client that never starts its server is a harness error that says why.

mod common;

use common::*;
use mcp_taskcheck::designs::ext_tasks::reference::requestor as ext;
use mcp_taskcheck::designs::tasks_2025::reference::requestor::{Fault, FAULTS, VARIANTS};

/// Runs `taskcheck requestor` against the reference requestor with `faults`.
fn requestor(faults: &[&str], extra: &[&str], tag: &str) -> (i32, String, serde_json::Value) {
    let profile = match extra.contains(&"ext-tasks") {
        true => "ext-tasks",
        false => "2025-11-25",
    };
    let mut command = format!("{BIN} reference-requestor --profile {profile}");
    for f in faults {
        command.push_str(&format!(" --fault {f}"));
    }
    judge(&["requestor", "--command", &command], extra, tag)
}

#[test]
fn the_reference_requestor_passes_every_requestor_scenario() {
    let (code, out, doc) = requestor(&[], &[], "requestor-clean");
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(
            &doc,
            &["fail", "warn", "error", "untestable", "consequence"]
        ),
        Vec::<String>::new(),
        "{out}"
    );
    for rule in [
        "tasks.poll.requestor-respects-poll-interval",
        "tasks.input.requestor-calls-result",
        "tasks.tool.requestor-respects-task-support",
        "tasks.meta.requestor-omits",
        "tasks.meta.requestor-related-responses",
        "tasks.schema.requestor-messages",
    ] {
        assert!(
            rules_with(&doc, &["pass"]).contains(&rule.to_string()),
            "{rule}\n{out}"
        );
    }
}

#[test]
fn every_legal_variant_of_either_reference_requestor_passes_over_stdio_and_http() {
    let mut runs = Vec::new();
    for (profile, names) in [
        (
            "2025-11-25",
            VARIANTS.iter().map(|v| v.name).collect::<Vec<_>>(),
        ),
        ("ext-tasks", ext::VARIANTS.iter().map(|v| v.name).collect()),
    ] {
        for name in names {
            for http in [false, true] {
                runs.push((profile, name, http));
            }
        }
    }
    assert!(runs.len() >= 14, "{runs:?}");
    let problems = in_parallel(&runs, 3, |(profile, variant, http)| {
        let command = format!("{BIN} reference-requestor --profile {profile} --variant {variant}");
        let mut extra = vec!["--profile", profile];
        if *http {
            extra.push("--http");
        }
        let tag = format!("requestor-variant-{profile}-{variant}-{http}");
        let (code, out, doc) = judge(&["requestor", "--command", &command], &extra, &tag);
        let accused = rules_with(&doc, &["fail", "warn", "error", "consequence"]);
        let passed = rules_with(&doc, &["pass"]);
        match (code, accused.is_empty(), passed.len() >= 7) {
            (0, true, true) => Vec::new(),
            _ => vec![format!(
                "{profile} variant {variant} (http: {http}) exit {code}, accused {accused:?}\n{out}"
            )],
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_conversation_judged_is_written_with_trace() {
    let trace = temp_path("requestor-trace.jsonl");
    let path = trace.to_str().unwrap();
    let (code, out, _) = requestor(
        &[],
        &["--scenario", "requestor-poll-interval", "--trace", path],
        "requestor-trace",
    );
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(&trace).expect("the trace is written");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    // the client's tools/call and its polls (its messages are "out"), tagged with the scenario
    let sent = |method: &str| {
        lines.iter().any(|e| {
            e["scenario"] == "requestor-poll-interval"
                && e["dir"] == "out"
                && e["message"]["method"] == method
        })
    };
    assert!(sent("tools/call") && sent("tasks/get"), "{text}");
}

#[test]
fn every_requestor_fault_fails_exactly_its_rules() {
    // the GET stream and the headers are HTTP's: over stdio there are none to get wrong
    let http_only = [
        Fault::IgnoresGetStream,
        Fault::NoVersionHeader,
        Fault::ResultAfterEnd,
    ];
    let faults: Vec<_> = FAULTS
        .iter()
        .filter(|f| !http_only.contains(&f.fault))
        .collect();
    let problems = in_parallel(&faults, 3, |fault| {
        let (code, out, doc) = requestor(&[fault.name], &[], &format!("requestor-{}", fault.name));
        fault_problems(fault, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_extensions_reference_requestor_passes_and_each_fault_fails_exactly_its_rules() {
    let ext_args = ["--profile", "ext-tasks"];
    let (code, out, doc) = requestor(&[], &ext_args, "ext-requestor-clean");
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(
            &doc,
            &["fail", "warn", "error", "untestable", "consequence"]
        ),
        Vec::<String>::new(),
        "{out}"
    );
    assert_eq!(rules_with(&doc, &["pass"]).len(), 8, "{out}");
    // Mcp-Name, Mcp-Method and MCP-Protocol-Version are headers: over stdio there are none
    let headers = [
        ext::Fault::NoMcpName,
        ext::Fault::NoMcpMethod,
        ext::Fault::NoVersionHeader,
    ];
    let faults: Vec<_> = ext::FAULTS
        .iter()
        .filter(|f| !headers.contains(&f.fault))
        .collect();
    let problems = in_parallel(&faults, 3, |fault| {
        let tag = format!("ext-requestor-{}", fault.name);
        let (code, out, doc) = requestor(&[fault.name], &ext_args, &tag);
        fault_problems(fault, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn over_http_a_requestor_is_judged_on_the_get_stream_and_its_headers_too() {
    let (code, out, doc) = requestor(&[], &["--http"], "requestor-http-clean");
    assert_eq!(code, 0, "{out}");
    assert!(doc["transport"] == "http", "{out}");
    let unclean = rules_with(
        &doc,
        &["fail", "warn", "error", "untestable", "consequence"],
    );
    assert_eq!(unclean, Vec::<String>::new(), "{out}");
    let passed = rules_with(&doc, &["pass"]);
    for rule in [
        "tasks.http.requestor-any-stream",
        "tasks.http.requestor-protocol-version",
    ] {
        assert!(passed.contains(&rule.to_string()), "{rule}\n{out}");
    }
    // the faults only HTTP has, a cancellation sent as a notification on its own POST, an
    // answer to an elicitation that came on a stream of its own, a client whose end ends
    // the recording, and tasks/list's related-task _meta
    let http = [
        Fault::IgnoresGetStream,
        Fault::NoVersionHeader,
        Fault::ResultAfterEnd,
        Fault::CancelsByNotification,
        Fault::UnrelatedAnswers,
        Fault::ExitsWhileWorking,
        Fault::MetaInList,
    ];
    let faults: Vec<_> = FAULTS.iter().filter(|f| http.contains(&f.fault)).collect();
    let problems = in_parallel(&faults, 3, |fault| {
        let tag = format!("requestor-http-{}", fault.name);
        let (code, out, doc) = requestor(&[fault.name], &["--http"], &tag);
        fault_problems(fault, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn over_http_the_extensions_requests_are_judged_on_their_mcp_name_and_method_too() {
    let http_args = ["--profile", "ext-tasks", "--http"];
    let (code, out, doc) = requestor(&[], &http_args, "ext-requestor-http-clean");
    assert_eq!(code, 0, "{out}");
    assert!(doc["transport"] == "http", "{out}");
    assert_eq!(rules_with(&doc, &["pass"]).len(), 10, "{out}");
    // a client whose end ends the recording, and the faults of this session's new checks
    let over_http = [
        ext::Fault::NoMcpName,
        ext::Fault::NoMcpMethod,
        ext::Fault::NoVersionHeader,
        ext::Fault::ExitsWhileWorking,
        ext::Fault::ReanswersShown,
        ext::Fault::ResendsResult,
    ];
    let faults: Vec<_> = ext::FAULTS
        .iter()
        .filter(|f| over_http.contains(&f.fault))
        .collect();
    let problems = in_parallel(&faults, 3, |fault| {
        let tag = format!("ext-requestor-http-{}", fault.name);
        let (code, out, doc) = requestor(&[fault.name], &http_args, &tag);
        fault_problems(fault, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_client_that_never_starts_its_server_is_a_harness_error_that_says_why() {
    // `sleep` starts no server and never ends: nothing can be judged
    let report = temp_path("requestor-sleeps.json");
    let out = taskcheck(&[
        "requestor",
        "--command",
        "sleep 30 #",
        "--scenario",
        "requestor-input",
        "--timeout-scale",
        "0.05",
        "--report-json",
        report.to_str().unwrap(),
    ]);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("did not finish within 1000 ms"), "{text}");
}

#[test]
fn a_client_flooding_its_output_is_stopped_at_its_deadline() {
    // `yes` writes without end on stdout and stderr; taskcheck drains both and keeps little
    let out = taskcheck(&[
        "requestor",
        "--command",
        "yes | tee /dev/stderr #",
        "--scenario",
        "requestor-input",
        "--timeout-scale",
        "0.05",
    ]);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert!(
        text.contains("did not finish within 1000 ms"),
        "{}",
        &text[..text.len().min(2000)]
    );
}

#[test]
fn the_driver_the_docs_show_is_the_one_ci_runs_and_is_short() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let docs = std::fs::read_to_string(root.join("docs/testing-clients.md")).unwrap();
    let shown = docs
        .split("<!-- driver: interop/typescript/requestor.mjs -->\n```js\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/testing-clients.md shows the driver");
    let file = std::fs::read_to_string(root.join("interop/typescript/requestor.mjs")).unwrap();
    let code = &file[file.find("\nimport ").expect("the driver imports the SDK") + 1..];
    assert_eq!(
        shown, code,
        "docs/testing-clients.md shows the driver as it is"
    );
    assert!(
        shown.lines().count() < 30,
        "{} lines",
        shown.lines().count()
    );
}
