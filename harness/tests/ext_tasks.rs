//! The Tasks extension profile: its reference receiver passes every check, every fault fails
//! exactly its rules, the profile is detected from what a receiver speaks, and its commands
//! (list, coverage, explain, check) work.

mod common;

use common::*;
use mcp_taskcheck::designs::ext_tasks;
use mcp_taskcheck::inspect::{checks_of, faults_of};
use mcp_taskcheck::scenario;
use mcp_taskcheck::spec::{self, Status};

#[test]
fn the_reference_receiver_passes_every_check() {
    let (code, out, doc) = run(
        &ext_reference(&[]),
        &["--profile", "ext-tasks"],
        "ext-clean",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(
            &doc,
            &["fail", "warn", "error", "untestable", "consequence"]
        ),
        Vec::<String>::new(),
        "{out}"
    );
    assert_eq!(doc["profile"], "ext-tasks", "{out}");
    assert_eq!(doc["protocolVersion"], "2026-07-28", "{out}");
    assert!(rules_with(&doc, &["pass"]).len() > 25, "{out}");
}

#[test]
fn every_fault_fails_exactly_its_rules() {
    let problems = ext_faults_over_stdio(&["--jobs", "4"], 4);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn over_http_the_reference_passes_and_every_fault_fails_exactly_its_rules() {
    // the server checks Mcp-Method, Mcp-Name and MCP-Protocol-Version against every body
    // (400, -32020 otherwise), so a clean pass also shows taskcheck sends them right
    let server = HttpReference::start(&["--profile", "ext-tasks"]);
    let (code, out, doc) = run_against(&["--url", &server.url], &AUTH, "ext-http-clean");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("speaks the ext-tasks design"), "{out}");
    assert_eq!(
        rules_with(
            &doc,
            &["fail", "warn", "error", "untestable", "consequence"]
        ),
        Vec::<String>::new(),
        "{out}"
    );
    // every fault shows over HTTP too (a subscriptions/listen stream is the POST's SSE answer)
    // one scenario at a time (tests/invariance.rs runs eight): no verdict follows `--jobs`
    let problems = ext_faults_over_http(&["--jobs", "1"], 8);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_legal_variant_passes_over_stdio_and_http() {
    let variants: Vec<_> = ext_tasks::reference::variants::VARIANTS.iter().collect();
    let problems = in_parallel(&variants, 4, |v| {
        let options = variant_options(v.name);
        let mut extra = vec!["--profile", "ext-tasks", "--jobs", "4"];
        extra.extend(options.iter().map(String::as_str));
        let stdio = run(
            &format!("{} --variant {}", ext_reference(&[]), v.name),
            &extra,
            &format!("ext-variant-{}", v.name),
        );
        let server = HttpReference::start(&["--profile", "ext-tasks", "--variant", v.name]);
        let http = run_against(
            &["--url", &server.url],
            &extra,
            &format!("ext-variant-http-{}", v.name),
        );
        [stdio, http]
            .into_iter()
            .filter_map(|(code, out, doc)| {
                let bad = rules_with(&doc, &["fail", "warn", "error"]);
                (code != 0 || !bad.is_empty())
                    .then(|| format!("variant {}: exit {code}, accused of {bad:?}\n{out}", v.name))
            })
            .collect::<Vec<_>>()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    let out = taskcheck(&["reference", "--profile", "ext-tasks", "--list-variants"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().count(),
        ext_tasks::reference::variants::VARIANTS.len(),
        "{text}"
    );
}

#[test]
fn a_task_discarded_once_its_ttl_elapsed_leaves_what_it_held_untestable_not_failed() {
    // short-ttl discards every task 100 ms after its creation, before most work ends
    let (code, out, doc) = run(
        &format!("{} --variant short-ttl", ext_reference(&[])),
        &[
            "--profile",
            "ext-tasks",
            "--scenario",
            "ext-tool-error-completes",
        ],
        "ext-short-ttl-expired",
    );
    assert_eq!(code, 0, "{out}");
    let untestable = rules_with(&doc, &["untestable"]);
    assert!(
        untestable.contains(&"ext-tasks.failed.only-jsonrpc".to_string()),
        "{out}"
    );
    assert!(
        out.contains("past its ttlMs of 100 ms"),
        "the reason is said:\n{out}"
    );
}

#[test]
fn the_profile_is_detected_and_said() {
    let out = taskcheck(&[
        "run",
        "--stdio",
        &ext_reference(&[]),
        "--scenario",
        "ext-unknown-task-id",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("speaks the ext-tasks design"), "{err}");
    let out = taskcheck(&[
        "run",
        "--stdio",
        &reference(&[]),
        "--scenario",
        "unknown-task-id",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("speaks the 2025-11-25 design"), "{err}");
    // a server of the default design refusing server/discover is nothing to alarm anyone with
    assert!(
        !err.contains("rejected") && !err.contains("-32601"),
        "{err}"
    );
    // over HTTP the refusal is an HTTP 400: plain too, and the run does not wait for an
    // answer that will not come (it waited out --timeout-ms under --url-from)
    let started = std::time::Instant::now();
    let out = taskcheck(&[
        "run",
        "--url-from",
        &format!("{} --http", reference(&[])),
        "--scenario",
        "unknown-task-id",
        "--timeout-ms",
        "20000",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("speaks the 2025-11-25 design") && !err.contains("server/discover"),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{err}"
    );
}

#[test]
fn every_checked_rule_has_a_check_and_a_fault() {
    let scenarios = scenario::builtin();
    for rule in mcp_taskcheck::designs::EXT_TASKS
        .rules()
        .filter(|r| r.status == Status::Checked)
    {
        assert!(
            !checks_of(&rule.id, &scenarios).is_empty(),
            "{} has no check",
            rule.id
        );
        assert!(!faults_of(&rule.id).is_empty(), "{} has no fault", rule.id);
    }
    for s in scenarios
        .iter()
        .filter(|s| s.profile == mcp_taskcheck::designs::EXT_TASKS)
    {
        for rule in &s.rules {
            let r = spec::rule(rule).unwrap();
            assert!(
                matches!(r.status, Status::Checked | Status::Info),
                "{} judges {rule}",
                s.id
            );
        }
    }
}

#[test]
fn list_coverage_and_explain_speak_of_the_profile() {
    let out = taskcheck(&["coverage", "--profile", "ext-tasks"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("ext-tasks.update.ack-empty"), "{text}");
    assert!(!text.contains("tasks.result.exact "), "{text}");
    let out = taskcheck(&["list", "--profile", "ext-tasks"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ext-input-round-trip") && !text.contains("create-poll-result "),
        "{text}"
    );
    // the fixture contract is the extension's
    let out = taskcheck(&["list", "--fixtures", "--profile", "ext-tasks"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for (tool, _) in ext_tasks::reference::TOOLS {
        assert!(text.contains(&format!("| `{tool}` |")), "{tool}: {text}");
    }
    assert!(!text.contains("sync_echo"), "{text}");
    let out = taskcheck(&["explain", "ext-tasks.update.ack-empty"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("seps/2663-tasks-extension#task-update-requests"),
        "{text}"
    );
    assert!(text.contains("update-returns-task"), "{text}");
}

#[test]
fn a_recorded_trace_is_judged_by_its_own_profile() {
    let trace = temp_path("ext-trace.jsonl");
    let (code, out, _) = run(
        &ext_reference(&["get-result-type-task"]),
        &[
            "--profile",
            "ext-tasks",
            "--scenario",
            "ext-create-poll-complete",
            "--trace",
            trace.to_str().unwrap(),
        ],
        "ext-trace-live",
    );
    assert_eq!(code, 1, "{out}");
    let report = temp_path("ext-trace.json");
    let out = taskcheck(&[
        "check",
        trace.to_str().unwrap(),
        "--report-json",
        report.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(doc["profile"], "ext-tasks");
    assert_eq!(
        rules_with(&doc, &["fail"]),
        vec!["ext-tasks.get.result-type-complete"]
    );
}

#[test]
fn checks_json_names_mapped_rules_by_the_official_check_and_an_official_baseline_carries_over() {
    let receiver = ext_reference(&["lazy-creation"]);
    let run_with = |flag: &str, file: &std::path::Path, tag: &str| {
        let extra = [
            "--profile",
            "ext-tasks",
            "--scenario",
            "ext-create-poll-complete",
        ];
        run(
            &receiver,
            &[&extra[..], &[flag, file.to_str().unwrap()]].concat(),
            tag,
        )
    };
    let checks = temp_path("ext-official-checks.json");
    let (code, out, _) = run_with("--checks-json", &checks, "ext-official");
    assert_eq!(code, 1, "{out}");
    let entries: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&checks).unwrap()).unwrap();
    let failed: Vec<(&str, &str)> = entries
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["status"] == "FAILURE")
        .map(|e| {
            (
                e["id"].as_str().unwrap(),
                e["details"]["taskcheckId"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        failed,
        vec![(
            "sep-2663-durable-create-strong-consistency",
            "ext-create-poll-complete:ext-tasks.create.durable"
        )],
        "{out}"
    );
    // an official suite's baseline entry for that check lists the failure
    let baseline = temp_path("ext-official-baseline.yml");
    std::fs::write(
        &baseline,
        "server:\n  - tasks-dispatch-and-envelope:sep-2663-durable-create-strong-consistency\n",
    )
    .unwrap();
    let (code, out, _) = run_with("--expected-failures", &baseline, "ext-official-baselined");
    assert_eq!(code, 0, "{out}");
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn the_official_schemas_accept_the_reference_and_catch_missing_cache_fields() {
    let mut args = vec!["--profile", "ext-tasks"];
    args.extend(EXT_SCHEMAS);
    let (code, out, doc) = run(&ext_reference(&[]), &args, "ext-schema-clean");
    assert_eq!(code, 0, "{out}");
    assert!(
        rules_with(&doc, &["pass"]).contains(&"ext-tasks.schema.official".to_string()),
        "{out}"
    );
    let (code, out, doc) = run(
        &ext_reference(&["no-cache-fields"]),
        &args,
        "ext-schema-fault",
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        rules_with(&doc, &["fail", "warn", "error"]),
        vec!["ext-tasks.schema.official"],
        "{out}"
    );
    assert!(
        out.contains("cacheScope"),
        "the missing field is named:\n{out}"
    );
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn under_the_official_schemas_every_fault_still_fails_exactly_its_rules() {
    // a fault's defect often breaks the schema too: it must show as a consequence, not a
    // second failure
    let faults: Vec<_> = ext_tasks::reference::faults::FAULTS
        .iter()
        .filter(|f| {
            !ext_tasks::reference::faults::HTTP_ONLY.contains(&f.fault)
                && f.name != "no-cache-fields"
        })
        .collect();
    let problems = in_parallel(&faults, 4, |fault| {
        let mut args = vec!["--profile", "ext-tasks", "--jobs", "4"];
        args.extend(EXT_SCHEMAS);
        let (code, out, doc) = run(
            &ext_reference(&[fault.name]),
            &args,
            &format!("ext-schema-{}", fault.name),
        );
        fault_problems(fault, code, &out, &doc)
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// A server without one fixture tool: the rule only that tool exercises is untestable (never
/// failed), the run says on how many rules it is conformant and what would make the rest
/// testable, and `--require-judged` turns too little judged into exit 4.
#[test]
fn a_missing_tool_leaves_its_rule_untestable_and_require_judged_says_so() {
    let receiver = format!("{} --variant without-required-sleep", ext_reference(&[]));
    let rule = "ext-tasks.capability.missing-capability-error";
    let profile = ["--profile", "ext-tasks"];
    let (code, out, doc) = run(&receiver, &profile, "ext-without-required-sleep");
    assert_eq!(code, 0, "{out}");
    assert!(
        rules_with(&doc, &["fail", "warn", "error"]).is_empty(),
        "{out}"
    );
    assert_eq!(doc["judged"]["untestable"], 1, "{out}");
    let judged = doc["judged"]["rules"].as_u64().unwrap();
    assert!(
        out.contains(&format!(
            "on {judged} of {} applicable rule(s) judged (1 untestable)",
            judged + 1
        )),
        "{out}"
    );
    let listed = out
        .split("rules no scenario could judge")
        .nth(1)
        .unwrap_or_default();
    assert!(
        listed.contains(rule) && listed.contains("required_sleep"),
        "{out}"
    );
    let all = [profile.as_slice(), &["--require-judged", "all"]].concat();
    let (code, out, _) = run(&receiver, &all, "ext-require-all");
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("exit 4: too little judged for --require-judged all"),
        "{out}"
    );
    let enough = judged.to_string();
    let some = [profile.as_slice(), &["--require-judged", &enough]].concat();
    assert_eq!(run(&receiver, &some, "ext-require-some").0, 0);
    let more = (judged + 1).to_string();
    let too_many = [profile.as_slice(), &["--require-judged", &more]].concat();
    assert_eq!(run(&receiver, &too_many, "ext-require-more").0, 4);
    let bad = taskcheck(&["run", "--stdio", &receiver, "--require-judged", "most"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// A server slow to start is waited for before a design is chosen (detection once gave up
/// after 3 s and tested it as 2025-11-25); one that answers nothing at all is told apart from
/// one that refuses server/discover, and its run stops with exit 3 before any scenario, its
/// report written.
#[test]
fn detection_waits_for_a_slow_start_and_tells_silence_from_refusal() {
    let slow = format!("{} --variant slow-start", ext_reference(&[]));
    let out = taskcheck(&["run", "--stdio", &slow, "--scenario", "ext-cancel"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("speaks the ext-tasks design"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    let json = temp_path("silent-receiver.json");
    let args = [
        "run",
        "--stdio",
        "cat >/dev/null",
        "--timeout-ms",
        "1000",
        "--scenario",
        "create-prompt",
        "--report-json",
        json.to_str().unwrap(),
    ];
    let out = taskcheck(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    // silent to both questions: the run stops, naming both silences, and claims no design
    assert!(
        err.contains("no response to initialize within 1000 ms (no answer: server/discover"),
        "{err}"
    );
    assert!(!err.contains("speaks the"), "{err}");
    assert!(json.is_file(), "the report is written");
    let refused = taskcheck(&[
        "run",
        "--stdio",
        &reference(&[]),
        "--scenario",
        "create-prompt",
    ]);
    let err = String::from_utf8_lossy(&refused.stderr);
    // a refusal is what a server of the default design gives: the design is said, plainly
    assert!(
        err.contains("speaks the 2025-11-25 design") && !err.contains("server/discover"),
        "{err}"
    );
}

/// A server that answers short work at once, without a task (the extension lets it): the
/// scenarios ask for work long enough that a task is the natural answer, so every rule is
/// still judged (four scenarios asked for 0 to 50 ms and left ten rules untestable).
#[test]
fn a_server_answering_short_work_at_once_is_judged_on_every_rule() {
    let receiver = format!("{} --variant immediate-short-work", ext_reference(&[]));
    let args = ["--profile", "ext-tasks", "--require-judged", "all"];
    let (code, out, doc) = run(&receiver, &args, "ext-immediate-short-work");
    assert_eq!(code, 0, "{out}");
    assert_eq!(doc["judged"]["untestable"], 0, "{out}");
}
