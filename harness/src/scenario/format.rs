//! The steps of a scenario and what it requires. Parsing validates them, so the runner can
//! trust their shape.

use crate::model::TaskStatus;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Prerequisites; a missing one makes the scenario not-applicable (capability) or untestable (tool).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// Dotted paths that must exist in the server capabilities, e.g. `tasks.requests.tools.call`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Dotted paths that must be absent from the server capabilities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent_capabilities: Vec<String>,
    /// Fixture tools that must be listed by tools/list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// The transport the scenario needs (`http` or `stdio`); on another it is not applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// Needs two authorization contexts (`--auth-a` and `--auth-b`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub distinct_auth: bool,
}

impl Requires {
    /// Whether the scenario requires nothing.
    pub fn is_empty(&self) -> bool {
        self.capabilities.is_empty()
            && self.absent_capabilities.is_empty()
            && self.tools.is_empty()
            && self.transport.is_none()
            && !self.distinct_auth
    }
}

/// A transport a scenario can need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Stdio,
    Http,
}

impl Transport {
    /// The name `Connect::transport` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

/// Which requestor sends a step: `a` (the default) or a second session `b`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PeerName {
    #[default]
    A,
    B,
}

/// One step: exactly one of the kinds [`STEP_KINDS`] names, with the fields that kind takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, try_from = "RawStep", into = "RawStep")]
pub struct Step {
    pub kind: StepKind,
    /// Rule judged by `expect` (or by the poll reaching `until`); without one, a failure is a
    /// failed prerequisite and the scenario's remaining rules become untestable.
    pub rule: Option<String>,
    pub expect: Option<Expect>,
    /// Further independent judgements of the same answer.
    pub checks: Vec<Check>,
    /// Timeout of this step in ms (default: the run's --timeout-ms).
    pub timeout_ms: Option<u64>,
    /// The requestor whose session sends it (`send` and `walk_list`) or ends (`end_session`).
    pub peer: PeerName,
    /// Rules this step's judgement takes for granted: if one of them failed earlier in the
    /// scenario, a failure here is shown as its consequence (one defect, one failure).
    pub given: Vec<String>,
    /// The rule broken when the awaited request or notification never comes (`answer`,
    /// `notification`); the step's own rule is then untestable, as its consequence. Without
    /// it, the step's rule is broken.
    pub absent: Option<String>,
    /// An answer that shows the scenario does not apply to this receiver (`send` and
    /// `notification`): the scenario's rules not judged yet are not applicable.
    pub not_applicable_if: Option<NotApplicableIf>,
}

/// An answer that makes the rest of a scenario not applicable, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotApplicableIf {
    pub answer: Expect,
    pub because: String,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq)]
pub enum StepKind {
    /// Send a request. `repeat` sends it that many times, captures collecting into arrays.
    Send {
        method: String,
        params: Value,
        repeat: Option<u32>,
        within: Option<Within>,
        save: Option<String>,
        /// Give up waiting after this many ms without judging (HTTP drops the stream).
        abandon_after_ms: Option<u64>,
        /// With `abandon_after_ms`: the request stays open past it (a subscriptions/listen
        /// stream), and what the receiver sends on it still arrives.
        hold_open: bool,
        /// HTTP headers set against what the body calls for (null: left out); other
        /// transports send the message alone.
        headers: BTreeMap<String, Option<String>>,
    },
    Notify {
        method: String,
        params: Value,
    },
    /// Poll a task with tasks/get until its status is one of `until`.
    Poll {
        task: String,
        until: Vec<String>,
        capture: Option<String>,
    },
    Wait {
        ms: u64,
    },
    /// Wait for a receiver request of this method, judge it with `expect`, answer with `reply`.
    Answer {
        method: String,
        reply: Value,
    },
    /// Answer the outstanding requests of a task (the `inputRequests` tasks/get shows, under
    /// the keys the receiver chose), all of them or `at_most` so many, in one tasks/update;
    /// each gets `reply`, its `content` cut to the fields the request's form asks for.
    /// `expect` judges the tasks/update answer.
    Respond {
        task: String,
        reply: Value,
        at_most: Option<usize>,
        /// Answer again, in the same tasks/update, every request of the task an earlier
        /// `respond` answered, with this (a second answer the server should ignore).
        again: Option<Value>,
    },
    /// Retry the last request answered with an InputRequiredResult as a new request: each of
    /// its `inputRequests` answered with `reply`, its `requestState` echoed; `expect` judges
    /// the answer to the retry (asked again, it retries again, a few times at most); `save`
    /// keeps that last answer under a name.
    Retry {
        reply: Value,
        save: Option<String>,
    },
    /// Wait for a receiver notification of this method and judge its params with `expect`.
    Notification {
        method: String,
    },
    /// Walk tasks/list through every cursor; the answer judged is `{tasks: [...]}` of all pages.
    WalkList {
        contains: Option<String>,
        lacks: Option<String>,
        next_cursor_rule: Option<String>,
        page_limit_rule: Option<String>,
    },
    /// End the session of the step's requestor (HTTP: DELETE), as a requestor leaving does.
    EndSession,
    Parallel(Vec<Step>),
    Sequence(Vec<Step>),
}

