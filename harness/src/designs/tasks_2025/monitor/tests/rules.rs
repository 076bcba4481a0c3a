//! The rules judged from a trace that a scenario's expectations used to judge alone: each on
//! a hand-written session, broken and kept.

use super::*;

const LISTED: &str = r#"{"tools": [{"name": "r", "execution": {"taskSupport": "required"}},
    {"name": "f", "execution": {"taskSupport": "forbidden"}}, {"name": "o", "execution": {"taskSupport": "optional"}}]}"#;

const FULL: &str = r#"{"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}"#;

fn listed() -> Vec<Entry> {
    vec![
        out(0, 0, 100, "tools/list", json!({})),
        answer(1, 0, 100, serde_json::from_str(LISTED).unwrap()),
    ]
}

#[test]
fn a_plain_call_of_a_required_tool_is_refused_with_method_not_found() {
    let rule = "tasks.tool.required-without-task-rejected";
    let mut trace = listed();
    trace.push(out(
        2,
        1,
        1,
        "tools/call",
        json!({"name": "r", "arguments": {}}),
    ));
    trace.push(fail(3, 2, 1, -32601, "Tool r requires a task"));
    assert_eq!(
        verdict(&run(&trace, DECLARED, &[]), rule),
        Some(Verdict::Pass)
    );
    trace.pop();
    trace.push(answer(3, 2, 1, json!({"content": []})));
    assert_eq!(
        verdict(&run(&trace, DECLARED, &[]), rule),
        Some(Verdict::Fail)
    );
    // without task support for tools/call, taskSupport means nothing
    assert_eq!(verdict(&run(&trace, "{}", &[]), rule), None);
}

#[test]
fn a_task_of_a_forbidden_tool_is_refused() {
    let rule = "tasks.tool.forbidden-rejected";
    let mut trace = listed();
    trace.push(out(
        2,
        1,
        1,
        "tools/call",
        json!({"name": "f", "task": {"ttl": 1000}}),
    ));
    trace.push(answer(3, 2, 1, json!({"task": task("a", "working")})));
    assert_eq!(
        verdict(&run(&trace, DECLARED, &[]), rule),
        Some(Verdict::Warn)
    );
}

#[test]
fn cancelling_a_task_seen_terminal_is_refused_with_invalid_params() {
    let rule = "tasks.cancel.terminal-rejected";
    let mut trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "o", "task": {}})),
        answer(1, 1, 1, json!({"task": task("a", "working")})),
        out(2, 2, 2, "tasks/get", json!({"taskId": "a"})),
        answer(3, 3, 2, task("a", "completed")),
        out(4, 4, 3, "tasks/cancel", json!({"taskId": "a"})),
    ];
    let mut refused = trace.clone();
    refused.push(fail(5, 5, 3, -32602, "already completed"));
    assert_eq!(
        verdict(&run(&refused, FULL, &[]), rule),
        Some(Verdict::Pass)
    );
    trace.push(answer(5, 5, 3, task("a", "cancelled")));
    assert_eq!(verdict(&run(&trace, FULL, &[]), rule), Some(Verdict::Fail));
}

#[test]
fn a_cancellation_refused_while_the_task_still_works_is_a_failure_once_a_read_shows_it() {
    let rule = "tasks.cancel.cancelled-before-response";
    let mut trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "o", "task": {}})),
        answer(1, 1, 1, json!({"task": task("a", "working")})),
        out(2, 2, 2, "tasks/cancel", json!({"taskId": "a"})),
        fail(3, 3, 2, -32602, "cannot cancel"),
    ];
    // no later read: it may have ended meanwhile
    assert_eq!(verdict(&run(&trace, FULL, &[]), rule), None);
    trace.push(out(4, 4, 3, "tasks/get", json!({"taskId": "a"})));
    trace.push(answer(5, 5, 3, task("a", "working")));
    assert_eq!(verdict(&run(&trace, FULL, &[]), rule), Some(Verdict::Fail));
}

