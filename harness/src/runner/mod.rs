//! Runs one scenario on a fresh session and judges it.

mod cleanup;
pub mod roots;
mod steps;
mod witness;

use crate::design::Unspoken;
use crate::designs::Profile;
use crate::fixtures::FixtureMap;
use crate::monitor;
use crate::scenario::Scenario;
use crate::schema::SchemaSet;
use crate::session::{RequestError, ServerInfo, Session};
use crate::trace::{Direction, Entry};
use crate::transport::ReceiverKind;
use crate::transport::{Cause, Closure, Connect, Peer};
use crate::verdict::{Check, Root, Verdict};
use crate::wire::Outcome;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
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
    /// How many sessions connect and open at once: a receiver starting up (a process spawned,
    /// an interpreter loading) works the CPU, while the rest of a scenario waits on it, so
    /// scenarios overlap their waits but not their starts (one per CPU).
    pub opening: Arc<tokio::sync::Semaphore>,
}

impl Config {
    /// What a step sends for `params`: every duration it marks (`{$scaled: N}`: a fixture's
    /// work, a ttl that takes part in the scenario's timing) stretched by the scale, like every
    /// wait, and a `tools/call` of a fixture role rewritten into a call of the receiver's tool.
    /// Numbers not so marked (a ten-year ttl) are sent as written. A step that sends its call
    /// `many` times calls the role's quicker tool where the map gives one.
    pub fn call(&self, method: &str, params: &Value, many: bool) -> Result<Value, String> {
        let timed_ttl = params
            .pointer("/task/ttl")
            .and_then(crate::matcher::scaled_ms)
            .is_some();
        let params = crate::matcher::scale(params, self.limits.scale);
        match method {
            "tools/call" => self.fixtures.apply(&params, timed_ttl, many),
            _ => Ok(params),
        }
    }

    /// A configuration with these limits, schemas and fixtures, opening one session per CPU
    /// at once.
    pub fn new(limits: Limits, official: Option<Arc<SchemaSet>>, fixtures: FixtureMap) -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            limits,
            official,
            fixtures,
            opening: Arc::new(tokio::sync::Semaphore::new(cpus)),
        }
    }

    /// This configuration for a scenario whose fixture roles are played by tools that work a
    /// fixed time (`duration-ms`): every wait and timeout the scenario sets, the work it asks
    /// for and the ttl it requests stretch by the factor `FixtureMap::slowdown` gives, so
    /// what it proves by timing (work still running, a wait past the work) holds; and each
    /// wait for an answer or a status allows the longest fixed work besides.
    fn for_scenario(&self, scenario: &Scenario) -> Config {
        let calls = scenario
            .labelled_steps()
            .into_iter()
            .filter_map(|(_, step)| {
                let crate::scenario::StepKind::Send { method, params, .. } = &step.kind else {
                    return None;
                };
                let role = params.get("name").and_then(Value::as_str)?;
                let ms = params
                    .pointer("/arguments/ms")
                    .and_then(|ms| crate::matcher::scaled_ms(ms).or(ms.as_u64()));
                (method == "tools/call").then_some((role, ms.unwrap_or(0)))
            });
        let (factor, longest) = self.fixtures.slowdown(calls);
        if longest == 0 {
            return self.clone();
        }
        let limits = &self.limits;
        let fixed = Duration::from_millis(longest).mul_f64(limits.scale);
        Config {
            limits: Limits {
                request: limits.request + fixed,
                scenario: limits.scenario.mul_f64(factor) + fixed * 4,
                poll: limits.poll.mul_f64(factor) + fixed,
                scale: limits.scale * factor,
            },
            ..self.clone()
        }
    }
}

/// How an untestable rule's message begins when a scenario never showed it and a step was
/// left out; the left-out step's own cause follows (reports group the rules by that cause).
pub const NOT_OBSERVED_LEFT_OUT: &str = "not observed in this run, where a step was left out: ";
/// How a step's untestable message begins when it waits for what the receiver sends after a
/// step was left out; that step's cause follows.
pub const WAITS_LEFT_OUT: &str =
    "waits for what the receiver sends, which a step left out may have caused: ";

/// pollInterval is honoured, but polls are at least 10 ms apart; without one, 100 ms apart.
const POLL_MIN_MS: u64 = 10;
const POLL_DEFAULT_MS: u64 = 100;
/// A poll step's deadline leaves room for at least this many polls at the suggested interval.
const POLLS_AT_LEAST: u32 = 3;
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

