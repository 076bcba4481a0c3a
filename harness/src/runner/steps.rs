//! Executing scenario steps: requests, polls, receiver requests and notifications, list walks.

use super::{Config, Stop, MAX_LIST_PAGES, POLL_DEFAULT_MS, POLL_MAX_MS, POLL_MIN_MS};
use crate::matcher::{self, Vars};
use crate::scenario::{Expect, PeerName, Step, StepKind};
use crate::session::{Inbound, Inbox, Reply, RequestError, Session};
use crate::spec::{self, Level};
use crate::verdict::Check;
use crate::wire::{self, Outcome};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// Runs steps on one session.
pub(super) struct Exec<'a> {
    pub(super) session: &'a Session,
    /// The second requestor's session, in scenarios that use one.
    pub(super) peer_b: Option<&'a Session>,
    pub(super) config: &'a Config,
}

/// What one branch of steps produced.
#[derive(Default, Clone)]
pub(super) struct State {
    pub(super) vars: Vars,
    pub(super) checks: Vec<Check>,
}

impl State {
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
                self.checks.push(Check::judged(r, held, message, evidence));
                Ok(())
            }
            None if held => Ok(()),
            None => Err(Stop::Prerequisite(message)),
        }
    }
}

type StepFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Stop>> + Send + 'a>>;

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

    pub(super) fn run_steps(&'a self, steps: &'a [Step], state: &'a mut State) -> StepFuture<'a> {
        Box::pin(async move {
            for step in steps {
                self.run_step(step, state).await?;
            }
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
        match self
            .session_of(step)?
            .request(method, params, self.timeout(step))
            .await
        {
            Ok(reply) => Ok(Some(reply)),
            Err(e @ RequestError::Timeout { .. }) if step.rule.is_some() => {
                state.judge(&step.rule, false, e.to_string(), Vec::new())?;
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn run_step(&'a self, step: &'a Step, state: &'a mut State) -> Result<(), Stop> {
        let subst =
            |v: &Value, vars: &Vars| matcher::substitute(v, vars).map_err(Stop::Prerequisite);
        match &step.kind {
            StepKind::Send {
                method,
                params,
                abandon_after_ms: Some(ms),
                ..
            } => {
                let params = subst(params, &state.vars)?;
                let session = self.session_of(step)?;
                let wait = self.config.limits.scaled(*ms);
                match session.request(method, params, wait).await {
                    Ok(_) | Err(RequestError::Timeout { .. }) => Ok(()),
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
            } => {
                let mut params = subst(params, &state.vars)?;
                if method == "tools/call" {
                    params = self
                        .config
                        .fixtures
                        .apply(&params)
                        .map_err(Stop::Prerequisite)?;
                }
                let mut collected: Vars = Vars::new();
                for _ in 0..repeat.unwrap_or(1) {
                    let before = state.vars.clone();
                    let Some(reply) = self.request(step, method, params.clone(), state).await?
                    else {
                        continue;
                    };
                    self.judge_answer(step, &reply.outcome, vec![reply.asked, reply.seq], state)?;
                    if let Some(w) = within {
                        let ms = reply.elapsed.as_millis();
                        state.checks.push(Check::judged(
                            &w.rule,
                            ms <= w.ms as u128,
                            format!("answered after {ms} ms (limit {} ms)", w.ms),
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
                tokio::time::sleep(Duration::from_millis(*ms)).await;
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
            StepKind::Notification { method } => self
                .receive(step, Inbox::Notifications, method, state)
                .await
                .map(|_| ()),
            StepKind::WalkList {
                contains,
                lacks,
                next_cursor_rule,
            } => {
                let lists = ListChecks {
                    contains,
                    lacks,
                    next_cursor_rule,
                };
                self.walk_list(step, &lists, state).await
            }
            StepKind::Parallel(branches) => {
                let mut states: Vec<State> = branches
                    .iter()
                    .map(|_| State {
                        vars: state.vars.clone(),
                        checks: Vec::new(),
                    })
                    .collect();
                let results = futures::future::join_all(
                    branches
                        .iter()
                        .zip(states.iter_mut())
                        .map(|(b, s)| self.run_step(b, s)),
                )
                .await;
                for s in states {
                    state.vars.extend(s.vars);
                    state.checks.extend(s.checks);
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
        match self.session.next(inbox, method, self.timeout(step)).await {
            Ok(inbound) => {
                let params = Outcome::Result(inbound.params.clone());
                self.judge_answer(step, &params, vec![inbound.seq], state)?;
                Ok(Some(inbound))
            }
            Err(e @ RequestError::Timeout { .. }) => {
                let why = format!("the receiver sent no {method}: {e}");
                state.judge(&step.rule, false, why, Vec::new())?;
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
        let mut last = String::from("no answer");
        let mut evidence = Vec::new();
        while start.elapsed() < limit {
            let Some(reply) = self
                .request(step, "tasks/get", json!({"taskId": task_id}), state)
                .await?
            else {
                return Ok(());
            };
            evidence = vec![reply.asked, reply.seq];
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
            last = format!("status {status:?}");
            let interval = task
                .get("pollInterval")
                .and_then(Value::as_u64)
                .unwrap_or(POLL_DEFAULT_MS);
            tokio::time::sleep(Duration::from_millis(
                interval.clamp(POLL_MIN_MS, POLL_MAX_MS),
            ))
            .await;
        }
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

    async fn walk_list(
        &self,
        step: &Step,
        lists: &ListChecks<'_>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let (contains, next_cursor_rule) = (lists.contains, lists.next_cursor_rule);
        let wanted = ids_in(contains, &state.vars)?;
        let unwanted = ids_in(lists.lacks, &state.vars)?;
        let mut tasks = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut seen_cursors = BTreeSet::new();
        let mut evidence = Vec::new();
        for page_number in 0..MAX_LIST_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let Some(reply) = self.request(step, "tasks/list", params, state).await? else {
                return Ok(());
            };
            evidence.push(reply.seq);
            let page = match reply.outcome {
                Outcome::Result(p) => p,
                // a refused listing shows none of the tasks that must stay hidden
                e @ Outcome::Error(_) if lists.contains.is_none() && lists.lacks.is_some() => {
                    let why = format!("tasks/list answered {}: nothing listed", describe(&e));
                    return state.judge(&step.rule, true, why, evidence);
                }
                e @ Outcome::Error(_) => {
                    return state.judge(
                        &step.rule,
                        false,
                        format!("tasks/list answered {}", describe(&e)),
                        evidence,
                    );
                }
            };
            let listed = page
                .get("tasks")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if page_number == 0 && !wanted.is_empty() {
                if let Some(rule) = next_cursor_rule {
                    let on_page = ids_of(&listed);
                    let left_out = wanted.iter().filter(|w| !on_page.contains(*w)).count();
                    state.judge(
                        &Some(rule.clone()),
                        left_out == 0 || cursor.is_some(),
                        match (left_out, &cursor) {
                            (0, _) => format!("the first page holds all {} task(s)", wanted.len()),
                            (n, Some(_)) => format!("the first page leaves out {n} task(s) and has a nextCursor"),
                            (n, None) => format!("the first page leaves out {n} of {} retrievable task(s) but has no nextCursor", wanted.len()),
                        },
                        vec![reply.asked, reply.seq],
                    )?;
                }
            }
            tasks.extend(listed);
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
        if lists.lacks.is_some() {
            let listed = ids_of(&tasks);
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
        if contains.is_some() {
            let listed = ids_of(&tasks);
            let missing: Vec<&String> = wanted.iter().filter(|w| !listed.contains(*w)).collect();
            state.judge(
                &step.rule,
                missing.is_empty(),
                if missing.is_empty() {
                    format!("all {} task(s) listed", wanted.len())
                } else {
                    format!(
                        "retrievable task(s) missing from tasks/list: {missing:?} ({} listed)",
                        listed.len()
                    )
                },
                evidence.clone(),
            )?;
        }
        let all = Outcome::Result(json!({"tasks": tasks}));
        self.judge_answer(step, &all, evidence, state)
    }
}

/// What a `walk_list` step judges.
struct ListChecks<'a> {
    contains: &'a Option<String>,
    lacks: &'a Option<String>,
    next_cursor_rule: &'a Option<String>,
}

/// The task ids a `${var}` holds (a string or an array); none without a var.
fn ids_in(var: &Option<String>, vars: &Vars) -> Result<Vec<String>, Stop> {
    let Some(var) = var else {
        return Ok(Vec::new());
    };
    Ok(
        match matcher::substitute(&json!(var), vars).map_err(Stop::Prerequisite)? {
            Value::Array(a) => a.iter().map(wire::id_text).collect(),
            other => vec![wire::id_text(&other)],
        },
    )
}

/// The task ids of Task objects.
fn ids_of(tasks: &[Value]) -> BTreeSet<String> {
    tasks
        .iter()
        .filter_map(|t| t.get("taskId").map(wire::id_text))
        .collect()
}
