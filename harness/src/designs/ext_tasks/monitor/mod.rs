//! The extension's monitors: rules judged on every message of a run, whatever the scenario:
//! `resultType` on every result, the Task shape, the state diagram, `inputRequests` keys, and
//! what server/discover declares.

mod negotiation;
mod payloads;
mod updates;

use super::{
    declares, request_capabilities, schema_types, EXTENSION, META_VERSION, MISSING_CAPABILITY,
};
use crate::model::{Finding, TaskStatus};
use crate::monitor::{entropy, key, Context, Judgement, Tally};
use crate::trace::{Direction, Entry};
use crate::wire::{self, Message, Outcome};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use updates::Read;

/// The rules these monitors judge.
pub const MONITOR_RULES: &[&str] = &[
    ADVERTISE,
    NO_LEGACY,
    DISCOVER,
    TYPE_REQUIRED,
    TYPE_ON_CREATE,
    TYPE_ONLY_ON_CREATE,
    GET_COMPLETE,
    UPDATE_COMPLETE,
    CANCEL_COMPLETE,
    FIELDS,
    CREATED_AT,
    SAME_ID,
    TRANSITIONS,
    KEYS_UNIQUE,
    DURABLE,
    UNGUESSABLE,
    DETAILED,
    ACK_FIRST,
    NO_PROGRESS,
    SCHEMA,
    EARLY,
    DECLARED_ONLY,
    negotiation::NO_TASK_UNDECLARED,
    negotiation::LEGACY_NON_DECLARING,
    negotiation::TASK_PARAM_IGNORED,
    negotiation::NOT_UNDER_2025,
    negotiation::MISSING_CAPABILITY_ERROR,
    negotiation::METHODS_NEED_CAPABILITY,
    negotiation::LISTEN_NEEDS_CAPABILITY,
    negotiation::REQUEST_META,
    negotiation::RESULT_REMOVED,
    negotiation::LIST_REMOVED,
    negotiation::HEADER_MISMATCH,
    payloads::COMPLETED_RESULT,
    payloads::FAILED_ERROR,
    payloads::FAILED_MESSAGE,
    payloads::INPUT_REQUESTS,
    payloads::RESULT_EXACT,
    payloads::ERROR_EXACT,
    payloads::ONLY_JSONRPC,
    updates::UPDATE_ACK,
    updates::CANCEL_ACK,
    updates::INPUT_ACCEPTED,
    updates::UNKNOWN_KEYS,
    updates::PARTIAL,
    updates::MALFORMED,
    updates::GET_UNKNOWN,
    updates::UPDATE_UNKNOWN,
    updates::CANCEL_UNKNOWN,
    updates::CANCEL_EVENTUAL,
    negotiation::MRTR_SYNCHRONOUS,
];

const ADVERTISE: &str = "ext-tasks.capability.advertise";
const NO_LEGACY: &str = "ext-tasks.capability.no-legacy-advertise";
const DISCOVER: &str = "ext-tasks.core.discover";
const TYPE_REQUIRED: &str = "ext-tasks.result-type.required";
const TYPE_ON_CREATE: &str = "ext-tasks.result-type.task-on-create";
const TYPE_ONLY_ON_CREATE: &str = "ext-tasks.result-type.task-only-on-create";
const GET_COMPLETE: &str = "ext-tasks.get.result-type-complete";
const UPDATE_COMPLETE: &str = "ext-tasks.update.result-type-complete";
const CANCEL_COMPLETE: &str = "ext-tasks.cancel.result-type-complete";
const FIELDS: &str = "ext-tasks.task.fields";
/// A task's createdAt is one instant wherever it is shown (MUST, derived).
const CREATED_AT: &str = "ext-tasks.task.created-at-constant";
const SAME_ID: &str = "ext-tasks.task.same-id";
const TRANSITIONS: &str = "ext-tasks.lifecycle.transitions";
const KEYS_UNIQUE: &str = "ext-tasks.update.keys-unique";
const DURABLE: &str = "ext-tasks.create.durable";
const EARLY: &str = "ext-tasks.ttl.no-early-expiry";
const DECLARED_ONLY: &str = "ext-tasks.input.declared-only";
const UNGUESSABLE: &str = "ext-tasks.security.unguessable-ids";
const DETAILED: &str = "ext-tasks.notifications.detailed-task";
const ACK_FIRST: &str = "ext-tasks.notifications.ack-first";
const NO_PROGRESS: &str = "ext-tasks.notifications.no-progress-on-stream";
const SCHEMA: &str = "ext-tasks.schema.official";

