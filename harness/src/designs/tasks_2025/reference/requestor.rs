//! The 2025-11-25 reference requestor (`taskcheck reference-requestor`): does what
//! `TASKCHECK_REQUEST` asks of a server the way a requestor should (a tool called as a task
//! only where its `taskSupport` allows, polled at its `pollInterval` until it settles,
//! `input_required` answered through tasks/result, cancelled when asked); each fault breaks
//! one requestor rule.

use crate::monitor::has_capability;
use crate::reference::faults::{FaultInfo, Faults};
use crate::reference::variants::VariantInfo;
use crate::requestor::{
    wait_to_poll, with_vendor_meta, GIVES_UP_AFTER, REFERENCE_POLL_MS, REFERENCE_WAIT,
};
use crate::scenario::Ask;
use crate::session::{Inbound, Inbox, Session};
use crate::transport::routing::VERSION_HEADER;
use crate::wire::{self, Outcome};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One way the reference requestor breaks a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    PollsFast,
    StopsPolling,
    ExitsWhileWorking,
    NoResultOnInput,
    MetaInGet,
    MetaInList,
    AugmentsForbidden,
    TtlAsText,
    TampersCursor,
    IgnoresGetStream,
    CancelsByNotification,
    NoVersionHeader,
    ResultAfterEnd,
    AugmentsUndeclared,
    UnrelatedAnswers,
}

/// Every fault of the reference requestor.
pub const FAULTS: &[FaultInfo<Fault>] = &[
    FaultInfo { fault: Fault::PollsFast, name: "polls-fast", rules: &["tasks.poll.requestor-respects-poll-interval"], description: "polls every 20 ms, whatever pollInterval says", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::StopsPolling, name: "stops-polling", rules: &["tasks.poll.requestor-respects-poll-interval"], description: "polls a working task once, then never again", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::ExitsWhileWorking, name: "exits-while-working", rules: &["tasks.poll.requestor-respects-poll-interval"], description: "polls a working task once, then ends at once, neither cancelling nor following it", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::NoResultOnInput, name: "no-result-on-input", rules: &["tasks.input.requestor-calls-result"], description: "keeps polling tasks/get through input_required and never calls tasks/result", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::MetaInGet, name: "meta-in-get", rules: &["tasks.meta.requestor-omits"], description: "sends related-task _meta on tasks/get", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::MetaInList, name: "meta-in-list", rules: &["tasks.meta.requestor-omits"], description: "asks for each tasks/list page after the first with related-task _meta naming a task the last page listed", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::TtlAsText, name: "ttl-as-text", rules: &["tasks.schema.requestor-messages"], description: "asks for a task with `ttl` as a string (\"60000\")", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::TampersCursor, name: "tampers-cursor", rules: &["tasks.list.requestor-opaque-cursor"], description: "sends back each tasks/list cursor with a character added", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::IgnoresGetStream, name: "ignores-get-stream", rules: &["tasks.http.requestor-any-stream"], description: "(HTTP) answers only the elicitations that come on the stream of its tasks/result, none that come on the GET stream, and gives up after 2 s", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::CancelsByNotification, name: "cancels-by-notification", rules: &["tasks.cancel.requestor-uses-tasks-cancel"], description: "cancels a task by sending notifications/cancelled for its tools/call instead of tasks/cancel", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::NoVersionHeader, name: "no-version-header", rules: &["tasks.http.requestor-protocol-version"], description: "(HTTP) polls with tasks/get sent without the MCP-Protocol-Version header", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::ResultAfterEnd, name: "result-after-end", rules: &["tasks.input.requestor-calls-result"], description: "(HTTP) answers an input_required task's elicitation from the GET stream and calls tasks/result only once polling shows the task ended", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::AugmentsUndeclared, name: "augments-undeclared", rules: &["tasks.tool.requestor-respects-task-support"], description: "calls a tool as a task where its taskSupport allows one, although the server's capabilities lack tasks.requests.tools.call", may_also: &[], follows: &["tasks.capability.requestor-augments-declared-only"] },
    FaultInfo { fault: Fault::UnrelatedAnswers, name: "unrelated-answers", rules: &["tasks.meta.requestor-related-responses"], description: "answers the elicitation of a task without related-task _meta naming that task", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::AugmentsForbidden, name: "augments-forbidden", rules: &["tasks.tool.requestor-respects-task-support"], description: "calls a tool as a task although its taskSupport forbids it", may_also: &[], follows: &[] },
];

