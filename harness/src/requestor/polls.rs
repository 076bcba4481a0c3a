//! How a requestor under test polled its tasks, from its recorded conversation (its messages
//! `out`): how far apart its polls of each task were against the interval the task suggested,
//! and which tasks it left while they worked. Each design says where its Tasks show
//! ([`Shape`]) and which of its rules each finding breaks. A poll the receiver refused (an
//! error answer) is the receiver's doing: it is neither too fast nor the last poll before a
//! requestor stopped. A task once settled (shown ended, its outcome fetched, or cancelled) is
//! no longer polled for: reading it again is not polling too fast.

use crate::reference::record;
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
    /// The method answering a task's input, after which the requestor polls on (None: the
    /// design answers input otherwise).
    pub answers_input: Option<&'static str>,
    /// The notification cancelling a request (`{"requestId": …}`): sent for the request that
    /// created a task, the requestor gave the task up (whether that is how to cancel a task is
    /// another rule's).
    pub cancels_request: &'static str,
}

/// What one task showed the requestor, and what the requestor sent about it.
#[derive(Default)]
pub struct Seen {
    /// The last interval suggested, in ms.
    pub interval: Option<u64>,
    /// When the requestor last answered the task's input.
    answered_input: Option<u64>,
    /// The last poll sent: when.
    last_poll: Option<u64>,
    /// The last status shown, with when and where.
    pub status: Option<(String, u64, u64)>,
    /// A terminal status was shown, an outcome answered, or the task cancelled.
    pub settled: bool,
    /// The first answer showing `input_required`.
    pub input_required: Option<u64>,
    /// The first answer showing a terminal status.
    ended: Option<u64>,
    /// Methods the requestor sent about the task, each with the first such message.
    pub sent: BTreeMap<String, u64>,
    /// The last poll answered was refused: the requestor need not poll on.
    refused: bool,
}

/// A poll waiting for its answer: its task, when it was sent and when the task was polled
/// before it, and the finding it makes too fast, if it does.
struct Pending {
    task: String,
    at: u64,
    before: Option<u64>,
    too_fast: Option<(String, u64)>,
}

/// The tasks of one conversation, as the requestor saw and polled them.
#[derive(Default)]
pub struct Polls {
    pub tasks: BTreeMap<String, Seen>,
    asked: HashMap<String, (String, Value)>,
    /// The task each request created, by the request's id.
    created: HashMap<String, String>,
    /// Polls sent, by request id, until they are answered.
    pending: HashMap<String, Pending>,
    /// Polls too soon after the one before and not refused: what, and where.
    too_soon: Vec<(String, u64)>,
    /// The first poll too soon after the one before: what, and where.
    pub too_fast: Option<(String, u64)>,
    /// The first poll sent.
    pub first_poll: Option<u64>,
    end_ms: u64,
    /// The requestor ended of itself (it was not stopped at its deadline).
    exited: bool,
}

impl Polls {
    pub fn watch(entries: &[Entry], shape: &Shape) -> Polls {
        let mut p = Polls::default();
        for e in entries {
            p.end_ms = p.end_ms.max(e.t_ms);
            if e.text.as_deref() == Some(record::ENDED) {
                p.exited = true;
            }
            let Some(msg) = e.decoded() else {
                continue;
            };
            match (e.dir, msg) {
                (Direction::Out, MessageRef::Request { id, method, params }) => {
                    p.asked
                        .insert(id.to_string(), (method.to_string(), params.clone()));
                    if let Some(pending) = p.sent(shape, method, params, e) {
                        p.pending.insert(id.to_string(), pending);
                    }
                }
                (Direction::In, MessageRef::Response { id, outcome }) => {
                    let Some((method, params)) = p.asked.get(&id.to_string()).cloned() else {
                        continue;
                    };
                    if let Some(poll) = p.pending.remove(&id.to_string()) {
                        p.answered(poll, matches!(outcome, OutcomeRef::Error(_)));
                    }
                    if let OutcomeRef::Result(result) = outcome {
                        if let Some(task) = (shape.task_of)(&method, &params, result) {
                            if let Some(t) = task.get("taskId").filter(|_| method != shape.poll) {
                                p.created.insert(id.to_string(), wire::id_text(t));
                            }
                            p.shown(shape, &task, e);
                        }
                    }
                    let answered = shape.settles_when_answered.contains(&method.as_str());
                    if let Some(t) = params.get("taskId").map(wire::id_text).filter(|_| answered) {
                        p.tasks.entry(t).or_default().settled = true;
                    }
                }
                (Direction::Out, MessageRef::Notification { method, params })
                    if method == shape.cancels_request =>
                {
                    let request = params.get("requestId").map(Value::to_string);
                    let task = request.and_then(|r| p.created.get(&r).cloned());
                    if let Some(t) = task.and_then(|t| p.tasks.get_mut(&t)) {
                        t.settled = true;
                    }
                }
                // a status notification settles nothing: requestors keep polling
                _ => {}
            }
        }
        // a poll never answered counts as sent
        let unanswered: Vec<Pending> = p.pending.drain().map(|(_, poll)| poll).collect();
        p.too_soon
            .extend(unanswered.into_iter().filter_map(|poll| poll.too_fast));
        p.too_fast = p.too_soon.iter().min_by_key(|(_, seq)| *seq).cloned();
        p
    }