#[test]
fn a_result_answered_while_the_task_still_works_did_not_block() {
    let rule = "tasks.result.blocks";
    let trace = |later: &str| {
        vec![
            out(0, 0, 1, "tools/call", json!({"name": "o", "task": {}})),
            answer(1, 1, 1, json!({"task": task("a", "working")})),
            out(2, 2, 2, "tasks/result", json!({"taskId": "a"})),
            answer(
                3,
                3,
                2,
                json!({"content": [], "_meta": {wire::RELATED_TASK: {"taskId": "a"}}}),
            ),
            out(4, 4, 3, "tasks/get", json!({"taskId": "a"})),
            answer(5, 5, 3, task("a", later)),
        ]
    };
    assert_eq!(
        verdict(&run(&trace("completed"), DECLARED, &[]), rule),
        Some(Verdict::Pass)
    );
    assert_eq!(
        verdict(&run(&trace("working"), DECLARED, &[]), rule),
        Some(Verdict::Fail)
    );
}

#[test]
fn a_result_unlike_the_plain_calls_is_not_the_final_outcome() {
    let plain = out(
        0,
        0,
        1,
        "tools/call",
        json!({"name": "o", "arguments": {"x": 1}}),
    );
    let trace = |task_answer: Entry| {
        vec![
            plain.clone(),
            fail(1, 1, 1, -32603, "boom"),
            out(
                2,
                2,
                2,
                "tools/call",
                json!({"name": "o", "arguments": {"x": 1}, "task": {}}),
            ),
            answer(3, 3, 2, json!({"task": task("a", "working")})),
            out(4, 4, 3, "tasks/get", json!({"taskId": "a"})),
            answer(5, 5, 3, task("a", "failed")),
            out(6, 6, 4, "tasks/result", json!({"taskId": "a"})),
            task_answer,
        ]
    };
    let same = run(&trace(fail(7, 7, 4, -32603, "boom")), DECLARED, &[]);
    assert_eq!(
        verdict(&same, "tasks.result.terminal-returns-final"),
        Some(Verdict::Pass)
    );
    assert_eq!(verdict(&same, "tasks.result.exact"), Some(Verdict::Pass));
    assert_eq!(
        verdict(&same, "tasks.failed.protocol-error"),
        Some(Verdict::Pass)
    );
    let reworded = run(&trace(fail(7, 7, 4, -32603, "it broke")), DECLARED, &[]);
    assert_eq!(
        verdict(&reworded, "tasks.result.exact"),
        Some(Verdict::Fail)
    );
    let as_result =
        json!({"content": [], "isError": true, "_meta": {wire::RELATED_TASK: {"taskId": "a"}}});
    let turned = run(&trace(answer(7, 7, 4, as_result)), DECLARED, &[]);
    assert_eq!(
        verdict(&turned, "tasks.result.terminal-returns-final"),
        Some(Verdict::Fail)
    );
}

#[test]
fn a_cursor_no_page_gave_is_refused_and_an_unknown_task_gets_invalid_params() {
    let trace = vec![
        out(0, 0, 1, "tasks/list", json!({"cursor": "made-up"})),
        answer(1, 1, 1, json!({"tasks": []})),
        out(2, 2, 2, "tasks/get", json!({"taskId": "nobody"})),
        fail(3, 3, 2, -32600, "no such task"),
    ];
    let j = run(&trace, FULL, &[]);
    assert_eq!(verdict(&j, "tasks.errors.bad-cursor"), Some(Verdict::Fail));
    assert_eq!(
        verdict(&j, "tasks.errors.unknown-task-id"),
        Some(Verdict::Fail)
    );
}

/// An elicitation the receiver sends without related-task `_meta`.
fn unnamed_elicitation(seq: u64) -> Entry {
    let mut e = elicited(seq, "a");
    e.message.as_mut().unwrap()["params"]
        .as_object_mut()
        .unwrap()
        .remove("_meta");
    e
}

#[test]
fn an_elicitation_while_a_task_waits_for_input_names_that_task() {
    let rule = "tasks.input.request-related-task";
    let unnamed = unnamed_elicitation(4);
    let trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "e", "task": {}})),
        answer(1, 1, 1, json!({"task": task("a", "working")})),
        out(2, 2, 2, "tasks/get", json!({"taskId": "a"})),
        answer(3, 3, 2, task("a", "input_required")),
        unnamed,
    ];
    assert_eq!(
        verdict(&run(&trace, DECLARED, &[]), rule),
        Some(Verdict::Fail)
    );
}

