//! What `tasks/result` answers: the final outcome of a terminal task, given at once; for an
//! unfinished task, an answer only once it is terminal; exactly what the request returned
//! when it was made without a task; and the terminal status that outcome calls for.

use super::*;
use crate::monitor::book::Fetched;

/// tasks/result of a terminal task returns its final outcome (MUST).
pub(super) const TERMINAL_RETURNS_FINAL: &str = "tasks.result.terminal-returns-final";
/// tasks/result of an unfinished task blocks until it is terminal (MUST).
pub(super) const BLOCKS: &str = "tasks.result.blocks";
/// tasks/result returns exactly what the request returned without a task (MUST).
pub(super) const EXACT: &str = "tasks.result.exact";
/// A tool result with `isError` makes the task `failed` (SHOULD).
pub(super) const TOOL_ERROR: &str = "tasks.failed.tool-error";
/// A terminal status never changes (MUST; the model judges it).
const TERMINAL_FINAL: &str = "tasks.lifecycle.terminal-final";
/// Every message of the receiver's is valid against the schema (MUST).
const SCHEMA: &str = "tasks.schema.receiver-messages";
/// A request ending in a JSON-RPC error makes the task `failed` (MUST).
pub(super) const PROTOCOL_ERROR: &str = "tasks.failed.protocol-error";

/// A tasks/result of a terminal task still unanswered while the receiver answered a request
/// sent this long after it did not answer at once: it waits for an outcome the task will
/// never have.
const UNANSWERED_MS: u64 = 3000;

/// Whether a result is a Task object rather than the request's result.
fn is_task(result: &Value) -> bool {
    result.get("taskId").is_some() && result.get("status").is_some()
}

/// Whether a result says `isError: true` (absent is false).
fn is_error_result(result: &Value) -> bool {
    result.get("isError").and_then(Value::as_bool) == Some(true)
}

