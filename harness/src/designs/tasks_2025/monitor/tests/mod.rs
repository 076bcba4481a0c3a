//! Unit tests of the 2025-11-25 monitor on hand-written traces.

use super::*;
use crate::verdict::Verdict;
use serde_json::json;

fn entry(seq: u64, dir: Direction, t_ms: u64, message: Value) -> Entry {
    Entry::of(seq, dir, t_ms, message)
}

fn task(id: &str, status: &str) -> Value {
    json!({"taskId": id, "status": status, "createdAt": "2025-11-25T10:00:00Z",
           "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 1000})
}

fn out(seq: u64, t: u64, id: u64, method: &str, params: Value) -> Entry {
    entry(
        seq,
        Direction::Out,
        t,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
}

fn answer(seq: u64, t: u64, id: u64, result: Value) -> Entry {
    entry(
        seq,
        Direction::In,
        t,
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
    )
}

fn fail(seq: u64, t: u64, id: u64, code: i64, message: &str) -> Entry {
    entry(
        seq,
        Direction::In,
        t,
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
    )
}

const DECLARED: &str = r#"{"tasks": {"requests": {"tools": {"call": {}}}}}"#;

fn run(trace: &[Entry], capabilities: &str, breaks: &[String]) -> Judgement {
    let caps: Value = serde_json::from_str(capabilities).unwrap();
    judge(
        trace,
        &Context {
            capabilities: &caps,
            official: None,
            breaks,
            authorization: false,
        },
    )
}

fn verdict(j: &Judgement, rule: &str) -> Option<Verdict> {
    j.checks.iter().find(|c| c.rule == rule).map(|c| c.verdict)
}

#[test]
fn judges_result_meta_and_capability() {
    let trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "x", "task": {}})),
        answer(1, 1, 1, json!({"task": task("a", "working")})),
        out(2, 2, 2, "tasks/result", json!({"taskId": "a"})),
        answer(3, 3, 2, json!({"content": []})),
    ];
    let j = run(&trace, "{}", &[]);
    assert_eq!(verdict(&j, "tasks.capability.declare"), Some(Verdict::Fail));
    assert_eq!(
        verdict(&j, "tasks.meta.result-related-task"),
        Some(Verdict::Fail)
    );
    assert_eq!(verdict(&j, "tasks.id.unique"), Some(Verdict::Pass));
    assert_eq!(
        verdict(&j, "tasks.schema.receiver-messages"),
        Some(Verdict::Pass)
    );
    assert_eq!(
        j.harness_errors.len(),
        1,
        "taskcheck augmented an undeclared request"
    );
    let j = run(&trace, DECLARED, &[]);
    assert_eq!(verdict(&j, "tasks.capability.declare"), Some(Verdict::Pass));
    assert!(j.harness_errors.is_empty());
}

#[test]
fn not_found_before_the_ttl_is_early_expiry() {
    let trace = vec![
        out(
            0,
            100,
            1,
            "tools/call",
            json!({"name": "x", "task": {"ttl": 1000}}),
        ),
        answer(1, 101, 1, json!({"task": task("a", "working")})),
        out(2, 500, 2, "tasks/get", json!({"taskId": "a"})),
        fail(3, 501, 2, -32602, "Task not found"),
        out(4, 1200, 3, "tasks/get", json!({"taskId": "a"})),
        fail(5, 1201, 3, -32602, "Task not found"),
    ];
    let j = run(&trace, DECLARED, &[]);
    let c = j
        .checks
        .iter()
        .find(|c| c.rule == "tasks.ttl.no-early-expiry")
        .unwrap();
    assert_eq!(c.verdict, Verdict::Fail);
    assert_eq!(
        c.evidence,
        vec![2, 3],
        "only the answer before the ttl counts"
    );
    assert_eq!(
        verdict(&j, "tasks.errors.informative-message"),
        Some(Verdict::Pass)
    );
}

#[test]
fn blank_error_messages_and_invalid_tasks_are_judged() {
    let mut bad = task("a", "working");
    bad["pollInterval"] = json!("50");
    let trace = vec![
        out(0, 0, 1, "tasks/get", json!({"taskId": "a"})),
        answer(1, 1, 1, bad),
        out(2, 2, 2, "tasks/get", json!({"taskId": "b"})),
        fail(3, 3, 2, -32602, "  "),
    ];
    let j = run(&trace, DECLARED, &[]);
    assert_eq!(
        verdict(&j, "tasks.schema.receiver-messages"),
        Some(Verdict::Fail)
    );
    assert_eq!(
        verdict(&j, "tasks.errors.informative-message"),
        Some(Verdict::Warn)
    );
}

