//! The 2025-11-25 monitor: checks that watch every message of a session, a pure function of
//! the trace (`conduct` checks taskcheck's own conduct as a requestor, `expiry` early expiry).

mod conduct;
mod expiry;

pub use conduct::CONDUCT_RULES;

use crate::model::{Finding, Model, Observation, Source, TaskStatus};
use crate::monitor::{
    entropy, has_capability, key, peer_of, Context, Judgement, Tally,
};
use crate::schema::{self, Shape};
use crate::trace::{Direction, Entry};
use crate::verdict::{Check, Verdict};
use crate::wire::{self, MessageRef, OutcomeRef};
use conduct::Conduct;
use expiry::Expiry;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The capability that lets a request type be task-augmented (None: it never can be).
pub fn task_capability(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => Some("tasks.requests.tools.call"),
        "sampling/createMessage" => Some("tasks.requests.sampling.createMessage"),
        "elicitation/create" => Some("tasks.requests.elicitation.create"),
        _ => None,
    }
}

/// Every rule a monitor judges.
pub const MONITOR_RULES: [&str; 26] = [
    "tasks.capability.requestor-augments-declared-only",
    "tasks.progress.stops-when-terminal",
    "tasks.cancel.stop-execution",
    "tasks.ttl.timestamps-rfc3339",
    "tasks.http.no-sse-for-get",
    "tasks.capability.declare",
    "tasks.id.string",
    "tasks.id.unique",
    "tasks.lifecycle.terminal-final",
    "tasks.ttl.created-at",
    "tasks.ttl.last-updated-at",
    "tasks.ttl.created-at-constant",
    "tasks.ttl.last-updated-monotonic",
    "tasks.ttl.get-includes-ttl",
    "tasks.ttl.no-early-expiry",
    "tasks.ttl.override",
    "tasks.create.model-immediate-response",
    "tasks.meta.result-related-task",
    "tasks.meta.no-related-task-in-results",
    "tasks.meta.related-messages",
    "tasks.notify.no-related-task",
    "tasks.failed.status-message",
    "tasks.errors.informative-message",
    "tasks.security.secure-ids",
    "tasks.schema.receiver-messages",
    "tasks.schema.official",
];

/// The rule a task that vanished before its ttl breaks.
pub const EARLY_EXPIRY: &str = "tasks.ttl.no-early-expiry";

/// Task ids must be unguessable where tasks cannot be bound to an authorization context.
const SECURE_IDS: &str = "tasks.security.secure-ids";

/// A request taskcheck sent, waiting for its answer.
struct Asked {
    /// The request's JSON-RPC id, as text.
    id: String,
    method: String,
    params: Value,
    seq: u64,
    t_ms: u64,
}

struct Monitor<'a> {
    ctx: &'a Context<'a>,
    findings: Tally,
    model: Model,
    expiry: Expiry,
    conduct: Conduct<'a>,
    asked: HashMap<String, Asked>,
    /// Methods of the receiver's requests, by id.
    theirs: HashMap<String, String>,
    /// Progress tokens of task-augmented requests: the task id and when it was created.
    progress: HashMap<String, (String, u64)>,
    /// Tasks with a progress token, by id: when each was first seen terminal, and the first
    /// progress received after that.
    progressing: HashMap<String, Progressing>,
    created: BTreeSet<String>,
    /// The method of the request that created each task, by task id.
    task_methods: HashMap<String, String>,
    /// What taskcheck itself declared in the handshake.
    own_capabilities: Value,
    /// Messages of the receiver's own naming a task in related-task `_meta`: (what, task, seq).
    naming: Vec<(String, String, u64)>,
}

/// A task whose request carried a progress token.
#[derive(Default)]
struct Progressing {
    /// The first terminal status seen, its trace number and time.
    terminal: Option<(TaskStatus, u64, u64)>,
    /// The first progress received (long enough) after that.
    late: Option<u64>,
}