impl ScenarioRun {
    /// A run that is only its checks, with no session behind it (what `explore`, `fuzz-wire`
    /// and `load` report of their own cases).
    pub fn of_checks(id: String, title: String, checks: Vec<Check>) -> ScenarioRun {
        ScenarioRun {
            id,
            title,
            checks,
            error: None,
            server: None,
            trace: Vec::new(),
            duration: Duration::ZERO,
        }
    }
}

/// Why steps stopped early.
enum Stop {
    /// A step without a rule failed: the remaining rules are untestable.
    Prerequisite(String),
    /// An answer showed the scenario does not apply: the remaining rules are not applicable.
    NotApplicable(String),
    /// The connection ended; whose doing it was decides whether that is a verdict.
    Closed(Closure),
    /// The receiver stopped answering: a request timed out, and a ping after it too.
    Hung(String),
    /// taskcheck could not go on (no initialize, a second session it cannot open).
    Harness(String),
}

impl From<RequestError> for Stop {
    fn from(e: RequestError) -> Stop {
        match e {
            RequestError::Closed(closure) => Stop::Closed(closure),
            RequestError::Timeout { .. } => Stop::Prerequisite(e.to_string()),
        }
    }
}

/// How the scenario's steps ended early, if they did: the verdict of every rule not judged
/// yet, why, and the failure that explains it (a receiver that went away).
struct Ending {
    verdict: Verdict,
    why: String,
    /// The answer that ended the steps, if one did (a failed prerequisite's).
    evidence: Option<u64>,
    /// The check the ending itself is (`wire.survives`, or the stdio transport's rule).
    root: Option<Check>,
}

/// Stderr lines of the receiver shown with a failure that ends a scenario.
const STDERR_TAIL: usize = 8;

impl Ending {
    /// The ending a stop means, once the receiver is initialized.
    fn of(stop: Stop, trace: &[Entry], label: &str) -> Ending {
        let step = (!label.is_empty()).then(|| label.to_string());
        let verdict_on_receiver = |rule: &str, why: String| {
            let message = format!("{why}{}", stderr_tail(trace));
            let evidence = trace.last().map(|e| vec![e.seq]).unwrap_or_default();
            Ending {
                verdict: Verdict::Untestable,
                why: why.clone(),
                evidence: None,
                root: Some(Check {
                    step: step.clone(),
                    ..Check::judged(rule, false, message, evidence)
                }),
            }
        };
        match stop {
            Stop::Prerequisite(why) => Ending {
                verdict: Verdict::Untestable,
                why: format!("prerequisite failed: {why}"),
                evidence: None,
                root: None,
            },
            Stop::NotApplicable(why) => Ending {
                verdict: Verdict::NotApplicable,
                why,
                evidence: None,
                root: None,
            },
            Stop::Closed(c) if c.cause == Cause::ReceiverGone => {
                verdict_on_receiver(SURVIVES_RULE, c.why)
            }
            Stop::Closed(c) if c.cause == Cause::InvalidOutput => {
                verdict_on_receiver(STDOUT_RULE, c.why)
            }
            Stop::Closed(c) if c.cause == Cause::StrayResponse => {
                verdict_on_receiver(ONE_RESPONSE_RULE, c.why)
            }
            Stop::Hung(why) => verdict_on_receiver(SURVIVES_RULE, why),
            Stop::Closed(c) if c.cause == Cause::SessionEnded => Ending {
                verdict: Verdict::Untestable,
                why: format!(
                    "{}: the server ended the session, as the transport lets it at any time, so the rest of the scenario cannot be judged",
                    c.why
                ),
                evidence: None,
                root: None,
            },
            Stop::Closed(c) => Ending {
                verdict: Verdict::Error,
                why: c.why,
                evidence: None,
                root: None,
            },
            Stop::Harness(why) => Ending {
                verdict: Verdict::Error,
                why,
                evidence: None,
                root: None,
            },
        }
    }
}

/// How long a receiver is given to exit once its session is over and its input closed.
const CLOSE_GRACE: Duration = Duration::from_millis(100);

/// The rule a receiver breaks by going away or no longer answering mid-scenario.
pub const SURVIVES_RULE: &str = "wire.survives";
/// The rule a receiver breaks by answering a request twice, or an id never used.
pub const ONE_RESPONSE_RULE: &str = "wire.one-response";
/// The stdio transport's rule against stdout output that is no MCP message.
pub const STDOUT_RULE: &str = "transport.stdio.stdout-only-mcp";