/// A request taskcheck sent, waiting for its answer.
struct Asked {
    method: String,
    params: Value,
    seq: u64,
    /// When it was sent, in ms since its session started.
    t_ms: u64,
    /// The requestor that asked (the second one's session is `b`).
    peer: Option<String>,
    /// The request metadata headers it went with, where the trace recorded them (HTTP).
    headers: Option<std::collections::BTreeMap<String, String>>,
}

/// What one task showed so far.
#[derive(Default)]
struct Seen {
    /// The last status and the message that showed it.
    status: Option<(String, u64)>,
    /// The first terminal status and the message that showed it.
    terminal: Option<(String, u64)>,
    /// Every `inputRequests` key with the request it named and where.
    keys: BTreeMap<String, (Value, u64)>,
    /// The answer that handed the task out (its CreateTaskResult), if seen.
    created: Option<u64>,
    /// The requestor it was handed to: only its own requests must find the task.
    creator: Option<String>,
    /// Whether some answer found the task since.
    found: bool,
    /// The first answer after its creation that did not find it.
    missing: Option<u64>,
    /// When the request that created it was sent (ms since the creator's session started).
    sent_ms: Option<u64>,
    /// The smallest `ttlMs` it was shown with (`Some(None)`: unlimited), if any.
    ttl: Option<Option<u64>>,
    /// Whether taskcheck asked to cancel it (a cancelled task may be discarded at once).
    cancel_asked: bool,
    /// The first `createdAt` it was shown with, as written, and where.
    created_at: Option<(crate::timestamp::Stamp, String, u64)>,
}

#[derive(Default)]
struct Monitor {
    findings: Tally,
    asked: HashMap<String, Asked>,
    tasks: HashMap<String, Seen>,
    /// Answers that did not find a task created before they were asked, with the first such.
    vanished: BTreeMap<u64, (u64, &'static str)>,
    /// Every task id handed out, in order.
    created: Vec<String>,
    /// Open notification streams (subscriptions/listen requests), and whether each was
    /// acknowledged yet.
    streams: HashMap<String, bool>,
    /// The first rule each message failed, so its schema violation shows as a consequence.
    failed_at: HashMap<u64, &'static str>,
    /// Answers that did not find a task once its ttlMs had elapsed, each with why.
    expired: BTreeMap<u64, String>,
    /// What the request that created each task asked (its plain twin's key).
    origins: HashMap<String, (String, String)>,
    /// The first finished read of each task that carried its outcome, and where.
    outcomes: HashMap<String, (Value, u64)>,
    /// The first answer to each tools/call made without the extension, by what it asks.
    plain_outcomes: HashMap<(String, String), (Result<Value, Value>, u64)>,
    /// The first task given for each tools/call made with the extension, by what it asks.
    declared_tasks: HashMap<(String, String), u64>,
    /// The first refusal of each tools/call made without the extension: asked, answered, error.
    undeclared_errors: HashMap<(String, String), (u64, u64, Value)>,
    /// Acknowledged updates of tasks the session was given.
    updates: Vec<updates::Update>,
    /// Requests of task ids no CreateTaskResult gave.
    strangers: Vec<updates::Stranger>,
    /// Every read of each task: its status and the keys it showed.
    reads: HashMap<String, Vec<Read>>,
    /// subscriptions/listen requests for task notifications that do not declare the
    /// extension, by key.
    undeclared_listens: HashMap<String, u64>,
    /// Acknowledged cancellations: the task and the acknowledgement.
    cancels: Vec<(String, u64)>,
}

/// Judges a run's trace by the extension's monitors.
pub fn judge(entries: &[Entry], ctx: &Context) -> Judgement {
    let mut m = Monitor::default();
    for e in entries {
        m.entry(e, ctx);
    }
    m.ids();
    m.missing_capability_judged();
    m.exactness_judged();
    m.updates_judged();
    m.strangers_judged();
    m.cancels_recorded();
    let broke_on = m.findings.broke_on();
    let (checks, because) = m.findings.checks();
    Judgement {
        checks,
        because,
        harness_errors: Vec::new(),
        vanished: m.vanished,
        expired: m.expired,
        broke_on,
    }
}

impl Monitor {
    fn find(&mut self, rule: &'static str, held: bool, message: String, evidence: Vec<u64>) {
        if !held {
            if let Some(last) = evidence.last() {
                self.failed_at.entry(*last).or_insert(rule);
            }
        }
        self.findings
            .push(Finding::new(rule, held, message, evidence));
    }