#[test]
fn progress_after_creation_carries_related_task() {
    let progress = |seq, meta: Value| {
        entry(
            seq,
            Direction::In,
            seq,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p", "progress": 1, "_meta": meta}}),
        )
    };
    let trace = vec![
        out(
            0,
            0,
            1,
            "tools/call",
            json!({"name": "x", "task": {}, "_meta": {"progressToken": "p"}}),
        ),
        progress(1, json!({})),
        answer(2, 2, 1, json!({"task": task("a", "working")})),
        progress(3, json!({wire::RELATED_TASK: {"taskId": "a"}})),
        progress(4, json!({})),
    ];
    let j = run(&trace, DECLARED, &[]);
    let c = j
        .checks
        .iter()
        .find(|c| c.rule == "tasks.meta.related-messages")
        .unwrap();
    assert_eq!((c.verdict, c.evidence.clone()), (Verdict::Fail, vec![2, 4]));
}

#[test]
fn sequential_ids_are_guessable() {
    let mut trace = Vec::new();
    for i in 0..40u64 {
        trace.push(out(
            2 * i,
            2 * i,
            i,
            "tools/call",
            json!({"name": "x", "task": {}}),
        ));
        trace.push(answer(
            2 * i + 1,
            2 * i + 1,
            i,
            json!({"task": task(&format!("task-{i}"), "working")}),
        ));
    }
    let j = run(&trace, DECLARED, &[]);
    assert_eq!(
        verdict(&j, "tasks.security.secure-ids"),
        Some(Verdict::Fail)
    );
    assert_eq!(
        verdict(
            &run(&trace[..20], DECLARED, &[]),
            "tasks.security.secure-ids"
        ),
        None
    );
}

#[test]
fn taskcheck_conduct_is_checked_unless_the_scenario_breaks_it() {
    let trace = vec![
        out(0, 0, 1, "tools/list", json!({})),
        answer(
            1,
            1,
            1,
            json!({"tools": [{"name": "r", "execution": {"taskSupport": "required"}}, {"name": "f"}]}),
        ),
        out(2, 2, 2, "tools/call", json!({"name": "r"})),
        out(3, 3, 3, "tools/call", json!({"name": "f", "task": {}})),
        out(
            4,
            4,
            4,
            "tasks/get",
            json!({"taskId": "a", "_meta": {wire::RELATED_TASK: {"taskId": "b"}}}),
        ),
        out(5, 5, 5, "tasks/list", json!({"cursor": "made-up"})),
        out(6, 6, 6, "tasks/get", json!({"taskId": 7})),
        elicited(7, "a"),
        replied(8, json!({"action": "decline"})),
    ];
    let j = run(&trace, DECLARED, &[]);
    let mut rules: Vec<&str> = j.harness_errors.iter().map(|c| c.rule.as_str()).collect();
    rules.sort();
    let mut want = CONDUCT_RULES[1..].to_vec();
    want.sort();
    assert_eq!(rules, want);
    assert!(j.harness_errors.iter().all(|c| c.verdict == Verdict::Error));
    let breaks: Vec<String> = CONDUCT_RULES.iter().map(|r| r.to_string()).collect();
    assert!(run(&trace, DECLARED, &breaks).harness_errors.is_empty());
}

#[test]
fn a_schema_violation_of_a_judged_field_follows_its_rule() {
    let mut no_ttl = task("a", "working");
    no_ttl.as_object_mut().unwrap().remove("ttl");
    let trace = vec![
        out(0, 0, 1, "tasks/get", json!({"taskId": "a"})),
        answer(1, 1, 1, no_ttl),
    ];
    let j = run(&trace, DECLARED, &[]);
    let at = |rule: &str| j.checks.iter().position(|c| c.rule == rule).unwrap();
    assert_eq!(
        verdict(&j, "tasks.ttl.get-includes-ttl"),
        Some(Verdict::Fail)
    );
    assert_eq!(
        j.because[at("tasks.schema.receiver-messages")],
        Some("tasks.ttl.get-includes-ttl")
    );
}

#[test]
fn capability_paths() {
    let caps = json!({"tasks": {"list": {}, "cancel": false}});
    assert!(has_capability(&caps, "tasks.list"));
    assert!(!has_capability(&caps, "tasks.cancel"));
    assert!(!has_capability(&caps, "tasks.requests.tools.call"));
}

