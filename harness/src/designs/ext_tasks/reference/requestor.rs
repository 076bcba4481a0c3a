//! The extension's reference requestor (`taskcheck reference-requestor --profile ext-tasks`):
//! does what `TASKCHECK_REQUEST` asks of a server the way a client should (every request
//! declaring the extension, a CreateTaskResult or a plain result both handled, a task polled at
//! its `pollIntervalMs` until it ends, each input request answered once with tasks/update,
//! cancelled with tasks/cancel when asked, a task handed out for another request than tools/call
//! not followed); each fault breaks one requestor rule.

use crate::reference::faults::{FaultInfo, Faults};
use crate::reference::variants::VariantInfo;
use crate::requestor::{
    wait_to_poll, with_vendor_meta, GIVES_UP_AFTER, REFERENCE_POLL_MS, REFERENCE_WAIT,
};
use crate::scenario::Ask;
use crate::session::Session;
use crate::wire::Outcome;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// One way the reference requestor breaks a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    PollsFast,
    StopsPolling,
    ExitsWhileWorking,
    StopsAfterUpdate,
    NoUpdateOnInput,
    InventsKey,
    AnswersTwice,
    ReanswersShown,
    CancelsByNotification,
    AssumesTask,
    ResendsResult,
    IgnoresTask,
    NoMcpName,
    NoVersionHeader,
    NoMcpMethod,
    FollowsAnyTask,
}

/// Every fault of the extension's reference requestor.
pub const FAULTS: &[FaultInfo<Fault>] = &[
    FaultInfo { fault: Fault::PollsFast, name: "polls-fast", rules: &["ext-tasks.requestor.respects-poll-interval"], description: "polls every 20 ms, whatever pollIntervalMs says", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::StopsPolling, name: "stops-polling", rules: &["ext-tasks.requestor.polls-until-terminal"], description: "polls a working task once, then never again", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::ExitsWhileWorking, name: "exits-while-working", rules: &["ext-tasks.requestor.polls-until-terminal"], description: "polls a working task once, then ends at once, neither cancelling nor following it", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::StopsAfterUpdate, name: "stops-after-update", rules: &["ext-tasks.requestor.polls-until-terminal"], description: "answers an input_required task with tasks/update, then never polls it again", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::NoUpdateOnInput, name: "no-update-on-input", rules: &["ext-tasks.requestor.fulfils-input"], description: "keeps polling an input_required task and never sends tasks/update", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::InventsKey, name: "invents-key", rules: &["ext-tasks.requestor.keys-outstanding"], description: "answers input under a key of its own besides the task's", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::AnswersTwice, name: "answers-twice", rules: &["ext-tasks.requestor.answers-once"], description: "answers each input request a second time, in a second tasks/update", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::ReanswersShown, name: "reanswers-shown", rules: &["ext-tasks.requestor.answers-once"], description: "answers every input request a poll shows, keeping no track of those it answered (a server that applies answers late shows them again)", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::AssumesTask, name: "assumes-task", rules: &["ext-tasks.requestor.handle-both-shapes"], description: "takes a tools/call answered with its result for a task, and polls it", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::ResendsResult, name: "resends-result", rules: &["ext-tasks.requestor.handle-both-shapes"], description: "takes a tools/call answered with its result for no answer, and sends the call again", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::IgnoresTask, name: "ignores-task", rules: &["ext-tasks.requestor.handle-both-shapes"], description: "takes a tools/call answered with a CreateTaskResult for no answer, and ends without polling the task", may_also: &[], follows: &["ext-tasks.requestor.polls-until-terminal"] },
    FaultInfo { fault: Fault::NoMcpName, name: "no-mcp-name", rules: &["ext-tasks.http.mcp-name"], description: "(HTTP) polls with tasks/get sent without the Mcp-Name header", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::NoVersionHeader, name: "no-version-header", rules: &["ext-tasks.http.requestor-protocol-version"], description: "(HTTP) polls with tasks/get sent without the MCP-Protocol-Version header", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::NoMcpMethod, name: "no-mcp-method", rules: &["ext-tasks.http.mcp-name"], description: "(HTTP) polls with tasks/get sent without the Mcp-Method header", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::FollowsAnyTask, name: "follows-any-task", rules: &["ext-tasks.requestor.unsupported-type-invalid"], description: "follows a task handed out for tools/list, polling it to its end", may_also: &[], follows: &[] },
    FaultInfo { fault: Fault::CancelsByNotification, name: "cancels-by-notification", rules: &["ext-tasks.cancel.no-notifications-cancelled"], description: "cancels with notifications/cancelled for the request that created the task, then tasks/cancel", may_also: &[], follows: &[] },
];

