//! Unit tests of the extension's monitors on hand-written sessions.

use super::*;
use crate::verdict::Verdict;
use serde_json::json;

#[test]
fn the_state_diagram_allows_what_it_draws_and_nothing_after_terminal() {
    assert!(allowed("working", "input_required"));
    assert!(allowed("input_required", "working"));
    assert!(allowed("working", "completed"));
    assert!(allowed("input_required", "cancelled"));
    assert!(allowed("completed", "completed"));
    assert!(!allowed("completed", "working"));
    assert!(!allowed("failed", "completed"));
    assert!(!allowed("cancelled", "input_required"));
}

#[test]
fn task_shapes_name_what_is_wrong() {
    let good = json!({"taskId": "a", "status": "working", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null});
    assert!(shape_problems(&good).is_empty());
    let bad =
        json!({"taskId": 1, "status": "done", "createdAt": "x", "ttl": 5, "pollIntervalMs": 1.5});
    let problems = shape_problems(&bad).join("; ");
    for part in [
        "taskId",
        "status",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
    ] {
        assert!(problems.contains(part), "{problems}");
    }
}

/// A session in which task `t` (ttlMs 1000) is created by a request sent at 0 ms, found,
/// perhaps cancelled at 150 ms, and at `at_ms` not found.
fn expiry(at_ms: u64, cancelled: bool) -> Judgement {
    let task = json!({"taskId": "t", "status": "working", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 1000, "resultType": "task"});
    let found = json!({"taskId": "t", "status": "completed", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 1000, "resultType": "complete", "result": {"content": []}});
    let request = |id: u64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let answer = |id: u64, result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    let mut trace = vec![
        (
            0,
            Direction::Out,
            request(1, "tools/call", json!({"name": "optional_sleep"})),
        ),
        (10, Direction::In, answer(1, task)),
        (
            100,
            Direction::Out,
            request(2, "tasks/get", json!({"taskId": "t"})),
        ),
        (110, Direction::In, answer(2, found)),
    ];
    if cancelled {
        trace.push((
            150,
            Direction::Out,
            request(3, "tasks/cancel", json!({"taskId": "t"})),
        ));
        trace.push((
            160,
            Direction::In,
            answer(3, json!({"resultType": "complete"})),
        ));
    }
    trace.push((
        at_ms,
        Direction::Out,
        request(4, "tasks/get", json!({"taskId": "t"})),
    ));
    trace.push((
        at_ms + 5,
        Direction::In,
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Task not found"}}),
    ));
    let entries: Vec<Entry> = trace
        .into_iter()
        .enumerate()
        .map(|(seq, (t, dir, message))| Entry::of(seq as u64 + 1, dir, t, message))
        .collect();
    let ctx = Context {
        capabilities: &json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        official: None,
        breaks: &[],
        authorization: false,
    };
    judge(&entries, &ctx)
}

fn early(j: &Judgement) -> Vec<Verdict> {
    j.checks
        .iter()
        .filter(|c| c.rule == EARLY)
        .map(|c| c.verdict)
        .collect()
}

#[test]
fn a_task_discarded_before_its_ttl_expired_early_and_after_it_did_not() {
    let before = expiry(500, false);
    assert!(early(&before).contains(&Verdict::Fail));
    assert!(before.expired.is_empty());
    // after its ttl the answer is one nothing can be judged on (the task may be gone)
    let after = expiry(1100, false);
    assert!(!early(&after).contains(&Verdict::Fail));
    assert_eq!(after.expired.keys().copied().collect::<Vec<_>>(), vec![6]);
    // a cancelled task may go at once
    assert!(!early(&expiry(500, true)).contains(&Verdict::Fail));
}

/// A session of requests and answers: (request, answer) pairs, numbered in order.
fn session(exchanges: Vec<(&str, Value, Result<Value, Value>)>) -> Judgement {
    let mut entries = Vec::new();
    for (i, (method, params, answer)) in exchanges.into_iter().enumerate() {
        let id = i as u64 + 1;
        let seq = id * 2;
        entries.push(Entry::of(
            seq,
            Direction::Out,
            seq,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        ));
        let message = match answer {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
        };
        entries.push(Entry::of(seq + 1, Direction::In, seq + 1, message));
    }
    let ctx = Context {
        capabilities: &json!({"extensions": {EXTENSION: {}}}),
        official: None,
        breaks: &[],
        authorization: false,
    };
    judge(&entries, &ctx)
}

fn verdict(j: &Judgement, rule: &str) -> Option<Verdict> {
    j.checks.iter().find(|c| c.rule == rule).map(|c| c.verdict)
}

/// Per-request `_meta` declaring `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities})
}