/// A timing judgement on a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Within {
    pub ms: u64,
    pub rule: String,
}

/// A judgement of an answer under a rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub rule: String,
    pub expect: Expect,
}

/// What an answer must look like: a result pattern, an error pattern, or any of several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Expect {
    Result(Value),
    Error(Value),
    /// For `answer` steps: a pattern over the receiver request's params.
    Params(Value),
    AnyOf(Vec<Expect>),
}

/// The flat YAML shape of a step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub respond: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk_list: Option<WalkList>,
    /// The requestor (`a` or `b`) whose session ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_session: Option<PeerName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<Vec<Step>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<Step>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<Within>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<Value>,
    /// `respond`: answer at most this many outstanding requests (the first in key order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<usize>,
    /// `respond`: answer again, with this, the requests earlier respond steps answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub again: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<PeerName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandon_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_open: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, Option<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applicable_if: Option<NotApplicableIf>,
}

/// Options of a `walk_list` step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WalkList {
    /// `${var}` holding task ids (a string or an array) that must all appear in the walk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// `${var}` holding task ids (a string or an array) that must not appear in the walk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lacks: Option<String>,
    /// Rule judged on the first page: if it leaves out some `contains` task, it has a `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor_rule: Option<String>,
    /// Rule judged on the first page: it holds fewer than 100 tasks, or has a `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_limit_rule: Option<String>,
}

/// One kind of step: the key that names it, the other fields it takes, and what it does. The
/// parser, its errors and `docs/scenarios.md` (checked by `harness/tests/docs.rs`) read this
/// one table.
pub struct StepKindSpec {
    pub key: &'static str,
    pub fields: &'static [&'static str],
    pub does: &'static str,
}

/// Every kind of step.
pub const STEP_KINDS: &[StepKindSpec] = &[
    StepKindSpec {
        key: "send",
        fields: &[
            "params",
            "repeat",
            "within",
            "save",
            "rule",
            "expect",
            "checks",
            "timeout_ms",
            "peer",
            "abandon_after_ms",
            "hold_open",
            "given",
            "headers",
            "not_applicable_if",
        ],
        does: "sends a request and judges its answer",
    },
    StepKindSpec {
        key: "notify",
        fields: &["params"],
        does: "sends a notification",
    },
    StepKindSpec {
        key: "poll",
        fields: &["until", "capture", "rule", "timeout_ms", "given"],
        does: "polls a task until one of the statuses `until` names",
    },
    StepKindSpec {
        key: "wait",
        fields: &[],
        does: "waits so many ms",
    },
    StepKindSpec {
        key: "answer",
        fields: &[
            "reply",
            "rule",
            "expect",
            "checks",
            "timeout_ms",
            "given",
            "absent",
        ],
        does: "waits for a receiver request, judges its params and answers it with `reply`",
    },
    StepKindSpec {
        key: "notification",
        fields: &[
            "rule",
            "expect",
            "checks",
            "timeout_ms",
            "given",
            "absent",
            "not_applicable_if",
        ],
        does: "waits for a receiver notification and judges its params",
    },
    StepKindSpec {
        key: "respond",
        fields: &[
            "reply",
            "at_most",
            "again",
            "rule",
            "expect",
            "checks",
            "timeout_ms",
            "given",
            "absent",
        ],
        does: "answers a task's outstanding input requests in one tasks/update",
    },
    StepKindSpec {
        key: "retry",
        fields: &["save", "rule", "expect", "checks", "timeout_ms", "given"],
        does: "retries the last request answered with an InputRequiredResult, with its answers",
    },
    StepKindSpec {
        key: "walk_list",
        fields: &["rule", "expect", "checks", "timeout_ms", "peer", "given"],
        does: "walks every tasks/list page",
    },
    StepKindSpec {
        key: "end_session",
        fields: &[],
        does: "ends a requestor's session as a client leaving does",
    },
    StepKindSpec {
        key: "parallel",
        fields: &[],
        does: "runs its branches at once",
    },
    StepKindSpec {
        key: "steps",
        fields: &[],
        does: "runs its steps in order",
    },
];

