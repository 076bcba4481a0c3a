//! Watching one of a server's tools (what `taskcheck init` does before it lets a tool play a
//! role): one task-augmented call with a progress token, polled at the server's
//! `pollInterval` until it ends (its result read) or asks for input (what it asked is
//! recorded, answered with `cancel` where it is an elicitation, and the task cancelled).

use crate::calibration::{outcome, pause, Observed};
use crate::session::{Inbox, Reply, RequestError, Session};
use crate::wire::{self, Outcome};
use futures::FutureExt;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The progress token of a watched call.
const TOKEN: &str = "taskcheck-calibration";

/// The requests a server sends for input.
const ASKS: [&str; 2] = ["elicitation/create", "sampling/createMessage"];

/// What the task of `call` (a `tools/call`'s params, without `task`) does.
pub async fn observe_task(
    session: &Session,
    call: Value,
    limit: Duration,
) -> Result<Observed, String> {
    let mut params = call;
    params["task"] = json!({"ttl": 60_000});
    params["_meta"]["progressToken"] = json!(TOKEN);
    let start = Instant::now();
    let created = result_of(
        session.request("tools/call", params, limit).await,
        "tools/call",
    )?;
    let id = created
        .pointer("/task/taskId")
        .cloned()
        .ok_or_else(|| format!("answered a task-augmented call with no task: {created}"))?;
    let mut seen = Observed {
        task: true,
        ..Observed::default()
    };
    loop {
        if start.elapsed() > limit {
            return Err(format!("still not done after {} ms", limit.as_millis()));
        }
        let task = result_of(
            session
                .request("tasks/get", json!({"taskId": id}), limit)
                .await,
            "tasks/get",
        )?;
        seen.status = task
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        // a server may ask for input while its task still reads `working`
        let early = pending_asks(session);
        match seen.status.as_str() {
            "working" if early.is_empty() => pause(&task, "pollInterval").await,
            "working" => {
                seen.took = start.elapsed();
                seen.asked = answered(session, &id, early, limit).await;
                break;
            }
            "input_required" => {
                seen.took = start.elapsed();
                seen.asked = asked_for_input(session, &id, early, limit).await;
                break;
            }
            _ => {
                seen.took = start.elapsed();
                let asked = session.request("tasks/result", json!({"taskId": id}), limit);
                match outcome(asked.await, "tasks/result")? {
                    Outcome::Result(r) => seen.is_error = r.get("isError").and_then(Value::as_bool),
                    Outcome::Error(e) => seen.error = Some(e),
                }
                break;
            }
        }
    }
    seen.progress = session
        .drain(Inbox::Notifications, "notifications/progress")
        .iter()
        .filter(|n| n.params.get("progressToken") == Some(&json!(TOKEN)))
        .count();
    Ok(seen)
}

/// The requests for input the server has sent so far.
fn pending_asks(session: &Session) -> Vec<crate::session::Inbound> {
    ASKS.iter()
        .flat_map(|m| session.drain(Inbox::Requests, m))
        .collect()
}

/// The methods of the requests an `input_required` task sends (`asked` already, or else
/// while `tasks/result` is open, where the server waits for it), answered by [`answered`].
async fn asked_for_input(
    session: &Session,
    id: &Value,
    mut asked: Vec<crate::session::Inbound>,
    wait: Duration,
) -> Vec<String> {
    if asked.is_empty() {
        let result = session.request("tasks/result", json!({"taskId": id}), wait);
        let first = futures::future::select_ok(
            ASKS.map(|m| session.next(Inbox::Requests, m, wait).boxed()),
        );
        // a request that came with the answer to tasks/result is still what the task asked
        tokio::select! {
            biased;
            got = first => asked.extend(got.ok().map(|(request, _)| request)),
            _ = result => asked.extend(pending_asks(session)),
        }
    }
    answered(session, id, asked, wait).await
}

/// The methods of requests for input, each elicitation answered `cancel`; the task is then
/// cancelled.
async fn answered(
    session: &Session,
    id: &Value,
    asked: Vec<crate::session::Inbound>,
    wait: Duration,
) -> Vec<String> {
    for request in &asked {
        if request.method == "elicitation/create" {
            let mut answer = json!({"action": "cancel"});
            wire::name_the_task(&mut answer, &request.params, wire::RELATED_TASK);
            let _ = session.respond(&request.id, answer).await;
        }
    }
    let _ = session
        .request("tasks/cancel", json!({"taskId": id}), wait)
        .await;
    asked.into_iter().map(|r| r.method).collect()
}

/// The result of a request, or what came instead.
fn result_of(reply: Result<Reply, RequestError>, method: &str) -> Result<Value, String> {
    match outcome(reply, method)? {
        Outcome::Result(v) => Ok(v),
        Outcome::Error(e) => Err(format!("{method} answered error {e}")),
    }
}