/// The last lines the receiver wrote on stderr, as a suffix of a message.
fn stderr_tail(trace: &[Entry]) -> String {
    let lines: Vec<&str> = trace
        .iter()
        .filter(|e| e.dir == Direction::Stderr)
        .filter_map(|e| e.text.as_deref())
        .collect();
    match lines.len() {
        0 => String::new(),
        n => format!(
            "; the last of its stderr:\n{}",
            lines[n.saturating_sub(STDERR_TAIL)..].join("\n")
        ),
    }
}

/// Runs one scenario against a fresh connection.
pub async fn run_scenario<C: Connect>(
    connector: &C,
    scenario: &Scenario,
    config: &Config,
) -> ScenarioRun {
    let config = &config.for_scenario(scenario);
    let limits = &config.limits;
    // held until the session is open; waiting for it is no part of the scenario's time
    let opening = config.opening.clone().acquire_owned().await;
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
    let mut state = State::default();
    let body = async {
        let caps = scenario
            .client_capabilities
            .clone()
            .unwrap_or_else(|| scenario.profile.default_client_capabilities());
        let info = scenario
            .profile
            .open(&session, connector.receiver(), caps.clone())
            .await
            .map_err(Stop::Harness)?;
        drop(opening);
        run.server = Some(info.clone());
        if let Some(skip) = transport_needs(connector, scenario) {
            return Ok(Some(skip));
        }
        let playing = match prerequisites(&session, scenario, &info, config).await? {
            Prepared::Skip(verdict, why) => return Ok(Some((verdict, why))),
            Prepared::Run(playing) => playing,
        };
        let peer_b = match scenario.uses_peer_b() {
            true => {
                Some(second_session(connector, &session, scenario.profile, limits, caps).await?)
            }
            false => None,
        };
        let exec = Exec {
            wire: scenario.profile.wire(),
            session: &session,
            peer_b: peer_b.as_ref(),
            config,
            mapped: scenario
                .requires
                .tools
                .iter()
                .any(|r| config.fixtures.maps(r)),
            playing: &playing,
        };
        exec.run_steps(&scenario.steps, &mut state).await?;
        Ok::<_, Stop>(None)
    };
    let outcome = tokio::time::timeout(deadline, body).await;
    run.trace = session.trace.entries();
    if let (Some(server), true) = (&run.server, connector.shares_receiver()) {
        let wire = scenario.profile.wire();
        let caps = &server.capabilities;
        cleanup::cancel_unfinished(&session, &run.trace, wire, caps, limits.request).await;
    }
    // ended as a client leaving politely does: a stdio receiver gets its input closed and a
    // moment to exit (a server behind `watch` writes its recording then) before it is stopped
    session.close(CLOSE_GRACE).await;
    drop(session);
    let initialized = run.server.is_some();
    let ending = match outcome {
        Ok(Ok(Some((verdict, why)))) => {
            run.checks = all_rules(verdict, &why);
            run.duration = start.elapsed();
            return run;
        }
        Ok(Ok(None)) => None,
        Ok(Err(stop)) if initialized => Some(Ending {
            evidence: state.last_answer(),
            ..Ending::of(stop, &run.trace, &state.label)
        }),
        Ok(Err(
            Stop::Prerequisite(why)
            | Stop::NotApplicable(why)
            | Stop::Hung(why)
            | Stop::Harness(why),
        )) => Some(Ending::of(Stop::Harness(why), &run.trace, "")),
        Ok(Err(Stop::Closed(c))) => Some(Ending::of(Stop::Harness(c.why), &run.trace, "")),
        Err(_) => Some(Ending::of(
            Stop::Harness(format!(
                "scenario deadline of {} ms passed",
                deadline.as_millis()
            )),
            &run.trace,
            "",
        )),
    };
    run.checks = std::mem::take(&mut state.checks);
    let mut because = Vec::new();
    let mut vanished = Default::default();
    let mut expired = Default::default();
    // rules the monitors saw fail: the ending's own failure of one is theirs already
    let mut monitors_failed = BTreeSet::new();
    let mut steps = run.checks.len();
    if let Some(server) = &run.server {
        let judgement = scenario.profile.judge(
            &run.trace,
            &monitor::Context {
                capabilities: &server.capabilities,
                official: config.official.as_deref(),
                breaks: &scenario.breaks,
                authorization: connector.distinct_auth(),
            },
        );
        let monitored = scenario.profile.facts().monitor_rules;
        // (an answer about a task whose ttl had elapsed is no failure: what a step saw fail
        // on one stays, shown untestable with why)
        let explained: BTreeSet<u64> = (judgement.broke_on.iter())
            .chain(judgement.vanished.keys())
            .copied()
            .collect();
        let witnessed = std::mem::take(&mut run.checks);
        run.checks = witness::published(witnessed, monitored, &judgement.checks, &explained);
        steps = run.checks.len();
        monitors_failed = judgement
            .checks
            .iter()
            .filter(|c| c.broke())
            .map(|c| c.rule.clone())
            .collect();
        because = vec![None; run.checks.len()];
        because.extend(judgement.because);
        run.checks.extend(judgement.checks);
        vanished = judgement.vanished;
        expired = judgement.expired;
        if let Some(first) = judgement.harness_errors.first() {
            run.error = Some(format!("{}: {}", first.rule, first.message));
        }
        run.checks.extend(judgement.harness_errors);
    }
    let ending_root = ending.as_ref().and_then(|e| e.root.clone());
    if let Some(root) = &ending_root {
        // the monitors saw the same failure in the trace: one check, which says what the
        // transport knew of it (the decoding error, the exit status, stderr)
        match run
            .checks
            .iter_mut()
            .find(|c| monitors_failed.contains(&root.rule) && c.rule == root.rule && c.broke())
        {
            Some(seen) => seen.message = root.message.clone(),
            None => run.checks.push(root.clone()),
        }
    }
    if let Some(Ending {
        verdict: Verdict::Error,
        why,
        ..
    }) = &ending
    {
        run.error = Some(why.clone());
    }
    let mut judged: BTreeSet<String> = run.checks.iter().map(|c| c.rule.clone()).collect();
    // the step the ending interrupted is not judged, even if its rule was earlier
    let interrupted = scenario
        .labelled_steps()
        .into_iter()
        .find(|(label, _)| ending.is_some() && *label == state.label)
        .and_then(|(_, s)| s.rule.clone());
    // (unless the ending's own failure is of that rule: a ping that met a dead receiver)
    let ended_on = ending_root.as_ref().map(|r| &r.rule);
    judged.retain(|r| Some(r) != interrupted.as_ref() || Some(r) == ended_on);
    for rule in scenario.rules.iter().filter(|r| !judged.contains(*r)) {
        let step = (Some(rule) == interrupted.as_ref()).then(|| state.label.clone());
        let check = match (&ending, &ending_root) {
            (Some(e), Some(root)) => Check::with(rule, e.verdict, e.why.clone()).following(Root {
                rule: root.rule.clone(),
                scenario: scenario.id.clone(),
                step: root.step.clone(),
            }),
            (Some(e), None) => Check {
                evidence: e.evidence.into_iter().collect(),
                ..Check::with(rule, e.verdict, e.why.clone())
            },
            // what would have shown it, where a step was left out: the role no tool plays
            (None, _) => match state.first_left_out() {
                Some(why) => Check::with(
                    rule,
                    Verdict::Untestable,
                    format!("{NOT_OBSERVED_LEFT_OUT}{why}"),
                ),
                None => Check::with(rule, Verdict::Untestable, "not observed in this run"),
            },
        };
        run.checks.push(Check { step, ..check });
    }
    because.resize(run.checks.len(), None);
    run.checks = roots::attribute(
        &scenario.id,
        &roots::given_by_step(scenario),
        &roots::rules_by_step(scenario),
        run.checks,
        &roots::Facts {
            because: &because,
            vanished: &vanished,
            expired: &expired,
            sent_by: &state.sent_by,
            steps,
            trace: &run.trace,
        },
    );
    run.duration = start.elapsed();
    run
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
    profile: Profile,
    limits: &Limits,
    capabilities: Value,
) -> Result<Session, Stop> {
    let conn = connector
        .connect(Peer::B)
        .await
        .map_err(|e| Stop::Harness(format!("the second requestor cannot connect: {e}")))?;
    let second = Session::start_with(conn, limits.request, first.trace.for_peer("b"));
    profile
        .open(&second, ReceiverKind::Server, capabilities)
        .await
        .map_err(|e| Stop::Harness(format!("the second requestor: {e}")))?;
    Ok(second)
}

