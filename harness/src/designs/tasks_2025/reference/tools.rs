//! What each fixture tool does when the reference receiver runs it.

use super::faults::Fault;
use super::variants::Variant;
use super::Reference;
use crate::model::TaskStatus;
use crate::wire::{self, code};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// What a run is about: the task (if any) and the progress token.
pub struct RunContext {
    pub task_id: Option<String>,
    pub progress_token: Option<Value>,
}

fn text(s: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": s.into()}], "isError": false})
}

/// Runs a fixture tool to its outcome: Ok(CallToolResult) or Err(JSON-RPC error object).
pub async fn run(
    server: &Arc<Reference>,
    tool: &str,
    args: &Value,
    ctx: &RunContext,
) -> Result<Value, Value> {
    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
    let pause = || tokio::time::sleep(Duration::from_millis(ms));
    match tool {
        "sync_echo" | "forbidden_echo" => Ok(text(
            args.get("text").and_then(Value::as_str).unwrap_or_default(),
        )),
        "optional_sleep" | "required_sleep" => {
            pause().await;
            Ok(text(format!("slept {ms}")))
        }
        "tool_error" => {
            pause().await;
            Ok(
                json!({"content": [{"type": "text", "text": "tool_error fixture failed as asked"}], "isError": true}),
            )
        }
        "protocol_error" => {
            pause().await;
            Err(
                json!({"code": code::INTERNAL_ERROR, "message": "protocol_error fixture: internal error as asked"}),
            )
        }
        "elicit_input" => elicit(server, ctx).await,
        "progress_sleep" => {
            let steps = args
                .get("steps")
                .and_then(Value::as_u64)
                .unwrap_or(3)
                .clamp(1, 1000);
            let changed = ctx.task_id.is_some() && server.faults.has(Fault::ProgressTokenChanged);
            for i in 1..=steps {
                tokio::time::sleep(Duration::from_millis(ms / steps)).await;
                if let Some(token) = ctx.progress_token.as_ref() {
                    let token = match changed {
                        true => json!(format!("{}-task", wire::id_text(token))),
                        false => token.clone(),
                    };
                    let mut params = json!({"progressToken": token, "progress": i, "total": steps});
                    if let Some(id) = &ctx.task_id {
                        if !server.faults.has(Fault::ProgressWithoutRelatedTask) {
                            params["_meta"] = server.related_meta(id);
                        }
                    }
                    server.send(wire::notification("notifications/progress", &params));
                }
            }
            if let (Some(token), true) = (
                ctx.progress_token.clone(),
                server.faults.has(Fault::ProgressAfterCompletion),
            ) {
                let server = server.clone();
                let meta = ctx.task_id.as_ref().map(|id| server.related_meta(id));
                tokio::spawn(async move {
                    // late enough to be told apart from in-flight progress on another stream
                    // (the monitors' second over HTTP), early enough for progress-token's wait
                    tokio::time::sleep(Duration::from_millis(1200)).await;
                    let mut params = json!({"progressToken": token, "progress": steps + 1});
                    if let Some(meta) = meta {
                        params["_meta"] = meta;
                    }
                    server.send(wire::notification("notifications/progress", &params));
                });
            }
            Ok(text(format!("slept {ms}")))
        }
        other => {
            Err(json!({"code": code::INVALID_PARAMS, "message": format!("unknown tool {other:?}")}))
        }
    }
}

async fn elicit(server: &Arc<Reference>, ctx: &RunContext) -> Result<Value, Value> {
    let mut params = json!({
        "mode": "form",
        "message": "taskcheck fixture: please provide an answer",
        "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
    });
    if ctx.task_id.is_some() && server.faults.has(Fault::InputTaskFails) {
        // the task ends at once, saying why, instead of asking (as a stateless server that
        // cannot reach its client does)
        return Err(json!({"code": code::INTERNAL_ERROR,
            "message": "Client does not support elicitation capability"}));
    }
    if let Some(id) = &ctx.task_id {
        if !server.faults.has(Fault::ElicitWithoutRelatedTask) {
            params["_meta"] = server.related_meta(id);
        }
        if server.faults.has(Fault::ElicitAsTask) {
            params["task"] = json!({"ttl": 60000});
        }
        if !server.faults.has(Fault::NoInputRequired) {
            server.set_status(
                id,
                TaskStatus::InputRequired,
                Some("waiting for the elicitation answer".into()),
            );
        }
    }
    if let (Some(id), true) = (&ctx.task_id, server.faults.is(Variant::InputShownFirst)) {
        server.input_shown(id).await;
    }
    if ctx.task_id.is_some() && server.faults.has(Fault::ElicitationDropped) {
        // the task waits for an answer to a request nobody will see
        std::future::pending::<()>().await;
    }
    let answer = server.call_client("elicitation/create", params).await;
    if let Some(id) = &ctx.task_id {
        if server.faults.has(Fault::StuckInputRequired) {
            // stuck for good, so no timeout scale taskcheck is given waits it out
            std::future::pending::<()>().await;
        }
        server.set_status(id, TaskStatus::Working, None);
    }
    let answer = answer.map_err(
        |e| json!({"code": code::INTERNAL_ERROR, "message": format!("elicitation failed: {e}")}),
    )?;
    Ok(text(match answer.get("action").and_then(Value::as_str) {
        Some("accept") => answer
            .pointer("/content/answer")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        Some("decline") => "declined".into(),
        _ => "cancelled".into(),
    }))
}