/// Over HTTP, progress and answers travel on different streams: a progress counts as sent
/// after a terminal status only if it came this much later than the answer that showed it.
const CROSS_STREAM_MS: u64 = 1000;

/// Messages about a task carry related-task `_meta` naming it.
const RELATED_MESSAGES: &str = "tasks.meta.related-messages";

/// A requestor augments only request types the receiver declared.
const AUGMENTS_DECLARED_ONLY: &str = "tasks.capability.requestor-augments-declared-only";

/// Progress after a terminal status breaks this rule.
const STOPS_WHEN_TERMINAL: &str = "tasks.progress.stops-when-terminal";
/// Progress after a cancellation shows the work went on.
const STOP_EXECUTION: &str = "tasks.cancel.stop-execution";

/// Judges a whole trace; one check per rule exercised (the first failure, or a pass).
pub fn judge(entries: &[Entry], ctx: &Context) -> Judgement {
    let mut m = Monitor {
        ctx,
        findings: Tally::default(),
        model: Model::default(),
        expiry: Expiry::default(),
        conduct: Conduct::new(ctx.capabilities, ctx.breaks),
        asked: HashMap::new(),
        theirs: HashMap::new(),
        progress: HashMap::new(),
        progressing: HashMap::new(),
        created: BTreeSet::new(),
        task_methods: HashMap::new(),
        own_capabilities: Value::Null,
        naming: Vec::new(),
    };
    for e in entries {
        m.entry(e);
    }
    m.ids();
    m.progress_stopped();
    m.named_tasks_exist();
    let (mut checks, because) = m.findings.checks();
    if ctx.authorization {
        for c in checks.iter_mut().filter(|c| c.rule == SECURE_IDS) {
            *c = Check::with(
                SECURE_IDS,
                Verdict::NotApplicable,
                "the run gives two credentials, an authorization context to bind tasks to (tasks.security.bind-context judges that the receiver does); unguessable ids are required only without one",
            );
        }
    }
    Judgement {
        checks,
        because,
        harness_errors: m.conduct.errors(),
        vanished: m
            .expiry
            .vanished_answers()
            .into_iter()
            .map(|(answer, first)| (answer, (first, EARLY_EXPIRY)))
            .collect(),
    }
}

fn find(rule: &'static str, held: bool, message: String, evidence: Vec<u64>) -> Finding {
    Finding::new(rule, held, message, evidence)
}

