//! Executing scenario steps: requests, polls, receiver requests and notifications, list walks.

use super::{
    still_answering, Config, Stop, MAX_LIST_PAGES, POLLS_AT_LEAST, POLL_DEFAULT_MS, POLL_MIN_MS,
};
use crate::matcher::{self, Vars};
use crate::model::TaskStatus;
use crate::scenario::{step_label, Expect, PeerName, Step, StepKind};
use crate::session::{Inbound, Inbox, Reply, RequestError, Session};
use crate::spec::{self, Level};
use crate::verdict::{Check, Root, Verdict};
use crate::wire::{self, Outcome};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// Runs steps on one session.
pub(super) struct Exec<'a> {
    pub(super) session: &'a Session,
    /// The second requestor's session, in scenarios that use one.
    pub(super) peer_b: Option<&'a Session>,
    pub(super) config: &'a Config,
    /// Some fixture role of the scenario is played by the receiver's own tool (`--fixtures`),
    /// which promises no more than the spec: a notification it does not send (progress is a
    /// MAY) leaves the step's rule untestable instead of failed.
    pub(super) mapped: bool,
    /// Fixture roles the receiver does not play as the contract says, each with why: steps
    /// that call them are left out, their rules untestable.
    pub(super) unavailable: &'a BTreeMap<String, String>,
}

/// What one branch of steps produced.
#[derive(Default, Clone)]
pub(super) struct State {
    pub(super) vars: Vars,
    pub(super) checks: Vec<Check>,
    /// The label of the step running now: `3`, or `5.2` for the second inside step 5.
    pub(super) label: String,
    /// The step that sent each request (or took each receiver message), by trace number.
    pub(super) sent_by: BTreeMap<u64, String>,
    /// The trace number of the last answer this branch received: a `notification` step takes
    /// only notifications that came after it.
    last_answer: Option<u64>,
    /// Captures a left-out step would have set, each with why it was left out.
    missing: BTreeMap<String, String>,
    /// The input requests `respond` steps answered, by task id: a request shown again (the
    /// task has not taken the answer in yet) is not answered twice.
    answered: std::collections::HashMap<String, Vec<(String, Value)>>,
    /// The last request a `send` step made when its answer was an InputRequiredResult: the
    /// method, the params sent and the answer, for a `retry` step.
    input_asked: Option<(String, Value, Value)>,
}

impl State {
    /// The trace number of the last answer this branch received.
    pub(super) fn last_answer(&self) -> Option<u64> {
        self.last_answer
    }

    /// Records a judgement that compared an answer with an expectation (shown in reports).
    fn judge_comparing(
        &mut self,
        rule: &Option<String>,
        held: bool,
        message: String,
        evidence: Vec<u64>,
        (expected, actual): (String, String),
    ) -> Result<(), Stop> {
        self.judge(rule, held, message, evidence)?;
        if let (Some(r), Some(last)) = (rule, self.checks.last_mut()) {
            if &last.rule == r {
                *last = last.clone().comparing(expected, actual);
            }
        }
        Ok(())
    }

    /// Records a check made by the step running now.
    fn record(&mut self, check: Check) {
        self.checks.push(Check {
            step: Some(self.label.clone()),
            ..check
        });
    }

    /// A branch that starts from this state's captures, labelled `label`.
    fn branch(&self, label: String) -> State {
        State {
            vars: self.vars.clone(),
            label,
            last_answer: self.last_answer,
            missing: self.missing.clone(),
            answered: self.answered.clone(),
            input_asked: self.input_asked.clone(),
            ..State::default()
        }
    }

    /// Takes a finished branch's captures, checks and request origins in.
    fn merge(&mut self, branch: State) {
        self.vars.extend(branch.vars);
        self.checks.extend(branch.checks);
        self.sent_by.extend(branch.sent_by);
        self.missing.extend(branch.missing);
    }

    /// Records a judgement under `rule`, or stops if the step has no rule.
    fn judge(
        &mut self,
        rule: &Option<String>,
        held: bool,
        message: String,
        evidence: Vec<u64>,
    ) -> Result<(), Stop> {
        match rule {
            Some(r) => {
                self.record(Check::judged(r, held, message, evidence));
                Ok(())
            }
            None if held => Ok(()),
            None => Err(Stop::Prerequisite(message)),
        }
    }
}

type StepFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Stop>> + Send + 'a>>;

/// How many times a `retry` step asks, the server answering with an InputRequiredResult again
/// (MRTR lets it ask again until it has what it needs).
const RETRIES_AT_MOST: u32 = 3;