impl Monitor<'_> {
    /// A tasks/result was sent: its answer is awaited.
    pub(super) fn fetch_sent(&mut self, id: &str, params: &Value, seq: u64, t_ms: u64) {
        // a request whose related-task `_meta` names another task may be answered for that
        // one (tasks.meta.ignore-request-related-task's failure): what follows is its
        let misdirected = wire::related_task_value(params).is_some_and(|t| wire::id_text(t) != id);
        self.book.task(id).fetched.push(Fetched {
            asked: seq,
            asked_ms: t_ms,
            follows: misdirected.then_some(lookups::IGNORE_REQUEST_META),
            answer: None,
        });
    }

    /// The answer to a tasks/result: kept for the end; a Task given for a terminal task's
    /// outcome is judged at once, so the schema's complaint about it shows as its consequence.
    pub(super) fn fetch_answered(
        &mut self,
        asked: &Asked,
        answer: Result<&Value, &Value>,
        e: &Entry,
    ) {
        let Some(id) = asked.params.get("taskId").map(wire::id_text) else {
            return;
        };
        let id = &id;
        if self.others(id, e) {
            return;
        }
        if let Some(f) = self
            .book
            .task(id)
            .fetched
            .iter_mut()
            .find(|f| f.asked == asked.seq)
        {
            f.answer = Some((answer.cloned().map_err(Clone::clone), e.seq, e.t_ms));
        }
        let terminal = self
            .book
            .get(id)
            .and_then(|k| k.terminal_before(asked.seq))
            .copied();
        // a Task is no request's outcome: what the schema says of it follows from that
        if answer.is_ok_and(is_task) {
            self.failed_at
                .entry(e.seq)
                .or_insert(TERMINAL_RETURNS_FINAL);
        }
        // an outcome of the other kind than the same call's without a task: what the schema
        // says of it follows (judged once the session is over)
        let plain = self
            .book
            .get(id)
            .and_then(|k| k.origin.as_ref())
            .and_then(|o| self.plain_outcomes.get(&o.plain));
        if let (Some(_), Some((p, _))) = (terminal, plain) {
            if p.is_ok() != answer.is_ok() {
                self.failed_at
                    .entry(e.seq)
                    .or_insert(TERMINAL_RETURNS_FINAL);
            }
        }
        if let (Some(seen), Ok(result)) = (terminal, answer) {
            if is_task(result) {
                self.failed_at
                    .entry(e.seq)
                    .or_insert(TERMINAL_RETURNS_FINAL);
                self.findings.judge(
                    TERMINAL_RETURNS_FINAL,
                    false,
                    None,
                    || format!(
                        "tasks/result of {id:?}, {} (trace #{}), answered a Task, not the outcome of its request: {}",
                        seen.status.as_str(),
                        seen.received,
                        crate::matcher::short(result)
                    ),
                    || vec![seen.received, asked.seq, e.seq],
                );
                self.findings.judge(
                    EXACT,
                    false,
                    Some(TERMINAL_RETURNS_FINAL),
                    || format!("tasks/result of {id:?} answered a Task, which no request returns"),
                    || vec![asked.seq, e.seq],
                );
            }
        }
    }

    /// Every tasks/result of the session, judged once it is over.
    pub(super) fn outcomes_judged(&mut self) {
        let mut ids: Vec<&String> = self.book.tasks.keys().collect();
        ids.sort();
        let mut found = Vec::new();
        for id in ids {
            let known = &self.book.tasks[id];
            let plain = known
                .origin
                .as_ref()
                .and_then(|o| self.plain_outcomes.get(&o.plain));
            for f in &known.fetched {
                found.extend(self.fetched(id, known, f, plain));
            }
            found.extend(self.status_fits_outcome(id, known));
        }
        self.findings.extend(found);
    }

    /// One tasks/result and its answer.
    fn fetched(
        &self,
        id: &str,
        known: &book::Known,
        f: &Fetched,
        plain: Option<&(Result<Value, Value>, u64)>,
    ) -> Vec<Finding> {
        let mut out = Vec::new();
        let before = known.terminal_before(f.asked).copied();
        let Some((answer, answered, _)) = &f.answer else {
            // a terminal task's outcome is no reason to wait
            let later = self.latest_answered_sent_ms;
            if let (Some(seen), Some((sent_ms, seq))) = (before, later) {
                if sent_ms >= f.asked_ms + UNANSWERED_MS && seen.status != TaskStatus::Cancelled {
                    out.push(Finding {
                        follows: f.follows,
                        ..find(
                        TERMINAL_RETURNS_FINAL,
                        false,
                        format!(
                            "tasks/result of {id:?}, {} (trace #{}), was never answered, while a request sent {} ms after it was (trace #{seq})",
                            seen.status.as_str(),
                            seen.received,
                            sent_ms - f.asked_ms
                        ),
                        vec![seen.received, f.asked, seq],
                    )
                    });
                }
            }
            return out;
        };
        let answer = answer.as_ref();
        // an answer saying a task that vanished early does not exist shows nothing of its
        // own: it is that failure's consequence
        if answer.is_err() && self.expiry.vanished(*answered) {
            let rule = match before {
                Some(_) => TERMINAL_RETURNS_FINAL,
                None => BLOCKS,
            };
            out.push(find(
                rule,
                false,
                format!(
                    "tasks/result of {id:?} answered {}: the task no longer exists",
                    negotiation::shown(answer)
                ),
                vec![f.asked, *answered],
            ));
            return out;
        }
        let Some(seen) = before else {
            // asked before the task was known terminal: the answer must wait for its end
            let gone = self.missing.iter().find(|(task, asked, seq)| {
                task == id && *asked > *answered && self.expiry.vanished(*seq)
            });
            if let (None, Some((_, _, seq))) = (known.first_after(*answered), gone) {
                out.push(find(
                    BLOCKS,
                    false,
                    format!("task {id:?} was not found once its tasks/result had answered"),
                    vec![f.asked, *answered, *seq],
                ));
            }
            if let (Ok(r), Some(later)) = (answer, known.first_after(*answered)) {
                if is_task(r) && later.status.is_terminal() {
                    // it waited, and then gave no outcome: no blocked-for result either
                    out.push(find(
                        TERMINAL_RETURNS_FINAL,
                        false,
                        format!("tasks/result of {id:?} answered a Task once the task ended, not the outcome of its request"),
                        vec![f.asked, *answered],
                    ));
                    out.push(Finding {
                        follows: Some(TERMINAL_RETURNS_FINAL),
                        ..find(
                            BLOCKS,
                            false,
                            format!("tasks/result of {id:?} gave no outcome to wait for"),
                            vec![f.asked, *answered],
                        )
                    });
                    return out;
                }
            }
            if let Some(later) = known.first_after(*answered) {
                let held = later.status.is_terminal();
                // a task seen terminal before that read, and read unfinished in it, broke
                // tasks.lifecycle.terminal-final: the later read is no proof here
                let reopened = known
                    .sightings
                    .iter()
                    .any(|s| s.received < later.received && s.status.is_terminal());
                out.push(Finding {
                    follows: (!held && reopened).then_some(TERMINAL_FINAL),
                    ..find(
                    BLOCKS,
                    held,
                    match held {
                        true => format!("tasks/result of {id:?} answered once the task was {}", later.status.as_str()),
                        false => format!(
                            "tasks/result of {id:?}, asked while the task was not terminal, was answered ({}) while it was still {}: an answer sent after it (trace #{}) shows it so",
                            negotiation::shown(answer),
                            later.status.as_str(),
                            later.received
                        ),
                    },
                    vec![f.asked, *answered, later.received],
                )
                });
            }
            return out;
        };
        let evidence = vec![seen.received, f.asked, *answered];
        if seen.status == TaskStatus::Cancelled {
            // cancelled before it had an outcome: any answer is one (deleted: -32602)
            out.push(find(
                TERMINAL_RETURNS_FINAL,
                true,
                format!("tasks/result of {id:?}, cancelled, answered"),
                evidence,
            ));
            return out;
        }
        if let Err(error) = answer {
            if wire::says_task_not_found(false, error) {
                return out;
            }
        }
        // a tools/call's outcome is a CallToolResult: a result without `content` is none,
        // and the schema's complaint about that message says the same (its failure first)
        let call = self.task_methods.get(id).is_some_and(|m| m == "tools/call");
        if let (true, Ok(r)) = (call, answer) {
            if !is_task(r) && !r.get("content").is_some_and(Value::is_array) {
                out.push(Finding {
                    follows: Some(SCHEMA),
                    ..find(
                        TERMINAL_RETURNS_FINAL,
                        false,
                        format!(
                            "tasks/result of {id:?}, {}, answered no CallToolResult, so not the outcome of its tools/call: {}",
                            seen.status.as_str(),
                            crate::matcher::short(r)
                        ),
                        evidence,
                    )
                });
                return out;
            }
        }
        // the outcome the request had without a task, where the session made that call
        let plain_kind = plain.map(|(p, _)| p.is_ok());
        let earlier_result = known
            .fetched
            .iter()
            .filter(|g| g.asked != f.asked)
            .find_map(|g| match &g.answer {
                Some((Ok(_), seq, _)) => Some(*seq),
                _ => None,
            });
        let kind_held = match (answer, plain_kind) {
            (Ok(r), _) if is_task(r) => return out, // judged as it came
            (Ok(_), Some(false)) => Some(false),
            (Err(_), Some(true)) => Some(false),
            (Err(_), None) if earlier_result.is_some() => Some(false),
            _ => Some(true),
        };
        if let Some(held) = kind_held {
            let why = match (answer, plain_kind) {
                (Ok(_), Some(false)) => "a result, where the same call without a task ended in a JSON-RPC error".to_string(),
                (Err(_), Some(true)) => "a JSON-RPC error, where the same call without a task returned a result".to_string(),
                (Err(_), _) => format!(
                    "a JSON-RPC error, where another tasks/result of it returned a result (trace #{})",
                    earlier_result.unwrap_or_default()
                ),
                _ => String::new(),
            };
            out.push(find(
                TERMINAL_RETURNS_FINAL,
                held,
                match held {
                    true => format!(
                        "tasks/result of {id:?}, {}, returned its outcome",
                        seen.status.as_str()
                    ),
                    false => format!(
                        "tasks/result of {id:?}, {} (trace #{}), answered {}: {why}",
                        seen.status.as_str(),
                        seen.received,
                        negotiation::shown(answer)
                    ),
                },
                match (held, plain) {
                    (false, Some((_, p))) => vec![*p, seen.received, f.asked, *answered],
                    _ => evidence.clone(),
                },
            ));
            if !held {
                if plain.is_some() {
                    out.push(Finding {
                        follows: Some(TERMINAL_RETURNS_FINAL),
                        ..find(
                            EXACT,
                            false,
                            format!(
                                "tasks/result of {id:?} is not what the same call without a task returned: {why}"
                            ),
                            evidence,
                        )
                    });
                }
                return out;
            }
        }
        let Some((plain, plain_seq)) = plain else {
            return out;
        };
        let (same, what) = match (answer, plain.as_ref()) {
            (Err(got), Err(want)) => {
                let differs: Vec<&str> = ["code", "message", "data"]
                    .into_iter()
                    .filter(|k| got.get(k) != want.get(k))
                    .collect();
                (
                    differs.is_empty(),
                    format!(
                        "error {} where the plain call's was {}; differing: {}",
                        crate::matcher::short(got),
                        crate::matcher::short(want),
                        differs.join(", ")
                    ),
                )
            }
            (Ok(got), Ok(want)) => (
                is_error_result(got) == is_error_result(want),
                format!(
                    "isError {} where the plain call's result has isError {}",
                    is_error_result(got),
                    is_error_result(want)
                ),
            ),
            _ => return out,
        };
        out.push(find(
            EXACT,
            same,
            match same {
                true => format!("tasks/result of {id:?} is what the same call without a task returned"),
                false => format!("tasks/result of {id:?} is not what the same call without a task returned: {what}"),
            },
            vec![*plain_seq, f.asked, *answered],
        ));
        out
    }

    /// The terminal status a task reached against the outcome its request has, by the same
    /// call made without a task or by what its tasks/result gave: a JSON-RPC error is
    /// `failed` (MUST), a tool result with `isError` `failed` (SHOULD).
    fn status_fits_outcome(&self, id: &str, known: &book::Known) -> Vec<Finding> {
        let Some(end) = known.terminal().copied() else {
            return Vec::new();
        };
        if end.status == TaskStatus::Cancelled {
            return Vec::new();
        }
        let mut out = Vec::new();
        let failed = end.status == TaskStatus::Failed;
        let twin = known
            .origin
            .as_ref()
            .and_then(|o| self.plain_outcomes.get(&o.plain));
        if let Some((plain, seq)) = twin {
            let judged = match plain {
                Err(_) => Some((PROTOCOL_ERROR, "a JSON-RPC error")),
                Ok(r) if is_error_result(r) => Some((TOOL_ERROR, "a tool result with isError")),
                Ok(_) => None,
            };
            if let Some((rule, what)) = judged {
                out.push(find(
                    rule,
                    failed,
                    match failed {
                        true => format!("task {id:?}, whose request without a task ends in {what}, ended failed"),
                        false => format!(
                            "task {id:?} ended {} (trace #{}), though the same call without a task ends in {what} (trace #{seq})",
                            end.status.as_str(),
                            end.received
                        ),
                    },
                    vec![*seq, end.received],
                ));
            }
        }
        let any_result = known
            .fetched
            .iter()
            .any(|f| matches!(f.answer, Some((Ok(_), _, _))));
        for f in &known.fetched {
            let Some((answer, answered, _)) = &f.answer else {
                continue;
            };
            // an answer is surely the outcome only where the task had ended before it was
            // asked for (one asked earlier may have come without waiting for the end)
            let ended = known.terminal_before(f.asked).is_some();
            // an error beside a result given for the same task is no outcome of its own
            if !ended || answer.is_err() && any_result {
                continue;
            }
            let (rule, what) = match answer {
                Err(error) if !wire::says_task_not_found(false, error) => {
                    (PROTOCOL_ERROR, "a JSON-RPC error")
                }
                Ok(result) if is_error_result(result) => (TOOL_ERROR, "a tool result with isError"),
                _ => continue,
            };
            out.push(find(
                rule,
                failed,
                match failed {
                    true => format!("task {id:?}, whose outcome is {what}, ended failed"),
                    false => format!(
                        "task {id:?} ended {} (trace #{}), though its outcome is {what} (tasks/result, trace #{answered})",
                        end.status.as_str(),
                        end.received
                    ),
                },
                vec![end.received, *answered],
            ));
        }
        out
    }
}