#[test]
fn a_task_augmented_call_answered_plainly_fails_only_where_a_task_was_due() {
    let plain =
        json!({"content": [{"type": "text", "text": "TaskSupport not running"}], "isError": true});
    let listed =
        json!({"tools": [{"name": "o", "execution": {"taskSupport": "optional"}}, {"name": "f"}]});
    let trace = |task: Value, tool: &str| {
        vec![
            out(0, 0, 1, "tools/list", json!({})),
            answer(1, 1, 1, listed.clone()),
            out(2, 2, 2, "tools/call", json!({"name": tool, "task": task})),
            answer(3, 3, 2, plain.clone()),
        ]
    };
    let rule = "tasks.create.create-task-result";
    let declared = run(&trace(json!({}), "o"), DECLARED, &[]);
    assert_eq!(verdict(&declared, rule), Some(Verdict::Fail));
    // undeclared: processed normally; a forbidden tool: its own rule; a malformed task: its own
    assert_eq!(verdict(&run(&trace(json!({}), "o"), "{}", &[]), rule), None);
    assert_eq!(
        verdict(&run(&trace(json!({}), "f"), DECLARED, &[]), rule),
        None
    );
    let malformed = run(&trace(json!({"ttl": "a minute"}), "o"), DECLARED, &[]);
    assert_eq!(verdict(&malformed, rule), None);
}

#[test]
fn a_tool_task_asked_of_a_server_without_tool_tasks_fails_once_the_should_its_consequence() {
    let listed = json!({"tools": [{"name": "o", "execution": {"taskSupport": "optional"}}]});
    let call = out(2, 2, 2, "tools/call", json!({"name": "o", "task": {}}));
    let trace = vec![
        out(0, 0, 1, "tools/list", json!({})),
        answer(1, 1, 1, listed.clone()),
        call.clone(),
    ];
    let caps = json!({}); // no tasks at all
    let ctx = Context {
        capabilities: &caps,
        official: None,
        breaks: &[],
        authorization: false,
    };
    let checks = judge_conduct(&trace, &ctx);
    let of = |checks: &[Check], rule: &str| checks.iter().find(|c| c.rule == rule).cloned();
    let must = of(&checks, "tasks.tool.requestor-respects-task-support").unwrap();
    assert_eq!(must.verdict, Verdict::Fail);
    let should = of(&checks, "tasks.capability.requestor-augments-declared-only").unwrap();
    assert_eq!(should.verdict, Verdict::Consequence);
    // a SHOULD broken first by another message is a warning of its own
    let trace = vec![
        out(0, 0, 1, "tools/list", json!({})),
        answer(1, 1, 1, listed),
        out(3, 3, 3, "sampling/createMessage", json!({"task": {}})),
        call,
    ];
    let checks = judge_conduct(&trace, &ctx);
    let should = of(&checks, "tasks.capability.requestor-augments-declared-only").unwrap();
    assert_eq!(should.verdict, Verdict::Warn);
}

/// The receiver's elicitation/create (id 90), naming task `task` in its related-task `_meta`.
fn elicited(seq: u64, task: &str) -> Entry {
    let params = json!({"message": "?", "requestedSchema": {"type": "object", "properties": {}},
        "_meta": {wire::RELATED_TASK: {"taskId": task}}});
    entry(
        seq,
        Direction::In,
        seq,
        json!({"jsonrpc": "2.0", "id": 90, "method": "elicitation/create", "params": params}),
    )
}

/// The requestor's answer (`result`, or an error where `result` is null) to request 90.
fn replied(seq: u64, result: Value) -> Entry {
    let message = match result.is_null() {
        true => json!({"jsonrpc": "2.0", "id": 90, "error": {"code": -1, "message": "no"}}),
        false => json!({"jsonrpc": "2.0", "id": 90, "result": result}),
    };
    entry(seq, Direction::Out, seq, message)
}

#[test]
fn a_requestors_answer_to_a_tasks_request_names_that_task() {
    let caps = json!({});
    let ctx = Context {
        capabilities: &caps,
        official: None,
        breaks: &[],
        authorization: false,
    };
    let rule = "tasks.meta.requestor-related-responses";
    let judged = |answer: Value| {
        let trace = [elicited(0, "a"), replied(1, answer)];
        let checks = judge_conduct(&trace, &ctx);
        checks.iter().find(|c| c.rule == rule).map(|c| c.verdict)
    };
    let named =
        |task: &str| json!({"action": "decline", "_meta": {wire::RELATED_TASK: {"taskId": task}}});
    assert_eq!(judged(named("a")), Some(Verdict::Pass));
    assert_eq!(judged(named("b")), Some(Verdict::Fail));
    assert_eq!(judged(json!({"action": "decline"})), Some(Verdict::Fail));
    // an error has no _meta to carry it
    assert_eq!(judged(Value::Null), None);
    // a request that names no task asks nothing of the answer
    let mut plain = elicited(0, "a");
    plain.message.as_mut().unwrap()["params"]
        .as_object_mut()
        .unwrap()
        .remove("_meta");
    let checks = judge_conduct(&[plain, replied(1, json!({"action": "decline"}))], &ctx);
    assert!(checks.iter().all(|c| c.rule != rule));
}

mod rules;