/// The InputRequiredResult an answer is, if it is one.
fn asks_input(outcome: &Outcome) -> Option<&Value> {
    match outcome {
        Outcome::Result(r)
            if r.get("resultType").and_then(Value::as_str) == Some("input_required") =>
        {
            Some(r)
        }
        _ => None,
    }
}

/// Stops the scenario as not applicable if the answer matches the step's `not_applicable_if`.
fn not_applicable(step: &Step, answer: &Outcome, state: &State) -> Result<(), Stop> {
    let Some(n) = &step.not_applicable_if else {
        return Ok(());
    };
    if expect_holds(&n.answer, answer, &mut state.vars.clone()).is_err() {
        return Ok(());
    }
    let why = match (&step.kind, answer) {
        (StepKind::Notification { method }, Outcome::Result(p)) => {
            format!("{}: it sent {method} {}", n.because, matcher::short(p))
        }
        _ => format!("{}: it answered {}", n.because, describe(answer)),
    };
    Err(Stop::NotApplicable(why))
}

fn outcome_value(outcome: &Outcome) -> &Value {
    match outcome {
        Outcome::Result(v) | Outcome::Error(v) => v,
    }
}

/// A short text of an expectation, with captured values put in.
fn expect_text(expect: &Expect, vars: &Vars) -> String {
    let show = |p: &Value| matcher::short(&matcher::substitute(p, vars).unwrap_or(p.clone()));
    match expect {
        Expect::Result(p) | Expect::Params(p) => format!("result {}", show(p)),
        Expect::Error(p) => format!("error {}", show(p)),
        Expect::AnyOf(list) => list
            .iter()
            .map(|e| expect_text(e, vars))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// A short text of an answer.
pub(super) fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Result(v) => format!("result {}", matcher::short(v)),
        Outcome::Error(v) => format!("error {}", matcher::short(v)),
    }
}

/// Judges an answer against an expectation; captures go into `vars` only on success.
fn expect_holds(expect: &Expect, answer: &Outcome, vars: &mut Vars) -> Result<(), String> {
    let (pattern, wanted_result) = match expect {
        Expect::AnyOf(options) => {
            let mut reasons = Vec::new();
            for o in options {
                let mut trial = vars.clone();
                match expect_holds(o, answer, &mut trial) {
                    Ok(()) => {
                        *vars = trial;
                        return Ok(());
                    }
                    Err(r) => reasons.push(r),
                }
            }
            return Err(format!(
                "none of the accepted answers: {}",
                reasons.join("; ")
            ));
        }
        Expect::Result(p) | Expect::Params(p) => (p, true),
        Expect::Error(p) => (p, false),
    };
    let pattern = matcher::substitute(pattern, vars)?;
    let value = match (answer, wanted_result) {
        (Outcome::Result(v), true) | (Outcome::Error(v), false) => v,
        _ => {
            let kind = if wanted_result {
                "a result"
            } else {
                "an error"
            };
            return Err(format!(
                "expected {kind} matching {}, got {}",
                matcher::short(&pattern),
                describe(answer)
            ));
        }
    };
    let mut trial = vars.clone();
    matcher::matches(&pattern, value, &mut trial)
        .map_err(|m| format!("{m}; got {}", describe(answer)))?;
    *vars = trial;
    Ok(())
}

impl<'a> Exec<'a> {
    fn timeout(&self, step: &Step) -> Duration {
        step.timeout_ms
            .map(|ms| self.config.limits.scaled(ms))
            .unwrap_or(self.config.limits.request)
    }

