//! taskcheck's reference requestor and reference receiver talking through `taskcheck watch`,
//! over stdio and through the HTTP proxy, in both designs: the clean pair passes on both
//! sides, and a fault of either side is judged on that side, by the rule it breaks.

mod common;

use common::*;
use serde_json::Value;
use std::process::Command;

/// What the reference requestor is asked to do under each design: a task that works a while,
/// cancelled under the extension (so its cancel faults show).
fn ask(profile: &str) -> &'static str {
    match profile {
        "ext-tasks" => r#"{"tool":"optional_sleep","arguments":{"ms":600},"cancel_after_ms":300}"#,
        _ => r#"{"tool":"required_sleep","arguments":{"ms":600},"task":true}"#,
    }
}

fn faults(flag_values: &[&str]) -> Vec<String> {
    flag_values
        .iter()
        .flat_map(|f| ["--fault".to_string(), f.to_string()])
        .collect()
}

fn read_report(path: &std::path::Path) -> Value {
    let mut doc = std::fs::read_to_string(path)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    // the markdown report written beside it, kept under a key of the test's own
    if let (Some(doc), Ok(md)) = (
        doc.as_object_mut(),
        std::fs::read_to_string(markdown_beside(path)),
    ) {
        doc.insert("markdown (test)".into(), md.into());
    }
    doc
}

/// Where the markdown report beside a JSON report goes.
fn markdown_beside(path: &std::path::Path) -> std::path::PathBuf {
    path.with_extension("md")
}

/// The pair over stdio: the requestor starts `watch -- reference` as its server; watch's
/// JSON report.
fn over_stdio(profile: &str, requestor: &[&str], receiver: &[&str], tag: &str) -> Value {
    stdio_watched(profile, requestor, receiver, tag, &[])
}