fn handle(id: &str, status: &str) -> Value {
    json!({"resultType": "task", "taskId": id, "status": status, "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 60000})
}

#[test]
fn a_request_that_does_not_declare_the_extension_gets_no_task_in_any_form() {
    let call = |caps: Value, extra: Value| {
        let mut params = json!({"name": "o", "arguments": {}, "_meta": meta(caps)});
        if let Some(task) = extra.get("task") {
            params["task"] = task.clone();
        }
        session(vec![("tools/call", params, Ok(handle("t", "working")))])
    };
    let plain = call(json!({}), json!({}));
    assert_eq!(
        verdict(&plain, negotiation::NO_TASK_UNDECLARED),
        Some(Verdict::Fail)
    );
    let legacy = call(
        json!({"tasks": {"requests": {"tools": {"call": {}}}}}),
        json!({}),
    );
    assert_eq!(
        verdict(&legacy, negotiation::LEGACY_NON_DECLARING),
        Some(Verdict::Fail)
    );
    let param = call(json!({}), json!({"task": {"ttl": 1000}}));
    assert_eq!(
        verdict(&param, negotiation::TASK_PARAM_IGNORED),
        Some(Verdict::Fail)
    );
    let declared = call(json!({"extensions": {EXTENSION: {}}}), json!({}));
    assert_eq!(verdict(&declared, negotiation::NO_TASK_UNDECLARED), None);
}

#[test]
fn task_requests_without_the_extension_and_removed_methods_are_refused() {
    let j = session(vec![
        (
            "tasks/get",
            json!({"taskId": "t", "_meta": meta(json!({}))}),
            Ok(handle("t", "working")),
        ),
        (
            "tasks/result",
            json!({"taskId": "t", "_meta": meta(json!({"extensions": {EXTENSION: {}}}))}),
            Ok(json!({"content": []})),
        ),
    ]);
    assert_eq!(
        verdict(&j, negotiation::METHODS_NEED_CAPABILITY),
        Some(Verdict::Fail)
    );
    assert_eq!(
        verdict(&j, negotiation::RESULT_REMOVED),
        Some(Verdict::Fail)
    );
}

#[test]
fn a_finished_tasks_outcome_is_what_the_same_call_without_the_extension_returned() {
    let declaring = meta(json!({"extensions": {EXTENSION: {}}}));
    let plain = json!({"name": "o", "arguments": {"ms": 1}, "_meta": meta(json!({}))});
    let tasked = json!({"name": "o", "arguments": {"ms": 1}, "_meta": declaring.clone()});
    let get = json!({"taskId": "t", "_meta": declaring});
    let finished = |result: Value| {
        let mut t = handle("t", "completed");
        t["resultType"] = json!("complete");
        t["result"] = result;
        t
    };
    let outcome = json!({"content": [{"type": "text", "text": "no"}], "isError": true});
    let same = session(vec![
        ("tools/call", plain.clone(), Ok(outcome.clone())),
        ("tools/call", tasked.clone(), Ok(handle("t", "working"))),
        ("tasks/get", get.clone(), Ok(finished(outcome.clone()))),
    ]);
    assert_eq!(verdict(&same, payloads::RESULT_EXACT), Some(Verdict::Pass));
    assert_eq!(verdict(&same, payloads::ONLY_JSONRPC), Some(Verdict::Pass));
    let lost = session(vec![
        ("tools/call", plain, Ok(outcome)),
        ("tools/call", tasked, Ok(handle("t", "working"))),
        (
            "tasks/get",
            get,
            Ok(finished(
                json!({"content": [{"type": "text", "text": "no"}]}),
            )),
        ),
    ]);
    assert_eq!(verdict(&lost, payloads::RESULT_EXACT), Some(Verdict::Fail));
}

#[test]
fn an_update_is_an_empty_acknowledgement_and_keys_never_issued_change_nothing() {
    let declaring = meta(json!({"extensions": {EXTENSION: {}}}));
    let waiting = {
        let mut t = handle("t", "input_required");
        t["resultType"] = json!("complete");
        t["inputRequests"] = json!({"k": {"method": "elicitation/create", "params": {}}});
        t
    };
    let j = session(vec![
        (
            "tools/call",
            json!({"name": "e", "_meta": declaring.clone()}),
            Ok(handle("t", "working")),
        ),
        (
            "tasks/get",
            json!({"taskId": "t", "_meta": declaring.clone()}),
            Ok(waiting),
        ),
        (
            "tasks/update",
            json!({"taskId": "t", "inputResponses": {"never": {}}, "_meta": declaring.clone()}),
            Ok(json!({"resultType": "complete", "taskId": "t"})),
        ),
        (
            "tasks/get",
            json!({"taskId": "t", "_meta": declaring}),
            Ok({
                let mut t = handle("t", "completed");
                t["resultType"] = json!("complete");
                t["result"] = json!({"content": []});
                t
            }),
        ),
    ]);
    assert_eq!(verdict(&j, updates::UPDATE_ACK), Some(Verdict::Fail));
    assert_eq!(verdict(&j, updates::UNKNOWN_KEYS), Some(Verdict::Warn));
}

#[test]
fn a_task_id_no_header_can_mirror_may_be_refused_by_the_http_transport_but_not_over_stdio() {
    let asked = |over_http: bool| {
        let declared = meta(json!({"extensions": {EXTENSION: {}}}));
        let mut entries = vec![
            Entry::of(
                1,
                Direction::Out,
                1,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": null, "_meta": declared}}),
            ),
            Entry::of(
                2,
                Direction::In,
                2,
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": "Header mismatch: Mcp-Name is missing"}}),
            ),
        ];
        if over_http {
            entries[0].headers = Some(
                [
                    ("mcp-method", "tasks/get"),
                    ("mcp-protocol-version", "2026-07-28"),
                ]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into(),
            );
        }
        let ctx = Context {
            capabilities: &json!({"extensions": {EXTENSION: {}}}),
            official: None,
            breaks: &[],
            authorization: false,
        };
        verdict(&judge(&entries, &ctx), updates::GET_UNKNOWN)
    };
    assert_eq!(asked(true), Some(Verdict::Pass));
    assert_eq!(asked(false), Some(Verdict::Fail));
}
