//! Requests that name a task or a cursor, and what their answers must be: an invalid or
//! nonexistent task id and an invalid or nonexistent cursor get -32602, a malformed request
//! gets -32602, and the `taskId` parameter, not related-task `_meta`, names the task.

use super::*;

/// An invalid or nonexistent taskId gets -32602 (MUST).
pub(super) const UNKNOWN_TASK: &str = "tasks.errors.unknown-task-id";
/// A malformed `task`, or no `taskId`, gets -32602 (SHOULD).
pub(super) const MALFORMED: &str = "tasks.errors.malformed-task-param";
/// An invalid or nonexistent cursor gets -32602 (MUST).
pub(super) const BAD_CURSOR: &str = "tasks.errors.bad-cursor";
/// `params.taskId` names the task, whatever related-task `_meta` says (MUST).
pub(super) const IGNORE_REQUEST_META: &str = "tasks.meta.ignore-request-related-task";

/// A lookup of a task id no CreateTaskResult had given when it was sent, judged once the
/// session is over (only if none ever gave it).
pub(super) struct Unknown {
    method: String,
    id: String,
    asked: u64,
    answered: u64,
    error: Option<Value>,
}

/// Whether `task` is a TaskMetadata object: an object whose `ttl`, if any, is a number or null.
fn well_formed_task(task: &Value) -> bool {
    task.is_object()
        && task
            .get("ttl")
            .is_none_or(|ttl| ttl.is_number() || ttl.is_null())
}

fn is_invalid_params(answer: Result<&Value, &Value>) -> bool {
    answer.is_err_and(|e| e.get("code").and_then(Value::as_i64) == Some(wire::code::INVALID_PARAMS))
}

