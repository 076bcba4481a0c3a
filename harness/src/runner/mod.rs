//! Runs one scenario on a fresh session and judges it.

mod steps;

use crate::fixtures::FixtureMap;
use crate::monitor;
use crate::scenario::{ReceiverKind, Scenario};
use crate::schema::SchemaSet;
use crate::session::{RequestError, ServerInfo, Session};
use crate::trace::Entry;
use crate::transport::{Connect, Peer};
use crate::verdict::{Check, Verdict};
use crate::wire::Outcome;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use steps::{Exec, State};

/// Timeouts and bounds of a run.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Per request (and per awaited receiver request or notification).
    pub request: Duration,
    /// Per scenario, from connect to the last step.
    pub scenario: Duration,
    /// Longest a poll step waits for its statuses.
    pub poll: Duration,
    /// Factor applied to the timeouts scenarios set themselves (`--timeout-scale`).
    pub scale: f64,
}

impl Limits {
    /// A timeout a scenario gave in ms, scaled.
    pub fn scaled(&self, ms: u64) -> Duration {
        Duration::from_millis(ms).mul_f64(self.scale)
    }
}

/// Everything a run is configured with besides the scenarios and the receiver.
#[derive(Clone)]
pub struct Config {
    pub limits: Limits,
    /// The official schema.json given with `--schema`.
    pub official: Option<Arc<SchemaSet>>,
    /// The receiver's own tools playing fixture roles (`--fixtures`).
    pub fixtures: FixtureMap,
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

/// Runs one scenario against a fresh connection.
pub async fn run_scenario<C: Connect>(
    connector: &C,
    scenario: &Scenario,
    config: &Config,
) -> ScenarioRun {
    let limits = &config.limits;
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
    let conn = match connector.connect_for(Peer::A, &scenario.id).await {
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
        .map(|ms| limits.scaled(ms))
        .unwrap_or(limits.scenario);
    let body = async {
        let caps = scenario
            .client_capabilities
            .clone()
            .unwrap_or(json!({"elicitation": {}}));
        let info = match connector.receiver() {
            ReceiverKind::Server => session.initialize(caps.clone()).await,
            ReceiverKind::Client => session.accept(json!({})).await,
        }
        .map_err(Stop::Transport)?;
        run.server = Some(info.clone());
        if let Some(skip) = transport_needs(connector, scenario) {
            return Ok(Body::Skipped(skip));
        }
        if let Some(skip) = prerequisites(&session, scenario, &info, &config.fixtures).await? {
            return Ok(Body::Skipped(skip));
        }
        let peer_b = match scenario.uses_peer_b() {
            true => Some(second_session(connector, &session, limits, caps).await?),
            false => None,
        };
        let exec = Exec {
            session: &session,
            peer_b: peer_b.as_ref(),
            config,
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
        let judgement = monitor::judge(
            &run.trace,
            &monitor::Context {
                capabilities: &server.capabilities,
                official: config.official.as_deref(),
                breaks: &scenario.breaks,
            },
        );
        run.checks.extend(judgement.checks);
        if let Some(first) = judgement.harness_errors.first() {
            run.error = Some(format!("{}: {}", first.rule, first.message));
        }
        run.checks.extend(judgement.harness_errors);
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

/// Not-applicable when the scenario needs another transport or two authorization contexts.
fn transport_needs<C: Connect>(connector: &C, scenario: &Scenario) -> Option<(Verdict, String)> {
    let req = &scenario.requires;
    if let Some(t) = req
        .transport
        .filter(|t| t.as_str() != connector.transport())
    {
        return Some((
            Verdict::NotApplicable,
            format!(
                "applies only over {} (this run is over {})",
                t.as_str(),
                connector.transport()
            ),
        ));
    }
    if req.distinct_auth && !connector.distinct_auth() {
        return Some((
            Verdict::NotApplicable,
            "needs two authorization contexts: give --auth-a and --auth-b".into(),
        ));
    }
    None
}

/// The second requestor's session, initialized, writing into the same trace.
async fn second_session<C: Connect>(
    connector: &C,
    first: &Session,
    limits: &Limits,
    capabilities: Value,
) -> Result<Session, Stop> {
    let conn = connector
        .connect(Peer::B)
        .await
        .map_err(|e| Stop::Transport(format!("the second requestor cannot connect: {e}")))?;
    let second = Session::start_with(conn, limits.request, first.trace.for_peer("b"));
    second
        .initialize(capabilities)
        .await
        .map_err(|e| Stop::Transport(format!("the second requestor: {e}")))?;
    Ok(second)
}

/// Not-applicable for a missing capability, untestable for a missing or mismatched fixture tool.
async fn prerequisites(
    session: &Session,
    scenario: &Scenario,
    info: &ServerInfo,
    fixtures: &FixtureMap,
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
    if req.tools.is_empty() {
        return Ok(None);
    }
    let tools = list_tools(session).await?;
    // taskSupport means something only where tasks.requests.tools.call is declared (spec,
    // Tool-Level Negotiation, rule 1): without it, any value (or none) plays the role
    let negotiates = monitor::has_capability(&info.capabilities, "tasks.requests.tools.call");
    for role in &req.tools {
        let name = fixtures.tool_name(role);
        let Some(tool) = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
        else {
            return Ok(Some((
                Verdict::Untestable,
                format!("the receiver has no tool {name:?} for the fixture role {role:?} (see `taskcheck list --fixtures`)"),
            )));
        };
        let declared = tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str);
        let wanted = crate::fixtures::find(role).and_then(|f| f.task_support);
        if negotiates && declared != wanted {
            let show = |s: Option<&str>| {
                s.map(|s| format!("{s:?}"))
                    .unwrap_or_else(|| "absent".into())
            };
            return Ok(Some((
                Verdict::Untestable,
                format!(
                    "tool {name:?} declares taskSupport {}, but the fixture role {role:?} needs {}",
                    show(declared),
                    show(wanted)
                ),
            )));
        }
    }
    Ok(None)
}

/// Connects once, initializes, and lists the tools: what a receiver offers before any scenario.
pub async fn probe<C: Connect>(
    connector: &C,
    limits: &Limits,
) -> Result<(ServerInfo, Vec<Value>), String> {
    let conn = connector
        .connect(Peer::A)
        .await
        .map_err(|e| e.to_string())?;
    let session = Session::start(conn, limits.request);
    let info = session.initialize(json!({"elicitation": {}})).await?;
    let tools = list_tools(&session).await.map_err(|e| match e {
        Stop::Prerequisite(why) | Stop::Transport(why) => why,
    })?;
    Ok((info, tools))
}

/// Every tool the receiver lists, following cursors.
async fn list_tools(session: &Session) -> Result<Vec<Value>, Stop> {
    let mut tools = Vec::new();
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
                    steps::describe(&e)
                )))
            }
        };
        tools.extend(
            page.get("tools")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
        if cursor.is_none() {
            break;
        }
    }
    Ok(tools)
}