    fn entry(&mut self, e: &Entry, ctx: &Context) {
        let Some(value) = &e.message else { return };
        let Ok(msg) = wire::classify(value) else {
            return;
        };
        match (e.dir, msg) {
            (Direction::Out, Message::Request { id, method, params }) => {
                if method == "subscriptions/listen" {
                    self.streams.insert(key(e, &id), false);
                    let undeclared = !declares(request_capabilities(&params))
                        && request_capabilities(&params).is_object()
                        && params.pointer("/notifications/taskIds").is_some();
                    if undeclared {
                        self.undeclared_listens.insert(key(e, &id), e.seq);
                    }
                }
                if method == "tasks/cancel" {
                    let id = params.get("taskId").and_then(Value::as_str);
                    if let Some(seen) = id.and_then(|id| self.tasks.get_mut(id)) {
                        seen.cancel_asked = true;
                    }
                }
                let asked = Asked {
                    method,
                    params,
                    seq: e.seq,
                    t_ms: e.t_ms,
                    peer: e.peer.clone(),
                    headers: e.headers.clone(),
                };
                self.asked.insert(key(e, &id), asked);
            }
            (Direction::In, Message::Response { id, outcome }) => {
                let Some(asked) = self.asked.remove(&key(e, &id)) else {
                    return;
                };
                let answer = match &outcome {
                    Outcome::Result(result) => Ok(result),
                    Outcome::Error(error) => Err(error),
                };
                self.answered_rules(&asked, answer, e);
                // the schema last, so a rule the message broke is known first
                match outcome {
                    Outcome::Result(result) => {
                        self.result(&asked, &result, e.seq, ctx);
                        let typed = schema_types::result_type(&asked.method, &result);
                        self.schema(ctx, typed.map(|t| (t, &value["result"])), e.seq);
                    }
                    Outcome::Error(error) => {
                        self.refused(&asked, &error, e);
                        self.schema(ctx, Some((schema_types::ERROR_TYPE, value)), e.seq);
                    }
                }
            }
            (Direction::In, Message::Notification { method, params }) => {
                self.notification(e, &method, &params);
                let typed = Some((schema_types::notification_type(&method), value));
                self.schema(ctx, typed, e.seq);
            }
            _ => {}
        }
    }

    /// The rules an answer is held to against its request and what came before it.
    fn answered_rules(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        self.headers_matched(asked, answer, e);
        self.negotiated(asked, answer, e);
        self.remember(asked, answer, e);
        self.task_request(asked, answer, e);
        let Ok(result) = answer else { return };
        let created = asked.method == "tools/call" && is_task_handle(result);
        if created {
            if let Some(id) = result.get("taskId").and_then(Value::as_str) {
                let plain = negotiation::plain_key(&asked.method, &asked.params);
                self.origins.insert(id.to_string(), plain);
            }
        }
        if created || asked.method == "tasks/get" {
            self.read(result, Some(asked.seq), e);
        }
        if asked.method == "tasks/get" {
            self.payload(result, &[asked.seq, e.seq]);
        }
    }

    /// A Task the server showed: its status and the keys of its `inputRequests`.
    fn read(&mut self, task: &Value, asked: Option<u64>, e: &Entry) {
        let (Some(id), Some(status)) = (
            task.get("taskId").and_then(Value::as_str),
            task.get("status").and_then(Value::as_str),
        ) else {
            return;
        };
        let keys = task
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        self.reads.entry(id.to_string()).or_default().push(Read {
            status: status.to_string(),
            keys,
            asked,
            received: e.seq,
            t_ms: e.t_ms,
        });
    }

    /// Whether a CreateTaskResult of the session gave this task id.
    fn handed_out(&self, id: &str) -> bool {
        self.tasks.get(id).is_some_and(|s| s.created.is_some())
    }

