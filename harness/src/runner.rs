//! Runs one scenario on a fresh session and judges it.

use crate::matcher::{self, Vars};
use crate::monitor;
use crate::scenario::{Expect, Scenario, Step, StepKind};
use crate::session::{Reply, RequestError, ServerInfo, Session};
use crate::trace::Entry;
use crate::transport::Connect;
use crate::verdict::{Check, Verdict};
use crate::wire::{self, Outcome};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// Timeouts and bounds of a run.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Per request (and per awaited receiver request).
    pub request: Duration,
    /// Per scenario, from connect to the last step.
    pub scenario: Duration,
    /// Longest a poll step waits for its statuses.
    pub poll: Duration,
}

/// pollInterval is honoured within these bounds; without one, polls are 100 ms apart.
const POLL_MIN_MS: u64 = 10;
const POLL_MAX_MS: u64 = 1000;
const POLL_DEFAULT_MS: u64 = 100;
const MAX_LIST_PAGES: usize = 1000;

/// Everything one scenario produced.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    pub id: String,
    pub title: String,
    pub checks: Vec<Check>,
    /// Why the run stopped early for a harness or transport reason.
    pub error: Option<String>,
    pub server: Option<ServerInfo>,
    pub trace: Vec<Entry>,
    pub duration: Duration,
}

/// Why steps stopped early.
enum Stop {
    /// A step without a rule failed: the remaining rules are untestable.
    Prerequisite(String),
    /// The connection failed: the remaining rules are errors.
    Transport(String),
}

impl From<RequestError> for Stop {
    fn from(e: RequestError) -> Stop {
        match e {
            RequestError::Closed(_) => Stop::Transport(e.to_string()),
            RequestError::Timeout { .. } => Stop::Prerequisite(e.to_string()),
        }
    }
}

struct Exec<'a> {
    session: &'a Session,
    limits: &'a Limits,
}

/// What one branch of steps produced.
#[derive(Default, Clone)]
struct State {
    vars: Vars,
    checks: Vec<Check>,
}

impl State {
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

fn describe(outcome: &Outcome) -> String {
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
            .map(Duration::from_millis)
            .unwrap_or(self.limits.request)
    }

