//! A client of the extension judged as a requestor by its recorded conversation with the
//! reference receiver (`taskcheck requestor --profile ext-tasks`): how it polls, answers input
//! with tasks/update, and cancels.

use crate::requestor::polls::{Polls, Shape, POLL_SHARE};
use crate::scenario::Ask;
use crate::trace::{Direction, Entry};
use crate::transport::routing::{self, META_VERSION, METHOD_HEADER, NAME_HEADER, VERSION_HEADER};
use crate::verdict::{Check, Root};
use crate::wire::{self, MessageRef, OutcomeRef};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

const RESPECTS_POLL: &str = "ext-tasks.requestor.respects-poll-interval";
const POLLS_UNTIL_TERMINAL: &str = "ext-tasks.requestor.polls-until-terminal";
const FULFILS_INPUT: &str = "ext-tasks.requestor.fulfils-input";
const KEYS_OUTSTANDING: &str = "ext-tasks.requestor.keys-outstanding";
const ANSWERS_ONCE: &str = "ext-tasks.requestor.answers-once";
const NO_CANCELLED: &str = "ext-tasks.cancel.no-notifications-cancelled";
const BOTH_SHAPES: &str = "ext-tasks.requestor.handle-both-shapes";
const MCP_NAME: &str = "ext-tasks.http.mcp-name";
const VERSION: &str = "ext-tasks.http.requestor-protocol-version";
const UNSUPPORTED: &str = "ext-tasks.requestor.unsupported-type-invalid";

/// The requestor rules a client is judged by here.
pub const REQUESTOR_RULES: [&str; 10] = [
    MCP_NAME,
    VERSION,
    UNSUPPORTED,
    BOTH_SHAPES,
    RESPECTS_POLL,
    POLLS_UNTIL_TERMINAL,
    FULFILS_INPUT,
    KEYS_OUTSTANDING,
    ANSWERS_ONCE,
    NO_CANCELLED,
];

/// Where the extension's Tasks show a poller.
const SHAPE: Shape = Shape {
    interval_key: "pollIntervalMs",
    task_of,
    poll: "tasks/get",
    settles_when_sent: &["tasks/cancel"],
    settles_when_answered: &[],
    waits_on: &[],
    answers_input: Some("tasks/update"),
    cancels_request: "notifications/cancelled",
};

/// The Task an answer shows: a CreateTaskResult to a tools/call (the only request that
/// supports tasks; one to another request is not a task to follow), or a tasks/get result.
fn task_of(method: &str, _params: &Value, result: &Value) -> Option<Value> {
    let created = result.get("resultType").and_then(Value::as_str) == Some("task");
    (method == "tasks/get" || created && method == "tools/call").then(|| result.clone())
}

/// Judges a client by a recorded conversation (its messages `out`), given what it was asked
/// where taskcheck asked it (`None`: a client `taskcheck watch` saw do what it chose).
pub fn judge(entries: &[Entry], ask: Option<&Ask>) -> Vec<Check> {
    let polls = Polls::watch(entries, &SHAPE);
    let mut checks = Vec::new();
    let mut judge =
        |rule: &str, broken: Option<(String, u64)>, seen: Option<u64>, held: &str| match (
            broken, seen,
        ) {
            (Some((what, seq)), _) => checks.push(Check::judged(rule, false, what, vec![seq])),
            (None, Some(seq)) => checks.push(Check::judged(rule, true, held, vec![seq])),
            (None, None) => {}
        };
    judge(
        RESPECTS_POLL,
        polls.too_fast.clone(),
        polls.first_poll,
        &format!("polled no faster than {POLL_SHARE} of each pollIntervalMs"),
    );
    let (unfollowed, created) = unfollowed_tasks(entries);
    let left = polls.left(&SHAPE);
    // a task taken for no answer is left too: that is the MUST's consequence, one defect
    let left_unfollowed = left
        .as_ref()
        .is_some_and(|(task, ..)| unfollowed.as_ref().is_some_and(|(t, ..)| t == task));
    judge(
        POLLS_UNTIL_TERMINAL,
        left.map(|(_, what, seq)| (what, seq)),
        polls.first_poll,
        "polled every task until it ended or was cancelled",
    );
    let unanswered = polls
        .input_unanswered("tasks/update")
        .into_iter()
        .next()
        .map(|(id, seq)| {
            (
                format!(
                    "task {id:?} showed input_required and the client sent no tasks/update for it"
                ),
                seq,
            )
        });
    judge(
        FULFILS_INPUT,
        unanswered,
        polls.first_input_required(),
        "answered every task that showed input_required with tasks/update",
    );
    let keys = Keys::watch(entries);
    judge(
        KEYS_OUTSTANDING,
        keys.unknown,
        keys.first_update,
        "every inputResponses key was one the task had shown",
    );
    judge(
        ANSWERS_ONCE,
        keys.twice,
        keys.first_update,
        "no key was answered twice",
    );
    judge(
        NO_CANCELLED,
        cancelled_by_notification(entries),
        first_of(entries, "tasks/cancel"),
        "cancelled tasks with tasks/cancel only",
    );
    let (unnamed, named) = routing_names(entries);
    judge(
        MCP_NAME,
        unnamed,
        named,
        "every tasks request over HTTP carried Mcp-Name set to its taskId and Mcp-Method set to its method",
    );
    let (unversioned, versioned) = protocol_versions(entries);
    judge(
        VERSION,
        unversioned,
        versioned,
        "every request over HTTP carried MCP-Protocol-Version, the version its body names",
    );
    let (followed, plain) = phantom_tasks(entries);
    let unfollowed = unfollowed.map(|(_, what, seq)| (what, seq));
    judge(
        BOTH_SHAPES,
        followed.or(resent_after_result(entries, ask)).or(unfollowed),
        plain.or(created),
        "took a tools/call answered with its result as the answer, and one answered with a task as a task",
    );
    let (followed, handed) = foreign_tasks_followed(entries);
    judge(
        UNSUPPORTED,
        followed,
        handed,
        "did not follow a task handed out for a request that supports none",
    );
    if left_unfollowed && checks.iter().any(|c| c.rule == BOTH_SHAPES && c.broke()) {
        for check in checks
            .iter_mut()
            .filter(|c| c.rule == POLLS_UNTIL_TERMINAL && c.broke())
        {
            *check = check.clone().following(Root {
                rule: BOTH_SHAPES.into(),
                scenario: String::new(),
                step: None,
            });
        }
    }
    checks
}