/// One legal way of the reference requestor that differs from its default; each must pass
/// every requestor scenario, so no requestor rule accuses a reading the spec allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    ResultAtOnce,
    ReadsCancelled,
    Declines,
    VendorMeta,
}

/// Every legal variant of the reference requestor.
pub const VARIANTS: &[VariantInfo<Variant>] = &[
    VariantInfo { variant: Variant::ResultAtOnce, name: "result-at-once", description: "calls tasks/result as soon as a task is created and waits on it, polling never (unless asked to cancel)" },
    VariantInfo { variant: Variant::ReadsCancelled, name: "reads-cancelled", description: "reads a task with tasks/get right after cancelling it" },
    VariantInfo { variant: Variant::Declines, name: "declines", description: "declines every elicitation" },
    VariantInfo { variant: Variant::VendorMeta, name: "vendor-meta", description: "puts a vendor key of its own in the _meta of every request" },
];

/// `params` as sent: with the `vendor-meta` variant, a vendor `_meta` key added.
fn sent(params: Value, faults: &Faults<Fault, Variant>) -> Value {
    with_vendor_meta(params, faults.is(Variant::VendorMeta))
}

/// Does what `ask` asks (`tool`, `arguments`, `task`, `cancel_after_ms`, `times`, `list`) on an
/// opened session with a server that declared `capabilities`.
pub async fn run(
    session: &Session,
    capabilities: &Value,
    ask: &Ask,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    // tool-level negotiation: without tasks.requests.tools.call no tool is called as a task
    let declared = has_capability(capabilities, "tasks.requests.tools.call")
        || faults.has(Fault::AugmentsUndeclared);
    for _ in 0..ask.calls() {
        call(session, declared, ask, faults).await?;
    }
    if ask.list {
        list(session, faults).await?;
    }
    Ok(())
}

/// Walks tasks/list, page by page, with the cursors the receiver gives.
async fn list(session: &Session, faults: &Faults<Fault, Variant>) -> Result<(), String> {
    let mut cursor: Option<Value> = None;
    let mut listed: Option<Value> = None;
    for _ in 0..100 {
        let mut params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        if let (true, Some(id)) = (faults.has(Fault::MetaInList), &listed) {
            params["_meta"][wire::RELATED_TASK] = json!({"taskId": id});
        }
        let page = session
            .request("tasks/list", sent(params, faults), REFERENCE_WAIT)
            .await
            .map_err(|e| format!("tasks/list: {e}"))?;
        let Outcome::Result(page) = page.outcome else {
            return Ok(());
        };
        listed = page.pointer("/tasks/0/taskId").cloned();
        cursor = match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) if faults.has(Fault::TampersCursor) => Some(json!(format!("{c}x"))),
            Some(c) => Some(json!(c)),
            None => return Ok(()),
        };
    }
    Ok(())
}