    fn run_steps(&'a self, steps: &'a [Step], state: &'a mut State) -> StepFuture<'a> {
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
            state.judge(
                &rule,
                held,
                verdict.err().unwrap_or_else(|| "answer as expected".into()),
                evidence.clone(),
            )?;
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
            .session
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
                repeat,
                within,
                save,
            } => {
                let params = subst(params, &state.vars)?;
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
                let request = match self.session.next_request(method, self.timeout(step)).await {
                    Ok(r) => r,
                    Err(e @ RequestError::Timeout { .. }) => {
                        return state.judge(
                            &step.rule,
                            false,
                            format!("the receiver sent no {method}: {e}"),
                            Vec::new(),
                        );
                    }
                    Err(e) => return Err(e.into()),
                };
                self.judge_answer(
                    step,
                    &Outcome::Result(request.params.clone()),
                    vec![request.seq],
                    state,
                )?;
                let reply = subst(reply, &state.vars)?;
                self.session
                    .respond(&request.id, reply)
                    .await
                    .map_err(Stop::from)
            }
            StepKind::WalkList { contains } => self.walk_list(step, contains, state).await,
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
            .map(Duration::from_millis)
            .unwrap_or(self.limits.poll);
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
        contains: &Option<String>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let mut tasks = Vec::new();
        let mut cursor: Option<Value> = None;
        let mut seen_cursors = BTreeSet::new();
        let mut evidence = Vec::new();
        for _ in 0..MAX_LIST_PAGES {
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
                e @ Outcome::Error(_) => {
                    return state.judge(
                        &step.rule,
                        false,
                        format!("tasks/list answered {}", describe(&e)),
                        evidence,
                    );
                }
            };
            tasks.extend(
                page.get("tasks")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            );
            cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
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
        let listed: BTreeSet<String> = tasks
            .iter()
            .filter_map(|t| t.get("taskId").map(wire::id_text))
            .collect();
        if let Some(var) = contains {
            let wanted =
                matcher::substitute(&json!(var), &state.vars).map_err(Stop::Prerequisite)?;
            let wanted: Vec<String> = match wanted {
                Value::Array(a) => a.iter().map(wire::id_text).collect(),
                other => vec![wire::id_text(&other)],
            };
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

/// Runs one scenario against a fresh connection.
pub async fn run_scenario<C: Connect>(
    connector: &C,
    scenario: &Scenario,
    limits: &Limits,
) -> ScenarioRun {
    let start = Instant::now();
    let mut run = ScenarioRun {
        id: scenario.id.clone(),
        title: scenario.title.clone(),
        checks: Vec::new(),
        error: None,
        server: None,
        trace: Vec::new(),
        duration: Duration::ZERO,
    };
    let all_rules = |verdict: Verdict, why: &str| {
        scenario
            .rules
            .iter()
            .map(|r| Check::with(r, verdict, why))
            .collect::<Vec<_>>()
    };
    let conn = match connector.connect().await {
        Ok(c) => c,
        Err(e) => {
            run.error = Some(e.to_string());
            run.checks = all_rules(Verdict::Error, &e.to_string());
            return run;
        }
    };
    let session = Session::start(conn, limits.request);
    let deadline = scenario
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(limits.scenario);
    let body = async {
        let caps = scenario
            .client_capabilities
            .clone()
            .unwrap_or(json!({"elicitation": {}}));
        let info = session.initialize(caps).await.map_err(Stop::Transport)?;
        run.server = Some(info.clone());
        if let Some(skip) = prerequisites(&session, scenario, &info).await? {
            return Ok(Body::Skipped(skip));
        }
        let exec = Exec {
            session: &session,
            limits,
        };
        let mut state = State::default();
        let stopped = exec.run_steps(&scenario.steps, &mut state).await.err();
        Ok::<_, Stop>(Body::Ran(
            state,
            stopped.map(|s| match s {
                Stop::Prerequisite(why) => {
                    (Verdict::Untestable, format!("prerequisite failed: {why}"))
                }
                Stop::Transport(why) => (Verdict::Error, why),
            }),
        ))
    };
    let outcome = match tokio::time::timeout(deadline, body).await {
        Ok(Ok(done)) => done,
        Ok(Err(Stop::Transport(why) | Stop::Prerequisite(why))) => {
            Body::Ran(State::default(), Some((Verdict::Error, why)))
        }
        Err(_) => Body::Ran(
            State::default(),
            Some((
                Verdict::Error,
                format!("scenario deadline of {} ms passed", deadline.as_millis()),
            )),
        ),
    };
    run.trace = session.trace.entries();
    drop(session);
    let stopped = match outcome {
        Body::Skipped((verdict, why)) => {
            run.checks = all_rules(verdict, &why);
            run.duration = start.elapsed();
            return run;
        }
        Body::Ran(state, stopped) => {
            run.checks = state.checks;
            stopped
        }
    };
    if let Some(server) = &run.server {
        run.checks
            .extend(monitor::judge(&run.trace, &server.capabilities));
    }
    if let Some((Verdict::Error, why)) = &stopped {
        run.error = Some(why.clone());
    }
    let judged: BTreeSet<String> = run.checks.iter().map(|c| c.rule.clone()).collect();
    for rule in scenario.rules.iter().filter(|r| !judged.contains(*r)) {
        run.checks.push(match &stopped {
            Some((verdict, why)) => Check::with(rule, *verdict, why.clone()),
            None => Check::with(rule, Verdict::Untestable, "not observed in this run"),
        });
    }
    run.duration = start.elapsed();
    run
}

/// How a scenario body ended: skipped for a missing prerequisite, or ran (maybe stopping early).
enum Body {
    Skipped((Verdict, String)),
    Ran(State, Option<(Verdict, String)>),
}

/// Not-applicable for a missing capability, untestable for a missing fixture tool.
async fn prerequisites(
    session: &Session,
    scenario: &Scenario,
    info: &ServerInfo,
) -> Result<Option<(Verdict, String)>, Stop> {
    let req = &scenario.requires;
    if let Some(missing) = req
        .capabilities
        .iter()
        .find(|c| !monitor::has_capability(&info.capabilities, c))
    {
        return Ok(Some((
            Verdict::NotApplicable,
            format!("the receiver does not declare {missing}"),
        )));
    }
    if let Some(present) = req
        .absent_capabilities
        .iter()
        .find(|c| monitor::has_capability(&info.capabilities, c))
    {
        return Ok(Some((
            Verdict::NotApplicable,
            format!("applies only to receivers without {present}"),
        )));
    }
    if !req.tools.is_empty() {
        let tools = list_tools(session).await?;
        if let Some(missing) = req.tools.iter().find(|t| !tools.contains(t)) {
            return Ok(Some((
                Verdict::Untestable,
                format!("the receiver has no fixture tool {missing:?}"),
            )));
        }
    }
    Ok(None)
}

/// Names of every tool the receiver lists, following cursors.
async fn list_tools(session: &Session) -> Result<Vec<String>, Stop> {
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_LIST_PAGES {
        let params = cursor
            .as_ref()
            .map(|c| json!({"cursor": c}))
            .unwrap_or(json!({}));
        let reply = session
            .request("tools/list", params, session.timeout)
            .await?;
        let page = match reply.outcome {
            Outcome::Result(p) => p,
            e @ Outcome::Error(_) => {
                return Err(Stop::Prerequisite(format!(
                    "tools/list answered {}",
                    describe(&e)
                )))
            }
        };
        for tool in page
            .get("tools")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            names.extend(tool.get("name").and_then(Value::as_str).map(str::to_string));
        }
        cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
        if cursor.is_none() {
            break;
        }
    }
    Ok(names)
}