/// As [`over_stdio`], with more of watch's options.
fn stdio_watched(
    profile: &str,
    requestor: &[&str],
    receiver: &[&str],
    tag: &str,
    watch: &[&str],
) -> Value {
    let report = temp_path(&format!("pair-{tag}.json"));
    let _ = std::fs::remove_file(&report);
    let _ = std::fs::remove_file(markdown_beside(&report));
    let out = Command::new(BIN)
        .args(["reference-requestor", "--profile", profile])
        .args(faults(requestor))
        .args([
            "--",
            BIN,
            "watch",
            "--report-json",
            report.to_str().unwrap(),
            "--report-md",
            markdown_beside(&report).to_str().unwrap(),
        ])
        .args(watch)
        .args(["--", BIN, "reference", "--profile", profile])
        .args(faults(receiver))
        .env("TASKCHECK_REQUEST", ask(profile))
        .output()
        .unwrap();
    let doc = read_report(&report);
    assert!(
        !doc.is_null(),
        "watch wrote its report: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    doc
}

/// The pair over HTTP: the requestor talks to `watch --listen` in front of the HTTP
/// reference; the proxy stops once the session ended (2025-11-25: its DELETE) or, for the
/// extension's stateless traffic, after 1 s without a request; watch's JSON report.
fn over_http(profile: &str, requestor: &[&str], receiver: &[&str], tag: &str) -> Value {
    let mut flags = vec!["--profile", profile];
    let receiver_faults = faults(receiver);
    flags.extend(receiver_faults.iter().map(String::as_str));
    let upstream = HttpReference::start(&flags);
    let report = temp_path(&format!("pair-http-{tag}.json"));
    let _ = std::fs::remove_file(&report);
    let markdown = markdown_beside(&report);
    let _ = std::fs::remove_file(&markdown);
    let mut options = match profile {
        "ext-tasks" => vec!["--idle-exit", "1"],
        _ => vec!["--sessions", "1"],
    };
    options.extend(["--report-md", markdown.to_str().unwrap()]);
    let (proxy, url) = watch_proxy(&upstream.url, &options, &report);
    let _ = Command::new(BIN)
        .args(["reference-requestor", "--profile", profile])
        .args(faults(requestor))
        .arg(&url)
        .env("TASKCHECK_REQUEST", ask(profile))
        .output()
        .unwrap();
    let watched = proxy.wait_with_output().unwrap();
    let doc = read_report(&report);
    assert!(
        !doc.is_null(),
        "watch wrote its report: {}",
        String::from_utf8_lossy(&watched.stderr)
    );
    doc
}

/// A rule's verdict in the report.
fn verdict(doc: &Value, rule: &str) -> Option<String> {
    doc["rules"]
        .as_array()?
        .iter()
        .find(|r| r["id"] == rule)
        .and_then(|r| r["verdict"].as_str())
        .map(str::to_string)
}

type Pair = fn(&str, &[&str], &[&str], &str) -> Value;

/// The three runs of one design over one transport: clean, a requestor fault, a receiver
/// fault.
fn judged_on_the_right_side(
    pair: Pair,
    profile: &str,
    (requestor_fault, requestor_rule): (&str, &str),
    (receiver_fault, receiver_rule): (&str, &str),
    client_rule: &str,
) {
    let tag = |what: &str| format!("{profile}-{what}-{}", requestor_fault);
    let doc = pair(profile, &[], &[], &tag("clean"));
    assert_eq!(
        rules_with(&doc, &["fail", "warn", "error"]),
        Vec::<String>::new(),
        "{doc}"
    );
    assert_eq!(doc["exitCode"], 0, "{doc}");
    assert_eq!(verdict(&doc, client_rule).as_deref(), Some("pass"), "{doc}");
    // when watch saw the conversation, and for how long
    assert!(
        doc["started"].as_str().is_some_and(|s| s.len() > 10),
        "{doc}"
    );
    assert!(doc["durationMs"].as_u64().is_some_and(|ms| ms > 0), "{doc}");
    // what speaks of the other transport is not applicable to this one's traffic
    let other = doc["judged"]["otherTransport"].to_string();
    let stdio_rule = other.contains("transport.stdio.stdout-only-mcp");
    match doc["transport"].as_str() {
        Some("http") => assert!(profile != "2025-11-25" || stdio_rule, "{doc}"),
        _ => assert!(!stdio_rule && other.contains(".http."), "{doc}"),
    }
    // a fault of the client: its rule, and nothing on the server's side
    let doc = pair(profile, &[requestor_fault], &[], &tag("requestor"));
    assert_eq!(
        rules_with(&doc, &["fail", "warn"]),
        [requestor_rule],
        "{doc}"
    );
    // the headline says whose the failure is: a failing client is no non-conformant server
    let sides = doc["bySide"].as_str().unwrap_or_default();
    assert!(sides.contains("receiver: every judged MUST held"), "{doc}");
    assert!(
        !sides.contains("requestor: every judged MUST held, on"),
        "{doc}"
    );
    whose_in_the_outcome(&doc, requestor_rule, "(requestor: 1)");
    // a fault of the server: its rule alone; the client is judged all the same, and a client
    // rule that depends on what the server broke is not held against it
    let doc = pair(profile, &[], &[receiver_fault], &tag("receiver"));
    assert_eq!(
        rules_with(&doc, &["fail", "warn"]),
        [receiver_rule],
        "{doc}"
    );
    let sides = doc["bySide"].as_str().unwrap_or_default();
    assert!(sides.contains("requestor: every judged MUST held"), "{doc}");
    assert_eq!(verdict(&doc, client_rule).as_deref(), Some("pass"), "{doc}");
    whose_in_the_outcome(&doc, receiver_rule, "(receiver: 1)");
}

/// A MUST `rule` failed: the exit line says whose side failed (`whose`), and the markdown
/// report marks the side on its every row of the rule; a SHOULD leaves the run conformant.
fn whose_in_the_outcome(doc: &Value, rule: &str, whose: &str) {
    let outcome = doc["outcome"].as_str().unwrap_or_default();
    let must = mcp_taskcheck::spec::rule(rule)
        .unwrap()
        .level
        .is_mandatory();
    match must {
        true => assert!(outcome.contains(whose), "{outcome}"),
        false => assert!(outcome.starts_with("conformant"), "{outcome}"),
    }
    let side = whose.trim_start_matches('(').split(':').next().unwrap();
    let md = doc["markdown (test)"].as_str().unwrap_or_default();
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.contains(&format!("`{rule}`")))
        .collect();
    assert!(!rows.is_empty(), "{md}");
    for row in rows {
        assert!(row.contains(&format!("({side})")), "{row}\n{md}");
    }
}

#[test]
fn over_stdio_2025_11_25() {
    judged_on_the_right_side(
        over_stdio,
        "2025-11-25",
        ("meta-in-get", "tasks.meta.requestor-omits"),
        ("numeric-task-id", "tasks.id.string"),
        "tasks.poll.requestor-respects-poll-interval",
    );
}

#[test]
fn over_stdio_ext_tasks() {
    judged_on_the_right_side(
        over_stdio,
        "ext-tasks",
        (
            "cancels-by-notification",
            "ext-tasks.cancel.no-notifications-cancelled",
        ),
        ("get-result-type-task", "ext-tasks.get.result-type-complete"),
        "ext-tasks.requestor.respects-poll-interval",
    );
}

#[test]
fn through_the_proxy_2025_11_25() {
    judged_on_the_right_side(
        over_http,
        "2025-11-25",
        ("no-version-header", "tasks.http.requestor-protocol-version"),
        ("numeric-task-id", "tasks.id.string"),
        "tasks.poll.requestor-respects-poll-interval",
    );
}

#[test]
fn through_the_proxy_ext_tasks() {
    judged_on_the_right_side(
        over_http,
        "ext-tasks",
        ("no-mcp-name", "ext-tasks.http.mcp-name"),
        ("get-result-type-task", "ext-tasks.get.result-type-complete"),
        "ext-tasks.requestor.respects-poll-interval",
    );
}