    /// Runs steps in order, labelling each (`1`, `2`, ... under the label of the step that
    /// holds them, if any).
    pub(super) fn run_steps(&'a self, steps: &'a [Step], state: &'a mut State) -> StepFuture<'a> {
        Box::pin(async move {
            let outer = state.label.clone();
            for (i, step) in steps.iter().enumerate() {
                state.label = step_label(&outer, i);
                self.run_step(step, state).await?;
            }
            state.label = outer;
            Ok(())
        })
    }

    /// Judges `expect` (under the step's rule) and each of `checks` against one answer.
    fn judge_answer(
        &self,
        step: &Step,
        answer: &Outcome,
        evidence: Vec<u64>,
        state: &mut State,
    ) -> Result<(), Stop> {
        not_applicable(step, answer, state)?;
        let primary = step.expect.as_ref().map(|e| (step.rule.clone(), e));
        let extra = step
            .checks
            .iter()
            .map(|c| (Some(c.rule.clone()), &c.expect));
        for (rule, expect) in primary.into_iter().chain(extra) {
            let verdict = expect_holds(expect, answer, &mut state.vars);
            let held = verdict.is_ok();
            let recorded = rule
                .as_deref()
                .and_then(spec::rule)
                .is_some_and(|r| r.level == Level::May);
            let message = match verdict {
                // a MAY is recorded, not judged: say what the receiver did
                Ok(()) if recorded => format!("answered {}", describe(answer)),
                Ok(()) => "answer as expected".into(),
                Err(why) => why,
            };
            let compared = (expect_text(expect, &state.vars), describe(answer));
            state.judge_comparing(&rule, held, message, evidence.clone(), compared)?;
        }
        Ok(())
    }

    async fn request(
        &self,
        step: &Step,
        method: &str,
        params: Value,
        state: &mut State,
    ) -> Result<Option<Reply>, Stop> {
        let session = self.session_of(step)?;
        let headers = match &step.kind {
            StepKind::Send { headers, .. } => headers.clone().into_iter().collect(),
            _ => Vec::new(),
        };
        let task_id = params.get("taskId").cloned();
        match session
            .request_headed(method, params, self.timeout(step), headers)
            .await
        {
            Ok(reply) => {
                state.sent_by.insert(reply.asked, state.label.clone());
                state.last_answer = Some(reply.seq);
                Ok(Some(reply))
            }
            Err(e @ RequestError::Timeout { .. }) => {
                still_answering(session, &self.config.limits, &e).await?;
                if let (Some(rule), Some(id), "tasks/result") = (&step.rule, task_id, method) {
                    if let Some(why) = self.rightly_blocked(session, id).await {
                        let message = format!("{e}, {why}");
                        state.record(Check::with(rule, Verdict::Untestable, message));
                        return Ok(None);
                    }
                }
                state.judge(&step.rule, false, e.to_string(), Vec::new())?;
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Why a tasks/result of task `id` that got no answer in time broke no rule, if it did
    /// not: its task is still not terminal (blocking is what the spec asks), or it ended just
    /// as the wait ran out and a second tasks/result is answered.
    async fn rightly_blocked(&self, session: &Session, id: Value) -> Option<String> {
        let limit = self.config.limits.request;
        let ask = |method| session.request(method, json!({"taskId": id}), limit);
        let Outcome::Result(task) = ask("tasks/get").await.ok()?.outcome else {
            return None;
        };
        let status = TaskStatus::parse(task.get("status")?.as_str()?)?.as_str();
        if !TaskStatus::parse(status)?.is_terminal() {
            return Some(format!(
                "and the task is still {status:?}: blocking is what the spec asks while it is not terminal"
            ));
        }
        ask("tasks/result").await.ok().map(|_| {
            format!("and the task is {status:?} now, ended as the wait ran out: a second tasks/result was answered")
        })
    }

    /// Why a step cannot run: it calls a fixture role the receiver does not play, or uses a
    /// capture a left-out step would have set.
    fn left_out(&self, step: &Step, state: &State) -> Option<String> {
        if let StepKind::Send { method, params, .. } = &step.kind {
            let role = params.get("name").and_then(Value::as_str);
            if let Some(why) = role
                .filter(|_| method == "tools/call")
                .and_then(|r| self.unavailable.get(r))
            {
                return Some(why.clone());
            }
        }
        if matches!(step.kind, StepKind::Parallel(_) | StepKind::Sequence(_)) {
            return None;
        }
        step.uses().iter().find_map(|name| {
            state
                .missing
                .get(name)
                .map(|why| format!("needs ${{{name}}}: {why}"))
        })
    }

    async fn run_step(&'a self, step: &'a Step, state: &'a mut State) -> Result<(), Stop> {
        if let Some(why) = self.left_out(step, state) {
            for rule in step.rules() {
                state.record(Check::with(&rule, Verdict::Untestable, why.clone()));
            }
            for name in step.sets() {
                state.missing.insert(name, why.clone());
            }
            return Ok(());
        }
        let subst =
            |v: &Value, vars: &Vars| matcher::substitute(v, vars).map_err(Stop::Prerequisite);
        match &step.kind {
            StepKind::Send {
                method,
                params,
                abandon_after_ms: Some(ms),
                hold_open,
                ..
            } => {
                let params = subst(params, &state.vars)?;
                let session = self.session_of(step)?;
                let wait = self.config.limits.scaled(*ms);
                let asked = match hold_open {
                    true => session.request_open(method, params, wait, Vec::new()).await,
                    false => session.request(method, params, wait).await,
                };
                match asked {
                    // not judged; but an answer before the wait ends may show the scenario
                    // does not apply
                    Ok(reply) => {
                        state.sent_by.insert(reply.asked, state.label.clone());
                        state.last_answer = Some(reply.seq);
                        not_applicable(step, &reply.outcome, state)
                    }
                    Err(RequestError::Timeout { .. }) => Ok(()),
                    Err(e) => Err(e.into()),
                }
            }
            StepKind::Send {
                method,
                params,
                repeat,
                within,
                save,
                abandon_after_ms: None,
                ..
            } => {
                let mut params = subst(params, &state.vars)?;
                if super::TIMED_REQUESTS.contains(&method.as_str()) {
                    params = self.config.limits.stretch_call(params);
                }
                if method == "tools/call" {
                    params = self
                        .config
                        .fixtures
                        .apply(&params)
                        .map_err(Stop::Prerequisite)?;
                }
                let mut collected: Vars = Vars::new();
                let creates = params.get("task").is_some();
                for _ in 0..repeat.unwrap_or(1) {
                    let before = state.vars.clone();
                    // a list walk that must not see pages shift waits for creations to end
                    let creating = match creates {
                        true => Some(CREATIONS.read().await),
                        false => None,
                    };
                    let reply = self.request(step, method, params.clone(), state).await?;
                    drop(creating);
                    let Some(reply) = reply else {
                        continue;
                    };
                    self.judge_answer(step, &reply.outcome, vec![reply.asked, reply.seq], state)?;
                    state.input_asked = asks_input(&reply.outcome)
                        .map(|asked| (method.clone(), params.clone(), asked.clone()));
                    if let Some(w) = within {
                        let ms = reply.elapsed.as_millis();
                        let limit = self.config.limits.scaled(w.ms).as_millis();
                        state.record(Check::judged(
                            &w.rule,
                            ms <= limit,
                            format!("answered after {ms} ms (limit {limit} ms)"),
                            vec![reply.asked, reply.seq],
                        ));
                    }
                    if let Some(name) = save {
                        state
                            .vars
                            .insert(name.clone(), outcome_value(&reply.outcome).clone());
                    }
                    if repeat.is_some() {
                        for (k, v) in &state.vars {
                            if before.get(k) != Some(v) {
                                let slot = collected.entry(k.clone()).or_insert_with(|| json!([]));
                                slot.as_array_mut()
                                    .expect("collected values are arrays")
                                    .push(v.clone());
                            }
                        }
                    }
                }
                state.vars.extend(collected);
                Ok(())
            }
            StepKind::Notify { method, params } => {
                let params = subst(params, &state.vars)?;
                self.session
                    .notify(method, params)
                    .await
                    .map_err(Stop::from)
            }
            StepKind::Wait { ms } => {
                tokio::time::sleep(self.config.limits.scaled(*ms)).await;
                Ok(())
            }
            StepKind::Poll {
                task,
                until,
                capture,
            } => self.poll(step, task, until, capture, state).await,
            StepKind::Answer { method, reply } => {
                let Some(request) = self.receive(step, Inbox::Requests, method, state).await?
                else {
                    return Ok(());
                };
                let reply = subst(reply, &state.vars)?;
                self.session
                    .respond(&request.id, reply)
                    .await
                    .map_err(Stop::from)
            }
            StepKind::Respond { task, reply } => self.respond(step, task, reply, state).await,
            StepKind::Retry { reply } => self.retry(step, reply, state).await,
            StepKind::Notification { method } => self
                .receive(step, Inbox::Notifications, method, state)
                .await
                .map(|_| ()),
            StepKind::WalkList {
                contains,
                lacks,
                next_cursor_rule,
                page_limit_rule,
            } => {
                let lists = ListChecks {
                    contains,
                    lacks,
                    next_cursor_rule,
                    page_limit_rule,
                };
                self.walk_list(step, &lists, state).await
            }
            StepKind::Parallel(branches) => {
                let mut states: Vec<State> = (0..branches.len())
                    .map(|i| state.branch(step_label(&state.label, i)))
                    .collect();
                let results = futures::future::join_all(
                    branches
                        .iter()
                        .zip(states.iter_mut())
                        .map(|(b, s)| self.run_step(b, s)),
                )
                .await;
                for s in states {
                    state.merge(s);
                }
                results.into_iter().collect()
            }
            StepKind::Sequence(steps) => self.run_steps(steps, state).await,
        }
    }

    /// The session of the requestor a step speaks for.
    fn session_of(&self, step: &Step) -> Result<&'a Session, Stop> {
        match step.peer {
            PeerName::A => Ok(self.session),
            PeerName::B => self.peer_b.ok_or_else(|| {
                Stop::Prerequisite("the second requestor's session is not open".into())
            }),
        }
    }

    /// Waits for a receiver request or notification of `method` and judges its params.
    async fn receive(
        &self,
        step: &Step,
        inbox: Inbox,
        method: &str,
        state: &mut State,
    ) -> Result<Option<Inbound>, Stop> {
        // a notification answers to what the requestor already saw, never to older news
        let after = (inbox == Inbox::Notifications)
            .then_some(state.last_answer)
            .flatten();
        match self
            .session
            .next_after(inbox, method, after, self.timeout(step))
            .await
        {
            Ok(inbound) => {
                state.sent_by.insert(inbound.seq, state.label.clone());
                if let Some(absent) = &step.absent {
                    let sent = format!("the receiver sent its {method}");
                    state.record(Check::judged(absent, true, sent, vec![inbound.seq]));
                }
                let params = Outcome::Result(inbound.params.clone());
                self.judge_answer(step, &params, vec![inbound.seq], state)?;
                Ok(Some(inbound))
            }
            Err(e @ RequestError::Timeout { .. }) => {
                let why = format!("the receiver sent no {method}: {e}");
                if let Some(absent) = &step.absent {
                    // nothing came to judge the step's rule on: its absence is the finding
                    state.record(Check::judged(absent, false, why.clone(), Vec::new()));
                    if let Some(rule) = &step.rule {
                        let root = Root {
                            rule: absent.clone(),
                            scenario: String::new(),
                            step: None,
                        };
                        state.record(
                            Check::with(
                                rule,
                                Verdict::Untestable,
                                format!("{why}: nothing to judge"),
                            )
                            .following(root),
                        );
                    }
                    return Ok(None);
                }
                match (&step.rule, inbox == Inbox::Notifications && self.mapped) {
                    (Some(rule), true) => state.record(Check::with(
                        rule,
                        Verdict::Untestable,
                        format!("{why}; the tool mapped to this fixture role need not send it (only the fixture contract promises it)"),
                    )),
                    _ => state.judge(&step.rule, false, why, Vec::new())?,
                }
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn poll(
        &self,
        step: &Step,
        task: &str,
        until: &[String],
        capture: &Option<String>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let task_id = matcher::substitute(&json!(task), &state.vars).map_err(Stop::Prerequisite)?;
        let limit = step
            .timeout_ms
            .map(|ms| self.config.limits.scaled(ms))
            .unwrap_or(self.config.limits.poll);
        let start = Instant::now();
        let mut limit = limit;
        let (last, evidence) = loop {
            let Some(reply) = self
                .request(step, "tasks/get", json!({"taskId": task_id}), state)
                .await?
            else {
                return Ok(());
            };
            let evidence = vec![reply.asked, reply.seq];
            let task = match reply.outcome {
                Outcome::Result(t) => t,
                Outcome::Error(e) => {
                    return state.judge(
                        &step.rule,
                        false,
                        format!("tasks/get answered error {}", matcher::short(&e)),
                        evidence,
                    );
                }
            };
            let status = task
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if until.contains(&status) {
                if let Some(name) = capture {
                    state.vars.insert(name.clone(), task);
                }
                return state.judge(&step.rule, true, format!("task reached {status}"), evidence);
            }
            // a terminal status never changes: waiting on would only poll it again
            if crate::model::TaskStatus::parse(&status).is_some_and(|s| s.is_terminal()) {
                return state.judge(
                    &step.rule,
                    false,
                    format!(
                        "task {task_id} reached {status}, a terminal status, not {}",
                        until.join("|")
                    ),
                    evidence,
                );
            }
            // pollInterval is honoured (requestors SHOULD): a long one stretches the poll's
            // deadline to a few polls, the scenario's own deadline still bounding it
            let interval = Duration::from_millis(
                task.get("pollInterval")
                    .or(task.get("pollIntervalMs"))
                    .and_then(Value::as_u64)
                    .unwrap_or(POLL_DEFAULT_MS)
                    .max(POLL_MIN_MS),
            );
            limit = limit.max(interval * POLLS_AT_LEAST);
            let elapsed = start.elapsed();
            if elapsed >= limit {
                break (format!("status {status:?}"), evidence);
            }
            tokio::time::sleep(interval.min(limit - elapsed)).await;
        };
        state.judge(
            &step.rule,
            false,
            format!(
                "task {task_id} did not reach {} within {} ms (last: {last})",
                until.join("|"),
                limit.as_millis()
            ),
            evidence,
        )
    }

    /// Answers every request a task has outstanding in one tasks/update.
    async fn respond(
        &self,
        step: &Step,
        task: &str,
        reply: &Value,
        state: &mut State,
    ) -> Result<(), Stop> {
        let task_id = matcher::substitute(&json!(task), &state.vars).map_err(Stop::Prerequisite)?;
        let reply = matcher::substitute(reply, &state.vars).map_err(Stop::Prerequisite)?;
        let id_text = task_id.as_str().unwrap_or_default().to_string();
        let limit = step
            .timeout_ms
            .map(|ms| self.config.limits.scaled(ms))
            .unwrap_or(self.config.limits.poll);
        let start = Instant::now();
        // an update is eventually consistent: wait for a request not answered yet
        let keys = loop {
            let Some(shown) = self
                .request(step, "tasks/get", json!({"taskId": task_id}), state)
                .await?
            else {
                return Ok(());
            };
            let answered = state.answered.get(&id_text).cloned().unwrap_or_default();
            let fresh: Vec<(String, Value)> = match &shown.outcome {
                Outcome::Result(t) => t
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter(|(k, r)| !answered.iter().any(|(ak, ar)| ak == *k && ar == *r))
                    .map(|(k, r)| (k.clone(), r.clone()))
                    .collect(),
                Outcome::Error(_) => Vec::new(),
            };
            let status = outcome_value(&shown.outcome)["status"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let waiting = matches!(status.as_str(), "working" | "input_required");
            if !fresh.is_empty() {
                break fresh;
            }
            if !waiting || start.elapsed() >= limit {
                return Err(Stop::Prerequisite(format!(
                    "task {task_id} shows no outstanding request not answered yet (tasks/get: {})",
                    matcher::short(outcome_value(&shown.outcome))
                )));
            }
            tokio::time::sleep(Duration::from_millis(POLL_DEFAULT_MS)).await;
        };
        state
            .answered
            .entry(id_text)
            .or_default()
            .extend(keys.iter().cloned());
        let keys: Vec<String> = keys.into_iter().map(|(k, _)| k).collect();
        let responses: serde_json::Map<String, Value> =
            keys.into_iter().map(|k| (k, reply.clone())).collect();
        let params = json!({"taskId": task_id, "inputResponses": responses});
        let Some(answer) = self.request(step, "tasks/update", params, state).await? else {
            return Ok(());
        };
        self.judge_answer(step, &answer.outcome, vec![answer.asked, answer.seq], state)
    }

    /// Retries the last request answered with an InputRequiredResult, answering each of its
    /// requests with `reply` and echoing its `requestState`, while the server asks again.
    async fn retry(&self, step: &Step, reply: &Value, state: &mut State) -> Result<(), Stop> {
        let reply = matcher::substitute(reply, &state.vars).map_err(Stop::Prerequisite)?;
        let Some((method, original, mut asked)) = state.input_asked.take() else {
            return Err(Stop::Prerequisite(
                "no request before this step was answered with an InputRequiredResult".into(),
            ));
        };
        for attempt in 1..=RETRIES_AT_MOST {
            let mut params = original.clone();
            let requests = asked.get("inputRequests").and_then(Value::as_object);
            let responses: serde_json::Map<String, Value> = requests
                .into_iter()
                .flatten()
                .map(|(k, _)| (k.clone(), reply.clone()))
                .collect();
            if let Some(p) = params.as_object_mut() {
                p.remove("inputResponses");
                p.remove("requestState");
                if !responses.is_empty() {
                    p.insert("inputResponses".into(), Value::Object(responses));
                }
                // echoed exactly when given, never when not (client requirements of MRTR)
                if let Some(s) = asked.get("requestState") {
                    p.insert("requestState".into(), s.clone());
                }
            }
            let Some(answer) = self.request(step, &method, params, state).await? else {
                return Ok(());
            };
            match asks_input(&answer.outcome) {
                Some(again) if attempt < RETRIES_AT_MOST => asked = again.clone(),
                _ => {
                    let evidence = vec![answer.asked, answer.seq];
                    return self.judge_answer(step, &answer.outcome, evidence, state);
                }
            }
        }
        Ok(())
    }

    async fn walk_list(
        &self,
        step: &Step,
        lists: &ListChecks<'_>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let wanted = ids_in(lists.contains, state)?;
        let unwanted = ids_in(lists.lacks, state)?;
        let walk = match self.walk(step, state).await? {
            Walked::All(walk) => walk,
            Walked::Unanswered => return Ok(()),
            // a refused listing shows none of the tasks that must stay hidden
            Walked::Refused(why, evidence) if lists.contains.is_none() && lists.lacks.is_some() => {
                return state.judge(&step.rule, true, format!("{why}: nothing listed"), evidence);
            }
            Walked::Refused(why, evidence) => return state.judge(&step.rule, false, why, evidence),
        };
        let mut evidence = walk.evidence.clone();
        if lists.lacks.is_some() {
            let listed = ids_of(&walk.tasks);
            let leaked: Vec<&String> = unwanted.iter().filter(|u| listed.contains(*u)).collect();
            state.judge(
                &step.rule,
                leaked.is_empty(),
                if leaked.is_empty() {
                    format!("none of {} other task(s) listed", unwanted.len())
                } else {
                    format!("tasks/list shows task(s) it must not: {leaked:?}")
                },
                evidence.clone(),
            )?;
        }
        if let Some(rule) = lists.page_limit_rule {
            let held = walk.first_page.len() < PAGE_LIMIT || walk.first_has_cursor;
            state.record(Check::judged(
                rule,
                held,
                format!(
                    "the first page holds {} task(s){}",
                    walk.first_page.len(),
                    match walk.first_has_cursor {
                        true => " and has a nextCursor",
                        false => " and no nextCursor",
                    }
                ),
                walk.first_evidence.clone(),
            ));
        }
        let mut all = walk.tasks.clone();
        if lists.contains.is_some() {
            let mut listed = ids_of(&walk.tasks);
            if wanted.iter().any(|w| !listed.contains(w)) {
                // pages need not be stable while tasks are created (another scenario's, on a
                // receiver with one store): walk again with none under way before judging
                let _quiet = CREATIONS.write().await;
                if let Walked::All(again) = self.walk(step, state).await? {
                    evidence.extend(again.evidence);
                    listed = ids_of(&again.tasks);
                    all = again.tasks;
                }
            }
            // a task tasks/get no longer finds need not be listed; the others' statuses tell
            // a page cut short from a listing that filters
            let mut missing: Vec<(String, String)> = Vec::new();
            for id in wanted.iter().filter(|w| !listed.contains(*w)) {
                let reply = self
                    .request(step, "tasks/get", json!({"taskId": id}), state)
                    .await?;
                if let Some(Reply {
                    outcome: Outcome::Result(task),
                    seq,
                    ..
                }) = reply
                {
                    evidence.push(seq);
                    let status = task["status"].as_str().unwrap_or_default().to_string();
                    missing.push((id.clone(), status));
                }
            }
            let first_listed = &walk.first_page;
            let cut_short = !walk.first_has_cursor
                && missing
                    .iter()
                    .any(|(_, status)| first_listed.iter().any(|t| t["status"] == **status));
            if let (Some(rule), false) = (lists.next_cursor_rule, wanted.is_empty()) {
                let on_page = ids_of(first_listed);
                let left_out = wanted.iter().filter(|w| !on_page.contains(*w)).count();
                let held = left_out == 0 || walk.first_has_cursor || missing.is_empty();
                let check = Check::judged(
                    rule,
                    held,
                    match (left_out, walk.first_has_cursor) {
                        (0, _) => format!("the first page holds all {} task(s)", wanted.len()),
                        (n, true) => format!("the first page leaves out {n} task(s) and has a nextCursor"),
                        (n, false) if missing.is_empty() => format!("the first page leaves out {n} task(s), none of them retrievable any more, and has no nextCursor"),
                        (n, false) => format!("the first page leaves out {n} of {} retrievable task(s) but has no nextCursor", wanted.len()),
                    },
                    walk.first_evidence.clone(),
                );
                // without a page cut short, the tasks are left out of the listing itself
                state.record(match held || cut_short {
                    true => check,
                    false => check.following(pending_root(LIST_CONTAINS)),
                });
            }
            let held = missing.is_empty();
            let message = if held {
                format!(
                    "all {} task(s) listed, or no longer retrievable",
                    wanted.len()
                )
            } else {
                format!(
                    "retrievable task(s) missing from tasks/list: {:?} ({} listed)",
                    missing
                        .iter()
                        .map(|(id, s)| format!("{id} ({s})"))
                        .collect::<Vec<_>>(),
                    listed.len()
                )
            };
            let judged = Check::judged(
                step.rule.as_deref().unwrap_or(LIST_CONTAINS),
                held,
                message.clone(),
                evidence.clone(),
            );
            match (&step.rule, lists.next_cursor_rule) {
                (Some(_), Some(next)) if !held && cut_short => {
                    state.record(judged.following(pending_root(next)))
                }
                (Some(_), _) => state.record(judged),
                (None, _) if held => {}
                (None, _) => return Err(Stop::Prerequisite(message)),
            }
        }
        let all = Outcome::Result(json!({"tasks": all}));
        self.judge_answer(step, &all, evidence, state)
    }

    /// Walks tasks/list through every cursor.
    async fn walk(&self, step: &Step, state: &mut State) -> Result<Walked, Stop> {
        let mut walk = Walk::default();
        let mut cursor: Option<Value> = None;
        let mut seen_cursors = BTreeSet::new();
        for page_number in 0..MAX_LIST_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let Some(reply) = self.request(step, "tasks/list", params, state).await? else {
                return Ok(Walked::Unanswered);
            };
            walk.evidence.push(reply.seq);
            let page = match reply.outcome {
                Outcome::Result(p) => p,
                e @ Outcome::Error(_) => {
                    let why = format!("tasks/list answered {}", describe(&e));
                    return Ok(Walked::Refused(why, walk.evidence));
                }
            };
            let listed = page
                .get("tasks")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if page_number == 0 {
                walk.first_page = listed.clone();
                walk.first_has_cursor = cursor.is_some();
                walk.first_evidence = vec![reply.asked, reply.seq];
            }
            walk.tasks.extend(listed);
            match &cursor {
                None => break,
                Some(c) if !seen_cursors.insert(c.to_string()) => {
                    return Err(Stop::Prerequisite(format!(
                        "tasks/list returned cursor {c} twice: the walk would never end"
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(Walked::All(walk))
    }
}

/// A first page of this many tasks or more, without a `nextCursor`, does not limit them
/// (taskcheck's reading of "limit"; see tasks.list.paginate).
const PAGE_LIMIT: usize = 100;

/// The rule a listing that leaves out retrievable tasks breaks.
const LIST_CONTAINS: &str = "tasks.list.contains-retrievable";

/// A root named by a step, for the scenario's attribution to place (`roots::attribute`).
fn pending_root(rule: &str) -> Root {
    Root {
        rule: rule.to_string(),
        scenario: String::new(),
        step: None,
    }
}

/// Task creations under way in this process: a list walk that must not see pages shift waits
/// for them to end, and holds new ones back while it walks.
pub(super) static CREATIONS: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// One walk through every page of tasks/list.
#[derive(Default)]
struct Walk {
    tasks: Vec<Value>,
    first_page: Vec<Value>,
    first_has_cursor: bool,
    /// The first page's request and answer.
    first_evidence: Vec<u64>,
    /// Every page's answer.
    evidence: Vec<u64>,
}

/// How a walk ended.
enum Walked {
    All(Walk),
    /// A page got no answer in time (already judged under the step's rule).
    Unanswered,
    /// A page was answered with an error.
    Refused(String, Vec<u64>),
}

/// What a `walk_list` step judges.
struct ListChecks<'a> {
    contains: &'a Option<String>,
    lacks: &'a Option<String>,
    next_cursor_rule: &'a Option<String>,
    page_limit_rule: &'a Option<String>,
}

/// The task ids the `${var}`s of a text hold (each a string or an array), but those of
/// captures a left-out step would have set; none without a text.
fn ids_in(text: &Option<String>, state: &State) -> Result<Vec<String>, Stop> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for name in matcher::references(&json!(text)) {
        if state.missing.contains_key(&name) {
            continue;
        }
        let value = matcher::substitute(&json!(format!("${{{name}}}")), &state.vars)
            .map_err(Stop::Prerequisite)?;
        match value {
            Value::Array(a) => ids.extend(a.iter().map(wire::id_text)),
            other => ids.push(wire::id_text(&other)),
        }
    }
    Ok(ids)
}

/// The task ids of Task objects.
fn ids_of(tasks: &[Value]) -> BTreeSet<String> {
    tasks
        .iter()
        .filter_map(|t| t.get("taskId").map(wire::id_text))
        .collect()
}
