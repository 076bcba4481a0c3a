//! One task of `load` under 2025-11-25: created with a ttl, polled, its result fetched, each
//! observation judged by the model.

use crate::design::LoadRun;
use crate::model::{Model, Observation, Source};
use crate::session::Reply;
use crate::wire::{self, Outcome};
use serde_json::{json, Value};
use std::time::Instant;

/// The rules load judges every task by, beside the model's observations.
pub const RULES: [&str; 4] = [
    "tasks.create.create-task-result",
    "tasks.id.unique",
    "tasks.meta.result-related-task",
    "tasks.result.exact",
];

/// One task: created with a ttl, polled until it ends, its result fetched with tasks/result.
pub async fn task(run: &dyn LoadRun, i: usize) -> Result<(), String> {
    let ms = run.sleep_ms(i);
    let start = Instant::now();
    let params =
        json!({"name": "optional_sleep", "arguments": {"ms": ms}, "task": {"ttl": 300_000}});
    let Some((answer, created)) = run.create(params).await? else {
        return Ok(());
    };
    let task = answer
        .get("task")
        .cloned()
        .ok_or("tasks.create.create-task-result: tools/call with a task got no CreateTaskResult")?;
    let id = task
        .get("taskId")
        .map(wire::id_text)
        .ok_or("tasks.schema.receiver-messages: the CreateTaskResult has no taskId")?;
    if !run.first_sight(&id) {
        return Err(format!(
            "{}: task id {id:?} was given twice",
            "tasks.id.unique"
        ));
    }
    let mut model = Model::default();
    let observe = |model: &mut Model, task: &Value, source, reply: &Reply| {
        let obs = Observation {
            task,
            source,
            received: reply.seq,
            asked: Some(reply.asked),
        };
        match model.observe(&obs).into_iter().find(|f| !f.held) {
            Some(f) => Err(format!("{}: {}", f.rule, f.message)),
            None => Ok(()),
        }
    };
    observe(&mut model, &task, Source::Create, &created)?;
    loop {
        let got = run.ask("tasks/get", json!({"taskId": id})).await?;
        run.got(got.elapsed);
        let t = match &got.outcome {
            Outcome::Result(t) => t,
            // only an answer saying the task does not exist is evidence of early expiry
            Outcome::Error(e) if wire::says_task_not_found(true, e) => {
                return Err(format!(
                    "tasks.ttl.no-early-expiry: tasks/get says a live task does not exist: {}",
                    crate::matcher::short(e)
                ))
            }
            Outcome::Error(e) => {
                return Err(format!(
                    "tasks/get of a live task answered an error: {}",
                    crate::matcher::short(e)
                ))
            }
        };
        observe(&mut model, t, Source::Get, &got)?;
        let status = t.get("status").and_then(Value::as_str).unwrap_or_default();
        if matches!(status, "completed" | "failed" | "cancelled") {
            if status != "completed" {
                return Err(format!("a sleeping task ended {status}"));
            }
            break;
        }
        run.pause(t, "pollInterval").await;
    }
    let result = run.ask("tasks/result", json!({"taskId": id})).await?;
    let Outcome::Result(r) = &result.outcome else {
        return Err(format!(
            "tasks.result.terminal-returns-final: tasks/result failed: {}",
            crate::matcher::short(outcome_value(&result.outcome))
        ));
    };
    if wire::related_task_value(r).map(wire::id_text).as_deref() != Some(id.as_str()) {
        return Err("tasks.meta.result-related-task: a result names another task (or none)".into());
    }
    let text = r.pointer("/content/0/text").and_then(Value::as_str);
    if text != Some(format!("slept {ms}").as_str()) {
        return Err(format!(
            "tasks.result.exact: task {id:?} slept {ms} ms but its result says {text:?}"
        ));
    }
    run.completed(start);
    Ok(())
}

fn outcome_value(o: &Outcome) -> &Value {
    match o {
        Outcome::Result(v) | Outcome::Error(v) => v,
    }
}
