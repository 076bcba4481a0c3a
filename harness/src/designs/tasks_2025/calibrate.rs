//! Timing one of a server's tools (what `taskcheck init` does before it lets a tool that takes
//! no duration play a sleep role): one task-augmented call, polled at the server's
//! `pollInterval` until it ends, its result read.

use crate::session::Session;
use crate::wire::Outcome;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The least and most time between two polls, whatever `pollInterval` the server suggests.
const POLL_MS: (u64, u64) = (20, 500);

/// How long the task of `call` (a `tools/call`'s params, without `task`) works before it
/// completes with a result that is no `isError`; otherwise what it did instead.
pub async fn time_task(session: &Session, call: Value, limit: Duration) -> Result<Duration, String> {
    let mut params = call;
    params["task"] = json!({"ttl": 60_000});
    let start = Instant::now();
    let created = result_of(session.request("tools/call", params, limit).await, "tools/call")?;
    let id = created
        .pointer("/task/taskId")
        .cloned()
        .ok_or_else(|| format!("answered a task-augmented call with no task: {created}"))?;
    loop {
        if start.elapsed() > limit {
            return Err(format!("still not done after {} ms", limit.as_millis()));
        }
        let task = result_of(
            session.request("tasks/get", json!({"taskId": id}), limit).await,
            "tasks/get",
        )?;
        match task.get("status").and_then(Value::as_str).unwrap_or_default() {
            "working" => {
                let poll = task.get("pollInterval").and_then(Value::as_u64).unwrap_or(100);
                tokio::time::sleep(Duration::from_millis(poll.clamp(POLL_MS.0, POLL_MS.1))).await;
            }
            "completed" => break,
            "input_required" => return Err("asks for input".into()),
            other => return Err(format!("ended {other:?}")),
        }
    }
    let took = start.elapsed();
    let result = result_of(
        session.request("tasks/result", json!({"taskId": id}), limit).await,
        "tasks/result",
    )?;
    match result.get("isError").and_then(Value::as_bool) {
        Some(true) => Err(format!("completed with an error result: {result}")),
        _ => Ok(took),
    }
}

/// The result of a request, or what came instead.
fn result_of(
    reply: Result<crate::session::Reply, crate::session::RequestError>,
    method: &str,
) -> Result<Value, String> {
    match reply.map_err(|e| format!("{method}: {e}"))?.outcome {
        Outcome::Result(v) => Ok(v),
        Outcome::Error(e) => Err(format!("{method} answered error {}", e)),
    }
}
