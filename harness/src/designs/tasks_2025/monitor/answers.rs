//! What the answers to the requestor's requests show the monitor: results, created tasks,
//! errors, and whether the tasks they name exist.

use super::*;

impl Monitor<'_> {
    pub(super) fn result(&mut self, asked: &Asked, result: &Value, e: &Entry) {
        let augmented = asked.params.get("task").is_some();
        if let Some(task) = result.get("task").filter(|t| augmented && t.is_object()) {
            return self.created(asked, task, result, e);
        }
        let method = asked.method;
        if augmented && method == "tools/call" {
            self.not_created(asked, result, e);
        }
        match method {
            "tools/list" => self.conduct.tools_listed(result),
            "tasks/get" | "tasks/cancel" => {
                let source = if method == "tasks/get" {
                    Source::Get
                } else {
                    Source::Cancel
                };
                self.observe(result, source, e, Some(asked.seq));
                self.findings
                    .push(no_related_task_in_result(method, result, e.seq));
            }
            "tasks/list" => {
                for task in result
                    .get("tasks")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    self.observe(task, Source::List, e, Some(asked.seq));
                }
                self.findings
                    .push(no_related_task_in_result(method, result, e.seq));
                if let Some(c) = result.get("nextCursor").filter(|c| !c.is_null()) {
                    self.conduct.cursor_received(c);
                }
            }
            "tasks/result" => {
                let want = asked.params.get("taskId").map(wire::id_text);
                let got = wire::related_task_value(result).map(wire::id_text);
                self.findings.judge(
                    "tasks.meta.result-related-task",
                    want.is_some() && got == want,
                    None,
                    || match got {
                        Some(g) => format!(
                            "tasks/result _meta related-task taskId {g:?}, requested {:?}",
                            want.as_deref().unwrap_or_default()
                        ),
                        None => "tasks/result result has no related-task _meta".into(),
                    },
                    || vec![e.seq],
                );
            }
            _ => {}
        }
    }

    /// A task-augmented call answered with a result that is no CreateTaskResult: a failure
    /// where the receiver declared task support for tools/call and listed the tool as
    /// `optional` or `required` ("Receivers that accept a task-augmented request MUST return
    /// a CreateTaskResult"; a refusal would be an error). Where either is unknown, the tool
    /// forbids tasks (tasks.tool.forbidden-rejected) or the `task` is malformed, nothing is
    /// judged.
    fn not_created(&mut self, asked: &Asked, result: &Value, e: &Entry) {
        let name = asked
            .params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let declared = self.declared.calls;
        let support = self.conduct.task_support(name).flatten();
        // a malformed `task` may be processed normally (tasks.errors.malformed-task-param)
        let well_formed = asked.params.get("task").is_some_and(|t| {
            t.is_object()
                && t.get("ttl")
                    .is_none_or(|ttl| ttl.is_number() || ttl.is_null())
        });
        if declared && well_formed && matches!(support, Some("optional" | "required")) {
            self.findings.judge(
                CREATE_TASK_RESULT,
                false,
                None,
                || format!(
                    "a task-augmented call of {name:?} (taskSupport {}) was answered with a result that is no CreateTaskResult: {}",
                    support.unwrap_or_default(),
                    crate::matcher::short(result)
                ),
                || vec![asked.seq, e.seq],
            );
        }
    }

    /// A CreateTaskResult answered a task-augmented request.
    pub(super) fn created(&mut self, asked: &Asked, task: &Value, result: &Value, e: &Entry) {
        let id = task.get("taskId").map(wire::id_text).unwrap_or_default();
        self.expiry.created(&id, peer_of(e), asked.t_ms);
        self.creations.push((peer_of(e).to_string(), e.seq));
        *self.creations_of.entry(id.clone()).or_default() += 1;
        self.book.task(&id).origin = Some(book::Origin {
            peer: peer_of(e).to_string(),
            plain: negotiation::plain_key(asked.method, asked.params),
            answered: e.seq,
        });
        self.created.insert(id.clone());
        self.input_of_created(asked.seq, &id);
        self.task_methods
            .insert(id.clone(), asked.method.to_string());
        if id == asked.id {
            self.findings.judge(
                SECURE_IDS,
                false,
                None,
                || {
                    format!(
                    "task id {id:?} is the id of the request that created it: anyone can guess it"
                )
                },
                || vec![asked.seq, e.seq],
            );
        }
        if let Some(token) = asked
            .params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
        {
            self.progress.insert(token.to_string(), (id.clone(), e.seq));
            self.progressing.insert(id.clone(), Progressing::default());
        }
        self.observe(task, Source::Create, e, Some(asked.seq));
        self.findings.judge(
            CREATE_TASK_RESULT,
            true,
            None,
            || {
                format!(
                    "a task-augmented {} was answered with a CreateTaskResult",
                    asked.method
                )
            },
            || vec![asked.seq, e.seq],
        );
        // the MUST is to declare a `tasks` capability at all; a task for a request type the
        // capability leaves out breaks tasks.support.undeclared-processed-normally (its
        // scenarios judge it), the MUST that says what such a receiver does
        let method = &asked.method;
        let declared = self.ctx.capabilities.get("tasks").is_some();
        self.findings.judge(
            "tasks.capability.declare",
            declared,
            None,
            || if declared {
                format!("task created for {method} by a receiver that declares a `tasks` capability")
            } else {
                format!("a CreateTaskResult answered {method}, but the receiver declares no `tasks` capability")
            },
            || vec![asked.seq, e.seq],
        );
        let immediate = result
            .get("_meta")
            .and_then(|m| m.get(wire::MODEL_IMMEDIATE_RESPONSE));
        self.findings.judge(
            "tasks.create.model-immediate-response",
            true,
            None,
            || match immediate {
                Some(v) => format!(
                    "CreateTaskResult carries model-immediate-response {}",
                    crate::matcher::short(v)
                ),
                None => "CreateTaskResult without model-immediate-response".into(),
            },
            || vec![e.seq],
        );
        let requested = asked.params.get("task").and_then(|t| t.get("ttl"));
        self.findings.judge(
            "tasks.ttl.override",
            true,
            None,
            || {
                format!(
                    "requested ttl {}, granted {}",
                    requested
                        .map(Value::to_string)
                        .unwrap_or_else(|| "(none)".into()),
                    task.get("ttl")
                        .map(Value::to_string)
                        .unwrap_or_else(|| "(none)".into())
                )
            },
            || vec![asked.seq, e.seq],
        );
    }

    pub(super) fn error(&mut self, error: &Value, e: &Entry) {
        let message = error.get("message").and_then(Value::as_str);
        self.findings.judge(
            "tasks.errors.informative-message",
            message.is_some_and(|m| !m.trim().is_empty()),
            None,
            || match message {
                Some(m) if !m.trim().is_empty() => format!("error message {m:?}"),
                _ => format!(
                    "error {} has no informative message",
                    crate::matcher::short(error)
                ),
            },
            || vec![e.seq],
        );
    }

    /// A tasks/get, tasks/result or tasks/cancel with a string `taskId` was answered with a
    /// result (`Some(true)`), an error saying the task does not exist (`Some(false)`), or
    /// another error (`None`, no evidence either way): judged for early expiry.
    pub(super) fn looked_up(&mut self, asked: &Asked, e: &Entry, found: Option<bool>) {
        let method = asked.method;
        let Some(Value::String(id)) = asked
            .params
            .get("taskId")
            .filter(|_| matches!(method, "tasks/get" | "tasks/result" | "tasks/cancel"))
        else {
            return;
        };
        if method == "tasks/cancel" {
            self.expiry.cancel_answered(id, found == Some(true));
        }
        if let Some(ttl) = self.expiry.elapsed(id, peer_of(e), asked.t_ms) {
            self.findings.judge(
                MAY_DELETE_AFTER,
                true,
                None,
                || {
                    let how = match found {
                        Some(true) => "the task kept",
                        Some(false) => "the task deleted",
                        None => "another error",
                    };
                    format!("{method} of {id:?} sent once its ttl of {ttl} ms had elapsed: {how}")
                },
                || vec![asked.seq, e.seq],
            );
        }
        let Some(found) = found else { return };
        if !found {
            self.missing.push((id.clone(), asked.seq, e.seq));
        }
        let evidence = vec![asked.seq, e.seq];
        let finding = self
            .expiry
            .lookup(method, id, peer_of(e), found, e.t_ms, evidence);
        self.findings.extend(finding);
    }

    /// A message the receiver sent on its own that names a task in related-task `_meta`:
    /// judged once the session is over (it may come before its CreateTaskResult).
    pub(super) fn names_a_task(&mut self, what: &str, params: &Value, e: &Entry) {
        if let Some(named) = wire::related_task_value(params).map(wire::id_text) {
            self.naming.push((what.to_string(), named, e.seq));
        }
    }

    /// Each task named in related-task `_meta` is one of the session's tasks (the key names
    /// the right task, not merely some task).
    pub(super) fn named_tasks_exist(&mut self) {
        // a task-augmented request never answered may have created a task no one learned of
        let unanswered = self.asked.values().any(|a| a.params.get("task").is_some());
        for (what, named, seq) in std::mem::take(&mut self.naming) {
            let known = self.created.contains(&named);
            if !known && unanswered {
                continue;
            }
            self.findings.judge(
                RELATED_MESSAGES,
                known,
                None,
                || match known {
                    true => format!("{what} names task {named:?} in related-task _meta"),
                    false => format!(
                        "{what} names task {named:?} in related-task _meta, which no CreateTaskResult of this session gave"
                    ),
                },
                || vec![seq],
            );
        }
    }
}
