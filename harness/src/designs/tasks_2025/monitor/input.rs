//! Input a task needs from the requestor: the receiver's requests on behalf of a task carry
//! related-task `_meta`, the task reads `input_required` while they wait, they are sent once
//! the requestor asks for the result, and the task moves on once they are answered.

use super::*;

/// A request on behalf of a task names it in related-task `_meta` (MUST).
pub(super) const REQUEST_RELATED_TASK: &str = "tasks.input.request-related-task";
/// While its requests wait, the task is `input_required` (SHOULD).
pub(super) const MOVE_TO_INPUT_REQUIRED: &str = "tasks.input.move-to-input-required";
/// A task in `input_required` sends what it waits for (SHOULD).
pub(super) const REQUESTS_DELIVERED: &str = "tasks.input.requests-delivered";
/// Once answered, the task leaves `input_required` (SHOULD).
pub(super) const LEAVE_AFTER_INPUT: &str = "tasks.input.leave-after-input";

/// A task read `working` this long after its request came, the request still unanswered,
/// was not moved to `input_required` for it.
const SETTLE_MS: u64 = 1000;
/// A task still read `input_required` this long after its last request was answered, with
/// no new request since, did not move on.
const LEAVE_MS: u64 = 2000;
/// A tasks/result of an `input_required` task without any request of the receiver's while
/// it answered a request sent this much later did not get what it waits for.
const DELIVER_MS: u64 = 3000;

/// The requests a receiver sends for input.
const ASKS: [&str; 2] = ["elicitation/create", "sampling/createMessage"];

/// A request the receiver sent the requestor.
pub(super) struct Inbound {
    method: String,
    seq: u64,
    t_ms: u64,
    /// The task its related-task `_meta` names, or the one it was sent for, no plain request
    /// being open: the only task reading `input_required` when it came, or, for a request
    /// for input, the only unfinished one.
    task: Option<String>,
    /// Else, for a request for input that came while the one request open was a
    /// task-augmented one (its trace number), no task known unfinished: the task that request
    /// creates, once its CreateTaskResult names it.
    creating: Option<u64>,
    /// The requestor's answer: its trace number and time.
    answered: Option<(u64, u64)>,
}

