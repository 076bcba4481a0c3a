//! What a tasks/get result carries for its status: the result of a completed task, the error
//! and a statusMessage of a failed one, the outstanding requests of one that waits for input;
//! and that outcome held against the same request made without the extension.

use super::*;

/// A completed task's tasks/get carries `result` (MUST).
pub(super) const COMPLETED_RESULT: &str = "ext-tasks.get.completed-result";
/// A failed task's tasks/get carries `error` (MUST).
pub(super) const FAILED_ERROR: &str = "ext-tasks.get.failed-error";
/// A failed task's tasks/get carries a statusMessage (SHOULD).
pub(super) const FAILED_MESSAGE: &str = "ext-tasks.failed.status-message";
/// An input_required task's tasks/get carries its outstanding requests (MUST).
pub(super) const INPUT_REQUESTS: &str = "ext-tasks.get.input-required-requests";
/// The result is exactly what the request returned without a task (MUST).
pub(super) const RESULT_EXACT: &str = "ext-tasks.get.result-exact";
/// The error is exactly the one the request ended in without a task (MUST).
pub(super) const ERROR_EXACT: &str = "ext-tasks.get.error-exact";
/// `failed` is only for a JSON-RPC error (MUST NOT).
pub(super) const ONLY_JSONRPC: &str = "ext-tasks.failed.only-jsonrpc";

/// A result by meaning: `_meta` and `resultType` aside, an absent `isError` false.
fn by_meaning(result: &Value) -> Value {
    let mut r = result.clone();
    if let Some(o) = r.as_object_mut() {
        o.remove("_meta");
        o.remove("resultType");
        if o.get("isError") == Some(&Value::Bool(false)) {
            o.remove("isError");
        }
    }
    r
}

impl Monitor {
    /// A tasks/get result: what its status calls for.
    pub(super) fn payload(&mut self, result: &Value, evidence: &[u64]) {
        let status = result
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let id = result
            .get("taskId")
            .map(crate::wire::id_text)
            .unwrap_or_default();
        let (rule, field, what) = match status {
            "completed" => (COMPLETED_RESULT, "result", "the final result"),
            "failed" => (FAILED_ERROR, "error", "the JSON-RPC error"),
            "input_required" => (INPUT_REQUESTS, "inputRequests", "the outstanding requests"),
            _ => return,
        };
        let carried = result.get(field).is_some_and(|v| match field {
            "inputRequests" => v.as_object().is_some_and(|o| !o.is_empty()),
            _ => v.is_object(),
        });
        if !carried {
            self.failed_at
                .entry(evidence[evidence.len() - 1])
                .or_insert(rule);
        }
        self.find(
            rule,
            carried,
            match carried {
                true => format!("tasks/get of {status} task {id} carries `{field}`"),
                false => format!("tasks/get of {status} task {id} carries no `{field}` ({what})"),
            },
            evidence.to_vec(),
        );
        if status == "failed" {
            let message = result.get("statusMessage").and_then(Value::as_str);
            let held = message.is_some_and(|m| !m.trim().is_empty());
            self.find(
                FAILED_MESSAGE,
                held,
                match message {
                    Some(m) if held => format!("failed task {id}'s statusMessage {m:?}"),
                    _ => format!("tasks/get of failed task {id} has no diagnostic statusMessage"),
                },
                evidence.to_vec(),
            );
        }
        if carried && matches!(status, "completed" | "failed") {
            self.outcomes
                .entry(id)
                .or_insert_with(|| (result.clone(), evidence[evidence.len() - 1]));
        }
    }

    /// Each finished task's outcome against the same call made without the extension, once
    /// the session is over.
    pub(super) fn exactness_judged(&mut self) {
        let mut ids: Vec<String> = self.outcomes.keys().cloned().collect();
        ids.sort();
        for id in ids {
            let (task, seen) = self.outcomes[&id].clone();
            let Some(origin) = self.origins.get(&id) else {
                continue;
            };
            let Some((plain, plain_seq)) = self.plain_outcomes.get(origin).cloned() else {
                continue;
            };
            let evidence = vec![plain_seq, seen];
            match (task["status"].as_str(), &plain) {
                (Some("completed"), Ok(p)) => {
                    let got = task.get("result").map(by_meaning);
                    let held = got.as_ref() == Some(&by_meaning(p));
                    self.find(
                        RESULT_EXACT,
                        held,
                        match held {
                            true => format!("task {id}'s result is what the same call without the extension returned"),
                            false => format!(
                                "task {id}'s result {} is not what the same call without the extension returned, {}",
                                got.as_ref().map_or("(none)".into(), crate::matcher::short),
                                crate::matcher::short(p)
                            ),
                        },
                        evidence,
                    );
                }
                (Some("completed"), Err(e)) => self.find(
                    RESULT_EXACT,
                    false,
                    format!(
                        "task {id} completed, where the same call without the extension ended in the JSON-RPC error {}: that error is its outcome, as a failed task's",
                        crate::matcher::short(e)
                    ),
                    evidence,
                ),
                (Some("failed"), Ok(p)) => {
                    self.find(
                        ONLY_JSONRPC,
                        false,
                        format!(
                            "task {id} failed, where the same call without the extension returned a result, {}: failed is only for a JSON-RPC error",
                            crate::matcher::short(p)
                        ),
                        evidence.clone(),
                    );
                    self.findings.push(Finding {
                        follows: Some(ONLY_JSONRPC),
                        ..Finding::new(
                            ERROR_EXACT,
                            false,
                            format!("task {id}'s error is no error the same call without the extension ended in"),
                            evidence,
                        )
                    });
                }
                (Some("failed"), Err(want)) => {
                    let got = task.get("error");
                    let differs: Vec<&str> = ["code", "message", "data"]
                        .into_iter()
                        .filter(|k| got.and_then(|g| g.get(k)) != want.get(k))
                        .collect();
                    let held = differs.is_empty();
                    self.find(
                        ERROR_EXACT,
                        held,
                        match held {
                            true => format!("task {id}'s error is the one the same call without the extension ended in"),
                            false => format!(
                                "task {id}'s error {} is not the one the same call without the extension ended in, {} (differing: {})",
                                got.map_or("(none)".into(), crate::matcher::short),
                                crate::matcher::short(want),
                                differs.join(", ")
                            ),
                        },
                        evidence,
                    );
                }
                _ => {}
            }
            if task["status"] == "completed" {
                if let Ok(p) = &plain {
                    let is_error = p.get("isError") == Some(&Value::Bool(true));
                    if is_error {
                        self.find(
                            ONLY_JSONRPC,
                            true,
                            format!("task {id}, whose request returns a tool error, completed"),
                            vec![plain_seq, seen],
                        );
                    }
                }
            }
        }
    }
}
