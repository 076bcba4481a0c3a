//! The 2025-11-25 monitor: checks that watch every message of a session, a pure function of
//! the trace, whoever produced it (`conduct` checks the requestor's own conduct, `expiry`
//! early expiry, `book` keeps what the session showed of each task for the rules judged once
//! it is over).

mod answers;
mod cancels;
mod conduct;
mod expiry;
mod input;
mod jsonrpc;
mod listing;
mod lookups;
mod negotiation;
mod notifications;
mod outcomes;

pub use conduct::CONDUCT_RULES;

use super::schema_types::{self, Shape};
use crate::model::{Finding, Model, Observation, Source, TaskStatus};
use crate::monitor::{book, entropy, has_capability, key, peer_of, Context, Judgement, Tally};
use crate::schema;
use crate::trace::{Direction, Entry};
use crate::verdict::{Check, Verdict};
use crate::wire::{self, MessageRef, OutcomeRef};
use conduct::Conduct;
use expiry::Expiry;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};

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
pub const MONITOR_RULES: &[&str] = &[
    AUGMENTS_DECLARED_ONLY,
    STOPS_WHEN_TERMINAL,
    STOP_EXECUTION,
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
    EARLY_EXPIRY,
    MAY_DELETE_AFTER,
    "tasks.ttl.override",
    "tasks.create.model-immediate-response",
    "tasks.meta.result-related-task",
    "tasks.meta.no-related-task-in-results",
    RELATED_MESSAGES,
    "tasks.notify.no-related-task",
    "tasks.failed.status-message",
    "tasks.errors.informative-message",
    SECURE_IDS,
    "tasks.schema.receiver-messages",
    "tasks.schema.official",
    TOKEN_VALID,
    negotiation::REQUIRED_REJECTED,
    negotiation::FORBIDDEN_REJECTED,
    negotiation::PROCESSED_NORMALLY,
    negotiation::EXTENSION_NOT_ENABLING,
    negotiation::MAY_REQUIRE,
    negotiation::OPTIONAL_EITHER_WAY,
    negotiation::MAX_TTL,
    negotiation::LIST_SUPPORTED,
    negotiation::CANCEL_SUPPORTED,
    negotiation::UNDECLARED_OPERATIONS,
    lookups::UNKNOWN_TASK,
    lookups::MALFORMED,
    lookups::BAD_CURSOR,
    lookups::IGNORE_REQUEST_META,
    cancels::TERMINAL_REJECTED,
    cancels::BEFORE_RESPONSE,
    outcomes::TERMINAL_RETURNS_FINAL,
    outcomes::BLOCKS,
    outcomes::EXACT,
    outcomes::TOOL_ERROR,
    outcomes::PROTOCOL_ERROR,
    input::REQUEST_RELATED_TASK,
    input::MOVE_TO_INPUT_REQUIRED,
    input::REQUESTS_DELIVERED,
    input::LEAVE_AFTER_INPUT,
    listing::CONTAINS,
    listing::NEXT_CURSOR,
    listing::PAGINATE,
    jsonrpc::ONE_RESPONSE,
    jsonrpc::STDOUT_ONLY_MCP,
    jsonrpc::SURVIVES,
];

/// A task-augmented request a receiver accepts is answered with a CreateTaskResult.
const CREATE_TASK_RESULT: &str = "tasks.create.create-task-result";

/// The rule a task that vanished before its ttl breaks.
pub const EARLY_EXPIRY: &str = "tasks.ttl.no-early-expiry";

/// Task ids must be unguessable where tasks cannot be bound to an authorization context.
const SECURE_IDS: &str = "tasks.security.secure-ids";

/// What a lookup once a task's ttl has elapsed gets (MAY).
const MAY_DELETE_AFTER: &str = "tasks.ttl.may-delete-after";

/// A task's progress keeps the token of the request that created it (MUST).
const TOKEN_VALID: &str = "tasks.progress.token-valid";

/// A request taskcheck sent, waiting for its answer.
struct Asked<'a> {
    /// The request's JSON-RPC id, as text.
    id: String,
    method: &'a str,
    params: &'a Value,
    seq: u64,
    t_ms: u64,
    /// Whether the cursor it sends, if any, was given by an earlier tasks/list.
    cursor_known: bool,
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
    /// What the session showed of each task.
    book: book::Book,
    /// Whether the receiver answered the opening request: before it, its output is not judged.
    opened: bool,
    /// The receiver went away with nothing open (trace number): a later request breaks it.
    gone: Option<u64>,
    /// The receiver's last stderr lines.
    stderr: Vec<String>,
    /// The latest-sent request that got an answer: when it was sent, and its answer.
    latest_answered_sent_ms: Option<(u64, u64)>,
    /// The rule a message broke first, so what its schema says of it is that failure's
    /// consequence (one defect, one failure).
    failed_at: HashMap<u64, &'static str>,
    /// Cursors tasks/list gave.
    cursors: HashSet<String>,
    /// Lookups of task ids no CreateTaskResult had given when they were sent.
    unknown: Vec<lookups::Unknown>,
    /// Refused task-augmented requests of undeclared types: (request, asked, answered, error).
    refusals: Vec<((String, String), u64, u64, Value)>,
    /// The first answer each plain (task-less) request got, by what it asks.
    plain_outcomes: HashMap<(String, String), (Result<Value, Value>, u64)>,
    /// Cancellations refused while the task was not known to be terminal.
    refused_cancels: Vec<cancels::Refused>,
    /// The receiver's requests, and where each is in `inbound` by key.
    inbound: Vec<input::Inbound>,
    inbound_index: HashMap<String, usize>,
    /// Every page of tasks/list.
    pages: Vec<listing::Page>,
    /// Lookups answered that their task does not exist: (task, asked, answered).
    missing: Vec<(String, u64, u64)>,
    /// Every CreateTaskResult, by the requestor it was given to: (peer, answer).
    creations: Vec<(String, u64)>,
    /// How many CreateTaskResults gave each task id.
    creations_of: HashMap<String, usize>,
    /// What the receiver's capabilities declare.
    declared: negotiation::Declared,
}