/// One legal way of the extension's reference requestor that differs from its default; each
/// must pass every requestor scenario, so no requestor rule accuses a reading the text allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    OneKeyPerUpdate,
    Declines,
    VendorMeta,
}

/// Every legal variant of the extension's reference requestor.
pub const VARIANTS: &[VariantInfo<Variant>] = &[
    VariantInfo {
        variant: Variant::OneKeyPerUpdate,
        name: "one-key-per-update",
        description: "answers a task's input requests one key per tasks/update, polling in between",
    },
    VariantInfo {
        variant: Variant::Declines,
        name: "declines",
        description: "declines every elicitation",
    },
    VariantInfo {
        variant: Variant::VendorMeta,
        name: "vendor-meta",
        description: "puts a vendor key of its own in the _meta of every request",
    },
];

/// `params` as sent: with the `vendor-meta` variant, a vendor `_meta` key added.
fn sent(params: Value, faults: &Faults<Fault, Variant>) -> Value {
    with_vendor_meta(params, faults.is(Variant::VendorMeta))
}

/// Does what `ask` asks (`list_tools`, `tool`, `arguments`, `cancel_after_ms`) on an opened
/// conversation.
pub async fn run(
    session: &Session,
    ask: &Ask,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    if ask.list_tools {
        let listed = session
            .request("tools/list", sent(json!({}), faults), REFERENCE_WAIT)
            .await
            .map_err(|e| format!("tools/list: {e}"))?;
        // a task for tools/list, which supports none, is an invalid response: not followed
        if let Outcome::Result(r) = listed.outcome {
            if r["resultType"] == "task" && faults.has(Fault::FollowsAnyTask) {
                follow(session, &r["taskId"], None, &Ask::default(), faults).await?;
            }
        }
    }
    let params = sent(ask.call_params(), faults);
    let answer = session
        .request("tools/call", params.clone(), REFERENCE_WAIT)
        .await
        .map_err(|e| format!("tools/call: {e}"))?;
    let request_id = session
        .trace
        .entries()
        .into_iter()
        .find(|e| e.seq == answer.asked)
        .and_then(|e| e.message?.get("id").cloned());
    match answer.outcome {
        Outcome::Result(r) if r["resultType"] == "task" && faults.has(Fault::IgnoresTask) => Ok(()),
        Outcome::Result(r) if r["resultType"] == "task" => {
            let id = r["taskId"].clone();
            follow(session, &id, request_id, ask, faults).await
        }
        Outcome::Result(r) if faults.has(Fault::AssumesTask) => {
            let id = r.get("taskId").cloned().unwrap_or(Value::Null);
            let _ = session
                .request("tasks/get", json!({"taskId": id}), REFERENCE_WAIT)
                .await;
            Ok(())
        }
        Outcome::Result(_) if faults.has(Fault::ResendsResult) => {
            let _ = session.request("tools/call", params, REFERENCE_WAIT).await;
            Ok(())
        }
        // a plain result (or error) is the answer: nothing to follow
        _ => Ok(()),
    }
}