    /// A poll answered: a refused one counts neither as too fast nor as a poll the next is
    /// measured from, and leaves the task for the receiver to have ended the polling.
    fn answered(&mut self, poll: Pending, refused: bool) {
        let Some(task) = self.tasks.get_mut(&poll.task) else {
            return;
        };
        task.refused = refused;
        match refused {
            // unless a later poll of the task was sent meanwhile
            true if task.last_poll == Some(poll.at) => task.last_poll = poll.before,
            true => {}
            false => self.too_soon.extend(poll.too_fast),
        }
    }

    /// A request the requestor sent; for a poll, what waits for its answer.
    fn sent(&mut self, shape: &Shape, method: &str, params: &Value, e: &Entry) -> Option<Pending> {
        let id = params.get("taskId").map(wire::id_text)?;
        let task = self.tasks.get_mut(&id)?;
        task.sent.entry(method.to_string()).or_insert(e.seq);
        if shape.settles_when_sent.contains(&method) {
            task.settled = true;
        }
        if shape.answers_input == Some(method) {
            task.answered_input = Some(e.t_ms);
        }
        if method != shape.poll {
            return None;
        }
        self.first_poll.get_or_insert(e.seq);
        let too_fast = match (task.last_poll, task.interval) {
            _ if task.settled => None,
            (Some(at), Some(interval)) => {
                let gap = e.t_ms.saturating_sub(at);
                ((gap as f64) < interval as f64 * POLL_SHARE).then(|| {
                    (format!("{method} of task {id:?} {gap} ms after the last one, while its suggested interval was {interval} ms"), e.seq)
                })
            }
            _ => None,
        };
        let before = task.last_poll.replace(e.t_ms);
        Some(Pending {
            task: id,
            at: e.t_ms,
            before,
            too_fast,
        })
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
                "completed" | "failed" | "cancelled" => {
                    t.settled = true;
                    t.ended.get_or_insert(e.seq);
                }
                "input_required" => {
                    t.input_required.get_or_insert(e.seq);
                }
                _ => {}
            }
        }
    }

    /// The first task the requestor left while it was last shown working, or shown
    /// `input_required` and then answered: neither settled nor waited on, and not polled for
    /// [`STOPPED_AFTER`] of its intervals before the conversation ended, or at all before the
    /// requestor ended of itself.
    pub fn stopped(&self, shape: &Shape) -> Option<(String, u64)> {
        self.left(shape).map(|(_, what, seq)| (what, seq))
    }

    /// [`Polls::stopped`], with the task left.
    pub fn left(&self, shape: &Shape) -> Option<(String, String, u64)> {
        self.tasks.iter().find_map(|(id, t)| {
            let (status, at, seq) = t.status.as_ref()?;
            let answered = t
                .answered_input
                .filter(|sent| status == "input_required" && sent >= at);
            let since = answered.unwrap_or(*at);
            let waited = self.end_ms.saturating_sub(since);
            let patience = match self.exited {
                true => 0,
                false => STOPPED_AFTER * t.interval.unwrap_or(1000).max(100),
            };
            let waiting = shape.waits_on.iter().any(|m| t.sent.contains_key(*m));
            let left = !t.settled && !t.refused && !waiting;
            let last = match (answered, shape.answers_input) {
                (Some(_), Some(method)) => format!("last shown input_required and answered with {method}"),
                _ => "last shown working".to_string(),
            };
            let unfollowed = status == "working" || answered.is_some();
            (left && unfollowed && waited >= patience).then(|| {
                let end = match self.exited {
                    true => "it ended",
                    false => "the conversation ended",
                };
                (id.clone(), format!("the requestor stopped polling task {id:?}, {last}, {waited} ms before {end}"), *seq)
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

    /// The first task that showed `input_required` and was sent `method` only after an
    /// answer showed it ended, with where it was sent.
    pub fn input_answered_late(&self, method: &str) -> Option<(String, u64)> {
        self.tasks.iter().find_map(|(id, t)| {
            t.input_required?;
            let sent = *t.sent.get(method)?;
            (sent > t.ended?).then(|| (id.clone(), sent))
        })
    }

    /// The first answer that showed some task `input_required`.
    pub fn first_input_required(&self) -> Option<u64> {
        self.tasks.values().filter_map(|t| t.input_required).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SHAPE: Shape = Shape {
        interval_key: "pollInterval",
        task_of: |_, _, result| Some(result.clone()),
        poll: "tasks/get",
        settles_when_sent: &[],
        settles_when_answered: &[],
        waits_on: &[],
        answers_input: Some("tasks/update"),
        cancels_request: "notifications/cancelled",
    };

    /// A task created at 0 ms (suggesting 1,000 ms between polls), then polls sent at the
    /// times given, each answered `working` or refused, and the conversation's end at 10 s.
    fn conversation(polls: &[(u64, bool)]) -> Polls {
        Polls::watch(&entries(polls), &SHAPE)
    }

    /// The entries of [`conversation`].
    fn entries(polls: &[(u64, bool)]) -> Vec<Entry> {
        let working = json!({"taskId": "t", "status": "working", "pollInterval": 1000});
        let mut entries = vec![
            Entry::of(
                1,
                Direction::Out,
                0,
                json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {}}),
            ),
            Entry::of(
                2,
                Direction::In,
                0,
                json!({"jsonrpc": "2.0", "id": 0, "result": working}),
            ),
        ];
        for (i, (at, refused)) in polls.iter().enumerate() {
            let id = i as u64 + 1;
            let seq = entries.len() as u64 + 1;
            let poll = json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"taskId": "t"}});
            let answer = match refused {
                true => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "busy"}})
                }
                false => json!({"jsonrpc": "2.0", "id": id, "result": working}),
            };
            entries.push(Entry::of(seq, Direction::Out, *at, poll));
            entries.push(Entry::of(seq + 1, Direction::In, *at, answer));
        }
        let end = entries.len() as u64 + 1;
        entries.push(Entry::of(
            end,
            Direction::In,
            10_000,
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
        ));
        entries
    }

    #[test]
    fn a_refused_poll_is_neither_too_fast_nor_the_last_before_stopping() {
        // polled once, answered working, then nothing for nine seconds: stopped
        assert!(conversation(&[(1000, false)]).stopped(&SHAPE).is_some());
        // its last poll refused: the receiver ended the polling
        assert!(conversation(&[(1000, false), (2000, true)])
            .stopped(&SHAPE)
            .is_none());
        // 100 ms after the last poll is too fast, unless that poll was refused
        let fast = conversation(&[(1000, false), (1100, false)]);
        assert!(fast.too_fast.is_some());
        let refused = conversation(&[(1000, false), (1100, true)]);
        assert_eq!(refused.too_fast, None);
        // and the poll after a refused one is measured from the last one answered
        let after = conversation(&[(1000, false), (1100, true), (2100, false)]);
        assert_eq!(after.too_fast, None);
        let close = conversation(&[(1000, false), (1100, true), (1500, false)]);
        assert!(close.too_fast.is_some());
    }
    #[test]
    fn a_requestor_with_string_ids_is_judged_as_one_with_numbers() {
        let with_string_ids = |polls: &[(u64, bool)]| {
            let renamed: Vec<Entry> = entries(polls)
                .into_iter()
                .map(|mut e| {
                    if let Some(id) = e.message.as_mut().and_then(|m| m.get_mut("id")) {
                        *id = json!(format!("req-{id}"));
                    }
                    e
                })
                .collect();
            Polls::watch(&renamed, &SHAPE)
        };
        let fast = with_string_ids(&[(1000, false), (1100, false)]);
        assert!(fast.too_fast.is_some());
        let apart = with_string_ids(&[(1000, false), (2000, false)]);
        assert_eq!(apart.too_fast, None);
        assert!(with_string_ids(&[(1000, false), (2000, true)])
            .stopped(&SHAPE)
            .is_none());
    }

    #[test]
    fn a_task_read_again_once_it_ended_is_not_polled_too_fast() {
        let mut ended = entries(&[(1000, false)]);
        let end = ended.pop().expect("the conversation's end");
        let done = json!({"taskId": "t", "status": "cancelled", "pollInterval": 1000});
        let get = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"taskId": "t"}});
        ended.push(Entry::of(5, Direction::Out, 1100, get(7)));
        ended.push(Entry::of(
            6,
            Direction::In,
            1100,
            json!({"jsonrpc": "2.0", "id": 7, "result": done}),
        ));
        ended.push(Entry::of(7, Direction::Out, 1150, get(8)));
        ended.push(Entry::of(
            8,
            Direction::In,
            1150,
            json!({"jsonrpc": "2.0", "id": 8, "result": done}),
        ));
        ended.push(end);
        let polls = Polls::watch(&ended, &SHAPE);
        // the poll at 1100 ms came 100 ms after the one before, while the task worked
        let (what, seq) = polls.too_fast.expect("too fast while working");
        assert_eq!(seq, 5, "{what}");
        assert_eq!(polls.too_soon.len(), 1, "{:?}", polls.too_soon);
    }
    #[test]
    fn a_task_answered_and_then_left_was_left_though_it_last_showed_input_required() {
        let input = json!({"taskId": "t", "status": "input_required", "pollInterval": 1000});
        let message = |id: u64, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"taskId": "t"}});
        let left = |answered: bool| {
            let mut entries = vec![
                Entry::of(1, Direction::Out, 0, message(1, "tasks/get")),
                Entry::of(
                    2,
                    Direction::In,
                    0,
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"taskId": "t"}}),
                ),
                Entry::of(3, Direction::Out, 1000, message(2, "tasks/get")),
                Entry::of(
                    4,
                    Direction::In,
                    1000,
                    json!({"jsonrpc": "2.0", "id": 2, "result": input}),
                ),
            ];
            if answered {
                entries.push(Entry::of(
                    5,
                    Direction::Out,
                    1200,
                    message(3, "tasks/update"),
                ));
            }
            let end = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
            entries.push(Entry::of(6, Direction::In, 10_000, end));
            Polls::watch(&entries, &SHAPE).stopped(&SHAPE)
        };
        let (what, _) = left(true).expect("answered, then never polled again");
        assert!(what.contains("answered with tasks/update"), "{what}");
        // never answered: that is fulfils-input's to judge, not a poller's
        assert_eq!(left(false), None);
    }
    #[test]
    fn a_requestor_that_ends_of_itself_leaves_the_tasks_it_did_not_follow() {
        // polled at 1000 ms, shown working, and the requestor ended 200 ms later
        let ending = |text: &str| {
            let mut entries = entries(&[(1000, false)]);
            entries.pop();
            entries.push(record::note(9, 1200, text.into()));
            Polls::watch(&entries, &SHAPE).stopped(&SHAPE)
        };
        let (what, _) = ending(record::ENDED).expect("ended of itself with the task working");
        assert!(what.contains("before it ended"), "{what}");
        // stopped at its deadline, it was still within its intervals
        assert_eq!(ending(record::STOPPED), None);
        // a task whose creating request it cancelled, it gave up (how is another rule's)
        let mut entries = entries(&[(1000, false)]);
        entries.pop();
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}});
        entries.push(Entry::of(9, Direction::Out, 1100, cancel));
        entries.push(record::note(10, 1200, record::ENDED.into()));
        assert_eq!(Polls::watch(&entries, &SHAPE).stopped(&SHAPE), None);
    }
}
