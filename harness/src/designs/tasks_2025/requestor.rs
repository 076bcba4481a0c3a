//! A 2025-11-25 requestor judged by its recorded conversation with the reference receiver
//! (`taskcheck requestor`): the rules taskcheck holds itself to (its conduct monitor), and how
//! it polls and answers.

use super::monitor;
use crate::monitor::Context;
use crate::trace::{Direction, Entry};
use crate::verdict::Check;
use crate::wire::{self, MessageRef, OutcomeRef};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Polls no faster than `pollInterval`, and until a terminal status or `input_required`.
const POLL: &str = "tasks.poll.requestor-respects-poll-interval";
/// `input_required` is answered by a tasks/result.
const RESULT_ON_INPUT: &str = "tasks.input.requestor-calls-result";

/// Two polls of one task closer than this share of its last `pollInterval` poll too fast
/// (the slack is for timers and scheduling).
const POLL_SHARE: f64 = 0.8;
/// A requestor that let this many of a task's poll intervals pass since its last poll, the
/// task still working, stopped polling.
const STOPPED_AFTER: u64 = 3;

/// The requestor rules a requestor under test is judged by here.
pub const REQUESTOR_RULES: [&str; 2] = [POLL, RESULT_ON_INPUT];

/// Judges a requestor by a recorded conversation (its messages `out`).
pub fn judge(entries: &[Entry]) -> Vec<Check> {
    let capabilities = server_capabilities(entries);
    let ctx = Context {
        capabilities: &capabilities,
        official: None,
        breaks: &[],
        authorization: false,
    };
    let mut checks = monitor::judge_conduct(entries, &ctx);
    checks.extend(Polls::watch(entries).checks());
    checks
}

/// The capabilities the receiver declared in its initialize result.
fn server_capabilities(entries: &[Entry]) -> Value {
    let asked = entries.iter().find_map(|e| match classify(e) {
        Some((
            Direction::Out,
            MessageRef::Request {
                id,
                method: "initialize",
                ..
            },
        )) => {
            Some(id.to_string())
        }
        _ => None,
    });
    entries
        .iter()
        .find_map(|e| match classify(e) {
            Some((
                Direction::In,
                MessageRef::Response {
                    id,
                    outcome: OutcomeRef::Result(result),
                },
            )) if Some(id.to_string()) == asked => result.get("capabilities").cloned(),
            _ => None,
        })
        .unwrap_or(Value::Null)
}

fn classify(e: &Entry) -> Option<(Direction, MessageRef<'_>)> {
    let msg = wire::classify_ref(e.message.as_ref()?).ok()?;
    Some((e.dir, msg))
}

/// What one task showed the requestor, and how it was polled.
#[derive(Default)]
struct Task {
    /// The last `pollInterval` shown, in ms.
    interval: Option<u64>,
    /// The last tasks/get sent: when, and its trace number.
    last_poll: Option<(u64, u64)>,
    /// The last status shown, with when and where.
    status: Option<(String, u64, u64)>,
    /// Whether a terminal status was polled, or tasks/result answered; or the task cancelled.
    settled: bool,
    /// The first answer showing `input_required`, and whether a tasks/result was sent.
    input_required: Option<u64>,
    result_asked: bool,
}

#[derive(Default)]
struct Polls {
    tasks: BTreeMap<String, Task>,
    asked: HashMap<String, (String, Value)>,
    too_fast: Option<(String, u64)>,
    polled: Option<u64>,
    end_ms: u64,
}

impl Polls {
    fn watch(entries: &[Entry]) -> Polls {
        let mut p = Polls::default();
        for e in entries {
            p.end_ms = p.end_ms.max(e.t_ms);
            match classify(e) {
                Some((Direction::Out, MessageRef::Request { id, method, params })) => {
                    p.asked
                        .insert(id.to_string(), (method.to_string(), params.clone()));
                    p.sent(method, params, e);
                }
                Some((Direction::In, MessageRef::Response { id, outcome })) => {
                    if let Some((method, params)) = p.asked.get(&id.to_string()).cloned() {
                        let result = match outcome {
                            OutcomeRef::Result(r) => r,
                            OutcomeRef::Error(_) => &Value::Null,
                        };
                        p.answered(&method, &params, result, e);
                    }
                }
                // a status notification settles nothing: requestors "SHOULD continue to poll"
                _ => {}
            }
        }
        p
    }

