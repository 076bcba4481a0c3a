//! Report formats: snapshots of every format for a run with passes, failures, warnings and
//! not-applicable checks; JUnit through a real XML parser; the JSON against its schema;
//! baselines' four outcomes; selection filters.

mod common;

use common::*;
use mcp_taskcheck::report::{Detail, FailOn, RunReport, REPORT_SCHEMA};
use mcp_taskcheck::runner::ScenarioRun;
use mcp_taskcheck::trace::{Direction, Entry};
use mcp_taskcheck::verdict::{Check, Root, Verdict};
use serde_json::{json, Value};
use std::time::Duration;

fn entry(seq: u64, dir: Direction, message: Value) -> Entry {
    Entry::of(seq, dir, seq * 3, message)
}

fn task(status: &str) -> Value {
    json!({"taskId": "task-1", "status": status, "createdAt": "2026-01-01T00:00:00Z",
           "lastUpdatedAt": "2026-01-01T00:00:01Z", "ttl": 60000})
}

fn scenario(id: &str, checks: Vec<Check>, trace: Vec<Entry>) -> ScenarioRun {
    ScenarioRun {
        id: id.into(),
        title: format!("the {id} scenario"),
        checks,
        error: None,
        server: None,
        trace,
        duration: Duration::from_millis(42),
    }
}

/// A fixed run: deterministic in every byte, so its renderings can be snapshots.
fn sample() -> RunReport {
    let cancel_trace = vec![
        entry(
            0,
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "optional_sleep", "task": {"ttl": 60000}}}),
        ),
        entry(
            1,
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"task": task("working")}}),
        ),
        entry(
            2,
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "task-1"}}),
        ),
        entry(
            3,
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 2, "result": task("completed")}),
        ),
        entry(
            4,
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel", "params": {"taskId": "task-1"}}),
        ),
        entry(
            5,
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 3, "result": task("cancelled")}),
        ),
    ];
    let failed = Check {
        evidence: vec![4, 5],
        step: Some("3".into()),
        ..Check::judged(
            "tasks.cancel.terminal-rejected",
            false,
            "expected an error matching {\"code\":-32602}, got a result",
            vec![],
        )
    }
    .comparing(
        "error {\"code\":-32602}".into(),
        "result {\"taskId\":\"task-1\",\"status\":\"cancelled\"}".into(),
    );
    RunReport {
        folded: Default::default(),
        profile: Default::default(),
        receiver: "my-server --stdio".into(),
        transport: "stdio".into(),
        started: "2026-01-01T00:00:00Z".into(),
        duration: Duration::from_millis(1234),
        cpu: None,
        fixed_work_ms: Default::default(),
        not_exercised: Vec::new(),
        other_transport: Vec::new(),
        scenarios: vec![
            scenario(
                "cancel-terminal",
                vec![
                    failed,
                    // the accepted cancellation is the defect; the status change follows from it
                    Check {
                        step: Some("3".into()),
                        ..Check::judged(
                            "tasks.lifecycle.terminal-final",
                            false,
                            "task \"task-1\" was completed and is now reported cancelled",
                            vec![3, 5],
                        )
                    }
                    .following(Root {
                        rule: "tasks.cancel.terminal-rejected".into(),
                        scenario: "cancel-terminal".into(),
                        step: Some("3".into()),
                    }),
                    Check::judged(
                        "tasks.id.string",
                        true,
                        "taskId is a string (3 observation(s))",
                        vec![],
                    ),
                ],
                cancel_trace,
            ),
            scenario(
                "create-poll-result",
                vec![
                    Check::judged("tasks.result.exact", true, "answer as expected", vec![]),
                    Check::judged(
                        "tasks.meta.no-related-task-in-results",
                        false,
                        "tasks/get result carries related-task _meta",
                        vec![],
                    ),
                    Check::judged(
                        "tasks.ttl.override",
                        true,
                        "requested ttl 60000, granted 60000 (1 observation(s))",
                        vec![],
                    ),
                ],
                vec![],
            ),
            scenario(
                "undeclared-task-processed-normally",
                vec![Check::with(
                    "tasks.support.undeclared-processed-normally",
                    Verdict::NotApplicable,
                    "applies only to receivers without tasks.requests.tools.call",
                )],
                vec![],
            ),
            scenario(
                "input-required-flow",
                vec![Check::with(
                    "tasks.input.requests-delivered",
                    Verdict::Untestable,
                    "the receiver has no tool \"elicit_input\" for the fixture role \"elicit_input\" (see `taskcheck list --fixtures`)",
                )],
                vec![],
            ),
        ],
    }
}

