//! A 2025-11-25 requestor judged by its recorded conversation with the reference receiver
//! (`taskcheck requestor`): the rules taskcheck holds itself to (its conduct monitor), and how
//! it polls and answers.

use super::monitor;
use crate::monitor::Context;
use crate::requestor::polls::{Polls, Shape, POLL_SHARE};
use crate::trace::{Direction, Entry};
use crate::transport::http::VIA_GET;
use crate::transport::routing::VERSION_HEADER;
use crate::verdict::{Check, Verdict};
use crate::wire::{self, MessageRef, OutcomeRef};
use serde_json::Value;
use std::collections::HashSet;

/// Polls no faster than `pollInterval`, and until a terminal status or `input_required`.
const POLL: &str = "tasks.poll.requestor-respects-poll-interval";
/// `input_required` is answered by a tasks/result.
const RESULT_ON_INPUT: &str = "tasks.input.requestor-calls-result";

/// The `ttl` a task-augmented request asks for (a MAY: recorded).
const TTL: &str = "tasks.create.requestor-ttl";

/// Over Streamable HTTP, the receiver's requests are taken from any SSE stream, the GET
/// stream included.
const ANY_STREAM: &str = "tasks.http.requestor-any-stream";

/// A task-augmented request is cancelled with tasks/cancel, not notifications/cancelled
/// (cancellation.mdx).
const CANCEL_WITH_TASKS_CANCEL: &str = "tasks.cancel.requestor-uses-tasks-cancel";

/// Over HTTP, every POST after the initialize carries `MCP-Protocol-Version` (transports.mdx).
const VERSION_HEADER_SENT: &str = "tasks.http.requestor-protocol-version";

/// The requestor rules a requestor under test is judged by here.
pub const REQUESTOR_RULES: [&str; 6] = [
    POLL,
    RESULT_ON_INPUT,
    TTL,
    ANY_STREAM,
    CANCEL_WITH_TASKS_CANCEL,
    VERSION_HEADER_SENT,
];

/// Where 2025-11-25 Tasks show a poller.
const SHAPE: Shape = Shape {
    interval_key: "pollInterval",
    task_of,
    poll: "tasks/get",
    settles_when_sent: &["tasks/cancel"],
    settles_when_answered: &["tasks/result"],
    waits_on: &["tasks/result"],
    answers_input: None,
    cancels_request: "notifications/cancelled",
};

/// The Task an answer shows: a CreateTaskResult's `task`, or a tasks/get result.
fn task_of(method: &str, params: &Value, result: &Value) -> Option<Value> {
    match method {
        "tasks/get" => Some(result.clone()),
        _ if params.get("task").is_some() => result.get("task").cloned(),
        _ => None,
    }
}

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
    let polls = Polls::watch(entries, &SHAPE);
    match (
        polls.too_fast.clone().or(polls.stopped(&SHAPE)),
        polls.first_poll,
    ) {
        (Some((what, seq)), _) => checks.push(Check::judged(POLL, false, what, vec![seq])),
        (None, Some(first)) => checks.push(Check::judged(
            POLL,
            true,
            format!(
                "polled no faster than {POLL_SHARE} of each pollInterval, until each task settled"
            ),
            vec![first],
        )),
        (None, None) => {}
    }
    checks.extend(ttl_asked(entries));
    // "preemptively": a tasks/result sent only once the task had ended did not fetch its input
    let never = polls.input_unanswered("tasks/result").into_iter().next().map(|(id, seq)| {
        let what = format!("task {id:?} showed input_required and the requestor never called tasks/result for it");
        (what, seq)
    });
    let late = polls.input_answered_late("tasks/result").map(|(id, seq)| {
        let what = format!("task {id:?} showed input_required and the requestor called tasks/result for it only after it had ended, not preemptively");
        (what, seq)
    });
    let asked = polls
        .first_input_required()
        .or(waited_through_input(entries));
    match (never.or(late), asked) {
        (Some((what, seq)), _) => {
            checks.push(Check::judged(RESULT_ON_INPUT, false, what, vec![seq]))
        }
        (None, Some(seq)) => checks.push(Check::judged(
            RESULT_ON_INPUT,
            true,
            "called tasks/result preemptively for every task that showed input_required",
            vec![seq],
        )),
        (None, None) => {}
    }
    checks.extend(any_stream(entries));
    checks.extend(cancelled_how(entries));
    checks.extend(version_headers(entries));
    checks
}

/// A requestor that never polled a task through `input_required` but waited on its tasks/result
/// from before the receiver asked for the task's input had called it preemptively: the first
/// request of the receiver naming a task the requestor had already sent tasks/result for. (An
/// ask naming a task counts only this way: a requestor that saw no `input_required` is not
/// accused of missing it.)
fn waited_through_input(entries: &[Entry]) -> Option<u64> {
    let mut waiting: HashSet<String> = HashSet::new();
    for e in entries {
        let Some(msg) = e.decoded() else {
            continue;
        };
        match (e.dir, msg) {
            (
                Direction::Out,
                MessageRef::Request {
                    method: "tasks/result",
                    params,
                    ..
                },
            ) => {
                waiting.extend(params.get("taskId").map(wire::id_text));
            }
            (Direction::In, MessageRef::Request { params, .. }) => {
                let named = wire::related_task_value(params);
                if named.is_some_and(|t| waiting.contains(&wire::id_text(t))) {
                    return Some(e.seq);
                }
            }
            _ => {}
        }
    }
    None
}

