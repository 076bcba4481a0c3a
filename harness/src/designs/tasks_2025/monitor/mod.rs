//! The 2025-11-25 monitor: checks that watch every message of a session, a pure function of
//! the trace (`conduct` checks taskcheck's own conduct as a requestor, `expiry` early expiry).

mod answers;
mod conduct;
mod expiry;
mod notifications;

pub use conduct::CONDUCT_RULES;

use super::schema_types::{self, Shape};
use crate::model::{Finding, Model, Observation, Source, TaskStatus};
use crate::monitor::{entropy, has_capability, key, peer_of, Context, Judgement, Tally};
use crate::schema;
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
pub const MONITOR_RULES: [&str; 29] = [
    "tasks.capability.requestor-augments-declared-only",
    "tasks.progress.stops-when-terminal",
    "tasks.cancel.stop-execution",
    "tasks.ttl.timestamps-rfc3339",
    "tasks.http.no-sse-for-get",
    "tasks.capability.declare",
    "tasks.id.string",
    "tasks.id.unique",
    "tasks.lifecycle.terminal-final",
    "tasks.cancel.stays-cancelled",
    CREATE_TASK_RESULT,
    "tasks.ttl.created-at",
    "tasks.ttl.last-updated-at",
    "tasks.ttl.created-at-constant",
    "tasks.ttl.last-updated-monotonic",
    "tasks.ttl.get-includes-ttl",
    "tasks.ttl.get-reports-granted",
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

/// A task-augmented request a receiver accepts is answered with a CreateTaskResult.
const CREATE_TASK_RESULT: &str = "tasks.create.create-task-result";

/// The rule a task that vanished before its ttl breaks.
pub const EARLY_EXPIRY: &str = "tasks.ttl.no-early-expiry";

/// Task ids must be unguessable where tasks cannot be bound to an authorization context.
const SECURE_IDS: &str = "tasks.security.secure-ids";

/// A request taskcheck sent, waiting for its answer.
struct Asked<'a> {
    /// The request's JSON-RPC id, as text.
    id: String,
    method: &'a str,
    params: &'a Value,
    seq: u64,
    t_ms: u64,
}

struct Monitor<'a> {
    ctx: &'a Context<'a>,
    findings: Tally,
    model: Model,
    expiry: Expiry,
    conduct: Conduct<'a>,
    asked: HashMap<String, Asked<'a>>,
    /// Methods and params of the receiver's requests, by id.
    theirs: HashMap<String, (String, Value)>,
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
    let mut m = watch(entries, ctx);
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
    let (vanished, expired) = m.expiry.answers();
    Judgement {
        checks,
        because,
        harness_errors: m.conduct.errors(),
        vanished: vanished
            .into_iter()
            .map(|(answer, first)| (answer, (first, EARLY_EXPIRY)))
            .collect(),
        expired,
    }
}

/// The requestor rules taskcheck holds itself to, judged on a requestor under test: a check
/// per rule its messages exercised.
pub fn judge_conduct(entries: &[Entry], ctx: &Context) -> Vec<Check> {
    watch(entries, ctx).conduct.verdicts()
}

/// The monitors, having seen every entry.
fn watch<'a>(entries: &'a [Entry], ctx: &'a Context<'a>) -> Monitor<'a> {
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
    m
}

fn find(rule: &'static str, held: bool, message: String, evidence: Vec<u64>) -> Finding {
    Finding::new(rule, held, message, evidence)
}

impl<'a> Monitor<'a> {
    fn entry(&mut self, e: &'a Entry) {
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
                        method,
                        params,
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
                    self.theirs
                        .insert(key(e, id), (method.to_string(), params.clone()));
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
                let (method, params) = self.theirs.remove(&key(e, id)).unwrap_or_default();
                let result = match outcome {
                    OutcomeRef::Result(result) => Some(result),
                    OutcomeRef::Error(_) => None,
                };
                self.conduct.response(&params, &method, result, e.seq);
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
                                method: asked.method,
                                request_params: asked.params,
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
                        wire::says_task_not_found(asked.method == "tasks/get", error)
                            .then_some(false)
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
        self.findings.judge(
            AUGMENTS_DECLARED_ONLY,
            declared,
            None,
            || match declared {
                true => format!("task-augmented {method}, which taskcheck declared"),
                false => format!(
                    "the receiver sent taskcheck a task-augmented {method}, a request type taskcheck never declared task support for"
                ),
            },
            || vec![e.seq],
        );
    }

    /// Over HTTP: a tasks/get answer should be plain JSON, not an SSE stream.
    fn no_sse_for_get(&mut self, e: &Entry) {
        let Some(via) = e.via.as_deref().filter(|v| v.starts_with("POST")) else {
            return;
        };
        let sse = via.contains("text/event-stream");
        self.findings.judge(
            "tasks.http.no-sse-for-get",
            !sse,
            None,
            || format!("tasks/get answered as {via}"),
            || vec![e.seq],
        );
    }

    /// Validates a message against the built-in schema and the official one, if given.
    fn schemas(&mut self, e: &Entry, shape: &Shape) {
        let builtin = schema_types::violations(schema::builtin(), shape);
        let official = self
            .ctx
            .official
            .map(|s| schema_types::violations(s, shape));
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
        self.findings.judge(
            "tasks.schema.receiver-messages",
            builtin.is_empty(),
            explained_by_field(&builtin),
            || describe(&builtin, "built-in Tasks schema"),
            || vec![e.seq],
        );
        if let (Some(v), Some(set)) = (official, self.ctx.official) {
            self.findings.judge(
                "tasks.schema.official",
                v.is_empty(),
                explained_by_field(&v),
                || describe(&v, &set.origin),
                || vec![e.seq],
            );
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

    /// Task-id guessability over every id the session created.
    fn ids(&mut self) {
        if self.created.len() < entropy::MIN_SAMPLE {
            return;
        }
        let ids: Vec<String> = self.created.iter().cloned().collect();
        let bits = entropy::estimate_bits(&ids);
        let examples: Vec<&String> = ids.iter().take(3).collect();
        self.findings.judge(
            SECURE_IDS,
            !entropy::too_low(bits),
            None,
            || format!(
                "{} task ids estimate {bits:.0} bits of entropy (floor {} bits, less a {}-bit margin for the estimate), e.g. {examples:?}",
                ids.len(),
                entropy::FLOOR_BITS,
                entropy::MARGIN_BITS
            ),
            Vec::new,
        );
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
mod tests;