    /// With `--schema`: a message of the receiver validates against the type it has.
    fn schema(&mut self, ctx: &Context, typed: Option<(&'static str, &Value)>, seq: u64) {
        let (Some(set), Some((name, value))) = (ctx.official, typed) else {
            return;
        };
        // a finished task without its result or error is the scenarios' to judge
        // (ext-tasks.get.completed-result, ext-tasks.get.failed-error): one defect, one failure
        let owed = match value.get("status").and_then(Value::as_str) {
            Some("completed") => "result",
            Some("failed") => "error",
            _ => "",
        };
        let task = matches!(name, "GetTaskResult" | "TaskStatusNotification");
        if !set.defines(name) || task && !owed.is_empty() && value.get(owed).is_none() {
            return;
        }
        let violations = set.check(name, value);
        let message = match violations.as_slice() {
            [] => format!("{name}: valid against {}", set.origin),
            [first] => first.to_string(),
            [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
        };
        // one defect, one failure: a message that broke a rule of its own shows the violation
        // under it
        self.findings.push(Finding {
            follows: self.failed_at.get(&seq).copied(),
            ..Finding::new(SCHEMA, violations.is_empty(), message, vec![seq])
        });
    }

    fn result(&mut self, asked: &Asked, result: &Value, seq: u64, ctx: &Context) {
        let evidence = vec![asked.seq, seq];
        self.input_declared(asked, result, &evidence);
        let kind = result.get("resultType").and_then(Value::as_str);
        let shown = |k: Option<&str>| {
            k.map_or("no resultType".to_string(), |k| format!("resultType {k:?}"))
        };
        let method = asked.method.as_str();
        match method {
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                let rule = match method {
                    "tasks/get" => GET_COMPLETE,
                    "tasks/update" => UPDATE_COMPLETE,
                    _ => CANCEL_COMPLETE,
                };
                self.find(
                    rule,
                    kind == Some("complete"),
                    format!("{method} answered with {}", shown(kind)),
                    evidence.clone(),
                );
                if method == "tasks/get" {
                    let asked_id = asked.params.get("taskId");
                    self.find(
                        SAME_ID,
                        result.get("taskId") == asked_id,
                        format!(
                            "tasks/get of {} answered taskId {}",
                            short(asked_id),
                            short(result.get("taskId"))
                        ),
                        evidence.clone(),
                    );
                    if let Some(seen) = asked_id
                        .and_then(Value::as_str)
                        .and_then(|id| self.tasks.get_mut(id))
                    {
                        if seen.created.is_some() {
                            let first = !std::mem::replace(&mut seen.found, true);
                            let id = asked_id.map(crate::matcher::short).unwrap_or_default();
                            let (rule, when) = match first {
                                true => (DURABLE, "after its creation"),
                                false => (EARLY, "again, its ttl not yet elapsed"),
                            };
                            self.find(
                                rule,
                                true,
                                format!("tasks/get found {id} {when}"),
                                evidence.clone(),
                            );
                        }
                    }
                    self.task(result, evidence);
                }
            }
            "tools/call" if is_task_handle(result) => {
                self.find(
                    TYPE_ON_CREATE,
                    kind == Some("task"),
                    format!("a CreateTaskResult with {}", shown(kind)),
                    evidence.clone(),
                );
                self.find(
                    ADVERTISE,
                    declares(ctx.capabilities),
                    format!(
                        "a CreateTaskResult, while server/discover declared capabilities {}",
                        crate::matcher::short(ctx.capabilities)
                    ),
                    evidence.clone(),
                );
                if let Some(id) = result.get("taskId").and_then(Value::as_str) {
                    let seen = self.tasks.entry(id.to_string()).or_default();
                    seen.created = Some(seq);
                    seen.sent_ms = Some(asked.t_ms);
                    seen.creator = asked.peer.clone();
                    self.created.push(id.to_string());
                }
                self.task(result, evidence);
            }
            _ => {
                self.find(
                    TYPE_ONLY_ON_CREATE,
                    kind != Some("task"),
                    format!("{method} answered with {}", shown(kind)),
                    evidence.clone(),
                );
                self.find(
                    TYPE_REQUIRED,
                    kind.is_some(),
                    format!("{method} answered with {}", shown(kind)),
                    evidence.clone(),
                );
                if method == "server/discover" {
                    self.discovered(result, evidence);
                }
            }
        }
    }

    /// A notification: one on a stream comes after the stream's acknowledgement and is no
    /// progress or log message; a task status notification is a complete DetailedTask.
    fn notification(&mut self, e: &Entry, method: &str, params: &Value) {
        let evidence = vec![e.seq];
        let stream = params
            .get("_meta")
            .and_then(|m| m.get(super::META_SUBSCRIPTION))
            .map(|id| key(e, id))
            .filter(|k| self.streams.contains_key(k));
        if let Some(k) = stream {
            let acked = self.streams.get(&k).copied().unwrap_or_default();
            if method == "notifications/subscriptions/acknowledged" {
                if let Some(seq) = self.undeclared_listens.remove(&k) {
                    self.listen_acknowledged(seq, e);
                }
                self.streams.insert(k, true);
            } else {
                self.find(
                    ACK_FIRST,
                    acked,
                    format!(
                        "{method} on a stream came {} its acknowledgement",
                        if acked { "after" } else { "before" }
                    ),
                    evidence.clone(),
                );
            }
            let log = matches!(method, "notifications/progress" | "notifications/message");
            self.find(
                NO_PROGRESS,
                !log,
                match log {
                    true => format!("{method} on the subscriptions/listen stream"),
                    false => "no progress or log message on the subscriptions/listen stream".into(),
                },
                evidence.clone(),
            );
        }
        if method != "notifications/tasks" {
            return;
        }
        self.read(params, None, e);
        let status = params
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let payload = match status {
            "completed" => Some("result"),
            "failed" => Some("error"),
            "input_required" => Some("inputRequests"),
            _ => None,
        };
        let complete = payload.is_none_or(|f| params.get(f).is_some_and(Value::is_object));
        self.find(
            DETAILED,
            complete,
            match payload {
                Some(f) if !complete => {
                    format!("a {status} task's notifications/tasks has no `{f}` object")
                }
                _ => format!("notifications/tasks of a {status} task carries what tasks/get would"),
            },
            evidence.clone(),
        );
        self.task(params, evidence);
    }

    /// The `inputRequests` of an answer ask only what the request's client declared it can
    /// answer (core 2026-07-28, multi round-trip requests).
    fn input_declared(&mut self, asked: &Asked, result: &Value, evidence: &[u64]) {
        let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
            return;
        };
        let caps = asked
            .params
            .pointer("/_meta")
            .and_then(|m| m.get(super::META_CAPABILITIES))
            .cloned()
            .unwrap_or_default();
        let undeclared: Vec<String> = requests
            .iter()
            .filter_map(|(key, r)| {
                let method = r.get("method").and_then(Value::as_str)?;
                let needs = match method {
                    "elicitation/create" => "elicitation",
                    "sampling/createMessage" => "sampling",
                    "roots/list" => "roots",
                    _ => return None,
                };
                caps.get(needs).is_none().then(|| {
                    format!(
                        "{key:?} is {method}, and the {} request declared no `{needs}`",
                        asked.method
                    )
                })
            })
            .collect();
        self.find(
            DECLARED_ONLY,
            undeclared.is_empty(),
            match undeclared.is_empty() {
                true => "inputRequests ask only what the client declared".into(),
                false => format!("inputRequests: {}", undeclared.join("; ")),
            },
            evidence.to_vec(),
        );
    }