/// Polls task `id` until it ends, answering its input and cancelling it when asked.
async fn follow(
    session: &Session,
    id: &Value,
    request_id: Option<Value>,
    ask: &Ask,
    faults: &Faults<Fault, Variant>,
) -> Result<(), String> {
    let created = Instant::now();
    let cancel_after = ask.cancel_after_ms.map(Duration::from_millis);
    let mut answered: BTreeSet<String> = BTreeSet::new();
    loop {
        if cancel_after.is_some_and(|c| created.elapsed() >= c) {
            if let (Some(rid), true) = (&request_id, faults.has(Fault::CancelsByNotification)) {
                let _ = session
                    .notify("notifications/cancelled", json!({"requestId": rid}))
                    .await;
            }
            let cancel = sent(json!({"taskId": id}), faults);
            let _ = session
                .request("tasks/cancel", cancel, REFERENCE_WAIT)
                .await;
            return Ok(());
        }
        if created.elapsed() > REFERENCE_WAIT * 3 {
            return Err(format!(
                "task {id} did not end in {} s",
                (REFERENCE_WAIT * 3).as_secs()
            ));
        }
        let get = sent(json!({"taskId": id}), faults);
        let left_out = match (
            faults.has(Fault::NoMcpName),
            faults.has(Fault::NoMcpMethod),
            faults.has(Fault::NoVersionHeader),
        ) {
            (true, _, _) => Some("Mcp-Name"),
            (_, true, _) => Some("Mcp-Method"),
            (_, _, true) => Some("MCP-Protocol-Version"),
            _ => None,
        };
        let polled = match left_out {
            Some(header) => {
                let unnamed = vec![(header.to_string(), None)];
                session
                    .request_headed("tasks/get", get, REFERENCE_WAIT, unnamed)
                    .await
            }
            None => session.request("tasks/get", get, REFERENCE_WAIT).await,
        }
        .map_err(|e| format!("tasks/get: {e}"))?;
        let Outcome::Result(task) = polled.outcome else {
            return Err(format!("tasks/get of {id} answered an error"));
        };
        let interval = task
            .get("pollIntervalMs")
            .and_then(Value::as_u64)
            .unwrap_or(REFERENCE_POLL_MS);
        match task.get("status").and_then(Value::as_str) {
            Some("working") if faults.has(Fault::StopsPolling) => {
                tokio::time::sleep(Duration::from_millis(interval.max(100) * 4)).await;
                return Ok(());
            }
            Some("working") if faults.has(Fault::ExitsWhileWorking) => return Ok(()),
            Some("working") => {}
            Some("input_required") if faults.has(Fault::NoUpdateOnInput) => {
                if created.elapsed() > GIVES_UP_AFTER {
                    return Ok(());
                }
            }
            Some("input_required") => {
                let sent = update(session, id, &task, &mut answered, faults).await?;
                if sent && faults.has(Fault::StopsAfterUpdate) {
                    tokio::time::sleep(Duration::from_millis(interval.max(100) * 4)).await;
                    return Ok(());
                }
            }
            _ => return Ok(()),
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

/// Answers every input request the task shows that was not answered yet, in one tasks/update
/// (an elicitation accepted, any other request with an empty result); whether it sent one.
async fn update(
    session: &Session,
    id: &Value,
    task: &Value,
    answered: &mut BTreeSet<String>,
    faults: &Faults<Fault, Variant>,
) -> Result<bool, String> {
    let mut responses = Map::new();
    for (key, request) in task
        .get("inputRequests")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let again = faults.has(Fault::AnswersTwice) || faults.has(Fault::ReanswersShown);
        if !answered.insert(key.clone()) && !again {
            continue;
        }
        let response = match request.get("method").and_then(Value::as_str) {
            Some("elicitation/create") if faults.is(Variant::Declines) => {
                json!({"action": "decline"})
            }
            Some("elicitation/create") => {
                json!({"action": "accept", "content": {"name": "taskcheck"}})
            }
            _ => json!({}),
        };
        responses.insert(key.clone(), response);
        // the rest waits for the next poll
        if faults.is(Variant::OneKeyPerUpdate) {
            break;
        }
    }
    if faults.has(Fault::InventsKey) {
        responses.insert("taskcheck-invented".into(), json!({"action": "decline"}));
    }
    if responses.is_empty() {
        return Ok(false);
    }
    let update = sent(json!({"taskId": id, "inputResponses": responses}), faults);
    session
        .request("tasks/update", update.clone(), REFERENCE_WAIT)
        .await
        .map_err(|e| format!("tasks/update: {e}"))?;
    if faults.has(Fault::AnswersTwice) {
        let _ = session
            .request("tasks/update", update, REFERENCE_WAIT)
            .await;
    }
    Ok(true)
}