impl RawStep {
    /// The keys this step sets, its kind's among them.
    fn set_keys(&self) -> Vec<&'static str> {
        [
            ("send", self.send.is_some()),
            ("notify", self.notify.is_some()),
            ("poll", self.poll.is_some()),
            ("wait", self.wait.is_some()),
            ("answer", self.answer.is_some()),
            ("notification", self.notification.is_some()),
            ("respond", self.respond.is_some()),
            ("retry", self.retry.is_some()),
            ("walk_list", self.walk_list.is_some()),
            ("end_session", self.end_session.is_some()),
            ("parallel", self.parallel.is_some()),
            ("steps", self.steps.is_some()),
            ("params", self.params.is_some()),
            ("repeat", self.repeat.is_some()),
            ("within", self.within.is_some()),
            ("save", self.save.is_some()),
            ("until", self.until.is_some()),
            ("capture", self.capture.is_some()),
            ("reply", self.reply.is_some()),
            ("at_most", self.at_most.is_some()),
            ("again", self.again.is_some()),
            ("rule", self.rule.is_some()),
            ("expect", self.expect.is_some()),
            ("checks", !self.checks.is_empty()),
            ("timeout_ms", self.timeout_ms.is_some()),
            ("peer", self.peer.is_some()),
            ("abandon_after_ms", self.abandon_after_ms.is_some()),
            ("hold_open", self.hold_open),
            ("headers", !self.headers.is_empty()),
            ("given", !self.given.is_empty()),
            ("absent", self.absent.is_some()),
            ("not_applicable_if", self.not_applicable_if.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, set)| set.then_some(key))
        .collect()
    }
}

impl TryFrom<RawStep> for Step {
    type Error = String;

    fn try_from(raw: RawStep) -> Result<Step, String> {
        let set = raw.set_keys();
        let kinds: Vec<&str> = STEP_KINDS
            .iter()
            .map(|k| k.key)
            .filter(|k| set.contains(k))
            .collect();
        let kind = match kinds.as_slice() {
            [one] => STEP_KINDS.iter().find(|k| k.key == *one).expect("a kind"),
            [] => {
                let keys: Vec<&str> = STEP_KINDS.iter().map(|k| k.key).collect();
                return Err(format!("a step needs one of {}", keys.join(", ")));
            }
            many => {
                return Err(format!(
                    "a step takes exactly one kind, found {}",
                    many.join(", ")
                ))
            }
        };
        let kind_name = kind.key;
        let stray = set
            .iter()
            .find(|f| **f != kind_name && !kind.fields.contains(f));
        if let Some(field) = stray {
            return Err(format!("`{field}` does not apply to a `{kind_name}` step"));
        }
        if let Some(e) = &raw.expect {
            validate_expect(e)?;
        }
        for c in &raw.checks {
            validate_expect(&c.expect)?;
        }
        if let Some(n) = &raw.not_applicable_if {
            validate_expect(&n.answer)?;
        }
        if raw.hold_open && raw.abandon_after_ms.is_none() {
            return Err(
                "`hold_open` keeps a request open past `abandon_after_ms`, which the step lacks"
                    .into(),
            );
        }
        let params = raw.params.unwrap_or(Value::Null);
        crate::matcher::validate_scaled(&params)?;
        let kind = match kind_name {
            "send" => StepKind::Send {
                method: raw.send.unwrap_or_default(),
                params,
                repeat: raw.repeat,
                within: raw.within,
                save: raw.save,
                abandon_after_ms: raw.abandon_after_ms,
                hold_open: raw.hold_open,
                headers: raw.headers,
            },
            "notify" => StepKind::Notify {
                method: raw.notify.unwrap_or_default(),
                params,
            },
            "poll" => {
                let until = raw
                    .until
                    .ok_or("a poll step needs `until`: the statuses to wait for")?;
                if let Some(bad) = until.iter().find(|s| TaskStatus::parse(s).is_none()) {
                    return Err(format!(
                        "unknown status {bad:?} in `until` (one of {})",
                        TaskStatus::names()
                    ));
                }
                StepKind::Poll {
                    task: raw.poll.unwrap_or_default(),
                    until,
                    capture: raw.capture,
                }
            }
            "wait" => StepKind::Wait {
                ms: raw.wait.unwrap_or_default(),
            },
            "answer" => StepKind::Answer {
                method: raw.answer.unwrap_or_default(),
                reply: raw
                    .reply
                    .ok_or("an answer step needs `reply`: the result to send")?,
            },
            "respond" => StepKind::Respond {
                task: raw.respond.unwrap_or_default(),
                reply: raw.reply.ok_or(
                    "a respond step needs `reply`: the answer to each outstanding request",
                )?,
                at_most: raw.at_most,
                again: raw.again,
            },
            "notification" => StepKind::Notification {
                method: raw.notification.unwrap_or_default(),
            },
            "retry" => StepKind::Retry {
                reply: raw.retry.unwrap_or_default(),
                save: raw.save,
            },
            "walk_list" => {
                let w = raw.walk_list.unwrap_or_default();
                StepKind::WalkList {
                    contains: w.contains,
                    lacks: w.lacks,
                    next_cursor_rule: w.next_cursor_rule,
                    page_limit_rule: w.page_limit_rule,
                }
            }
            "end_session" => StepKind::EndSession,
            "parallel" => StepKind::Parallel(raw.parallel.unwrap_or_default()),
            _ => StepKind::Sequence(raw.steps.unwrap_or_default()),
        };
        Ok(Step {
            kind,
            rule: raw.rule,
            expect: raw.expect,
            checks: raw.checks,
            timeout_ms: raw.timeout_ms,
            peer: raw.end_session.or(raw.peer).unwrap_or_default(),
            given: raw.given,
            absent: raw.absent,
            not_applicable_if: raw.not_applicable_if,
        })
    }
}