impl Monitor<'_> {
    fn entry(&mut self, e: &Entry) {
        let Some(value) = &e.message else { return };
        let Ok(msg) = wire::classify_ref(value) else {
            return;
        };
        match (e.dir, msg) {
            (Direction::Out, MessageRef::Request { id, method, params }) => {
                if method == "initialize" {
                    self.own_capabilities = params["capabilities"].clone();
                }
                self.conduct.request(method, params, e.seq);
                let shape = Shape::Request {
                    method,
                    message: value,
                };
                self.schemas(e, &shape);
                if method == "tasks/cancel" {
                    if let Some(t) = params.get("taskId") {
                        self.expiry.cancel_sent(&wire::id_text(t));
                    }
                }
                self.asked.insert(
                    key(e, id),
                    Asked {
                        id: wire::id_text(id),
                        method: method.to_string(),
                        params: params.clone(),
                        seq: e.seq,
                        t_ms: e.t_ms,
                    },
                );
            }
            (dir, MessageRef::Request { id, method, params }) => {
                self.schemas(
                    e,
                    &Shape::Request {
                        method,
                        message: value,
                    },
                );
                if dir == Direction::In {
                    self.augments(method, params, e);
                    self.names_a_task(method, params, e);
                    self.theirs.insert(key(e, id), method.to_string());
                }
            }
            (_, MessageRef::Notification { method, params }) => {
                self.schemas(
                    e,
                    &Shape::Notification {
                        method,
                        message: value,
                    },
                );
                if e.dir == Direction::In {
                    self.notification(method, params, e);
                }
            }
            (Direction::Out, MessageRef::Response { id, outcome }) => {
                let method = self.theirs.remove(&key(e, id)).unwrap_or_default();
                match outcome {
                    OutcomeRef::Result(result) => self.schemas(
                        e,
                        &Shape::Result {
                            method: &method,
                            request_params: &Value::Null,
                            result,
                            task_of: None,
                        },
                    ),
                    OutcomeRef::Error(_) => self.schemas(e, &Shape::Error { message: value }),
                }
            }
            (_, MessageRef::Response { id, outcome }) => {
                let Some(asked) = self.asked.remove(&key(e, id)) else {
                    return;
                };
                if asked.method == "tasks/get" {
                    self.no_sse_for_get(e);
                }
                let found = match outcome {
                    OutcomeRef::Result(result) => {
                        let task_of = asked
                            .params
                            .get("taskId")
                            .and_then(|id| self.task_methods.get(&wire::id_text(id)))
                            .cloned();
                        self.schemas(
                            e,
                            &Shape::Result {
                                method: &asked.method,
                                request_params: &asked.params,
                                result,
                                task_of: task_of.as_deref(),
                            },
                        );
                        self.result(&asked, result, e);
                        Some(true)
                    }
                    OutcomeRef::Error(error) => {
                        self.schemas(e, &Shape::Error { message: value });
                        self.error(error, e);
                        wire::says_task_not_found(&asked.method, error).then_some(false)
                    }
                };
                self.looked_up(&asked, e, found);
            }
        }
    }

    /// A request the receiver sends taskcheck: as its requestor, it augments only what
    /// taskcheck declared (and taskcheck declares no `tasks` capability).
    fn augments(&mut self, method: &str, params: &Value, e: &Entry) {
        if params.get("task").is_none() {
            return;
        }
        let declared =
            task_capability(method).is_some_and(|c| has_capability(&self.own_capabilities, c));
        self.findings.push(find(
            AUGMENTS_DECLARED_ONLY,
            declared,
            match declared {
                true => format!("task-augmented {method}, which taskcheck declared"),
                false => format!(
                    "the receiver sent taskcheck a task-augmented {method}, a request type taskcheck never declared task support for"
                ),
            },
            vec![e.seq],
        ));
    }

    /// Over HTTP: a tasks/get answer should be plain JSON, not an SSE stream.
    fn no_sse_for_get(&mut self, e: &Entry) {
        let Some(via) = e.via.as_deref().filter(|v| v.starts_with("POST")) else {
            return;
        };
        let sse = via.contains("text/event-stream");
        self.findings.push(find(
            "tasks.http.no-sse-for-get",
            !sse,
            format!("tasks/get answered as {via}"),
            vec![e.seq],
        ));
    }

    /// Validates a message against the built-in schema and the official one, if given.
    fn schemas(&mut self, e: &Entry, shape: &Shape) {
        let builtin = schema::violations(schema::builtin(), shape);
        let official = self.ctx.official.map(|s| schema::violations(s, shape));
        if e.dir == Direction::Out {
            self.conduct.invalid(&builtin, e.seq);
            self.conduct
                .invalid(official.as_deref().unwrap_or_default(), e.seq);
            return;
        }
        let describe = |v: &[schema::Violation], origin: &str| match v {
            [] => format!("valid against the {origin}"),
            [first] => first.to_string(),
            [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
        };
        self.findings.push(Finding {
            follows: explained_by_field(&builtin),
            ..find(
                "tasks.schema.receiver-messages",
                builtin.is_empty(),
                describe(&builtin, "built-in Tasks schema"),
                vec![e.seq],
            )
        });
        if let (Some(v), Some(set)) = (official, self.ctx.official) {
            let message = describe(&v, &set.origin);
            self.findings.push(Finding {
                follows: explained_by_field(&v),
                ..find("tasks.schema.official", v.is_empty(), message, vec![e.seq])
            });
        }
    }

    /// Feeds one Task object to the model and the expiry tracker.
    fn observe(&mut self, task: &Value, source: Source, e: &Entry, asked: Option<u64>) {
        let obs = Observation {
            task,
            source,
            received: e.seq,
            asked,
        };
        self.findings.extend(self.model.observe(&obs));
        let Some(raw_id) = task.get("taskId") else {
            return;
        };
        self.conduct.task_id_received(raw_id);
        let id = wire::id_text(raw_id);
        if let Some(ttl) = task.get("ttl") {
            self.expiry.ttl_reported(&id, ttl.as_u64());
        }
        let status = task
            .get("status")
            .and_then(Value::as_str)
            .and_then(TaskStatus::parse);
        if status == Some(TaskStatus::Cancelled) {
            self.expiry.exempt(&id);
        }
        if let (Some(s), Some(p)) = (status, self.progressing.get_mut(&id)) {
            if s.is_terminal() && p.terminal.is_none() {
                p.terminal = Some((s, e.seq, e.t_ms));
            }
        }
    }

    fn result(&mut self, asked: &Asked, result: &Value, e: &Entry) {
        let augmented = asked.params.get("task").is_some();
        if let Some(task) = result.get("task").filter(|t| augmented && t.is_object()) {
            return self.created(asked, task, result, e);
        }
        let method = asked.method.as_str();
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
                self.findings.push(find(
                    "tasks.meta.result-related-task",
                    want.is_some() && got == want,
                    match got {
                        Some(g) => format!(
                            "tasks/result _meta related-task taskId {g:?}, requested {:?}",
                            want.as_deref().unwrap_or_default()
                        ),
                        None => "tasks/result result has no related-task _meta".into(),
                    },
                    vec![e.seq],
                ));
            }
            _ => {}
        }
    }

    /// A CreateTaskResult answered a task-augmented request.
    fn created(&mut self, asked: &Asked, task: &Value, result: &Value, e: &Entry) {
        let id = task.get("taskId").map(wire::id_text).unwrap_or_default();
        self.expiry.created(&id, peer_of(e), asked.t_ms);
        self.created.insert(id.clone());
        self.task_methods.insert(id.clone(), asked.method.clone());
        if id == asked.id {
            self.findings.push(find(
                SECURE_IDS,
                false,
                format!(
                    "task id {id:?} is the id of the request that created it: anyone can guess it"
                ),
                vec![asked.seq, e.seq],
            ));
        }
        if let Some(token) = asked.params.pointer("/_meta/progressToken") {
            self.progress.insert(token.to_string(), (id.clone(), e.seq));
            self.progressing.insert(id.clone(), Progressing::default());
        }
        self.observe(task, Source::Create, e, Some(asked.seq));
        let method = &asked.method;
        let declared =
            task_capability(method).is_some_and(|c| has_capability(self.ctx.capabilities, c));
        self.findings.push(find(
            "tasks.capability.declare",
            declared,
            if declared {
                format!("task created for {method}, a declared request type")
            } else {
                format!("a CreateTaskResult answered {method}, but the receiver never declared task support for it")
            },
            vec![asked.seq, e.seq],
        ));
        let immediate = result
            .get("_meta")
            .and_then(|m| m.get(wire::MODEL_IMMEDIATE_RESPONSE));
        self.findings.push(find(
            "tasks.create.model-immediate-response",
            true,
            match immediate {
                Some(v) => format!(
                    "CreateTaskResult carries model-immediate-response {}",
                    crate::matcher::short(v)
                ),
                None => "CreateTaskResult without model-immediate-response".into(),
            },
            vec![e.seq],
        ));
        let requested = asked.params.pointer("/task/ttl");
        self.findings.push(find(
            "tasks.ttl.override",
            true,
            format!(
                "requested ttl {}, granted {}",
                requested
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(none)".into()),
                task.get("ttl")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(none)".into())
            ),
            vec![asked.seq, e.seq],
        ));
    }

    fn error(&mut self, error: &Value, e: &Entry) {
        let message = error.get("message").and_then(Value::as_str);
        self.findings.push(find(
            "tasks.errors.informative-message",
            message.is_some_and(|m| !m.trim().is_empty()),
            match message {
                Some(m) if !m.trim().is_empty() => format!("error message {m:?}"),
                _ => format!(
                    "error {} has no informative message",
                    crate::matcher::short(error)
                ),
            },
            vec![e.seq],
        ));
    }

    /// A tasks/get, tasks/result or tasks/cancel with a string `taskId` was answered with a
    /// result (`Some(true)`), an error saying the task does not exist (`Some(false)`), or
    /// another error (`None`, no evidence either way): judged for early expiry.
    fn looked_up(&mut self, asked: &Asked, e: &Entry, found: Option<bool>) {
        let method = asked.method.as_str();
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
        let Some(found) = found else { return };
        let evidence = vec![asked.seq, e.seq];
        let finding = self
            .expiry
            .lookup(method, id, peer_of(e), found, e.t_ms, evidence);
        self.findings.extend(finding);
    }

    /// A message the receiver sent on its own that names a task in related-task `_meta`:
    /// judged once the session is over (it may come before its CreateTaskResult).
    fn names_a_task(&mut self, what: &str, params: &Value, e: &Entry) {
        if let Some(named) = wire::related_task_value(params).map(wire::id_text) {
            self.naming.push((what.to_string(), named, e.seq));
        }
    }

    /// Each task named in related-task `_meta` is one of the session's tasks (the key names
    /// the right task, not merely some task).
    fn named_tasks_exist(&mut self) {
        // a task-augmented request never answered may have created a task no one learned of
        let unanswered = self.asked.values().any(|a| a.params.get("task").is_some());
        for (what, named, seq) in std::mem::take(&mut self.naming) {
            let known = self.created.contains(&named);
            if !known && unanswered {
                continue;
            }
            self.findings.push(find(
                RELATED_MESSAGES,
                known,
                match known {
                    true => format!("{what} names task {named:?} in related-task _meta"),
                    false => format!(
                        "{what} names task {named:?} in related-task _meta, which no CreateTaskResult of this session gave"
                    ),
                },
                vec![seq],
            ));
        }
    }

    fn notification(&mut self, method: &str, params: &Value, e: &Entry) {
        if method != "notifications/tasks/status" {
            self.names_a_task(method, params, e);
        }
        match method {
            "notifications/tasks/status" => {
                self.observe(params, Source::StatusNotification, e, None);
                self.findings.push(find(
                    "tasks.notify.no-related-task",
                    !wire::has_related_task(params),
                    "notifications/tasks/status related-task _meta".into(),
                    vec![e.seq],
                ));
            }
            "notifications/progress" => {
                let token = params.get("progressToken").map(Value::to_string);
                let Some((task, created)) = token.and_then(|t| self.progress.get(&t)) else {
                    return;
                };
                if e.seq < *created {
                    return;
                }
                let (task, created) = (task.clone(), *created);
                if let Some(p) = self.progressing.get_mut(&task) {
                    if let (Some((_, seq, t_ms)), None) = (p.terminal, p.late) {
                        let later = e.transport != "http" || e.t_ms >= t_ms + CROSS_STREAM_MS;
                        if e.seq > seq && later {
                            p.late = Some(e.seq);
                        }
                    }
                }
                let got = wire::related_task_value(params).map(wire::id_text);
                self.findings.push(find(
                    RELATED_MESSAGES,
                    got.as_ref() == Some(&task),
                    match got {
                        Some(g) => {
                            format!("progress of task {task:?} carries related-task taskId {g:?}")
                        }
                        None => format!("progress of task {task:?} has no related-task _meta"),
                    },
                    vec![created, e.seq],
                ));
            }
            _ => {}
        }
    }

    /// Progress after a task was seen terminal: its work went on after a cancellation
    /// (the root), or its notifications did not stop.
    fn progress_stopped(&mut self) {
        for (task, p) in std::mem::take(&mut self.progressing) {
            let Some((status, seen, _)) = p.terminal else {
                continue;
            };
            let evidence = p.late.map(|l| vec![seen, l]).unwrap_or_default();
            let message = match p.late {
                None => format!(
                    "no progress of task {task:?} after it was seen {}",
                    status.as_str()
                ),
                Some(l) => format!(
                    "progress of task {task:?} (trace #{l}) after it was seen {} (trace #{seen})",
                    status.as_str()
                ),
            };
            let cancelled = status == TaskStatus::Cancelled;
            if cancelled {
                self.findings.push(find(
                    STOP_EXECUTION,
                    p.late.is_none(),
                    format!("{message}: the work went on after the cancellation"),
                    evidence.clone(),
                ));
            }
            self.findings.push(Finding {
                follows: cancelled.then_some(STOP_EXECUTION),
                ..find(STOPS_WHEN_TERMINAL, p.late.is_none(), message, evidence)
            });
        }
    }

    /// Task-id guessability over every id the session created.
    fn ids(&mut self) {
        if self.created.len() < entropy::MIN_SAMPLE {
            return;
        }
        let ids: Vec<String> = self.created.iter().cloned().collect();
        let bits = entropy::estimate_bits(&ids);
        let examples: Vec<&String> = ids.iter().take(3).collect();
        self.findings.push(find(
            SECURE_IDS,
            !entropy::too_low(bits),
            format!(
                "{} task ids estimate {bits:.0} bits of entropy (floor {} bits, less a {}-bit margin for the estimate), e.g. {examples:?}",
                ids.len(),
                entropy::FLOOR_BITS,
                entropy::MARGIN_BITS
            ),
            Vec::new(),
        ));
    }
}