    /// Task-id guessability over every id the session was handed (the 2025-11-25 estimate:
    /// at least 32 ids, 64 bits less a 4-bit margin).
    fn ids(&mut self) {
        if self.created.len() < entropy::MIN_SAMPLE {
            return;
        }
        let bits = entropy::estimate_bits(&self.created);
        let examples: Vec<&String> = self.created.iter().take(3).collect();
        self.find(
            UNGUESSABLE,
            !entropy::too_low(bits),
            format!(
                "{} task ids estimate {bits:.0} bits of entropy (floor {} bits, less a {}-bit margin), e.g. {examples:?}",
                self.created.len(),
                entropy::FLOOR_BITS,
                entropy::MARGIN_BITS
            ),
            Vec::new(),
        );
    }

    /// A refused tasks request: one that does not find a task handed out before it was
    /// asked, and never found since, shows the creation was not durable; one that no longer
    /// finds a task found before, while its ttl runs, shows it was discarded early.
    fn refused(&mut self, asked: &Asked, error: &Value, e: &Entry) {
        let (seq, method) = (e.seq, asked.method.as_str());
        if !matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
            || !crate::wire::says_task_not_found(true, error)
        {
            return;
        }
        let Some(id) = asked.params.get("taskId").and_then(Value::as_str) else {
            return;
        };
        let Some(seen) = self.tasks.get_mut(id) else {
            return;
        };
        if seen.created.is_none_or(|c| c > asked.seq) || seen.creator != asked.peer {
            return;
        }
        // past its ttlMs (taskcheck's clock, which starts before the server's) the task may
        // be gone, as the text allows: nothing judged on this answer is a failure
        if let (Some(sent), Some(Some(ttl))) = (seen.sent_ms, seen.ttl) {
            if e.t_ms >= sent.saturating_add(ttl) {
                let why = format!(
                    "{method} of {id} was answered {} ms after the request that created the task was sent, past its ttlMs of {ttl} ms: the server may have discarded it, as the text allows",
                    e.t_ms.saturating_sub(sent)
                );
                self.expired.insert(seq, why);
                return;
            }
        }
        let created = seen.created.unwrap_or_default();
        let (rule, message) = match seen.found {
            false => (
                DURABLE,
                format!(
                    "{method} of {id}, asked after its CreateTaskResult, answered {}",
                    crate::matcher::short(error)
                ),
            ),
            // taskcheck's clock alone: the creating request was sent no later than the
            // task was created, so an answer before then + ttlMs is early whatever the
            // server's clock says
            true => {
                let (Some(sent), Some(ttl), false) = (seen.sent_ms, seen.ttl, seen.cancel_asked)
                else {
                    return;
                };
                // -32602 alone refuses a tasks/update or tasks/cancel for other reasons too
                if !crate::wire::says_task_not_found(method == "tasks/get", error) {
                    return;
                }
                let ttl = ttl.map_or("null (unlimited)".to_string(), |t| format!("{t} ms"));
                (
                    EARLY,
                    format!(
                        "{method} of {id} answered {} {} ms after the request that created it was sent; its smallest ttlMs was {ttl}",
                        crate::matcher::short(error),
                        e.t_ms.saturating_sub(sent)
                    ),
                )
            }
        };
        let first = *seen.missing.get_or_insert(seq);
        self.vanished.insert(seq, (first, rule));
        self.find(rule, false, message, vec![created, asked.seq, seq]);
    }

