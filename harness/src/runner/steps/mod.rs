//! Executing scenario steps: requests, polls, receiver requests and notifications, list walks.

mod follow;
mod list_walk;

use super::{
    still_answering, Config, Stop, MAX_LIST_PAGES, POLLS_AT_LEAST, POLL_DEFAULT_MS, POLL_MIN_MS,
};
use crate::design::{InputKeys, Wire};
use crate::matcher::{self, Vars};
use crate::model::TaskStatus;
use crate::scenario::{step_label, Expect, PeerName, Step, StepKind};
use crate::session::{Inbound, Inbox, Reply, RequestError, Session};
use crate::spec::{self, Level};
use crate::verdict::{Check, Root, Verdict};
use crate::wire::{self, Outcome};
use list_walk::{ListChecks, CREATIONS};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// Runs steps on one session.
pub(super) struct Exec<'a> {
    /// What the scenario's design calls its requests and keys.
    pub(super) wire: &'static Wire,
    pub(super) session: &'a Session,
    /// The second requestor's session, in scenarios that use one.
    pub(super) peer_b: Option<&'a Session>,
    pub(super) config: &'a Config,
    /// Some fixture role of the scenario is played by the receiver's own tool (`--fixtures`),
    /// which promises no more than the spec: a notification it does not send (progress is a
    /// MAY) leaves the step's rule untestable instead of failed.
    pub(super) mapped: bool,
    /// How the receiver plays the fixture roles: steps that call a role no tool plays, or
    /// call it in a way its tool answers otherwise than the role, are left out, their rules
    /// untestable.
    pub(super) playing: &'a super::Playing,
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
    /// Why the first step left out was: a later step that waits for what the receiver sends
    /// (a notification, a request) may be waiting for what that step would have caused.
    left_out: Option<String>,
    /// The input requests `respond` steps answered, by task id: a request shown again (the
    /// task has not taken the answer in yet) is not answered twice.
    answered: std::collections::HashMap<String, Vec<(String, Value)>>,
    /// The last request a `send` step made when its answer was an InputRequiredResult: the
    /// method, the params sent and the answer, for a `retry` step.
    input_asked: Option<(String, Value, Value)>,
    /// The tasks a poll saw reach a terminal status, with that status: a task that ended asks
    /// for nothing more.
    ended: BTreeMap<String, String>,
}

impl State {
    /// Why the first step left out was, if one was.
    pub(super) fn first_left_out(&self) -> Option<&str> {
        self.left_out.as_deref()
    }

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
            left_out: self.left_out.clone(),
            answered: self.answered.clone(),
            input_asked: self.input_asked.clone(),
            ended: self.ended.clone(),
            ..State::default()
        }
    }

    /// Takes a finished branch's captures, checks and request origins in.
    fn merge(&mut self, branch: State) {
        self.vars.extend(branch.vars);
        self.checks.extend(branch.checks);
        self.sent_by.extend(branch.sent_by);
        self.missing.extend(branch.missing);
        self.left_out = self.left_out.take().or(branch.left_out);
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

/// The InputRequiredResult an answer is, if it is one (never under a design without input
/// keys).
fn asks_input<'o>(outcome: &'o Outcome, input: Option<&InputKeys>) -> Option<&'o Value> {
    match (outcome, input) {
        (Outcome::Result(r), Some(keys))
            if r.get("resultType").and_then(Value::as_str) == Some(keys.result_type) =>
        {
            Some(r)
        }
        _ => None,
    }
}

