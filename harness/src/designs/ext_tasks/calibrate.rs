//! Watching one of a server's tools under the extension (what `taskcheck init` does before it
//! lets a tool play a role): one call declaring the extension, answered at once or with a
//! task polled at `pollIntervalMs` until it ends or asks for input (what it asked is recorded
//! from `inputRequests`, and the task cancelled).

use super::monitor::is_terminal;
use crate::calibration::{outcome, pause, Observed};
use crate::session::Session;
use crate::wire::Outcome;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// What the call `call` (a `tools/call`'s params) does.
pub async fn observe_task(
    session: &Session,
    call: Value,
    limit: Duration,
) -> Result<Observed, String> {
    let start = Instant::now();
    let mut seen = Observed::default();
    let created = match outcome(
        session.request("tools/call", call, limit).await,
        "tools/call",
    )? {
        Outcome::Result(r) => r,
        Outcome::Error(e) => {
            seen.status = "failed".into();
            seen.error = Some(e);
            seen.took = start.elapsed();
            return Ok(seen);
        }
    };
    let Some(id) = created.get("taskId").cloned() else {
        // answered at once: a result, or a request for input before any task
        read(&mut seen, &created);
        seen.status = match created.get("resultType").and_then(Value::as_str) {
            Some("input_required") => "input_required".into(),
            _ => "completed".into(),
        };
        seen.took = start.elapsed();
        return Ok(seen);
    };
    seen.task = true;
    loop {
        if start.elapsed() > limit {
            return Err(format!("still not done after {} ms", limit.as_millis()));
        }
        let task = match outcome(
            session
                .request("tasks/get", json!({"taskId": id}), limit)
                .await,
            "tasks/get",
        )? {
            Outcome::Result(t) => t,
            Outcome::Error(e) => return Err(format!("tasks/get answered error {e}")),
        };
        seen.status = task
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        read(&mut seen, &task);
        if seen.status == "input_required" || is_terminal(&seen.status) {
            break;
        }
        pause(&task, "pollIntervalMs").await;
    }
    seen.took = start.elapsed();
    if seen.status == "input_required" {
        let _ = session
            .request("tasks/cancel", json!({"taskId": id}), limit)
            .await;
    }
    Ok(seen)
}

/// What a result or a Task says: its inline result's `isError`, its error, its input requests.
fn read(seen: &mut Observed, shown: &Value) {
    let result = shown.get("result").unwrap_or(shown);
    seen.is_error = result.get("isError").and_then(Value::as_bool);
    seen.error = shown.get("error").cloned();
    seen.asked = shown
        .get("inputRequests")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|r| r.values())
        .filter_map(|r| r.get("method").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
}