    fn discovered(&mut self, result: &Value, evidence: Vec<u64>) {
        let versions = result.get("supportedVersions").and_then(Value::as_array);
        let well_formed = versions.is_some_and(|v| v.iter().all(Value::is_string))
            && result.get("capabilities").is_some_and(Value::is_object);
        let lists_ours = versions
            .into_iter()
            .flatten()
            .any(|v| v == super::PROTOCOL_VERSION);
        self.find(
            DISCOVER,
            well_formed && lists_ours,
            match (well_formed, lists_ours) {
                (false, _) => {
                    "server/discover answered no `supportedVersions` list and `capabilities` object"
                        .into()
                }
                (true, false) => format!(
                    "server/discover does not list {} among supportedVersions",
                    super::PROTOCOL_VERSION
                ),
                (true, true) => "server/discover lists the version and its capabilities".into(),
            },
            evidence.clone(),
        );
        let legacy = result.get("capabilities").and_then(|c| c.get("tasks"));
        self.find(
            NO_LEGACY,
            legacy.is_none(),
            match legacy {
                Some(t) => format!(
                    "server/discover advertises the legacy `tasks` capability {}",
                    crate::matcher::short(t)
                ),
                None => "no legacy `tasks` capability".into(),
            },
            evidence,
        );
    }