/// What the client sent and got, as the requestor checks on task handles read it.
enum Seen {
    /// A request the client sent: its method, and the `taskId` it names (or "").
    Request {
        seq: u64,
        method: String,
        task: String,
    },
    /// A result the client got: the method of the request it answers, and the task a
    /// CreateTaskResult handed out.
    Result {
        seq: u64,
        method: Option<String>,
        task: Option<String>,
    },
}

/// Every request the client sent and result it got, in order.
fn seen(entries: &[Entry]) -> Vec<Seen> {
    let mut methods = HashMap::new();
    let mut out = Vec::new();
    for e in entries {
        let Some(msg) = e.decoded() else {
            continue;
        };
        match (e.dir, msg) {
            (Direction::Out, MessageRef::Request { id, method, params }) => {
                methods.insert(id.to_string(), method.to_string());
                let task = params.get("taskId").map(wire::id_text).unwrap_or_default();
                out.push(Seen::Request {
                    seq: e.seq,
                    method: method.to_string(),
                    task,
                });
            }
            (
                Direction::In,
                MessageRef::Response {
                    id,
                    outcome: OutcomeRef::Result(r),
                },
            ) => {
                let task = r.get("taskId").filter(|_| r["resultType"] == "task");
                out.push(Seen::Result {
                    seq: e.seq,
                    method: methods.get(&id.to_string()).cloned(),
                    task: task.map(wire::id_text),
                });
            }
            _ => {}
        }
    }
    out
}

/// Whether a request is about one task (its `taskId`).
fn about_a_task(method: &str) -> bool {
    matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
}

/// A tasks request about a task that a CreateTaskResult to another request than tools/call
/// handed out (a client taking that invalid response for a task); and the first such
/// CreateTaskResult.
fn foreign_tasks_followed(entries: &[Entry]) -> (Option<(String, u64)>, Option<u64>) {
    let mut foreign = HashMap::new();
    let mut first = None;
    for seen in seen(entries) {
        match seen {
            Seen::Request { seq, method, task } if about_a_task(&method) => {
                if let Some(answered) = foreign.get(&task) {
                    let what = format!("{method} of task {task:?}, which a CreateTaskResult to {answered} handed out: {answered} supports no task, so that answer is invalid");
                    return (Some((what, seq)), first);
                }
            }
            Seen::Result {
                seq,
                method,
                task: Some(task),
            } => {
                let method = method.unwrap_or_else(|| "tools/call".into());
                if method != "tools/call" {
                    foreign.insert(task, method);
                    first.get_or_insert(seq);
                }
            }
            _ => {}
        }
    }
    (None, first)
}

