//! How a requestor under test polled its tasks, from its recorded conversation (its messages
//! `out`): how far apart its polls of each task were against the interval the task suggested,
//! and which tasks it left while they worked. Each design says where its Tasks show
//! ([`Shape`]) and which of its rules each finding breaks.

use crate::trace::{Direction, Entry};
use crate::wire::{self, MessageRef, OutcomeRef};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Two polls of one task closer than this share of its last suggested interval poll too fast
/// (the slack is for timers and scheduling).
pub const POLL_SHARE: f64 = 0.8;
/// A requestor that let this many of a task's intervals (at least 100 ms each) pass since the
/// task was last shown working, without polling it again, stopped polling.
pub const STOPPED_AFTER: u64 = 3;

/// Where a design's Tasks show and what its methods mean to a poller.
pub struct Shape {
    /// The Task field suggesting the poll interval, in ms.
    pub interval_key: &'static str,
    /// The Task an answer (to `method` with `params`) shows the requestor, if it shows one.
    pub task_of: fn(method: &str, params: &Value, result: &Value) -> Option<Value>,
    /// The method that polls a task.
    pub poll: &'static str,
    /// Methods whose sending settles a task for the poller (it cancelled it).
    pub settles_when_sent: &'static [&'static str],
    /// Methods whose answer settles a task (it brought the outcome).
    pub settles_when_answered: &'static [&'static str],
    /// Methods after which the requestor need not poll (it waits on them instead).
    pub waits_on: &'static [&'static str],
}

/// What one task showed the requestor, and what the requestor sent about it.
#[derive(Default)]
pub struct Seen {
    /// The last interval suggested, in ms.
    pub interval: Option<u64>,
    /// The last poll sent: when.
    last_poll: Option<u64>,
    /// The last status shown, with when and where.
    pub status: Option<(String, u64, u64)>,
    /// A terminal status was shown, an outcome answered, or the task cancelled.
    pub settled: bool,
    /// The first answer showing `input_required`.
    pub input_required: Option<u64>,
    /// Methods the requestor sent about the task, each with the first such message.
    pub sent: BTreeMap<String, u64>,
}

/// The tasks of one conversation, as the requestor saw and polled them.
#[derive(Default)]
pub struct Polls {
    pub tasks: BTreeMap<String, Seen>,
    asked: HashMap<String, (String, Value)>,
    /// The first poll too soon after the one before: what, and where.
    pub too_fast: Option<(String, u64)>,
    /// The first poll sent.
    pub first_poll: Option<u64>,
    end_ms: u64,
}

impl Polls {
    pub fn watch(entries: &[Entry], shape: &Shape) -> Polls {
        let mut p = Polls::default();
        for e in entries {
            p.end_ms = p.end_ms.max(e.t_ms);
            let Some(msg) = e.message.as_ref().and_then(|m| wire::classify_ref(m).ok()) else {
                continue;
            };
            match (e.dir, msg) {
                (Direction::Out, MessageRef::Request { id, method, params }) => {
                    p.asked
                        .insert(id.to_string(), (method.to_string(), params.clone()));
                    p.sent(shape, method, params, e);
                }
                (Direction::In, MessageRef::Response { id, outcome }) => {
                    let Some((method, params)) = p.asked.get(&id.to_string()).cloned() else {
                        continue;
                    };
                    if let OutcomeRef::Result(result) = outcome {
                        if let Some(task) = (shape.task_of)(&method, &params, result) {
                            p.shown(shape, &task, e);
                        }
                    }
                    let answered = shape.settles_when_answered.contains(&method.as_str());
                    if let Some(t) = params.get("taskId").map(wire::id_text).filter(|_| answered) {
                        p.tasks.entry(t).or_default().settled = true;
                    }
                }
                // a status notification settles nothing: requestors keep polling
                _ => {}
            }
        }
        p
    }

    fn sent(&mut self, shape: &Shape, method: &str, params: &Value, e: &Entry) {
        let Some(id) = params.get("taskId").map(wire::id_text) else {
            return;
        };
        let Some(task) = self.tasks.get_mut(&id) else {
            return;
        };
        task.sent.entry(method.to_string()).or_insert(e.seq);
        if shape.settles_when_sent.contains(&method) {
            task.settled = true;
        }
        if method != shape.poll {
            return;
        }
        self.first_poll.get_or_insert(e.seq);
        if let (Some(at), Some(interval)) = (task.last_poll, task.interval) {
            let gap = e.t_ms.saturating_sub(at);
            if (gap as f64) < interval as f64 * POLL_SHARE && self.too_fast.is_none() {
                self.too_fast = Some((
                    format!("{method} of task {id:?} {gap} ms after the last one, while its suggested interval was {interval} ms"),
                    e.seq,
                ));
            }
        }
        task.last_poll = Some(e.t_ms);
    }

    /// A Task the receiver showed.
    fn shown(&mut self, shape: &Shape, task: &Value, e: &Entry) {
        let Some(id) = task.get("taskId").map(wire::id_text) else {
            return;
        };
        let t = self.tasks.entry(id).or_default();
        if let Some(i) = task.get(shape.interval_key).and_then(Value::as_u64) {
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

    /// The first task the requestor left while it was last shown working: neither settled
    /// nor waited on, and not polled for [`STOPPED_AFTER`] of its intervals before the
    /// conversation ended.
    pub fn stopped(&self, shape: &Shape) -> Option<(String, u64)> {
        self.tasks.iter().find_map(|(id, t)| {
            let (status, at, seq) = t.status.as_ref()?;
            let waited = self.end_ms.saturating_sub(*at);
            let patience = STOPPED_AFTER * t.interval.unwrap_or(1000).max(100);
            let waiting = shape.waits_on.iter().any(|m| t.sent.contains_key(*m));
            (!t.settled && !waiting && status == "working" && waited >= patience).then(|| {
                (format!("the requestor stopped polling task {id:?}, last shown working, {waited} ms before the conversation ended"), *seq)
            })
        })
    }

    /// Tasks that showed `input_required` and were never sent `method`, with where.
    pub fn input_unanswered(&self, method: &str) -> BTreeSet<(String, u64)> {
        self.tasks
            .iter()
            .filter(|(_, t)| !t.sent.contains_key(method))
            .filter_map(|(id, t)| Some((id.clone(), t.input_required?)))
            .collect()
    }

    /// The first answer that showed some task `input_required`.
    pub fn first_input_required(&self) -> Option<u64> {
        self.tasks.values().filter_map(|t| t.input_required).min()
    }
}