/// A fixed run of the Tasks extension's profile: a task tasks/get did not find right after its
/// creation, what that broke next as its consequence, and notifications not applicable.
fn sample_ext() -> RunReport {
    let task = json!({"resultType": "task", "taskId": "t-1", "status": "working",
        "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 60000});
    let trace = vec![
        entry(
            0,
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "optional_sleep"}}),
        ),
        entry(
            1,
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 1, "result": task}),
        ),
        entry(
            2,
            Direction::Out,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "t-1"}}),
        ),
        entry(
            3,
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Task not found"}}),
        ),
    ];
    let durable = Check {
        step: Some("2".into()),
        ..Check::judged(
            "ext-tasks.create.durable",
            false,
            "tasks/get of \"t-1\", asked after its CreateTaskResult, answered {\"code\":-32602}",
            vec![2, 3],
        )
    };
    let poll = Check {
        step: Some("2".into()),
        ..Check::judged(
            "ext-tasks.get.completed-result",
            false,
            "tasks/get answered error {\"code\":-32602}",
            vec![2, 3],
        )
    }
    .following(Root {
        rule: "ext-tasks.create.durable".into(),
        scenario: "ext-create-poll-complete".into(),
        step: Some("2".into()),
    });
    RunReport {
        folded: Default::default(),
        profile: mcp_taskcheck::designs::EXT_TASKS,
        receiver: "my-server --stdio".into(),
        transport: "stdio".into(),
        started: "2026-01-01T00:00:00Z".into(),
        duration: Duration::from_millis(321),
        cpu: None,
        fixed_work_ms: Default::default(),
        not_exercised: Vec::new(),
        other_transport: Vec::new(),
        scenarios: vec![
            scenario(
                "ext-create-poll-complete",
                vec![
                    Check::judged(
                        "ext-tasks.result-type.task-on-create",
                        true,
                        "a CreateTaskResult with resultType \"task\"",
                        vec![0, 1],
                    ),
                    durable,
                    poll,
                ],
                trace,
            ),
            scenario(
                "ext-notifications",
                vec![Check::with(
                    "ext-tasks.notifications.detailed-task",
                    Verdict::NotApplicable,
                    "the server serves no subscriptions/listen (task status notifications are a MAY)",
                )],
                vec![],
            ),
        ],
    }
}

fn snapshot(name: &str, text: &str) {
    let text = text.replace(env!("CARGO_PKG_VERSION"), "[version]");
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn every_format_renders_the_same_run() {
    let report = sample();
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    assert_eq!(outcome.code, 1);
    snapshot(
        "terminal",
        &report.terminal(&outcome, false, Detail::Verbose, 100),
    );
    snapshot(
        "terminal-default",
        &report.terminal(&outcome, false, Detail::Normal, 100),
    );
    snapshot(
        "terminal-quiet",
        &report.terminal(&outcome, false, Detail::Quiet, 100),
    );
    snapshot(
        "report.json",
        &serde_json::to_string_pretty(&report.json(&outcome)).unwrap(),
    );
    snapshot("junit.xml", &report.junit(&outcome));
    snapshot("summary.md", &report.markdown(&outcome));
    snapshot("report.html", &report.html(&outcome));
    snapshot(
        "checks.json",
        &serde_json::to_string_pretty(&report.checks_json(&outcome)).unwrap(),
    );
}

#[test]
fn every_format_renders_a_run_of_the_extension() {
    let report = sample_ext();
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    assert_eq!(outcome.code, 1);
    snapshot(
        "ext-terminal",
        &report.terminal(&outcome, false, Detail::Verbose, 100),
    );
    let json = report.json(&outcome);
    assert!(jsonschema::is_valid(
        &serde_json::from_str(REPORT_SCHEMA).unwrap(),
        &json
    ));
    snapshot(
        "ext-report.json",
        &serde_json::to_string_pretty(&json).unwrap(),
    );
    snapshot("ext-junit.xml", &report.junit(&outcome));
    snapshot("ext-summary.md", &report.markdown(&outcome));
    snapshot("ext-report.html", &report.html(&outcome));
    // the durable-creation failure carries the official suite's check id
    let checks = report.checks_json(&outcome);
    assert_eq!(
        checks[1]["id"],
        "sep-2663-durable-create-strong-consistency"
    );
    snapshot(
        "ext-checks.json",
        &serde_json::to_string_pretty(&checks).unwrap(),
    );
}

#[test]
fn junit_is_xml_with_a_test_case_per_check() {
    let report = sample();
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    let xml = report.junit(&outcome);
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses as XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 8, "one test case per check");
    let with = |tag: &str| {
        cases
            .iter()
            .filter(|c| c.children().any(|n| n.has_tag_name(tag)))
            .count()
    };
    // the consequence is skipped, with its root named, and so is what could not be judged
    assert_eq!((with("failure"), with("error"), with("skipped")), (1, 0, 3));
    assert!(xml.contains("consequence of tasks.cancel.terminal-rejected (cancel-terminal, step 3)"));
    // a warning fails the JUnit case only under --fail-on should
    let strict = report.junit(&report.outcome(FailOn::Should, None, Default::default()));
    let doc = roxmltree::Document::parse(&strict).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("failure"))
            .count(),
        2
    );
}