/// The task field rule that explains every schema violation of a message, if one does: a
/// missing `ttl` breaks `tasks.ttl.get-includes-ttl` first, a non-string `taskId`
/// `tasks.id.string`, a missing timestamp its own rule (one defect, one failure).
fn explained_by_field(violations: &[schema::Violation]) -> Option<&'static str> {
    let rule_of = |v: &schema::Violation| {
        // a missing field: `"ttl" is a required property`; a wrong one: its pointer's end
        let field = match v.reason.ends_with("is a required property") {
            true => v.reason.split('"').nth(1)?.to_string(),
            false => v.pointer.rsplit('/').next()?.to_string(),
        };
        match field.as_str() {
            "ttl" => Some("tasks.ttl.get-includes-ttl"),
            "taskId" => Some("tasks.id.string"),
            "createdAt" => Some("tasks.ttl.created-at"),
            "lastUpdatedAt" => Some("tasks.ttl.last-updated-at"),
            _ => None,
        }
    };
    let first = rule_of(violations.first()?)?;
    violations
        .iter()
        .all(|v| rule_of(v) == Some(first))
        .then_some(first)
}

fn no_related_task_in_result(method: &str, result: &Value, seq: u64) -> Finding {
    let held = !wire::has_related_task(result);
    find(
        "tasks.meta.no-related-task-in-results",
        held,
        if held {
            format!("{method} result without related-task _meta")
        } else {
            format!("{method} result carries related-task _meta")
        },
        vec![seq],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;
    use serde_json::json;

    fn entry(seq: u64, dir: Direction, t_ms: u64, message: Value) -> Entry {
        Entry::of(seq, dir, t_ms, message)
    }

    fn task(id: &str, status: &str) -> Value {
        json!({"taskId": id, "status": status, "createdAt": "2025-11-25T10:00:00Z",
               "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 1000})
    }

    fn out(seq: u64, t: u64, id: u64, method: &str, params: Value) -> Entry {
        entry(
            seq,
            Direction::Out,
            t,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
    }

    fn answer(seq: u64, t: u64, id: u64, result: Value) -> Entry {
        entry(
            seq,
            Direction::In,
            t,
            json!({"jsonrpc": "2.0", "id": id, "result": result}),
        )
    }

    fn fail(seq: u64, t: u64, id: u64, code: i64, message: &str) -> Entry {
        entry(
            seq,
            Direction::In,
            t,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
        )
    }

    const DECLARED: &str = r#"{"tasks": {"requests": {"tools": {"call": {}}}}}"#;

    fn run(trace: &[Entry], capabilities: &str, breaks: &[String]) -> Judgement {
        let caps: Value = serde_json::from_str(capabilities).unwrap();
        judge(
            trace,
            &Context {
                capabilities: &caps,
                official: None,
                breaks,
                authorization: false,
            },
        )
    }

    fn verdict(j: &Judgement, rule: &str) -> Option<Verdict> {
        j.checks.iter().find(|c| c.rule == rule).map(|c| c.verdict)
    }

    #[test]
    fn judges_result_meta_and_capability() {
        let trace = vec![
            out(0, 0, 1, "tools/call", json!({"name": "x", "task": {}})),
            answer(1, 1, 1, json!({"task": task("a", "working")})),
            out(2, 2, 2, "tasks/result", json!({"taskId": "a"})),
            answer(3, 3, 2, json!({"content": []})),
        ];
        let j = run(&trace, "{}", &[]);
        assert_eq!(verdict(&j, "tasks.capability.declare"), Some(Verdict::Fail));
        assert_eq!(
            verdict(&j, "tasks.meta.result-related-task"),
            Some(Verdict::Fail)
        );
        assert_eq!(verdict(&j, "tasks.id.unique"), Some(Verdict::Pass));
        assert_eq!(
            verdict(&j, "tasks.schema.receiver-messages"),
            Some(Verdict::Pass)
        );
        assert_eq!(
            j.harness_errors.len(),
            1,
            "taskcheck augmented an undeclared request"
        );
        let j = run(&trace, DECLARED, &[]);
        assert_eq!(verdict(&j, "tasks.capability.declare"), Some(Verdict::Pass));
        assert!(j.harness_errors.is_empty());
    }

    #[test]
    fn not_found_before_the_ttl_is_early_expiry() {
        let trace = vec![
            out(
                0,
                100,
                1,
                "tools/call",
                json!({"name": "x", "task": {"ttl": 1000}}),
            ),
            answer(1, 101, 1, json!({"task": task("a", "working")})),
            out(2, 500, 2, "tasks/get", json!({"taskId": "a"})),
            fail(3, 501, 2, -32602, "Task not found"),
            out(4, 1200, 3, "tasks/get", json!({"taskId": "a"})),
            fail(5, 1201, 3, -32602, "Task not found"),
        ];
        let j = run(&trace, DECLARED, &[]);
        let c = j
            .checks
            .iter()
            .find(|c| c.rule == "tasks.ttl.no-early-expiry")
            .unwrap();
        assert_eq!(c.verdict, Verdict::Fail);
        assert_eq!(
            c.evidence,
            vec![2, 3],
            "only the answer before the ttl counts"
        );
        assert_eq!(
            verdict(&j, "tasks.errors.informative-message"),
            Some(Verdict::Pass)
        );
    }

    #[test]
    fn blank_error_messages_and_invalid_tasks_are_judged() {
        let mut bad = task("a", "working");
        bad["pollInterval"] = json!("50");
        let trace = vec![
            out(0, 0, 1, "tasks/get", json!({"taskId": "a"})),
            answer(1, 1, 1, bad),
            out(2, 2, 2, "tasks/get", json!({"taskId": "b"})),
            fail(3, 3, 2, -32602, "  "),
        ];
        let j = run(&trace, DECLARED, &[]);
        assert_eq!(
            verdict(&j, "tasks.schema.receiver-messages"),
            Some(Verdict::Fail)
        );
        assert_eq!(
            verdict(&j, "tasks.errors.informative-message"),
            Some(Verdict::Warn)
        );
    }

    #[test]
    fn progress_after_creation_carries_related_task() {
        let progress = |seq, meta: Value| {
            entry(
                seq,
                Direction::In,
                seq,
                json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": "p", "progress": 1, "_meta": meta}}),
            )
        };
        let trace = vec![
            out(
                0,
                0,
                1,
                "tools/call",
                json!({"name": "x", "task": {}, "_meta": {"progressToken": "p"}}),
            ),
            progress(1, json!({})),
            answer(2, 2, 1, json!({"task": task("a", "working")})),
            progress(3, json!({wire::RELATED_TASK: {"taskId": "a"}})),
            progress(4, json!({})),
        ];
        let j = run(&trace, DECLARED, &[]);
        let c = j
            .checks
            .iter()
            .find(|c| c.rule == "tasks.meta.related-messages")
            .unwrap();
        assert_eq!((c.verdict, c.evidence.clone()), (Verdict::Fail, vec![2, 4]));
    }

    #[test]
    fn sequential_ids_are_guessable() {
        let mut trace = Vec::new();
        for i in 0..40u64 {
            trace.push(out(
                2 * i,
                2 * i,
                i,
                "tools/call",
                json!({"name": "x", "task": {}}),
            ));
            trace.push(answer(
                2 * i + 1,
                2 * i + 1,
                i,
                json!({"task": task(&format!("task-{i}"), "working")}),
            ));
        }
        let j = run(&trace, DECLARED, &[]);
        assert_eq!(
            verdict(&j, "tasks.security.secure-ids"),
            Some(Verdict::Fail)
        );
        assert_eq!(
            verdict(
                &run(&trace[..20], DECLARED, &[]),
                "tasks.security.secure-ids"
            ),
            None
        );
    }

    #[test]
    fn taskcheck_conduct_is_checked_unless_the_scenario_breaks_it() {
        let trace = vec![
            out(0, 0, 1, "tools/list", json!({})),
            answer(
                1,
                1,
                1,
                json!({"tools": [{"name": "r", "execution": {"taskSupport": "required"}}, {"name": "f"}]}),
            ),
            out(2, 2, 2, "tools/call", json!({"name": "r"})),
            out(3, 3, 3, "tools/call", json!({"name": "f", "task": {}})),
            out(
                4,
                4,
                4,
                "tasks/get",
                json!({"taskId": "a", "_meta": {wire::RELATED_TASK: {"taskId": "b"}}}),
            ),
            out(5, 5, 5, "tasks/list", json!({"cursor": "made-up"})),
            out(6, 6, 6, "tasks/get", json!({"taskId": 7})),
        ];
        let j = run(&trace, DECLARED, &[]);
        let mut rules: Vec<&str> = j.harness_errors.iter().map(|c| c.rule.as_str()).collect();
        rules.sort();
        let mut want = CONDUCT_RULES[1..].to_vec();
        want.sort();
        assert_eq!(rules, want);
        assert!(j.harness_errors.iter().all(|c| c.verdict == Verdict::Error));
        let breaks: Vec<String> = CONDUCT_RULES.iter().map(|r| r.to_string()).collect();
        assert!(run(&trace, DECLARED, &breaks).harness_errors.is_empty());
    }

    #[test]
    fn a_schema_violation_of_a_judged_field_follows_its_rule() {
        let mut no_ttl = task("a", "working");
        no_ttl.as_object_mut().unwrap().remove("ttl");
        let trace = vec![
            out(0, 0, 1, "tasks/get", json!({"taskId": "a"})),
            answer(1, 1, 1, no_ttl),
        ];
        let j = run(&trace, DECLARED, &[]);
        let at = |rule: &str| j.checks.iter().position(|c| c.rule == rule).unwrap();
        assert_eq!(
            verdict(&j, "tasks.ttl.get-includes-ttl"),
            Some(Verdict::Fail)
        );
        assert_eq!(
            j.because[at("tasks.schema.receiver-messages")],
            Some("tasks.ttl.get-includes-ttl")
        );
    }

    #[test]
    fn capability_paths() {
        let caps = json!({"tasks": {"list": {}, "cancel": false}});
        assert!(has_capability(&caps, "tasks.list"));
        assert!(!has_capability(&caps, "tasks.cancel"));
        assert!(!has_capability(&caps, "tasks.requests.tools.call"));
    }
}