impl From<Step> for RawStep {
    fn from(step: Step) -> RawStep {
        let params = |p: Value| (!p.is_null()).then_some(p);
        let mut raw = RawStep {
            rule: step.rule,
            expect: step.expect,
            checks: step.checks,
            timeout_ms: step.timeout_ms,
            peer: (step.peer != PeerName::A).then_some(step.peer),
            given: step.given,
            absent: step.absent,
            not_applicable_if: step.not_applicable_if,
            ..RawStep::default()
        };
        match step.kind {
            StepKind::Send {
                method,
                params: p,
                repeat,
                within,
                save,
                abandon_after_ms,
                hold_open,
                headers,
            } => {
                raw.headers = headers;
                raw.send = Some(method);
                raw.params = params(p);
                raw.repeat = repeat;
                raw.within = within;
                raw.save = save;
                raw.abandon_after_ms = abandon_after_ms;
                raw.hold_open = hold_open;
            }
            StepKind::Notify { method, params: p } => {
                raw.notify = Some(method);
                raw.params = params(p);
            }
            StepKind::Poll {
                task,
                until,
                capture,
            } => {
                raw.poll = Some(task);
                raw.until = Some(until);
                raw.capture = capture;
            }
            StepKind::Wait { ms } => raw.wait = Some(ms),
            StepKind::Answer { method, reply } => {
                raw.answer = Some(method);
                raw.reply = Some(reply);
            }
            StepKind::Respond {
                task,
                reply,
                at_most,
                again,
            } => {
                raw.respond = Some(task);
                raw.reply = Some(reply);
                raw.at_most = at_most;
                raw.again = again;
            }
            StepKind::Notification { method } => raw.notification = Some(method),
            StepKind::Retry { reply, save } => {
                raw.retry = Some(reply);
                raw.save = save;
            }
            StepKind::WalkList {
                contains,
                lacks,
                next_cursor_rule,
                page_limit_rule,
            } => {
                raw.walk_list = Some(WalkList {
                    contains,
                    lacks,
                    next_cursor_rule,
                    page_limit_rule,
                })
            }
            StepKind::EndSession => raw.end_session = raw.peer.take().or(Some(PeerName::A)),
            StepKind::Parallel(steps) => raw.parallel = Some(steps),
            StepKind::Sequence(steps) => raw.steps = Some(steps),
        }
        raw
    }
}