/// A task whose request carried a progress token.
#[derive(Default)]
struct Progressing {
    /// The first terminal status seen, its trace number and time.
    terminal: Option<(TaskStatus, u64, u64)>,
    /// The first progress received (long enough) after that.
    late: Option<u64>,
}

/// The receiver's stderr lines kept, to show with its going away.
const STDERR_KEPT: usize = 8;

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
    m.refusals_judged();
    m.unknown_judged();
    m.refusals_of_cancel_judged();
    m.still_cancelled_judged();
    m.outcomes_judged();
    m.input_judged();
    m.listing_judged();
    let broke_on = m.findings.broke_on();
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
        broke_on,
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
        book: book::Book::default(),
        opened: false,
        gone: None,
        stderr: Vec::new(),
        latest_answered_sent_ms: None,
        failed_at: HashMap::new(),
        cursors: HashSet::new(),
        unknown: Vec::new(),
        refusals: Vec::new(),
        plain_outcomes: HashMap::new(),
        refused_cancels: Vec::new(),
        inbound: Vec::new(),
        inbound_index: HashMap::new(),
        pages: Vec::new(),
        missing: Vec::new(),
        creations: Vec::new(),
        creations_of: HashMap::new(),
        declared: negotiation::Declared::of(ctx.capabilities),
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
        if e.dir == Direction::Stderr {
            self.stderr.extend(e.text.clone());
            let extra = self.stderr.len().saturating_sub(STDERR_KEPT);
            self.stderr.drain(..extra);
            return;
        }
        let Some(value) = &e.message else {
            return self.no_message(e);
        };
        let Ok(msg) = wire::classify_ref(value) else {
            return;
        };
        match (e.dir, msg) {
            (Direction::Out, MessageRef::Request { id, method, params }) => {
                self.sent_after_gone(e);
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
                if let ("tasks/result", Some(t)) = (method, params.get("taskId")) {
                    let t = wire::id_text(t);
                    if !self.others(&t, e) {
                        self.fetch_sent(&t, params, e.seq, e.t_ms);
                    }
                }
                let cursor_known = params
                    .get("cursor")
                    .is_some_and(|c| self.cursors.contains(&c.to_string()));
                self.asked.insert(
                    key(e, id),
                    Asked {
                        id: wire::id_text(id),
                        method,
                        params,
                        seq: e.seq,
                        t_ms: e.t_ms,
                        cursor_known,
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
                    self.inbound_request(key(e, id), method, params, e);
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
                self.inbound_answered(&key(e, id), e);
                self.opened |= method == "initialize";
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
                let k = key(e, id);
                let Some(asked) = self.asked.remove(&k) else {
                    return self.stray_response(id, e);
                };
                if self
                    .latest_answered_sent_ms
                    .is_none_or(|(t, _)| asked.t_ms >= t)
                {
                    self.latest_answered_sent_ms = Some((asked.t_ms, e.seq));
                }
                self.opened |= asked.method == "initialize";
                if asked.method == "tasks/get" {
                    self.no_sse_for_get(e);
                }
                let answer = match outcome {
                    OutcomeRef::Result(result) => Ok(result),
                    OutcomeRef::Error(error) => Err(error),
                };
                self.answered_rules(&asked, answer, e);
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

    /// The rules an answer is held to against its request and what came before it (judged
    /// before its schema, so a violation a rule explains shows as that rule's consequence).
    fn answered_rules(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        if asked.method == "ping" && answer.is_ok() {
            self.pinged(e);
        }
        self.negotiated(asked, answer, e);
        self.looked_for(asked, answer, e);
        match asked.method {
            "tasks/cancel" => self.cancel_answered(asked, answer, e),
            "tasks/result" => self.fetch_answered(asked, answer, e),
            "tasks/list" => self.page_listed(asked, answer, e),
            _ => {}
        }
        // a plain call of a tool that runs only as a task is refused (by an error, or by a
        // result saying so): it tells nothing of what the call returns as one
        let name = asked
            .params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let required = self.conduct.task_support(name) == Some(Some("required"));
        // only a request that may be made as a task has a twin to be compared with
        let augmentable = task_capability(asked.method).is_some();
        if augmentable && asked.params.get("task").is_none() && !required {
            self.plain_outcomes
                .entry(negotiation::plain_key(asked.method, asked.params))
                .or_insert_with(|| (answer.cloned().map_err(Clone::clone), e.seq));
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
        let broke = self.failed_at.get(&e.seq).copied();
        let describe = |v: &[schema::Violation], origin: &str| match v {
            [] => format!("valid against the {origin}"),
            [first] => first.to_string(),
            [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
        };
        self.findings.judge(
            "tasks.schema.receiver-messages",
            builtin.is_empty(),
            explained_by_field(&builtin).or(broke),
            || describe(&builtin, "built-in Tasks schema"),
            || vec![e.seq],
        );
        if let (Some(v), Some(set)) = (official, self.ctx.official) {
            self.findings.judge(
                "tasks.schema.official",
                v.is_empty(),
                explained_by_field(&v).or(broke),
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
        if let Some(status) = status {
            let sighting = book::Sighting {
                status,
                source,
                asked,
                received: e.seq,
                t_ms: e.t_ms,
            };
            self.book.saw(&id, sighting);
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