/// Over HTTP (a recording with the request headers): the first tasks/get, tasks/update or
/// tasks/cancel whose `Mcp-Name` is not its `taskId` or whose `Mcp-Method` is not its method,
/// and the first such request at all.
fn routing_names(entries: &[Entry]) -> (Option<(String, u64)>, Option<u64>) {
    let mut first = None;
    for e in entries {
        let (Some(headers), Some(message)) = (&e.headers, &e.message) else {
            continue;
        };
        let Ok(MessageRef::Request { method, params, .. }) = wire::classify_ref(message) else {
            continue;
        };
        if !about_a_task(method) {
            continue;
        }
        first.get_or_insert(e.seq);
        let task = params.get("taskId").and_then(Value::as_str);
        let name = headers.get(NAME_HEADER).and_then(|n| routing::decode(n));
        let named = headers.get(METHOD_HEADER).map(String::as_str);
        let got = match (name.as_deref() == task, named == Some(method)) {
            (true, true) => continue,
            (false, _) => name.map_or("no Mcp-Name".to_string(), |n| format!("Mcp-Name {n:?}")),
            (true, false) => named.map_or("no Mcp-Method".into(), |m| format!("Mcp-Method {m:?}")),
        };
        return (
            Some((format!("{method} of task {task:?} sent with {got}"), e.seq)),
            first,
        );
    }
    (None, first)
}

/// Over HTTP (a recording with the request headers): the first request whose
/// `MCP-Protocol-Version` is missing or not the version its body's `_meta` names, and the
/// first request at all.
fn protocol_versions(entries: &[Entry]) -> (Option<(String, u64)>, Option<u64>) {
    let mut first = None;
    for e in entries.iter().filter(|e| e.dir == Direction::Out) {
        let (Some(headers), Some(message)) = (&e.headers, &e.message) else {
            continue;
        };
        let Ok(MessageRef::Request { method, params, .. }) = wire::classify_ref(message) else {
            continue;
        };
        first.get_or_insert(e.seq);
        let named = params.pointer("/_meta").and_then(|m| m.get(META_VERSION));
        let sent = headers.get(VERSION_HEADER);
        let wrong = match (sent, named.and_then(Value::as_str)) {
            (None, _) => "no MCP-Protocol-Version".to_string(),
            (Some(h), Some(body)) if h != body => {
                format!("MCP-Protocol-Version {h:?}, its body naming {body:?}")
            }
            _ => continue,
        };
        return (Some((format!("{method} sent with {wrong}"), e.seq)), first);
    }
    (None, first)
}

/// A tasks request about a task no CreateTaskResult handed out, after a tools/call was
/// answered with its plain result (a client taking that result for a task); and the first such
/// plain result.
fn phantom_tasks(entries: &[Entry]) -> (Option<(String, u64)>, Option<u64>) {
    let mut handed = BTreeSet::new();
    let mut plain = None;
    for seen in seen(entries) {
        match seen {
            Seen::Request { seq, method, task }
                if about_a_task(&method) && plain.is_some() && !handed.contains(&task) =>
            {
                let what = format!("{method} of task {task:?}, which no CreateTaskResult handed out, after a tools/call was answered with its result");
                return (Some((what, seq)), plain);
            }
            Seen::Result {
                task: Some(task), ..
            } => {
                handed.insert(task);
            }
            Seen::Result {
                seq,
                method,
                task: None,
            } if method.as_deref() == Some("tools/call") => {
                plain.get_or_insert(seq);
            }
            _ => {}
        }
    }
    (None, plain)
}

/// A tools/call sent again after one was answered with its result, by a client asked to make
/// one call (taking that result for no answer): what, and where. An InputRequiredResult is no
/// result: the call is retried with the input it asked for.
fn resent_after_result(entries: &[Entry], ask: Option<&Ask>) -> Option<(String, u64)> {
    if ask.is_none_or(|ask| ask.calls() != 1) {
        return None;
    }
    let mut calls = BTreeSet::new();
    let mut answered = false;
    for e in entries {
        let Some(msg) = e.decoded() else {
            continue;
        };
        match (e.dir, msg) {
            (
                Direction::Out,
                MessageRef::Request {
                    id,
                    method: "tools/call",
                    ..
                },
            ) => {
                if answered {
                    let what = "sent its tools/call again after it was answered with its result, taking the result for no answer";
                    return Some((what.to_string(), e.seq));
                }
                calls.insert(id.to_string());
            }
            (
                Direction::In,
                MessageRef::Response {
                    id,
                    outcome: OutcomeRef::Result(r),
                },
            ) if calls.contains(&id.to_string()) => {
                let kind = r.get("resultType").and_then(Value::as_str);
                answered |= !matches!(kind, Some("task" | "input_required"));
            }
            _ => {}
        }
    }
    None
}