/// Over HTTP (a recording with the headers of each POST): the first message POSTed after the
/// initialize without `MCP-Protocol-Version` fails; else the first one after it passes.
fn version_headers(entries: &[Entry]) -> Option<Check> {
    let mut first = None;
    for e in entries.iter().filter(|e| e.dir == Direction::Out) {
        let (Some(headers), Some(message)) = (&e.headers, &e.message) else {
            continue;
        };
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            continue;
        }
        first.get_or_insert(e.seq);
        if !headers.contains_key(VERSION_HEADER) {
            let what = match message.get("method").and_then(Value::as_str) {
                Some(method) => {
                    format!("its {method} was POSTed without an MCP-Protocol-Version header")
                }
                None => "a response was POSTed without an MCP-Protocol-Version header".to_string(),
            };
            return Some(Check::judged(VERSION_HEADER_SENT, false, what, vec![e.seq]));
        }
    }
    first.map(|seq| {
        let held = "every message POSTed after the initialize carried MCP-Protocol-Version";
        Check::judged(VERSION_HEADER_SENT, true, held, vec![seq])
    })
}

/// How the requestor cancelled its tasks: a notifications/cancelled of a request already
/// answered with a CreateTaskResult fails (one still unanswered is left alone: the requestor
/// could not know yet that a task stood behind it); else its first tasks/cancel passes.
fn cancelled_how(entries: &[Entry]) -> Option<Check> {
    let mut augmented = HashSet::new();
    let mut created = HashSet::new();
    let mut cancelled = None;
    for e in entries {
        match classify(e) {
            Some((Direction::Out, MessageRef::Request { id, method, params })) => {
                if params.get("task").is_some() {
                    augmented.insert(id.to_string());
                }
                if method == "tasks/cancel" {
                    cancelled.get_or_insert(e.seq);
                }
            }
            Some((Direction::In, MessageRef::Response { id, outcome })) => {
                let task = matches!(outcome, OutcomeRef::Result(r) if r.get("task").is_some());
                if task && augmented.contains(&id.to_string()) {
                    created.insert(id.to_string());
                }
            }
            Some((
                Direction::Out,
                MessageRef::Notification {
                    method: "notifications/cancelled",
                    params,
                },
            )) => {
                let request = params.get("requestId").map(Value::to_string);
                if request.is_some_and(|r| created.contains(&r)) {
                    let what = format!(
                        "cancelled the task-augmented request {} with notifications/cancelled, after its CreateTaskResult, instead of tasks/cancel",
                        params["requestId"]
                    );
                    return Some(Check::judged(
                        CANCEL_WITH_TASKS_CANCEL,
                        false,
                        what,
                        vec![e.seq],
                    ));
                }
            }
            _ => {}
        }
    }
    cancelled.map(|seq| {
        let held = "cancelled its task with tasks/cancel";
        Check::judged(CANCEL_WITH_TASKS_CANCEL, true, held, vec![seq])
    })
}

/// Over HTTP: a request of the receiver that came on the GET stream and was never answered;
/// else a pass where one came on it, or untestable where they all came on a POST's stream.
fn any_stream(entries: &[Entry]) -> Option<Check> {
    let mut on_get = Vec::new();
    let mut on_post = None;
    let mut answered = HashSet::new();
    for e in entries {
        match classify(e) {
            Some((Direction::In, MessageRef::Request { id, method, .. })) => {
                match e.via.as_deref() {
                    Some(VIA_GET) => on_get.push((id.to_string(), method, e.seq)),
                    Some(_) => drop(on_post.get_or_insert(e.seq)),
                    None => {}
                }
            }
            Some((Direction::Out, MessageRef::Response { id, .. })) => {
                answered.insert(id.to_string());
            }
            _ => {}
        }
    }
    if let Some((id, method, seq)) = on_get.iter().find(|(id, ..)| !answered.contains(id)) {
        let what = format!(
            "the receiver's {method} (id {id}) came on the GET stream and was never answered"
        );
        return Some(Check::judged(ANY_STREAM, false, what, vec![*seq]));
    }
    if let Some((_, _, seq)) = on_get.first() {
        let held = "answered every request of the receiver that came on the GET stream";
        return Some(Check::judged(ANY_STREAM, true, held, vec![*seq]));
    }
    on_post.map(|seq| Check {
        evidence: vec![seq],
        ..Check::with(
            ANY_STREAM,
            Verdict::Untestable,
            "the receiver's requests came on a POST's stream (the requestor had no GET stream open), so whether it takes them from any stream did not show",
        )
    })
}

/// What the first task-augmented request asked of the ttl, recorded.
fn ttl_asked(entries: &[Entry]) -> Option<Check> {
    entries.iter().find_map(|e| {
        let (Direction::Out, MessageRef::Request { method, params, .. }) = classify(e)? else {
            return None;
        };
        let task = params.get("task")?;
        let asked = match task.get("ttl") {
            Some(ttl) => format!("{method} asked for a ttl of {ttl}"),
            None => format!("{method} asked for no ttl"),
        };
        Some(Check::judged(TTL, true, asked, vec![e.seq]))
    })
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
        )) => Some(id.to_string()),
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