#[test]
fn a_second_answer_to_one_request_and_a_receiver_gone_mid_request_are_judged() {
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
    let mut trace = vec![
        out(0, 0, 0, "initialize", json!({"capabilities": {}})),
        answer(1, 1, 0, init),
        out(2, 2, 1, "ping", json!({})),
        answer(3, 3, 1, json!({})),
        answer(4, 4, 1, json!({})),
        out(5, 5, 2, "tools/list", json!({})),
    ];
    trace.push(Entry {
        message: None,
        text: Some("the receiver exited (exit status: 1)".into()),
        closed: Some(crate::trace::RECEIVER_CLOSED.into()),
        ..entry(6, Direction::In, 6, Value::Null)
    });
    let j = run(&trace, "{}", &[]);
    assert_eq!(verdict(&j, "wire.one-response"), Some(Verdict::Fail));
    assert_eq!(verdict(&j, "wire.survives"), Some(Verdict::Fail));
}

#[test]
fn a_task_read_sent_with_a_task_it_ignores_is_no_task_created() {
    // a tasks/get carrying `task: {}` (as a client may send it) is answered with the Task
    // it reads: processed normally, not a task of an undeclared request type
    let rule = "tasks.support.undeclared-processed-normally";
    let mut trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "o", "task": {}})),
        answer(1, 1, 1, json!({"task": task("a", "working")})),
        out(2, 2, 2, "tasks/get", json!({"taskId": "a", "task": {}})),
        answer(3, 3, 2, task("a", "working")),
    ];
    assert_eq!(
        verdict(&run(&trace, DECLARED, &[]), rule),
        Some(Verdict::Pass)
    );
    trace.push(out(
        4,
        4,
        3,
        "tasks/get",
        json!({"taskId": "a", "task": {}}),
    ));
    trace.push(answer(5, 5, 3, json!({"task": task("b", "working")})));
    assert_eq!(
        verdict(&run(&trace, DECLARED, &[]), rule),
        Some(Verdict::Fail)
    );
}

#[test]
fn an_elicitation_while_one_task_alone_works_is_that_tasks_and_waits_in_input_required() {
    // the task reads working throughout: the request for input is still its own, with
    // nothing else open, and the task should have read input_required while it waited
    let unnamed = unnamed_elicitation(4);
    let trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "e", "task": {}})),
        answer(1, 1, 1, json!({"task": task("a", "working")})),
        out(2, 2, 2, "tasks/get", json!({"taskId": "a"})),
        answer(3, 3, 2, task("a", "working")),
        unnamed,
        out(5, 1500, 3, "tasks/get", json!({"taskId": "a"})),
        answer(6, 1500, 3, task("a", "working")),
        replied(7, json!({"action": "accept", "content": {}})),
    ];
    let judged = run(&trace, DECLARED, &[]);
    assert_eq!(
        verdict(&judged, "tasks.input.request-related-task"),
        Some(Verdict::Fail)
    );
    assert_eq!(
        verdict(&judged, "tasks.input.move-to-input-required"),
        Some(Verdict::Warn)
    );
    // with a second task unfinished, whose it is cannot be told
    let mut two = trace.clone();
    two[2] = out(2, 2, 2, "tools/call", json!({"name": "e", "task": {}}));
    two[3] = answer(3, 3, 2, json!({"task": task("b", "working")}));
    let judged = run(&two, DECLARED, &[]);
    assert_eq!(verdict(&judged, "tasks.input.request-related-task"), None);
}

#[test]
fn an_elicitation_before_its_task_is_created_is_that_tasks() {
    // over HTTP a receiver may send it on the creating call's stream, before the
    // CreateTaskResult: the one request open is the call that creates the task
    let trace = vec![
        out(0, 0, 1, "tools/call", json!({"name": "e", "task": {}})),
        unnamed_elicitation(1),
        answer(2, 2, 1, json!({"task": task("a", "working")})),
        out(3, 1500, 2, "tasks/get", json!({"taskId": "a"})),
        answer(4, 1500, 2, task("a", "working")),
        replied(5, json!({"action": "accept", "content": {}})),
    ];
    let judged = run(&trace, DECLARED, &[]);
    assert_eq!(
        verdict(&judged, "tasks.input.request-related-task"),
        Some(Verdict::Fail)
    );
    assert_eq!(
        verdict(&judged, "tasks.input.move-to-input-required"),
        Some(Verdict::Warn)
    );
}