impl Monitor<'_> {
    /// A request that names a task or a cursor, or carries a `task`, and its answer.
    pub(super) fn looked_for(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        let method = asked.method;
        let evidence = || vec![asked.seq, e.seq];
        if let Some(task) = asked.params.get("task").filter(|t| !well_formed_task(t)) {
            let refused = is_invalid_params(answer);
            self.findings.judge(
                MALFORMED,
                refused,
                None,
                || match refused {
                    true => format!("{method} with `task` {} got -32602", crate::matcher::short(task)),
                    false => format!(
                        "{method} with `task` {}, which is no TaskMetadata object, was answered {}, not -32602 (Invalid params)",
                        crate::matcher::short(task),
                        negotiation::shown(answer)
                    ),
                },
                evidence,
            );
        }
        if negotiation::unserved(method, answer, self.declared) {
            // an operation declared and not served is its capability rule's failure
            return self.unserved_consequences(asked, e);
        }
        if method == "tasks/list" {
            return self.cursor_sent(asked, answer, e);
        }
        if !matches!(method, "tasks/get" | "tasks/result" | "tasks/cancel") {
            return;
        }
        match asked.params.get("taskId") {
            None => {
                let refused = is_invalid_params(answer);
                self.findings.judge(
                    MALFORMED,
                    refused,
                    None,
                    || match refused {
                        true => format!("{method} without `taskId` got -32602"),
                        false => format!(
                            "{method} without `taskId` was answered {}, not -32602 (Invalid params)",
                            negotiation::shown(answer)
                        ),
                    },
                    evidence,
                );
            }
            Some(Value::String(id)) => {
                self.meta_ignored(asked, id, answer, e);
                if !self.created.contains(id) {
                    self.unknown.push(Unknown {
                        method: method.to_string(),
                        id: id.clone(),
                        asked: asked.seq,
                        answered: e.seq,
                        error: answer.err().cloned(),
                    });
                }
            }
            // an id the receiver gave itself is tasks.id.string's failure, not the request's
            Some(other) if self.created.contains(&wire::id_text(other)) => {}
            Some(other) => {
                let refused = is_invalid_params(answer);
                self.findings.judge(
                    UNKNOWN_TASK,
                    refused,
                    None,
                    || match refused {
                        true => format!("{method} of taskId {other}, not a string, got -32602"),
                        false => format!(
                            "{method} of taskId {other}, which is not a string and so names no task, was answered {}, not -32602 (Invalid params)",
                            negotiation::shown(answer)
                        ),
                    },
                    evidence,
                );
            }
        }
    }

    /// Lookups of ids no CreateTaskResult of the session ever gave: an error answer must be
    /// -32602. A result is not judged (the receiver may know the task from elsewhere).
    pub(super) fn unknown_judged(&mut self) {
        for u in std::mem::take(&mut self.unknown) {
            let Some(error) = u.error.filter(|_| !self.created.contains(&u.id)) else {
                continue;
            };
            let code = error.get("code").and_then(Value::as_i64);
            let held = code == Some(wire::code::INVALID_PARAMS);
            self.findings.judge(
                UNKNOWN_TASK,
                held,
                None,
                || match held {
                    true => format!("{} of task {:?}, which this session never created, got -32602", u.method, u.id),
                    false => format!(
                        "{} of task {:?}, which this session never created, was answered error {}, not -32602 (Invalid params)",
                        u.method,
                        u.id,
                        crate::matcher::short(&error)
                    ),
                },
                || vec![u.asked, u.answered],
            );
        }
    }

    /// A tasks/list cursor the receiver never gave before it was sent is nonexistent: -32602.
    fn cursor_sent(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        if let Ok(next) = answer.map(|r| r.get("nextCursor")) {
            if let Some(c) = next.filter(|c| !c.is_null()) {
                self.cursors.insert(c.to_string());
            }
        }
        let Some(cursor) = asked.params.get("cursor").filter(|c| !c.is_null()) else {
            return;
        };
        if asked.cursor_known {
            return;
        }
        let refused = is_invalid_params(answer);
        self.findings.judge(
            BAD_CURSOR,
            refused,
            None,
            || match refused {
                true => format!("tasks/list of cursor {cursor}, which no tasks/list gave, got -32602"),
                false => format!(
                    "tasks/list of cursor {cursor}, which no tasks/list answer of the session had given, was answered {}, not -32602 (Invalid params)",
                    negotiation::shown(answer)
                ),
            },
            || vec![asked.seq, e.seq],
        );
    }

    /// A request whose method is a declared operation the receiver does not serve: the rules
    /// its answer would have shown fail as that failure's consequences (a step that expected
    /// them saw them fail too).
    fn unserved_consequences(&mut self, asked: &Asked, e: &Entry) {
        let method = asked.method;
        let root = negotiation::operation_rule(method);
        let mut broken = Vec::new();
        let id = asked.params.get("taskId");
        let named = wire::related_task_value(asked.params).map(wire::id_text);
        if let (Some(named), Some(id)) = (&named, id) {
            if *named != wire::id_text(id) {
                broken.push(IGNORE_REQUEST_META);
            }
        }
        let unknown = match id {
            Some(Value::String(id)) => !self.created.contains(id),
            Some(other) => !self.created.contains(&wire::id_text(other)),
            None => false,
        };
        if unknown {
            broken.push(UNKNOWN_TASK);
        }
        let cursor = asked.params.get("cursor").is_some_and(|c| !c.is_null());
        if method == "tasks/list" && cursor && !asked.cursor_known {
            broken.push(BAD_CURSOR);
        }
        if method == "tasks/list" && !cursor && !self.created.is_empty() {
            broken.push(listing::CONTAINS);
        }
        if let (Some(id), "tasks/cancel") = (id.map(wire::id_text), method) {
            let terminal = self
                .book
                .get(&id)
                .and_then(|k| k.terminal_before(asked.seq));
            match terminal {
                Some(_) => broken.push(cancels::TERMINAL_REJECTED),
                // what a cancellation would have shown: cancelled, then so for good
                None if !unknown => {
                    broken.extend([cancels::BEFORE_RESPONSE, cancels::STAYS_CANCELLED])
                }
                None => {}
            }
        }
        self.unserved_judged(broken, root, asked, e);
    }

    fn unserved_judged(
        &mut self,
        broken: Vec<&'static str>,
        root: Option<&'static str>,
        asked: &Asked,
        e: &Entry,
    ) {
        let method = asked.method;
        for rule in broken {
            self.findings.judge(
                rule,
                false,
                root,
                || format!("{method} was not served (-32601), though declared"),
                || vec![asked.seq, e.seq],
            );
        }
    }

    /// A request whose related-task `_meta` names another task than its `taskId` is answered
    /// about its `taskId`.
    fn meta_ignored(&mut self, asked: &Asked, id: &str, answer: Result<&Value, &Value>, e: &Entry) {
        let Some(named) = wire::related_task_value(asked.params).map(wire::id_text) else {
            return;
        };
        let Ok(result) = answer else { return };
        if named == id {
            return;
        }
        let method = asked.method;
        let answered = match method {
            "tasks/result" => wire::related_task_value(result).map(wire::id_text),
            _ => result.get("taskId").map(wire::id_text),
        };
        let Some(answered) = answered else { return };
        let held = answered == id;
        if !held {
            self.failed_at.entry(e.seq).or_insert(IGNORE_REQUEST_META);
        }
        self.findings.judge(
            IGNORE_REQUEST_META,
            held,
            None,
            || match held {
                true => format!("{method} of {id:?} with related-task _meta naming {named:?} answered about {id:?}"),
                false => format!(
                    "{method} of {id:?} with related-task _meta naming {named:?} answered about {answered:?}: the _meta was followed, not params.taskId"
                ),
            },
            || vec![asked.seq, e.seq],
        );
    }
}