    fn sent(&mut self, method: &str, params: &Value, e: &Entry) {
        let Some(id) = params.get("taskId").map(wire::id_text) else {
            return;
        };
        let Some(task) = self.tasks.get_mut(&id) else {
            return;
        };
        match method {
            "tasks/get" => {
                self.polled.get_or_insert(e.seq);
                if let (Some((at, _)), Some(interval)) = (task.last_poll, task.interval) {
                    let gap = e.t_ms.saturating_sub(at);
                    if (gap as f64) < interval as f64 * POLL_SHARE && self.too_fast.is_none() {
                        self.too_fast = Some((
                            format!("tasks/get of task {id:?} {gap} ms after the last one, while its pollInterval was {interval} ms"),
                            e.seq,
                        ));
                    }
                }
                task.last_poll = Some((e.t_ms, e.seq));
            }
            "tasks/result" => task.result_asked = true,
            "tasks/cancel" => task.settled = true,
            _ => {}
        }
    }

    fn answered(&mut self, method: &str, params: &Value, result: &Value, e: &Entry) {
        match method {
            "tools/call" | "sampling/createMessage" | "elicitation/create"
                if params.get("task").is_some() =>
            {
                if let Some(task) = result.get("task") {
                    self.shown(task, e);
                }
            }
            "tasks/get" => self.shown(result, e),
            "tasks/result" => {
                if let Some(t) = params.get("taskId").map(wire::id_text) {
                    self.tasks.entry(t).or_default().settled = true;
                }
            }
            _ => {}
        }
    }

    /// A Task the receiver showed.
    fn shown(&mut self, task: &Value, e: &Entry) {
        let Some(id) = task.get("taskId").map(wire::id_text) else {
            return;
        };
        let t = self.tasks.entry(id).or_default();
        if let Some(i) = task.get("pollInterval").and_then(Value::as_u64) {
            t.interval = Some(i);
        }
        if let Some(status) = task.get("status").and_then(Value::as_str) {
            t.status = Some((status.to_string(), e.t_ms, e.seq));
            match status {
                "completed" | "failed" | "cancelled" => t.settled = true,
                "input_required" => {
                    t.input_required.get_or_insert(e.seq);
                }
                _ => {}
            }
        }
    }

    fn checks(self) -> Vec<Check> {
        let mut checks = Vec::new();
        let stopped = self.tasks.iter().find_map(|(id, t)| {
            let (status, at, seq) = t.status.as_ref()?;
            let waited = self.end_ms.saturating_sub(*at);
            let patience = STOPPED_AFTER * t.interval.unwrap_or(1000).max(100);
            // a requestor blocked on tasks/result need not poll
            let waiting = t.result_asked || t.input_required.is_some();
            (!t.settled && !waiting && status == "working" && waited >= patience)
                .then(|| (format!("the requestor stopped polling task {id:?}, last shown working, {waited} ms before the conversation ended"), *seq))
        });
        let broken = self.too_fast.or(stopped);
        match (broken, self.polled) {
            (Some((what, seq)), _) => checks.push(Check::judged(POLL, false, what, vec![seq])),
            (None, Some(first)) => checks.push(Check::judged(
                POLL,
                true,
                format!("polled no faster than {POLL_SHARE} of each pollInterval, until each task settled"),
                vec![first],
            )),
            (None, None) => {}
        }
        let asked_input = self.tasks.iter().find(|(_, t)| t.input_required.is_some());
        let unanswered = self
            .tasks
            .iter()
            .find(|(_, t)| t.input_required.is_some() && !t.result_asked);
        match (unanswered, asked_input) {
            (Some((id, t)), _) => checks.push(Check::judged(
                RESULT_ON_INPUT,
                false,
                format!("task {id:?} showed input_required and the requestor never called tasks/result for it"),
                t.input_required.into_iter().collect(),
            )),
            (None, Some((_, t))) => checks.push(Check::judged(
                RESULT_ON_INPUT,
                true,
                "called tasks/result for every task that showed input_required",
                t.input_required.into_iter().collect(),
            )),
            (None, None) => {}
        }
        checks
    }
}