fn assert_valid_report(doc: &Value) {
    let schema: Value = serde_json::from_str(REPORT_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the report schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn json_reports_validate_against_their_schema() {
    let report = sample();
    assert_valid_report(&report.json(&report.outcome(FailOn::Must, None, Default::default())));
    let dir = temp_path("formats");
    std::fs::create_dir_all(&dir).unwrap();
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let args = [
        "--scenario",
        "cancel-terminal",
        "--scenario",
        "create-poll-result",
        "--scenario",
        "undeclared-task-processed-normally",
        "--report-junit",
        &path("r.xml"),
        "--report-md",
        &path("r.md"),
        "--report-html",
        &path("r.html"),
        "--checks-json",
        &path("checks.json"),
    ];
    let (code, out, doc) = run(
        &reference(&["cancel-terminal-ok", "get-with-related-task"]),
        &args,
        "formats",
    );
    assert_eq!(code, 1, "{out}");
    assert_valid_report(&doc);
    roxmltree::Document::parse(&std::fs::read_to_string(path("r.xml")).unwrap())
        .expect("JUnit is XML");
    let md = std::fs::read_to_string(path("r.md")).unwrap();
    assert!(
        md.contains("tasks.cancel.terminal-rejected") && md.contains("| WARN |"),
        "{md}"
    );
    let html = std::fs::read_to_string(path("r.html")).unwrap();
    assert!(
        html.contains("<svg") && html.contains("msg bad"),
        "diagram with failing messages"
    );
    assert!(
        !html.contains("<script src") && !html.contains("<link"),
        "self-contained"
    );
    // every rule named links to its explanation on the page, as `taskcheck explain` gives it
    let rule = "tasks.cancel.terminal-rejected";
    let explain = String::from_utf8(taskcheck(&["explain", rule]).stdout).unwrap();
    let level = explain.lines().find(|l| l.contains("level:")).unwrap();
    let anchor = format!("<details id=\"r-{rule}\">");
    let at = html.find(&anchor).unwrap_or_else(|| panic!("no {anchor}"));
    assert!(html[at..].contains(level), "the explanation says {level:?}");
    assert!(html.contains(&format!("<a href=\"#r-{rule}\">{rule}</a>")));
    for linked in html.split("href=\"#r-").skip(1) {
        let id = &linked[..linked.find('"').unwrap()];
        assert!(
            html.contains(&format!("<details id=\"r-{id}\">")),
            "{id} has no explanation"
        );
    }
    let checks: Value =
        serde_json::from_str(&std::fs::read_to_string(path("checks.json")).unwrap()).unwrap();
    let statuses: Vec<&str> = checks
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    for s in ["SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"] {
        assert!(statuses.contains(&s), "{s} in checks.json");
    }
}

/// A baseline file; its path lives as long as the test process.
fn baseline(name: &str, text: &str) -> &'static str {
    let path = scenario_dir(name, "baseline.yaml", text).join("baseline.yaml");
    path.to_str().unwrap().to_string().leak()
}

#[test]
fn baselines_have_five_outcomes() {
    let scenarios = [
        "--scenario",
        "cancel-terminal",
        "--scenario",
        "create-prompt",
    ];
    let broken = reference(&["cancel-terminal-ok"]);
    let with = |file: &'static str| {
        let mut a = scenarios.to_vec();
        a.extend_from_slice(&["--expected-failures", file]);
        a
    };
    let listed = baseline(
        "bl-listed",
        "server:\n  - cancel-terminal:tasks.cancel.terminal-rejected\n",
    );

    // fails and listed: the run passes, the report says why
    let args = with(listed);
    let (code, out, doc) = run(&broken, &args, "bl-fail-listed");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("expected failure") && out.contains("listed in the baseline"),
        "{out}"
    );
    assert_eq!(
        doc["expectedFailures"],
        json!(["cancel-terminal:tasks.cancel.terminal-rejected"])
    );

    // fails and not listed: the run fails
    let (code, out, _) = run(&broken, &scenarios, "bl-fail-unlisted");
    assert_eq!(code, 1, "{out}");

    // passes and listed: a stale baseline fails the run, naming the entry to remove
    let (code, out, doc) = run(&reference(&[]), &args, "bl-pass-listed");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("stale baseline: remove cancel-terminal:tasks.cancel.terminal-rejected"),
        "{out}"
    );
    assert_eq!(
        doc["staleBaseline"],
        json!(["cancel-terminal:tasks.cancel.terminal-rejected"])
    );

    // passes and not listed
    let (code, out, _) = run(&reference(&[]), &scenarios, "bl-pass-unlisted");
    assert_eq!(code, 0, "{out}");
    // and says which report files it wrote
    let json_report = out
        .lines()
        .find_map(|l| l.strip_prefix("taskcheck: wrote "))
        .unwrap_or_else(|| panic!("names the reports it wrote: {out}"));
    assert!(json_report.ends_with("bl-pass-unlisted.json"), "{out}");

    // warns and listed: under --fail-on must a WARN fails nothing, but the entry is met, not
    // stale (the rule does not pass)
    let warned = baseline(
        "bl-warned",
        "server:\n  - tool-error-fails:tasks.failed.tool-error\n",
    );
    let args = [
        "--scenario",
        "tool-error-fails",
        "--expected-failures",
        warned,
    ];
    let (code, out, doc) = run(
        &reference(&["tool-error-completes"]),
        &args,
        "bl-warn-listed",
    );
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("stale baseline"), "{out}");
    assert_eq!(doc["staleBaseline"], json!([]), "{out}");

    // a whole scenario can be listed
    let whole = baseline("bl-whole", "server:\n  - cancel-terminal\n");
    let (code, out, _) = run(&broken, &with(whole), "bl-whole");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_broken_baseline_is_a_usage_error_naming_the_line() {
    let file = baseline(
        "bl-broken",
        "server:\n  - cancel-terminal\n  - no-such-scenario\n",
    );
    let out = taskcheck(&["run", "--stdio", "true", "--expected-failures", file]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("baseline.yaml:3: no scenario `no-such-scenario`"),
        "{err}"
    );
}