/// What a scenario may do against this receiver: not applicable (a missing capability), or
/// run, with the roles no tool plays (each with why) left out step by step.
enum Prepared {
    Skip(Verdict, String),
    Run(Playing),
}

/// How the receiver plays a scenario's fixture roles.
#[derive(Default)]
struct Playing {
    /// Roles no tool plays, each with why: steps that call them are left out.
    unavailable: BTreeMap<String, String>,
    /// Where the receiver negotiates taskSupport, each played role's tool and its declared
    /// `execution.taskSupport`: a call the tool answers otherwise than the role would is left
    /// out.
    declared: BTreeMap<String, (String, Option<String>)>,
}

async fn prerequisites(
    session: &Session,
    scenario: &Scenario,
    info: &ServerInfo,
    config: &Config,
) -> Result<Prepared, Stop> {
    let fixtures = &config.fixtures;
    let req = &scenario.requires;
    if let Some(missing) = req
        .capabilities
        .iter()
        .find(|c| !monitor::has_capability(&info.capabilities, c))
    {
        return Ok(Prepared::Skip(
            Verdict::NotApplicable,
            format!("the receiver does not declare {missing}"),
        ));
    }
    if let Some(present) = req
        .absent_capabilities
        .iter()
        .find(|c| monitor::has_capability(&info.capabilities, c))
    {
        return Ok(Prepared::Skip(
            Verdict::NotApplicable,
            format!("applies only to receivers without {present}"),
        ));
    }
    if req.tools.is_empty() {
        return Ok(Prepared::Run(Playing::default()));
    }
    let tools = list_tools(session, &config.limits).await?;
    let negotiates = scenario.profile.negotiates_task_support(&info.capabilities);
    let mut playing = Playing::default();
    for role in &req.tools {
        match fixtures.tool(role, &tools) {
            None => {
                let why = fixtures.missing_tool(role);
                playing.unavailable.insert(role.clone(), why);
            }
            Some(tool) if negotiates => {
                let support = crate::fixtures::declared_support(tool).map(String::from);
                let name = fixtures.tool_name(role).to_string();
                playing.declared.insert(role.clone(), (name, support));
            }
            Some(_) => {}
        }
    }
    // the steps that call a role no tool plays are left out, and only they: the others
    // (those that need no tool, as malformed-params' first) are still judged
    Ok(Prepared::Run(playing))
}