/// Stops the scenario as not applicable if the answer matches the step's `not_applicable_if`
/// (its durations stretched by `scale`).
fn not_applicable(step: &Step, answer: &Outcome, state: &State, scale: f64) -> Result<(), Stop> {
    let Some(n) = &step.not_applicable_if else {
        return Ok(());
    };
    if expect_holds(&n.answer, answer, &mut state.vars.clone(), scale).is_err() {
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

pub(super) fn outcome_value(outcome: &Outcome) -> &Value {
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

/// Judges an answer against an expectation whose durations (`$scaled`) stretch by `scale`;
/// captures go into `vars` only on success.
fn expect_holds(
    expect: &Expect,
    answer: &Outcome,
    vars: &mut Vars,
    scale: f64,
) -> Result<(), String> {
    let (pattern, wanted_result) = match expect {
        Expect::AnyOf(options) => {
            let mut reasons = Vec::new();
            for o in options {
                let mut trial = vars.clone();
                match expect_holds(o, answer, &mut trial, scale) {
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
    let pattern = matcher::scale(&matcher::substitute(pattern, vars)?, scale);
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
    /// holds them, if any); a wait that can prove nothing (below) is skipped.
    pub(super) fn run_steps(&'a self, steps: &'a [Step], state: &'a mut State) -> StepFuture<'a> {
        Box::pin(async move {
            let outer = state.label.clone();
            for (i, step) in steps.iter().enumerate() {
                state.label = step_label(&outer, i);
                // a wait proves something only of what follows it: after a step was left out,
                // one followed by nothing, or by a step left out too, is no use
                let idle = matches!(step.kind, StepKind::Wait { .. })
                    && state.left_out.is_some()
                    && steps
                        .get(i + 1)
                        .is_none_or(|next| self.left_out(next, state).is_some());
                if !idle {
                    self.run_step(step, state).await?;
                }
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
        let scale = self.config.limits.scale;
        not_applicable(step, answer, state, scale)?;
        let primary = step.expect.as_ref().map(|e| (step.rule.clone(), e));
        let extra = step
            .checks
            .iter()
            .map(|c| (Some(c.rule.clone()), &c.expect));
        for (rule, expect) in primary.into_iter().chain(extra) {
            let verdict = expect_holds(expect, answer, &mut state.vars, scale);
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
                let waits = Some(method) == self.wire.result;
                if let (Some(rule), Some(id), true) = (&step.rule, task_id, waits) {
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
        let Outcome::Result(task) = ask(self.wire.get).await.ok()?.outcome else {
            return None;
        };
        let status = TaskStatus::parse(task.get("status")?.as_str()?)?.as_str();
        if !TaskStatus::parse(status)?.is_terminal() {
            return Some(format!(
                "and the task is still {status:?}: blocking is what the spec asks while it is not terminal"
            ));
        }
        let result = self.wire.result?;
        ask(result).await.ok().map(|_| {
            format!("and the task is {status:?} now, ended as the wait ran out: a second {result} was answered")
        })
    }

    /// Why a step cannot run: it calls a fixture role the receiver does not play, or plays
    /// with a tool whose taskSupport answers this call otherwise, or uses a capture a
    /// left-out step would have set.
    fn left_out(&self, step: &Step, state: &State) -> Option<String> {
        if let StepKind::Send { method, params, .. } = &step.kind {
            let role = params
                .get("name")
                .and_then(Value::as_str)
                .filter(|_| method == "tools/call");
            if let Some(role) = role {
                if let Some(why) = self.playing.unavailable.get(role) {
                    return Some(why.clone());
                }
                if let Some((tool, declared)) = self.playing.declared.get(role) {
                    let task = params.get("task").is_some();
                    let why = crate::fixtures::disagrees(role, tool, declared.as_deref(), task);
                    if why.is_some() {
                        return why;
                    }
                }
            }
        }
        match &step.kind {
            StepKind::Parallel(_) | StepKind::Sequence(_) => return None,
            StepKind::Notification { .. } | StepKind::Answer { .. } => {
                if let Some(why) = &state.left_out {
                    return Some(format!("{}{why}", super::WAITS_LEFT_OUT));
                }
            }
            _ => {}
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
            state.left_out.get_or_insert_with(|| why.clone());
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
                let params = matcher::scale(&subst(params, &state.vars)?, self.config.limits.scale);
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
                        not_applicable(step, &reply.outcome, state, self.config.limits.scale)
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
                let params =
                    self.config
                        .call(method, &subst(params, &state.vars)?, repeat.is_some());
                let params = params.map_err(Stop::Prerequisite)?;
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
                    state.input_asked = asks_input(&reply.outcome, self.wire.input.as_ref())
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
            StepKind::EndSession => {
                self.session_of(step)?.end();
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
                let asked = json!({"method": request.method, "params": request.params});
                let mut reply = follow::reply_to(&asked, &subst(reply, &state.vars)?);
                if let Some(key) = self.wire.related_task {
                    wire::name_the_task(&mut reply, &request.params, key);
                }
                self.session
                    .respond(&request.id, reply)
                    .await
                    .map_err(Stop::from)
            }
            StepKind::Respond {
                task,
                reply,
                at_most,
                again,
            } => {
                let answers = follow::Answers {
                    reply,
                    at_most: *at_most,
                    again: again.as_ref(),
                };
                self.respond(step, task, answers, state).await
            }
            StepKind::Retry { reply, save } => self.retry(step, reply, save, state).await,
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
}
