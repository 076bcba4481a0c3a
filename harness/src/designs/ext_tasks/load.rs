//! One task of the load under the Tasks extension: created by a call that declares the
//! extension, polled as `pollIntervalMs` asks until it ends, its result read inline.

use super::monitor::{is_terminal, shape_problems};
use crate::design::LoadRun;
use crate::matcher::short;
use crate::wire::{self, Outcome};
use serde_json::{json, Value};
use std::time::Instant;

/// The rules load judges every task by.
pub const RULES: [&str; 4] = [
    "ext-tasks.task.fields",
    "ext-tasks.create.durable",
    "ext-tasks.get.completed-result",
    "ext-tasks.get.result-exact",
];

/// One task from creation to its inline result; returns a failure or nothing.
pub async fn task(run: &dyn LoadRun, i: usize) -> Result<(), String> {
    let ms = run.sleep_ms(i);
    let start = Instant::now();
    let params = json!({"name": "optional_sleep", "arguments": {"ms": ms}});
    let Some((handle, _)) = run.create(params).await? else {
        return Ok(());
    };
    let id = handle
        .get("taskId")
        .map(wire::id_text)
        .ok_or("tools/call declaring the extension got no CreateTaskResult")?;
    fields(&handle)?;
    let mut found = false;
    let result = loop {
        let got = run.ask("tasks/get", json!({"taskId": id})).await?;
        run.got(got.elapsed);
        let task = match &got.outcome {
            Outcome::Result(t) => t,
            Outcome::Error(e) if !found => {
                return Err(format!(
                    "ext-tasks.create.durable: tasks/get after the CreateTaskResult answered {}",
                    short(e)
                ))
            }
            Outcome::Error(e) => {
                return Err(format!(
                    "tasks/get of a live task answered an error: {}",
                    short(e)
                ))
            }
        };
        found = true;
        fields(task)?;
        let status = task
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if is_terminal(status) {
            if status != "completed" {
                return Err(format!("a sleeping task ended {status}"));
            }
            break task.get("result").cloned().ok_or_else(|| {
                format!("ext-tasks.get.completed-result: completed task {id:?} has no `result`")
            })?;
        }
        run.pause(task, "pollIntervalMs").await;
    };
    let text = result.pointer("/content/0/text").and_then(Value::as_str);
    if text != Some(format!("slept {ms}").as_str()) {
        return Err(format!(
            "ext-tasks.get.result-exact: task {id:?} slept {ms} ms but its result says {text:?}"
        ));
    }
    run.completed(start);
    Ok(())
}

/// The first thing wrong with a Task's fields, as a failure.
fn fields(task: &Value) -> Result<(), String> {
    match shape_problems(task).first() {
        Some(problem) => Err(format!("ext-tasks.task.fields: the Task {problem}")),
        None => Ok(()),
    }
}