    /// A Task object (evidence: the request that asked, then the answer): its shape, its
    /// transition from what its task showed before, its keys.
    fn task(&mut self, task: &Value, evidence: Vec<u64>) {
        let problems = shape_problems(task);
        self.find(
            FIELDS,
            problems.is_empty(),
            match problems.is_empty() {
                true => "the Task has its fields".into(),
                false => format!("the Task {}", problems.join("; ")),
            },
            evidence.clone(),
        );
        let (Some(id), Some(status)) = (
            task.get("taskId").and_then(Value::as_str),
            task.get("status").and_then(Value::as_str),
        ) else {
            return;
        };
        let seen = self.tasks.entry(id.to_string()).or_default();
        if let Some(shown) = task.get("ttlMs") {
            // the smallest ttl shown: null is unlimited, and ttlMs may change
            let shown = shown.as_u64();
            seen.ttl = Some(match seen.ttl.flatten() {
                Some(before) => Some(shown.map_or(before, |s| s.min(before))),
                None => shown,
            });
        }
        let (asked, now) = (evidence[0], *evidence.last().unwrap_or(&0));
        let before = seen.status.replace((status.to_string(), now));
        let mut found = Vec::new();
        // only an answer asked for after the earlier one arrived shows a later state; a
        // terminal status holds against every later answer, whatever came in between
        let earlier = seen
            .terminal
            .clone()
            .or(before)
            .filter(|(_, at)| *at < asked);
        if let Some((was, at)) = earlier {
            found.push(Finding::new(
                TRANSITIONS,
                allowed(&was, status),
                format!("task {id} went from {was} to {status}"),
                vec![at, now],
            ));
        }
        if is_terminal(status) && seen.terminal.is_none() {
            seen.terminal = Some((status.to_string(), now));
        }
        // one creation instant, wherever the task is shown (a malformed one is FIELDS's)
        let shown = task.get("createdAt").and_then(Value::as_str);
        if let Some((text, at)) = shown.and_then(|t| Some((t, crate::timestamp::parse(t).ok()?))) {
            match &seen.created_at {
                Some((first, first_text, first_seq)) => found.push(Finding::new(
                    CREATED_AT,
                    first.compare(&at) == std::cmp::Ordering::Equal,
                    format!("task {id} shown with createdAt {text:?}, first {first_text:?}"),
                    vec![*first_seq, now],
                )),
                None => seen.created_at = Some((at, text.to_string(), now)),
            }
        }
        for (k, request) in task
            .get("inputRequests")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            match seen.keys.get(k) {
                Some((first, at)) if first != request => found.push(Finding::new(
                    KEYS_UNIQUE,
                    false,
                    format!("task {id} named two different requests with the key {k:?}"),
                    vec![*at, now],
                )),
                Some(_) => {}
                None => {
                    seen.keys.insert(k.clone(), (request.clone(), now));
                    found.push(Finding::new(
                        KEYS_UNIQUE,
                        true,
                        format!("task {id} keys its requests apart"),
                        vec![now],
                    ));
                }
            }
        }
        self.findings.extend(found);
    }
}

/// Whether a result is a task handle (a CreateTaskResult, whatever its `resultType` says).
fn is_task_handle(result: &Value) -> bool {
    result.get("taskId").is_some()
        && result.get("status").is_some()
        && result.get("content").is_none()
}

/// Whether the state diagram allows a task seen in `from` to be seen next in `to`.
fn allowed(from: &str, to: &str) -> bool {
    from == to || !is_terminal(from)
}

pub(crate) fn is_terminal(status: &str) -> bool {
    TaskStatus::parse(status).is_some_and(TaskStatus::is_terminal)
}

/// What is wrong with a Task object's fields.
pub(crate) fn shape_problems(task: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if !task.get("taskId").is_some_and(Value::is_string) {
        out.push("has no string `taskId`".to_string());
    }
    match task.get("status").and_then(Value::as_str) {
        Some(s) if TaskStatus::parse(s).is_some() => {}
        other => out.push(format!(
            "has status {}, not one of {}",
            short(other.map(|s| s.into()).as_ref()),
            TaskStatus::names()
        )),
    }
    for field in ["createdAt", "lastUpdatedAt"] {
        if !task.get(field).is_some_and(Value::is_string) {
            out.push(format!("has no string `{field}`"));
        }
    }
    match task.get("ttlMs") {
        Some(Value::Null) => {}
        Some(v) if v.is_u64() => {}
        Some(v) => out.push(format!(
            "has `ttlMs` {}, neither an integer nor null",
            crate::matcher::short(v)
        )),
        None => out.push("has no `ttlMs` (null when unlimited)".to_string()),
    }
    if let Some(v) = task.get("pollIntervalMs").filter(|v| !v.is_u64()) {
        out.push(format!(
            "has `pollIntervalMs` {}, not an integer",
            crate::matcher::short(v)
        ));
    }
    out
}

fn short(v: Option<&Value>) -> String {
    v.map_or("nothing".into(), crate::matcher::short)
}

#[cfg(test)]
mod tests;