impl Monitor<'_> {
    /// The receiver sent a request (`key` is its id, unique in the session).
    pub(super) fn inbound_request(&mut self, key: String, method: &str, params: &Value, e: &Entry) {
        if method == "ping" {
            return;
        }
        let named = wire::related_task_value(params).map(wire::id_text);
        // the requestors of one trace share the receiver: any plain request open may be why
        let plain_open = self
            .asked
            .values()
            .any(|a| !a.method.starts_with("tasks/") && a.params.get("task").is_none());
        let waiting: Vec<&String> = self
            .book
            .tasks
            .iter()
            .filter(|(_, k)| {
                k.before(e.seq)
                    .is_some_and(|s| s.status == TaskStatus::InputRequired)
            })
            .map(|(id, _)| id)
            .collect();
        // else a request for input while one task alone is unfinished, nothing else open,
        // can be for no one but that task
        let unfinished: Vec<&String> = match (&named, plain_open, waiting.is_empty()) {
            (None, false, true) if ASKS.contains(&method) => self
                .book
                .tasks
                .iter()
                .filter(|(_, k)| k.before(e.seq).is_some_and(|s| !s.status.is_terminal()))
                .map(|(id, _)| id)
                .collect(),
            _ => Vec::new(),
        };
        let task = match (
            &named,
            plain_open,
            waiting.as_slice(),
            unfinished.as_slice(),
        ) {
            (Some(id), _, _, _) => Some(id.clone()),
            (None, false, [only], _) => Some((*only).clone()),
            (None, false, [], [only]) => Some((*only).clone()),
            _ => None,
        };
        // or while the one request open was the task-augmented one that creates it
        let augmented: Vec<u64> = self
            .asked
            .values()
            .filter(|a| a.params.get("task").is_some() && !a.method.starts_with("tasks/"))
            .map(|a| a.seq)
            .collect();
        let creating = match (
            &task,
            named.is_none() && unfinished.is_empty(),
            augmented.as_slice(),
        ) {
            (None, true, [only]) if !plain_open && waiting.is_empty() && ASKS.contains(&method) => {
                Some(*only)
            }
            _ => None,
        };
        if let (None, Some(id)) = (&named, &task) {
            let why = match waiting.is_empty() {
                false => "read input_required",
                true => "was the only unfinished task",
            };
            self.unnamed(method, id, why, e.seq);
        } else if let Some(id) = &named {
            self.findings.judge(
                REQUEST_RELATED_TASK,
                true,
                None,
                || format!("{method} names task {id:?} in related-task _meta"),
                || vec![e.seq],
            );
        }
        self.inbound_index.insert(key, self.inbound.len());
        self.inbound.push(Inbound {
            method: method.to_string(),
            seq: e.seq,
            t_ms: e.t_ms,
            task,
            creating,
            answered: None,
        });
    }

    /// A request for input on behalf of task `id` came without related-task `_meta`.
    fn unnamed(&mut self, method: &str, id: &str, why: &str, seq: u64) {
        self.findings.judge(
            REQUEST_RELATED_TASK,
            false,
            None,
            || format!(
                "{method} came while task {id:?} {why} and no plain request was open, so on that task's behalf, without related-task _meta naming it"
            ),
            || vec![seq],
        );
    }

    /// The task-augmented request `asked` (its trace number) created task `id`: the requests
    /// for input that came while it alone was open are that task's.
    pub(super) fn input_of_created(&mut self, asked: u64, id: &str) {
        let mut found = Vec::new();
        for r in self
            .inbound
            .iter_mut()
            .filter(|r| r.creating == Some(asked))
        {
            r.task = Some(id.to_string());
            found.push((r.method.clone(), r.seq));
        }
        for (method, seq) in found {
            self.unnamed(&method, id, "was being created", seq);
        }
    }

    /// The requestor answered the receiver's request `key`.
    pub(super) fn inbound_answered(&mut self, key: &str, e: &Entry) {
        if let Some(i) = self.inbound_index.remove(key) {
            self.inbound[i].answered = Some((e.seq, e.t_ms));
        }
    }

    /// The task's status while its requests waited, whether they came, and whether it moved
    /// on once answered: judged once the session is over.
    pub(super) fn input_judged(&mut self) {
        let mut found = Vec::new();
        for r in &self.inbound {
            let Some(id) = &r.task else { continue };
            let Some(known) = self.book.get(id) else {
                continue;
            };
            let waiting_until = r.answered.map_or(u64::MAX, |(seq, _)| seq);
            // read while it waited, asked after it came
            let while_waiting: Vec<&book::Sighting> = known
                .sightings
                .iter()
                .filter(|s| s.asked.is_some_and(|a| a > r.seq) && s.received < waiting_until)
                .collect();
            {
                let shown = while_waiting
                    .iter()
                    .find(|s| s.status == TaskStatus::InputRequired);
                let working = while_waiting
                    .iter()
                    .find(|s| s.status == TaskStatus::Working && s.t_ms >= r.t_ms + SETTLE_MS);
                match (shown, working) {
                    (Some(_), _) => {}
                    (None, Some(s)) => found.push(find(
                        MOVE_TO_INPUT_REQUIRED,
                        false,
                        format!(
                            "task {id:?} read working {} ms after its {} came, the request still unanswered: it was not moved to input_required",
                            s.t_ms - r.t_ms,
                            r.method
                        ),
                        vec![r.seq, s.received],
                    )),
                    _ => {}
                }
            }
            let Some((answered, answered_ms)) = r.answered else {
                continue;
            };
            let asked_again = self
                .inbound
                .iter()
                .any(|other| other.task.as_ref() == Some(id) && other.seq > answered);
            if asked_again {
                continue;
            }
            let after: Vec<&book::Sighting> = known
                .sightings
                .iter()
                .filter(|s| s.asked.is_some_and(|a| a > answered))
                .collect();
            let vanished = self
                .missing
                .iter()
                .find(|(task, asked, _)| task == id && *asked > answered)
                .filter(|(_, _, seq)| self.expiry.vanished(*seq));
            if let (Some((_, _, seq)), true) = (vanished, after.is_empty()) {
                found.push(find(
                    LEAVE_AFTER_INPUT,
                    false,
                    format!("task {id:?} was not found once its input was answered"),
                    vec![answered, *seq],
                ));
            } else if let Some(s) = after.iter().find(|s| s.status != TaskStatus::InputRequired) {
                found.push(find(
                    LEAVE_AFTER_INPUT,
                    true,
                    format!(
                        "task {id:?} read {} once its input was answered",
                        s.status.as_str()
                    ),
                    vec![answered, s.received],
                ));
            } else if let Some(s) = after.iter().find(|s| s.t_ms >= answered_ms + LEAVE_MS) {
                found.push(find(
                    LEAVE_AFTER_INPUT,
                    false,
                    format!(
                        "task {id:?} still read input_required {} ms after its {} was answered, with no new request of it since",
                        s.t_ms - answered_ms,
                        r.method
                    ),
                    vec![r.seq, answered, s.received],
                ));
            }
        }
        found.extend(self.delivered());
        found.extend(self.input_shown());
        self.findings.extend(found);
    }

    /// Each task seen `input_required` moved there, as a task waiting for input does.
    fn input_shown(&self) -> Vec<Finding> {
        let mut ids: Vec<&String> = self.book.tasks.keys().collect();
        ids.sort();
        ids.into_iter()
            .filter_map(|id| {
                let s = self.book.tasks[id]
                    .sightings
                    .iter()
                    .find(|s| s.status == TaskStatus::InputRequired)?;
                Some(find(
                    MOVE_TO_INPUT_REQUIRED,
                    true,
                    format!("task {id:?} moved to input_required"),
                    vec![s.received],
                ))
            })
            .collect()
    }

    /// A tasks/result of a task reading `input_required`: the receiver sends what the task
    /// waits for, on any stream.
    fn delivered(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut ids: Vec<&String> = self.book.tasks.keys().collect();
        ids.sort();
        for id in ids {
            let known = &self.book.tasks[id];
            let came = self.inbound.iter().find(|r| r.task.as_ref() == Some(id));
            if let Some(r) = came {
                out.push(find(
                    REQUESTS_DELIVERED,
                    true,
                    format!("task {id:?} sent its {}", r.method),
                    vec![r.seq],
                ));
                continue;
            }
            let Some(f) = known.fetched.iter().find(|f| {
                known
                    .before(f.asked)
                    .is_some_and(|s| s.status == TaskStatus::InputRequired)
            }) else {
                continue;
            };
            // a task that moved on without asking did not need it after all
            let moved_on = known
                .sightings
                .iter()
                .any(|s| s.received > f.asked && s.status != TaskStatus::InputRequired);
            let later = self.latest_answered_sent_ms;
            if let (false, Some((sent_ms, seq))) = (moved_on, later) {
                let none_since = self.inbound.iter().all(|r| r.seq < f.asked);
                if sent_ms >= f.asked_ms + DELIVER_MS && none_since {
                    out.push(find(
                        REQUESTS_DELIVERED,
                        false,
                        format!(
                            "task {id:?} read input_required and its tasks/result was sent, but no request of the receiver's came, while it answered a request sent {} ms later (trace #{seq})",
                            sent_ms - f.asked_ms
                        ),
                        vec![f.asked, seq],
                    ));
                    // nobody could answer what never came: the task may well wait
                    out.push(Finding {
                        follows: Some(REQUESTS_DELIVERED),
                        ..find(
                            LEAVE_AFTER_INPUT,
                            false,
                            format!("task {id:?} never left input_required: what it waits for never came"),
                            vec![f.asked, seq],
                        )
                    });
                }
            }
        }
        out
    }
}
