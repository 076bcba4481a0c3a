//! tasks/cancel: a task already terminal when the request was sent is refused with -32602; a
//! valid cancellation leaves the task `cancelled` before the answer, which shows it.

use super::*;

/// Cancelling a terminal task gets -32602 (MUST).
pub(super) const TERMINAL_REJECTED: &str = "tasks.cancel.terminal-rejected";
/// A valid cancellation makes the task cancelled before the response (MUST).
pub(super) const BEFORE_RESPONSE: &str = "tasks.cancel.cancelled-before-response";
/// A cancelled task stays cancelled (MUST; its failures are the model's).
pub(super) const STAYS_CANCELLED: &str = "tasks.cancel.stays-cancelled";

/// A cancellation refused while the task was not known to be terminal: a failure if a later
/// answer shows it was not (judged once the session is over).
pub(super) struct Refused {
    id: String,
    asked: u64,
    answered: u64,
    error: Value,
}

impl Monitor<'_> {
    /// The answer to a tasks/cancel of a task named by a string id.
    pub(super) fn cancel_answered(
        &mut self,
        asked: &Asked,
        answer: Result<&Value, &Value>,
        e: &Entry,
    ) {
        let Some(id) = asked.params.get("taskId").map(wire::id_text) else {
            return;
        };
        let id = &id;
        if negotiation::unserved(asked.method, answer, self.declared) || self.others(id, e) {
            return;
        }
        // related-task `_meta` naming another task is ignore-request-related-task's to judge
        if wire::related_task_value(asked.params).is_some_and(|t| wire::id_text(t) != **id) {
            return;
        }
        let evidence = |extra: Option<u64>| {
            let mut v: Vec<u64> = extra.into_iter().collect();
            v.extend([asked.seq, e.seq]);
            v
        };
        let terminal = self
            .book
            .get(id)
            .and_then(|k| k.terminal_before(asked.seq))
            .copied();
        if let Some(seen) = terminal {
            let refused = answer.is_err_and(|e| {
                e.get("code").and_then(Value::as_i64) == Some(wire::code::INVALID_PARAMS)
            });
            self.findings.judge(
                TERMINAL_REJECTED,
                refused,
                self.shared_id(id),
                || match refused {
                    true => format!("tasks/cancel of {id:?}, already {}, got -32602", seen.status.as_str()),
                    false => format!(
                        "tasks/cancel of {id:?}, already {} (trace #{}), was answered {}, not -32602 (Invalid params)",
                        seen.status.as_str(),
                        seen.received,
                        negotiation::shown(answer)
                    ),
                },
                || evidence(Some(seen.received)),
            );
            return;
        }
        match answer {
            Ok(result) => {
                let status = result
                    .get("status")
                    .and_then(Value::as_str)
                    .and_then(TaskStatus::parse);
                let Some(status) = status else { return };
                // a task that had ended by the time the cancellation came is no valid one
                let rule = match status.is_terminal() && status != TaskStatus::Cancelled {
                    true => TERMINAL_REJECTED,
                    false => BEFORE_RESPONSE,
                };
                let held = status == TaskStatus::Cancelled;
                self.findings.judge(
                    rule,
                    held,
                    self.shared_id(id),
                    || match (held, rule) {
                        (true, _) => format!("tasks/cancel of {id:?} answered the task cancelled"),
                        (false, TERMINAL_REJECTED) => format!(
                            "tasks/cancel of {id:?} succeeded, its answer showing the task {}: a terminal task's cancellation gets -32602",
                            status.as_str()
                        ),
                        (false, _) => format!(
                            "tasks/cancel of {id:?} answered the task {}: a valid cancellation makes it cancelled before the response",
                            status.as_str()
                        ),
                    },
                    || evidence(None),
                );
            }
            Err(error) => {
                let code = error.get("code").and_then(Value::as_i64);
                if code != Some(wire::code::METHOD_NOT_FOUND) {
                    self.refused_cancels.push(Refused {
                        id: id.clone(),
                        asked: asked.seq,
                        answered: e.seq,
                        error: error.clone(),
                    });
                }
            }
        }
    }

    /// Cancelled tasks read again, asked after they were seen cancelled, and still cancelled
    /// (a change is the model's failure to report).
    pub(super) fn still_cancelled_judged(&mut self) {
        let mut ids: Vec<&String> = self.book.tasks.keys().collect();
        ids.sort();
        let mut found = Vec::new();
        for id in ids {
            let known = &self.book.tasks[id];
            let Some(cancelled) = known
                .sightings
                .iter()
                .find(|s| s.status == TaskStatus::Cancelled)
            else {
                continue;
            };
            let again = known.sightings.iter().find(|s| {
                s.asked.is_some_and(|a| a > cancelled.received) && s.status == TaskStatus::Cancelled
            });
            if let Some(again) = again {
                found.push(find(
                    STAYS_CANCELLED,
                    true,
                    format!("task {id:?} read cancelled again after it was cancelled"),
                    vec![cancelled.received, again.received],
                ));
            }
        }
        self.findings.extend(found);
    }

    /// Whether task `id` was created for another requestor than the one whose message `e` is:
    /// what that one is told of it is tasks.security.bind-context's to judge.
    pub(super) fn others(&self, id: &str, e: &Entry) -> bool {
        self.book
            .get(id)
            .and_then(|k| k.origin.as_ref())
            .is_some_and(|o| o.peer != peer_of(e))
    }

    /// Where two CreateTaskResults gave the same id, what the session showed of it is two
    /// tasks' (tasks.id.unique's failure explains what follows from that).
    pub(super) fn shared_id(&self, id: &str) -> Option<&'static str> {
        let created = self.creations_of.get(id).is_some_and(|n| *n > 1);
        created.then_some("tasks.id.unique")
    }

    /// Refused cancellations of tasks a later answer showed still running.
    pub(super) fn refusals_of_cancel_judged(&mut self) {
        for r in std::mem::take(&mut self.refused_cancels) {
            let Some(later) = self
                .book
                .get(&r.id)
                .and_then(|k| k.first_after(r.answered))
                .copied()
            else {
                continue;
            };
            if later.status.is_terminal() {
                continue;
            }
            self.findings.judge(
                BEFORE_RESPONSE,
                false,
                None,
                || format!(
                    "tasks/cancel of {:?} was refused ({}), though the task was not terminal: a later answer (trace #{}) shows it {}",
                    r.id,
                    crate::matcher::short(&r.error),
                    later.received,
                    later.status.as_str()
                ),
                || vec![r.asked, r.answered, later.received],
            );
        }
    }
}