#[test]
fn filters_select_scenarios_and_list_shows_the_selection() {
    let text = |args: &[&str]| {
        let out = taskcheck(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = text(&["list", "--tag", "http"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("3 scenario(s):"), "{out}");
    assert!(
        out.contains("isolation-contexts") && !out.contains("create-poll-result  "),
        "{out}"
    );
    let (_, out) = text(&["list", "--rule", "tasks.security.secure-ids"]);
    // one for server receivers, one for client receivers
    assert!(
        out.starts_with("2 scenario(s):")
            && out.contains("  task-id-entropy")
            && out.contains("client-task-id-entropy"),
        "{out}"
    );
    assert_eq!(text(&["list", "--tag", "no-such-tag"]).0, Some(2));
    assert_eq!(
        text(&["run", "--stdio", "x", "--rule", "tasks.nope"]).0,
        Some(2)
    );
    let (code, out, doc) = run(
        &reference(&[]),
        &["--rule", "tasks.create.prompt"],
        "filter-run",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(doc["scenarios"].as_array().unwrap().len(), 1, "{out}");
}

#[test]
fn a_receiver_without_tasks_is_told_so_plainly() {
    let mut report = sample();
    assert!(
        report.no_tasks_note().is_none(),
        "no server info: nothing to say"
    );
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    let server = |capabilities: Value| {
        mcp_taskcheck::session::ServerInfo::from_result(&json!({"capabilities": capabilities}))
    };
    report.scenarios[0].server = Some(server(json!({"tasks": {"requests": {}}})));
    assert!(!report
        .terminal(&outcome, false, Detail::Normal, 100)
        .contains("declares no `tasks`"));
    report.scenarios[0].server = Some(server(json!({"tools": {}})));
    for text in [
        report.terminal(&outcome, false, Detail::Verbose, 100),
        report.markdown(&outcome),
    ] {
        assert!(
            text.contains("The receiver declares no `tasks` capability")
                && text.contains("not applicable"),
            "{text}"
        );
    }
}

#[test]
fn folded_sessions_count_in_every_format_and_the_baseline() {
    let listed = sample();
    let mut report = sample();
    // fold the failing scenario, as `check` folds a long trace's sessions
    let at = report
        .scenarios
        .iter()
        .position(|s| s.checks.iter().any(|c| c.verdict == Verdict::Fail))
        .unwrap();
    let run = report.scenarios.remove(at);
    report.folded.add(&run);
    let failing = run
        .checks
        .iter()
        .find(|c| c.verdict == Verdict::Fail)
        .unwrap();
    assert_eq!(report.totals(), listed.totals());
    assert_eq!(report.rule_verdicts(), listed.rule_verdicts());
    assert_eq!(report.sessions(), listed.sessions());
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    assert_eq!(outcome.code, 1, "{}", outcome.meaning);
    assert_eq!(
        outcome.meaning,
        listed
            .outcome(FailOn::Must, None, Default::default())
            .meaning
    );
    let terminal = report.terminal(&outcome, false, Detail::Normal, 200);
    assert!(
        terminal.contains(&format!(
            "1 more session(s) folded: {} checks counted",
            run.checks.len()
        )),
        "{terminal}"
    );
    assert!(
        terminal.contains(&format!("not met: {} ×1", failing.rule)),
        "{terminal}"
    );
    assert!(report.markdown(&outcome).contains("more session(s) folded"));
    assert!(report.html(&outcome).contains("more session(s) folded"));
    let json = report.json(&outcome);
    assert_valid_report(&json);
    assert_eq!(json["folded"]["sessions"], 1);
    let text = serde_json::to_string(&json).unwrap();
    let verdicts = mcp_taskcheck::diff::verdicts(&text, "r.json").unwrap();
    assert_eq!(verdicts[&format!("folded:{}", failing.rule)], "fail");
    let checks = report.checks_json(&outcome);
    let entry = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == format!("folded:{}", failing.rule))
        .unwrap();
    assert_eq!(entry["status"], "FAILURE");
    let xml = report.junit(&outcome);
    let doc = roxmltree::Document::parse(&xml).expect("JUnit parses as XML");
    let folded_failures = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(&failing.rule))
        .filter(|n| n.attribute("classname") == Some("taskcheck.folded"))
        .filter(|n| n.children().any(|c| c.has_tag_name("failure")))
        .count();
    assert_eq!(folded_failures, 1, "{xml}");
    // a baseline listing the folded failure expects it, as it would a listed one
    let ids: Vec<String> = listed.scenarios.iter().map(|s| s.id.clone()).collect();
    let baseline = mcp_taskcheck::baseline::Baseline::parse(
        &format!("server:\n  - {}:{}\n", run.id, failing.rule),
        "b.yaml",
        &ids,
    )
    .unwrap();
    let expected = report.outcome(FailOn::Must, Some(&baseline), Default::default());
    assert_eq!(expected.code, 0, "{}", expected.meaning);
    assert!(expected.stale.is_empty());
    assert!(!report.junit(&expected).contains("<failure"));
}

/// A rule judged in one scenario and untestable in another stands at its judgement, counted
/// as untestable in the other; a rule no scenario judged stands untestable, with why.
#[test]
fn a_rule_stands_at_its_worst_judgement_not_where_it_could_not_be_judged() {
    let mut report = sample();
    let rule = "tasks.ttl.override";
    let judged_as = report.rule_verdicts()[rule];
    assert!(judged_as.is_judgement());
    report.scenarios.push(scenario(
        "elsewhere",
        vec![
            Check::with(rule, Verdict::Untestable, "no tool plays optional_sleep"),
            Check::with(
                "tasks.result.blocks",
                Verdict::Untestable,
                "no tool plays progress_sleep",
            ),
        ],
        vec![],
    ));
    assert_eq!(report.rule_verdicts()[rule], judged_as);
    assert_eq!(report.unjudged_in()[rule].len(), 1);
    assert_eq!(
        report.rule_verdicts()["tasks.result.blocks"],
        Verdict::Untestable
    );
    // the sample's own untestable rule, and the new one; never the rule judged elsewhere
    let untestable = report.untestable_rules();
    assert_eq!(
        untestable
            .iter()
            .map(|(r, _)| r.as_str())
            .collect::<Vec<_>>(),
        ["tasks.input.requests-delivered", "tasks.result.blocks"]
    );
    assert_eq!(untestable[1].1, "no tool plays progress_sleep");
    let judged = report.judged();
    assert_eq!(judged.untestable, 2);
    let doc = report.json(&report.outcome(FailOn::Must, None, Default::default()));
    let listed = doc["rules"].as_array().unwrap();
    let entry = listed.iter().find(|r| r["id"] == rule).unwrap();
    assert_eq!(entry["verdict"], serde_json::to_value(judged_as).unwrap());
    assert_eq!(entry["untestableIn"], 1);
    assert_eq!(doc["judged"]["untestable"], 2);
}

#[test]
fn rules_not_met_list_what_to_fix_first_first() {
    // a crash (wire.survives), another MUST and a SHOULD whose ids sort the other way round
    let broken = reference(&["crash-after-cancel", "no-input-required"]);
    let (code, out, _) = run(&broken, &[], "not-met-order");
    assert_eq!(code, 1, "{out}");
    let section: Vec<&str> = out
        .split("rules not met:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.trim_start().starts_with("http"))
        .map(str::trim)
        .collect();
    let verdicts: Vec<&str> = section
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        section.first().is_some_and(|l| l.contains("wire.survives")),
        "the crash first:\n{out}"
    );
    let first_warn = verdicts.iter().position(|v| *v == "WARN");
    let last_fail = verdicts.iter().rposition(|v| *v == "FAIL");
    assert!(first_warn.is_some() && last_fail.is_some(), "{out}");
    assert!(last_fail < first_warn, "MUSTs before SHOULDs:\n{out}");
}

/// One missing role leaves many checks of many scenarios untestable: the terminal report says
/// its cause once, under the first scenario, with every rule it left unjudged on one line, and
/// names that scenario under the others (it was printed once per check).
#[test]
fn a_cause_of_many_untestable_checks_is_said_once() {
    let missing = "the receiver has no tool \"elicit_input\" for the fixture role \"elicit_input\" (see `taskcheck list --fixtures`)";
    let mut report = sample();
    let untestable = |rule: &str, message: String| Check::with(rule, Verdict::Untestable, message);
    report.scenarios.push(scenario(
        "input-again",
        vec![
            untestable("tasks.result.blocks", format!("needs ${{task}}: {missing}")),
            untestable(
                "tasks.input.request-related-task",
                format!("waits for what the receiver sends, which a step left out may have caused: {missing}"),
            ),
            untestable("tasks.result.blocks", format!("needs ${{first}}: needs ${{task}}: {missing}")),
        ],
        vec![],
    ));
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    let text = report.terminal(&outcome, false, Detail::Normal, 200);
    // once under the scenarios, once in the summary of rules no scenario could judge
    assert_eq!(text.matches(missing).count(), 2, "{text}");
    assert!(
        text.contains("  UNTESTABLE  tasks.input.request-related-task, tasks.input.requests-delivered, tasks.result.blocks\n      why: the receiver"),
        "{text}"
    );
    assert!(
        text.contains("    UNTESTABLE  tasks.result.blocks, tasks.input.request-related-task\n        why: as in input-required-flow above"),
        "{text}"
    );
    // -v still shows every check with its own message
    let verbose = report.terminal(&outcome, false, Detail::Verbose, 200);
    assert!(verbose.matches(missing).count() >= 4, "{verbose}");
}

#[test]
fn a_recording_names_apart_the_rules_of_the_other_transport() {
    let report = RunReport {
        not_exercised: vec!["tasks.list.paginate".into()],
        other_transport: vec!["tasks.http.no-sse-for-get".into()],
        ..sample()
    };
    let outcome = report.outcome(FailOn::Must, None, Default::default());
    let doc = report.json(&outcome);
    assert_valid_report(&doc);
    assert_eq!(
        doc["judged"]["otherTransport"],
        serde_json::json!(["tasks.http.no-sse-for-get"])
    );
    let note = "Not applicable, these rules speak of another transport than this recording's";
    for text in [
        report.markdown(&outcome),
        report.html(&outcome),
        report.terminal(&outcome, false, Detail::Normal, 200),
    ] {
        assert!(text.contains(note), "{text}");
        assert!(text.contains("tasks.http.no-sse-for-get"), "{text}");
    }
    // unexercised is one thing, not applicable another: only the first is counted as unjudged
    assert!(report
        .terminal(&outcome, false, Detail::Normal, 200)
        .contains("rules this traffic did not exercise (1)"));
}