/// The ids of the rules a report judged or could not, and those it says were not exercised.
fn rule_ids(doc: &Value) -> (Vec<String>, Vec<String>) {
    let ids = |v: &Value, key: &str| -> Vec<String> {
        v.as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| match key {
                "" => r.as_str(),
                _ => r[key].as_str(),
            })
            .map(str::to_string)
            .collect()
    };
    (
        ids(&doc["rules"], "id"),
        ids(&doc["judged"]["notExercised"], ""),
    )
}

#[test]
fn a_recorded_conversation_is_judged_on_the_sides_asked_and_says_what_it_did_not_exercise() {
    let trace = temp_path("pair-sides.jsonl");
    let poll = "tasks.poll.requestor-respects-poll-interval";
    let args = ["--trace", trace.to_str().unwrap()];
    // the client polls too fast: watch judges both sides by default
    let doc = stdio_watched("2025-11-25", &["polls-fast"], &[], "sides", &args);
    assert_eq!(rules_with(&doc, &["fail", "warn"]), [poll], "{doc}");
    let (_, unexercised) = rule_ids(&doc);
    assert!(
        unexercised.contains(&"tasks.list.paginate".to_string()),
        "{doc}"
    );
    assert!(!unexercised.contains(&poll.to_string()), "{doc}");
    // over stdio the HTTP rules, of either side, are not applicable, not unexercised
    let other = doc["judged"]["otherTransport"].to_string();
    for http in [
        "tasks.http.no-sse-for-get",
        "tasks.http.requestor-protocol-version",
    ] {
        assert!(!unexercised.contains(&http.to_string()), "{doc}");
        assert!(other.contains(http), "{doc}");
    }
    assert!(!other.contains("stdout-only-mcp"), "{doc}");
    let check = |judge: &str| {
        let report = temp_path(&format!("pair-sides-{judge}.json"));
        let out = taskcheck(&[
            "check",
            trace.to_str().unwrap(),
            "--judge",
            judge,
            "--report-json",
            report.to_str().unwrap(),
        ]);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        (out.status.code(), doc)
    };
    // check of the same recording: the receiver alone, as by default, leaves the poller out
    let (code, doc) = check("receiver");
    assert_eq!(code, Some(0), "{doc}");
    let (rules, unexercised) = rule_ids(&doc);
    assert!(!rules.contains(&poll.to_string()) && !unexercised.contains(&poll.to_string()));
    assert!(rules.contains(&"tasks.id.string".to_string()), "{doc}");
    // both: the poller's warning, as watch gave it
    let (_, doc) = check("both");
    assert_eq!(rules_with(&doc, &["fail", "warn"]), [poll], "{doc}");
    // the requestor alone: no receiver rule judged or listed
    let (_, doc) = check("requestor");
    let (rules, unexercised) = rule_ids(&doc);
    assert!(rules.contains(&poll.to_string()), "{doc}");
    assert!(!rules.contains(&"tasks.id.string".to_string()), "{doc}");
    assert!(
        unexercised.iter().all(|r| r.contains("requestor")),
        "{unexercised:?}"
    );
    // a run that must judge every rule cannot pass on traffic that left rules unexercised
    let out = taskcheck(&["check", trace.to_str().unwrap(), "--require-judged", "all"]);
    let said = String::from_utf8_lossy(&out.stdout);
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(out.status.code(), Some(4), "{said}");
    assert!(said.contains("not exercised by this traffic"), "{said}");
}

/// Two clients of one stateless server through one proxy at once: each is a conversation of
/// its own, and a fault of one is judged in its conversation alone.
#[test]
fn through_the_proxy_stateless_clients_are_told_apart() {
    let upstream = HttpReference::start(&["--profile", "ext-tasks"]);
    let report = temp_path("pair-http-two-clients.json");
    let _ = std::fs::remove_file(&report);
    let (mut proxy, url) = watch_proxy(&upstream.url, &["--idle-exit", "1"], &report);
    let client = |fault: &[&str]| {
        Command::new(BIN)
            .args(["reference-requestor", "--profile", "ext-tasks"])
            .args(faults(fault))
            .arg(&url)
            .env("TASKCHECK_REQUEST", ask("ext-tasks"))
            .spawn()
            .unwrap()
    };
    let (mut clean, mut fast) = (client(&[]), client(&["polls-fast"]));
    clean.wait().unwrap();
    fast.wait().unwrap();
    proxy.wait().unwrap();
    let doc = read_report(&report);
    let sessions = doc["scenarios"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = sessions.iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(names, ["client-1", "client-2"], "{doc}");
    let poll = "ext-tasks.requestor.respects-poll-interval";
    let verdicts: Vec<String> = sessions
        .iter()
        .map(|s| {
            let checks = s["checks"].as_array().unwrap();
            let c = checks.iter().find(|c| c["rule"] == poll).unwrap();
            c["verdict"].as_str().unwrap().to_string()
        })
        .collect();
    let mut sorted = verdicts.clone();
    sorted.sort();
    assert_eq!(sorted, ["pass", "warn"], "{doc}");
}