fn validate_expect(e: &Expect) -> Result<(), String> {
    match e {
        Expect::Result(p) | Expect::Error(p) | Expect::Params(p) => crate::matcher::validate(p),
        Expect::AnyOf(list) if list.is_empty() => {
            Err("`any_of` needs at least one expectation".into())
        }
        Expect::AnyOf(list) => list.iter().try_for_each(validate_expect),
    }
}

/// Calls `f` on every step, nested ones (of `parallel` and `steps`) included.
pub(super) fn each_step<'a>(steps: &'a [Step], f: &mut impl FnMut(&'a Step)) {
    for s in steps {
        f(s);
        if let StepKind::Parallel(inner) | StepKind::Sequence(inner) = &s.kind {
            each_step(inner, f);
        }
    }
}

impl Expect {
    /// Its patterns, whatever the kind.
    pub fn patterns(&self) -> Vec<&Value> {
        match self {
            Expect::Result(p) | Expect::Error(p) | Expect::Params(p) => vec![p],
            Expect::AnyOf(list) => list.iter().flat_map(Expect::patterns).collect(),
        }
    }
}

impl Step {
    /// Every rule the step judges (its own, its `checks`', a `within` or next-cursor rule).
    pub fn rules(&self) -> Vec<String> {
        let mut out: Vec<String> = self.rule.iter().chain(&self.absent).cloned().collect();
        out.extend(self.checks.iter().map(|c| c.rule.clone()));
        match &self.kind {
            StepKind::Send {
                within: Some(w), ..
            } => out.push(w.rule.clone()),
            StepKind::WalkList {
                next_cursor_rule,
                page_limit_rule,
                ..
            } => out.extend(next_cursor_rule.iter().chain(page_limit_rule).cloned()),
            _ => {}
        }
        out
    }

    /// The captures the step uses (`${name}` in what it sends or expects), nested steps' too.
    pub fn uses(&self) -> Vec<String> {
        let mut values: Vec<Value> = Vec::new();
        match &self.kind {
            StepKind::Send { params, .. } | StepKind::Notify { params, .. } => {
                values.push(params.clone())
            }
            StepKind::Poll { task, .. } => values.push(Value::String(task.clone())),
            StepKind::Answer { reply, .. } | StepKind::Retry { reply, .. } => {
                values.push(reply.clone())
            }
            StepKind::Respond { task, reply, .. } => {
                values.push(Value::String(task.clone()));
                values.push(reply.clone());
            }
            StepKind::WalkList {
                contains, lacks, ..
            } => values.extend(
                contains
                    .iter()
                    .chain(lacks)
                    .map(|v| Value::String(v.clone())),
            ),
            StepKind::Parallel(inner) | StepKind::Sequence(inner) => {
                return inner.iter().flat_map(Step::uses).collect()
            }
            StepKind::Wait { .. } | StepKind::Notification { .. } | StepKind::EndSession => {}
        }
        let expects = self
            .expect
            .iter()
            .chain(self.checks.iter().map(|c| &c.expect))
            .chain(self.not_applicable_if.iter().map(|n| &n.answer));
        values.extend(expects.flat_map(Expect::patterns).cloned());
        values.iter().flat_map(crate::matcher::references).collect()
    }

    /// The captures the step sets (`$capture`, `save`, a poll's `capture`), nested steps' too.
    pub fn sets(&self) -> Vec<String> {
        let expects = self
            .expect
            .iter()
            .chain(self.checks.iter().map(|c| &c.expect));
        let mut out: Vec<String> = expects
            .flat_map(Expect::patterns)
            .flat_map(crate::matcher::captures)
            .collect();
        match &self.kind {
            StepKind::Send { save: Some(s), .. } | StepKind::Retry { save: Some(s), .. } => {
                out.push(s.clone())
            }
            StepKind::Poll {
                capture: Some(c), ..
            } => out.push(c.clone()),
            StepKind::Parallel(inner) | StepKind::Sequence(inner) => {
                out.extend(inner.iter().flat_map(Step::sets))
            }
            _ => {}
        }
        out
    }
}

/// The label of the `i`th (from 0) step inside the step labelled `outer` (empty: the top
/// level): `3`, or `5.2` for the second step inside step 5.
pub fn step_label(outer: &str, i: usize) -> String {
    match outer {
        "" => (i + 1).to_string(),
        _ => format!("{outer}.{}", i + 1),
    }
}