/// A task a CreateTaskResult to tools/call handed out that the client never polled, updated
/// or cancelled (taking that answer for no answer), unless it listened for task notifications
/// instead (`subscriptions/listen`), which may bring the task's end: the task, what, and where;
/// and the first such CreateTaskResult.
fn unfollowed_tasks(entries: &[Entry]) -> (Option<(String, String, u64)>, Option<u64>) {
    let seen = seen(entries);
    let listens = seen
        .iter()
        .any(|s| matches!(s, Seen::Request { method, .. } if method == "subscriptions/listen"));
    let asked_about: BTreeSet<&str> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Request { method, task, .. } if about_a_task(method) => Some(task.as_str()),
            _ => None,
        })
        .collect();
    let created: Vec<(&String, u64)> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Result {
                seq,
                method,
                task: Some(task),
            } if method.as_deref() == Some("tools/call") => Some((task, *seq)),
            _ => None,
        })
        .collect();
    let unfollowed = created
        .iter()
        .filter(|_| !listens)
        .find(|(task, _)| !asked_about.contains(task.as_str()))
        .map(|(task, seq)| {
            let what = format!("took the CreateTaskResult for its tools/call as no answer: never polled, updated or cancelled task {task:?}");
            (task.to_string(), what, *seq)
        });
    (unfollowed, created.first().map(|(_, seq)| *seq))
}

/// The first request the client sent with `method`.
fn first_of(entries: &[Entry], method: &str) -> Option<u64> {
    entries.iter().find_map(|e| {
        let msg = wire::classify_ref(e.message.as_ref()?).ok()?;
        match (e.dir, msg) {
            (Direction::Out, MessageRef::Request { method: m, .. }) if m == method => Some(e.seq),
            _ => None,
        }
    })
}

/// A notifications/cancelled naming a request that a CreateTaskResult answered: cancelling the
/// task the way the text forbids.
fn cancelled_by_notification(entries: &[Entry]) -> Option<(String, u64)> {
    let mut tasked = HashMap::new();
    for e in entries {
        let Some(msg) = e.decoded() else {
            continue;
        };
        match (e.dir, msg) {
            (
                Direction::In,
                MessageRef::Response {
                    id,
                    outcome: OutcomeRef::Result(r),
                },
            ) => {
                if let Some(task) = r.get("taskId").filter(|_| r["resultType"] == "task") {
                    tasked.insert(id.to_string(), wire::id_text(task));
                }
            }
            (
                Direction::Out,
                MessageRef::Notification {
                    method: "notifications/cancelled",
                    params,
                },
            ) => {
                let request = params.get("requestId").map(|r| r.to_string());
                if let Some(task) = request.and_then(|r| tasked.get(&r)) {
                    return Some((
                        format!(
                            "notifications/cancelled for the request that created task {task:?}"
                        ),
                        e.seq,
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// The `inputRequests` keys each task showed and those the client answered.
#[derive(Default)]
struct Keys {
    shown: BTreeMap<String, BTreeSet<String>>,
    answered: BTreeMap<String, BTreeSet<String>>,
    first_update: Option<u64>,
    unknown: Option<(String, u64)>,
    twice: Option<(String, u64)>,
}

impl Keys {
    fn watch(entries: &[Entry]) -> Keys {
        let mut k = Keys::default();
        for e in entries {
            let Some(msg) = e.decoded() else {
                continue;
            };
            match (e.dir, msg) {
                (
                    Direction::Out,
                    MessageRef::Request {
                        method: "tasks/update",
                        params,
                        ..
                    },
                ) => k.update(params, e.seq),
                (
                    Direction::In,
                    MessageRef::Response {
                        outcome: OutcomeRef::Result(r),
                        ..
                    },
                ) => {
                    let (Some(task), Some(requests)) = (
                        r.get("taskId").map(wire::id_text),
                        r.get("inputRequests").and_then(Value::as_object),
                    ) else {
                        continue;
                    };
                    k.shown
                        .entry(task)
                        .or_default()
                        .extend(requests.keys().cloned());
                }
                _ => {}
            }
        }
        k
    }

    fn update(&mut self, params: &Value, seq: u64) {
        self.first_update.get_or_insert(seq);
        let Some(task) = params.get("taskId").map(wire::id_text) else {
            return;
        };
        let shown = self.shown.get(&task).cloned().unwrap_or_default();
        let answered = self.answered.entry(task.clone()).or_default();
        for key in params
            .get("inputResponses")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|r| r.keys())
        {
            if !shown.contains(key) && self.unknown.is_none() {
                self.unknown = Some((
                    format!("tasks/update of task {task:?} answers key {key:?}, which the task never showed in inputRequests"),
                    seq,
                ));
            } else if shown.contains(key) && !answered.insert(key.clone()) && self.twice.is_none() {
                self.twice = Some((
                    format!("tasks/update of task {task:?} answers key {key:?} a second time"),
                    seq,
                ));
            }
        }
    }
}