/// Calls the tool asked for once (as a task only where the server `declared` tool tasks),
/// following its task to the end.
async fn call(
    session: &Session,
    declared: bool,
    ask: &Ask,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    let tool = ask.tool.as_str();
    let listed = session
        .request("tools/list", sent(json!({}), faults), REFERENCE_WAIT)
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let support = match &listed.outcome {
        Outcome::Result(r) => r["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == tool)
            .and_then(|t| t.pointer("/execution/taskSupport"))
            .and_then(Value::as_str)
            .unwrap_or("forbidden")
            .to_string(),
        Outcome::Error(e) => return Err(format!("tools/list answered {e}")),
    };
    let wants_task = ask.task;
    let as_task = declared
        && match support.as_str() {
            "required" => true,
            "optional" => wants_task,
            _ => wants_task && faults.has(Fault::AugmentsForbidden),
        };
    let mut params = ask.call_params();
    if as_task {
        params["task"] = match faults.has(Fault::TtlAsText) {
            true => json!({"ttl": "60000"}),
            false => json!({"ttl": 60_000}),
        };
    }
    let answer = session
        .request("tools/call", sent(params, faults), REFERENCE_WAIT)
        .await
        .map_err(|e| format!("tools/call: {e}"))?;
    let task_id = match (&answer.outcome, as_task) {
        (Outcome::Result(r), true) => r.pointer("/task/taskId").cloned(),
        _ => None,
    };
    // the JSON-RPC id of the tools/call, which the cancels-by-notification fault names
    let entries = session.trace.entries();
    let sent = entries.iter().find(|e| e.seq == answer.asked);
    let call_id = sent.and_then(|e| e.message.as_ref()?.get("id").cloned());
    match task_id {
        Some(id) => follow(session, &id, call_id, ask, faults).await,
        None => Ok(()),
    }
}

/// Polls task `id` until it settles, answering its input and cancelling it when asked.
async fn follow(
    session: &Session,
    id: &Value,
    call_id: Option<Value>,
    ask: &Ask,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    let created = Instant::now();
    let cancel_after = ask.cancel_after_ms.map(Duration::from_millis);
    let mut get = sent(json!({"taskId": id}), faults);
    if faults.has(Fault::MetaInGet) {
        get["_meta"][wire::RELATED_TASK] = json!({"taskId": id});
    }
    if faults.is(Variant::ResultAtOnce) && cancel_after.is_none() {
        return answer_input(session, id, faults).await;
    }
    loop {
        if cancel_after.is_some_and(|c| created.elapsed() >= c) {
            if let (true, Some(request)) = (faults.has(Fault::CancelsByNotification), &call_id) {
                let params = json!({"requestId": request, "reason": "asked to cancel"});
                let _ = session.notify("notifications/cancelled", params).await;
                // a ping answered shows the notification was delivered before the exit
                let _ = session.request("ping", json!({}), REFERENCE_WAIT).await;
                return Ok(());
            }
            let cancel = sent(json!({"taskId": id}), faults);
            let _ = session
                .request("tasks/cancel", cancel, REFERENCE_WAIT)
                .await;
            if faults.is(Variant::ReadsCancelled) {
                let _ = session
                    .request("tasks/get", get.clone(), REFERENCE_WAIT)
                    .await;
            }
            return Ok(());
        }
        if created.elapsed() > REFERENCE_WAIT * 3 {
            return Err(format!(
                "task {id} did not settle in {} s",
                (REFERENCE_WAIT * 3).as_secs()
            ));
        }
        let unversioned = match faults.has(Fault::NoVersionHeader) {
            true => vec![(VERSION_HEADER.to_string(), None)],
            false => Vec::new(),
        };
        let polled = session
            .request_headed("tasks/get", get.clone(), REFERENCE_WAIT, unversioned)
            .await
            .map_err(|e| format!("tasks/get: {e}"))?;
        let Outcome::Result(task) = polled.outcome else {
            return Err(format!("tasks/get of {id} answered an error"));
        };
        let interval = task
            .get("pollInterval")
            .and_then(Value::as_u64)
            .unwrap_or(REFERENCE_POLL_MS);
        match task.get("status").and_then(Value::as_str) {
            Some("working") if faults.has(Fault::StopsPolling) => {
                // leave the task as it is, long enough for it to show
                tokio::time::sleep(Duration::from_millis(interval * 4)).await;
                return Ok(());
            }
            Some("working") if faults.has(Fault::ExitsWhileWorking) => return Ok(()),
            Some("working") => {}
            Some("input_required") if faults.has(Fault::ResultAfterEnd) => {
                return result_after_end(session, id, get.clone(), interval, faults).await;
            }
            Some("input_required") if !faults.has(Fault::NoResultOnInput) => {
                return answer_input(session, id, faults).await;
            }
            // the fault leaves the input unanswered, polling a while as if waiting
            Some("input_required") if created.elapsed() > GIVES_UP_AFTER => return Ok(()),
            Some("input_required") => {}
            _ => {
                let result = sent(json!({"taskId": id}), faults);
                let _ = session
                    .request("tasks/result", result, REFERENCE_WAIT)
                    .await;
                return Ok(());
            }
        }
        wait_to_poll(
            interval,
            faults.has(Fault::PollsFast),
            created,
            cancel_after,
        )
        .await;
    }
}

/// The `result-after-end` fault: answers the task's elicitations as they come (on the GET
/// stream), polls until the task ended, and only then calls tasks/result.
async fn result_after_end(
    session: &Session,
    id: &Value,
    get: Value,
    interval: u64,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    let started = Instant::now();
    while started.elapsed() < REFERENCE_WAIT * 3 {
        tokio::time::sleep(Duration::from_millis(interval)).await;
        for asked in session.drain(Inbox::Requests, "elicitation/create") {
            let _ = session.respond(&asked.id, accept(&asked, faults)).await;
        }
        let polled = session
            .request("tasks/get", get.clone(), REFERENCE_WAIT)
            .await
            .map_err(|e| format!("tasks/get: {e}"))?;
        let status = match &polled.outcome {
            Outcome::Result(task) => task.get("status").and_then(Value::as_str),
            Outcome::Error(_) => None,
        };
        if matches!(status, Some("completed" | "failed" | "cancelled")) {
            let result = sent(json!({"taskId": id}), faults);
            let _ = session
                .request("tasks/result", result, REFERENCE_WAIT)
                .await;
            return Ok(());
        }
    }
    Err(format!(
        "task {id} did not end while its input was answered from the GET stream"
    ))
}

/// The answer to an elicitation: accepted, with `answer` filled in, naming the task the
/// elicitation named (unless the `unrelated-answers` fault leaves that out).
fn accept(asked: &Inbound, faults: &Faults<Fault, Variant>) -> Value {
    let mut answer = match faults.is(Variant::Declines) {
        true => json!({"action": "decline"}),
        false => json!({"action": "accept", "content": {"answer": "taskcheck"}}),
    };
    if !faults.has(Fault::UnrelatedAnswers) {
        wire::name_the_task(&mut answer, &asked.params, wire::RELATED_TASK);
    }
    answer
}

/// Whether the message at trace number `seq` came on the HTTP GET stream.
fn came_on_get(session: &Session, seq: u64) -> bool {
    let entries = session.trace.entries();
    let entry = entries.iter().find(|e| e.seq == seq);
    entry.and_then(|e| e.via.as_deref()) == Some(crate::transport::http::VIA_GET)
}

/// Calls tasks/result for an `input_required` task (any task, with `result-at-once`) and
/// answers each elicitation it sends until the result comes.
async fn answer_input(
    session: &Session,
    id: &Value,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    let params = sent(json!({"taskId": id}), faults);
    let result = session.request("tasks/result", params, REFERENCE_WAIT * 3);
    tokio::pin!(result);
    let ignores_get = faults.has(Fault::IgnoresGetStream);
    let gives_up = tokio::time::sleep(if ignores_get {
        GIVES_UP_AFTER
    } else {
        REFERENCE_WAIT * 3
    });
    tokio::pin!(gives_up);
    loop {
        tokio::select! {
            done = &mut result => {
                return done.map(|_| ()).map_err(|e| format!("tasks/result: {e}"));
            }
            _ = &mut gives_up, if ignores_get => return Ok(()),
            asked = session.next(Inbox::Requests, "elicitation/create", REFERENCE_WAIT * 3) => {
                let asked = asked.map_err(|e| format!("waiting for tasks/result: {e}"))?;
                if ignores_get && came_on_get(session, asked.seq) {
                    continue;
                }
                let _ = session.respond(&asked.id, accept(&asked, faults)).await;
            }
        }
    }
}