/// After a request timed out: a receiver that does not answer a ping either has stopped
/// answering altogether (`wire.survives`), which ends the scenario.
async fn still_answering(
    session: &Session,
    limits: &Limits,
    timeout: &RequestError,
) -> Result<(), Stop> {
    match session.request("ping", json!({}), limits.request).await {
        Ok(_) => Ok(()),
        Err(RequestError::Timeout { after, .. }) => Err(Stop::Hung(format!(
            "the receiver stopped answering: {timeout}, nor to a ping sent after it within {} ms",
            after.as_millis()
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Connects once, opens the conversation the profile's way, and lists the tools: what a
/// receiver offers before any scenario.
pub async fn probe<C: Connect>(
    connector: &C,
    limits: &Limits,
    profile: Profile,
) -> Result<(ServerInfo, Vec<Value>), String> {
    let (session, info) = opened(connector, limits, profile).await?;
    let tools = list_tools(&session, limits).await.map_err(|e| match e {
        Stop::Prerequisite(why)
        | Stop::NotApplicable(why)
        | Stop::Hung(why)
        | Stop::Harness(why) => why,
        Stop::Closed(c) => c.why,
    })?;
    Ok((info, tools))
}

/// A new session, opened the profile's way with its default client capabilities; where it
/// does not open, why, in one line, with the last line the receiver wrote on stderr (the
/// shell's "not found").
async fn opened<C: Connect>(
    connector: &C,
    limits: &Limits,
    profile: Profile,
) -> Result<(Session, ServerInfo), String> {
    let conn = connector
        .connect(Peer::A)
        .await
        .map_err(|e| e.to_string())?;
    let session = Session::start(conn, limits.request);
    let caps = profile.default_client_capabilities();
    match profile.open(&session, ReceiverKind::Server, caps).await {
        Ok(info) => Ok((session, info)),
        Err(why) => {
            // what the receiver wrote as it failed comes a moment after the failure
            tokio::time::sleep(Duration::from_millis(100)).await;
            let trace = session.trace.entries();
            let last = trace
                .iter()
                .filter(|e| e.dir == Direction::Stderr)
                .filter_map(|e| e.text.as_deref())
                .rfind(|line| !line.trim().is_empty());
            match last {
                Some(line) => Err(format!("{why}; its stderr ends: {}", line.trim())),
                None => Err(why),
            }
        }
    }
}

/// The profile to test the receiver under (the one given, or else the one it speaks, with
/// how that was found out when it is worth saying), once a first session of it has opened; or
/// that profile and why no session opens (the command does not exist, the process exits, no
/// answer to the opening request, the connection is refused), so that a run can stop at once.
/// Where connections may open at once, the default design's opening is tried while the others
/// are asked, so a silent receiver costs one wait, not two.
pub async fn first_session<C: Connect>(
    connector: &C,
    limits: &Limits,
    given: Option<Profile>,
) -> Result<(Profile, Option<String>), (Profile, String)> {
    let open = |profile: Profile| async move {
        opened(connector, limits, profile)
            .await
            .map(|_| ())
            .map_err(|why| (profile, why))
    };
    if let Some(profile) = given {
        return open(profile).await.map(|_| (profile, None));
    }
    let default = Profile::default();
    let ((profile, why), default_opened) = match connector.connects_at_once() {
        true => {
            let (detected, opened) = tokio::join!(detect_profile(connector, limits), open(default));
            (detected, Some(opened))
        }
        false => (detect_profile(connector, limits).await, None),
    };
    // a design that answered its own question speaks it; the default must open
    if profile != default {
        return Ok((profile, why));
    }
    let opened = match default_opened {
        Some(opened) => opened,
        None => open(default).await,
    };
    // a receiver silent to both questions is told apart from one that refused the other
    match (opened, &why) {
        (Ok(()), _) => Ok((profile, why)),
        (Err((p, e)), Some(asked)) => Err((p, format!("{e} ({asked})"))),
        (Err(e), None) => Err(e),
    }
}

/// The longest a tool is watched (`observe_task`): work that takes longer is no use to a scenario.
const WATCHING_AT_MOST: Duration = Duration::from_secs(60);

/// Connects once, opens the conversation the profile's way, and watches one task-augmented
/// call of a tool (`Design::observe_task`).
pub async fn observe_task<C: Connect>(
    connector: &C,
    limits: &Limits,
    profile: Profile,
    call: Value,
) -> Result<crate::calibration::Observed, String> {
    let (session, _) = opened(connector, limits, profile).await?;
    profile.observe_task(&session, call, WATCHING_AT_MOST).await
}

/// The newest profile the receiver speaks: the newest design whose question (server/discover,
/// say) it answers as one that speaks it, else the default design, whose opening the run
/// itself then tries (a receiver that answers that neither ends the run with exit 3). The text
/// says what the receiver answered, or that it did not answer within the wait: a slow start
/// is waited for as long as `--timeout-ms` (3 s at least), never taken for a refusal.
/// The profile a receiver speaks, and how that was found out when it is worth saying: the
/// answer that showed it, or the silence or failure that left the default (a plain refusal,
/// what a receiver of the default design gives, says nothing more).
pub async fn detect_profile<C: Connect>(
    connector: &C,
    limits: &Limits,
) -> (Profile, Option<String>) {
    let wait = limits.request.max(DETECT_AT_LEAST);
    let mut why = None;
    for profile in Profile::ALL.iter().rev().filter(|p| !p.is_default()) {
        let conn = match connector.connect(Peer::A).await {
            Ok(c) => c,
            Err(e) => return (Profile::default(), Some(format!("cannot ask: {e}"))),
        };
        let session = Session::start(conn, wait);
        let Some(asked) = profile.ask_speaks(&session) else {
            continue;
        };
        match asked.await {
            Ok(answer) => return (*profile, Some(answer)),
            Err(Unspoken::Refused(_)) => {}
            Err(Unspoken::Silent(silence)) => why = Some(format!("no answer: {silence}")),
        }
    }
    (Profile::default(), why)
}

/// The least profile detection waits for an answer (`--timeout-ms` may give more).
const DETECT_AT_LEAST: Duration = Duration::from_secs(3);

/// Every tool the receiver lists, following cursors.
async fn list_tools(session: &Session, limits: &Limits) -> Result<Vec<Value>, Stop> {
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_LIST_PAGES {
        let params = cursor
            .as_ref()
            .map(|c| json!({"cursor": c}))
            .unwrap_or(json!({}));
        let reply = match session.request("tools/list", params, session.timeout).await {
            Ok(reply) => reply,
            Err(e @ RequestError::Timeout { .. }) => {
                still_answering(session, limits, &e).await?;
                return Err(e.into());
            }
            Err(e) => return Err(e.into()),
        };
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
