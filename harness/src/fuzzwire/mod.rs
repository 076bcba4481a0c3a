//! `taskcheck fuzz-wire`: malformed and edge-case messages sent to a live receiver, each in a
//! fresh session. Every answer is judged against JSON-RPC 2.0 and the Tasks error rules, and
//! the receiver must still answer `ping` (`server/discover` under ext-tasks) afterwards. A case that breaks a rule is saved as a
//! file `--replay` runs again.

pub mod inputs;

use crate::designs::Profile;
use crate::explore::{probe_offer, seeded_rng};
use crate::monitor::has_capability;
use crate::report::{Origin, RunReport};
use crate::runner::{Config, ScenarioRun};
use crate::session::{RequestError, Session};
use crate::transport::ReceiverKind;
use crate::transport::{Connect, Peer};
use crate::verdict::{Check, Verdict};
use crate::wire::{code, Outcome};
use inputs::{Class, Input};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The `wire.*` rules `fuzz-wire` judges; each design adds its own (`fuzz_wire_rules`).
pub const WIRE_RULES: [&str; 6] = [
    "wire.survives",
    "wire.answers-requests",
    "wire.no-reply-to-notification",
    "wire.parse-error",
    "wire.invalid-request",
    "wire.method-not-found",
];

/// How long an answer is waited for where silence is allowed (parse errors, notifications),
/// before `--timeout-scale`.
const QUIET_MS: u64 = 300;

/// What to send.
#[derive(Debug, Clone)]
pub struct Options {
    /// The design of Tasks the receiver is tested under.
    pub profile: Profile,
    /// Case `k` draws from seed `seed + k`.
    pub seed: u64,
    pub cases: usize,
    /// No case starts after this long.
    pub time_limit: Duration,
    /// Where the first case breaking each rule is written.
    pub save_failures: Option<PathBuf>,
}

/// A case as saved: what `--replay` sends again, and what it found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedCase {
    pub seed: u64,
    pub input: Input,
    pub found: Vec<Check>,
}

impl SavedCase {
    /// Reads a saved case; the error names the file.
    pub fn load(path: &Path) -> Result<SavedCase, crate::bad_input::BadInput> {
        use crate::bad_input::BadInput;
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| BadInput::unreadable(&file, &e))?;
        serde_json::from_str(&text).map_err(|e| BadInput::json(&file, &e, ""))
    }
}

/// The first case that broke a rule in a way, and how many cases did the same.
#[derive(Debug, Clone)]
pub struct Finding {
    pub case: SavedCase,
    pub check: Check,
    pub times: usize,
    pub saved: Option<PathBuf>,
}

/// One rule over every case of a class: its worst check, and how often it was judged.
#[derive(Debug, Clone)]
pub struct Judged {
    pub worst: Check,
    /// The seed of the case the worst check came from.
    pub seed: u64,
    pub cases: usize,
    /// Cases whose check was no pass.
    pub broken: usize,
}

/// What a wire fuzzing run found.
#[derive(Debug, Clone, Default)]
pub struct WireFuzz {
    pub cases_run: usize,
    /// Per class: cases, and cases whose worst verdict was pass, warn, fail.
    pub by_class: BTreeMap<Class, [usize; 4]>,
    /// One per (rule, verdict) broken, in the order found.
    pub findings: Vec<Finding>,
    /// Per class and rule: the worst check of any case, what the report shows.
    pub judged: BTreeMap<(Class, String), Judged>,
    pub elapsed: Duration,
    /// The receiver fuzzed, and when.
    pub origin: Origin,
    /// The receiver could not be probed or reached, or a case could not be saved.
    pub error: Option<String>,
}

impl WireFuzz {
    /// Whether a MUST broke.
    pub fn failed(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.check.verdict == Verdict::Fail)
    }
}

/// An error answer's code, or None for a result (or an HTTP refusal without JSON-RPC error).
fn error_code(outcome: &Outcome) -> Option<i64> {
    match outcome {
        Outcome::Error(e) => e.get("code").and_then(Value::as_i64),
        Outcome::Result(_) => None,
    }
}

/// An HTTP refusal (4xx/5xx) that carried no JSON-RPC error.
fn http_status(outcome: &Outcome) -> Option<u64> {
    match outcome {
        Outcome::Error(e) => e.get("httpStatus").and_then(Value::as_u64),
        Outcome::Result(_) => None,
    }
}

fn shown(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Result(r) => format!("result {}", crate::trace::preview(&r.to_string(), 160)),
        Outcome::Error(e) => format!("error {}", crate::trace::preview(&e.to_string(), 160)),
    }
}

/// The rule, and the error code, a well-formed request of this input's class is answered
/// with. A `taskId` that names no task or is of another type than a string is invalid, one that
/// is absent makes the request malformed: the design names the rule of each (2025-11-25:
/// unknown-task-id and malformed-task-param; the extension: the method's unknown-task rule,
/// for "invalid or nonexistent" ids alike).
fn wanted_code(input: &Input) -> Option<(&'static str, i64)> {
    let request = || {
        input
            .lines
            .iter()
            .find_map(|l| serde_json::from_str::<Value>(l).ok())
            .unwrap_or_default()
    };
    let has_id = || request().pointer("/params/taskId").is_some();
    match input.class {
        Class::UnknownMethod => Some(("wire.method-not-found", code::METHOD_NOT_FOUND)),
        Class::BadTaskId => {
            let request = request();
            let method = request.get("method").and_then(Value::as_str);
            let rule = input
                .profile
                .bad_task_id_rule(method.unwrap_or_default(), has_id())?;
            Some((rule, code::INVALID_PARAMS))
        }
        Class::BadCursor => Some((input.profile.requests().list?, code::INVALID_PARAMS)),
        Class::BadTaskParam => Some((input.profile.requests().task_param?, code::INVALID_PARAMS)),
        _ => None,
    }
}

/// Judges the answer (or its absence) to a case's input.
fn judge_answer(input: &Input, answer: Option<&(u64, Outcome)>, waited: Duration) -> Vec<Check> {
    let evidence = answer.map(|(seq, _)| vec![*seq]).unwrap_or_default();
    let silent = || format!("no answer within {} ms", waited.as_millis());
    let answered = |rule: &str| match answer {
        Some(_) => Check::judged(rule, true, "answered", evidence.clone()),
        None => Check::judged(rule, false, silent(), Vec::new()),
    };
    // the answer must be one of `codes` (or, for malformed input, an HTTP 4xx)
    let coded = |rule: &str, codes: &[i64], http_ok: bool| {
        let want = codes
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(" or ");
        let Some((_, outcome)) = answer else {
            return Check::judged(rule, false, silent(), Vec::new())
                .comparing(format!("error {want}"), "nothing".into());
        };
        if http_status(outcome) == Some(413) {
            // an HTTP server may cap a body's size: the input never reached the receiver's
            // JSON-RPC layer, so its answer there cannot be judged
            return Check::with(
                rule,
                Verdict::Untestable,
                "the HTTP server refused the body as too large (413)",
            )
            .comparing(format!("error {want}"), shown(outcome));
        }
        let held = error_code(outcome).is_some_and(|c| codes.contains(&c))
            || (http_ok && http_status(outcome).is_some_and(|s| (400..500).contains(&s)));
        let message = if held {
            "answered as JSON-RPC defines"
        } else {
            "answered with another outcome"
        };
        Check::judged(rule, held, message, evidence.clone())
            .comparing(format!("error {want}"), shown(outcome))
    };
    match input.class {
        Class::ParseError => vec![coded("wire.parse-error", &[code::PARSE_ERROR], true)],
        Class::InvalidRequest => vec![coded(
            "wire.invalid-request",
            &[code::INVALID_REQUEST],
            true,
        )],
        Class::UnknownMethod
        | Class::BadTaskId
        | Class::BadCursor
        | Class::BadTaskParam
        | Class::OddTtl => {
            let mut checks = vec![answered("wire.answers-requests")];
            // a missing answer is judged once, above, not again as a wrong code
            if let (Some(_), Some((rule, wanted))) = (answer, wanted_code(input)) {
                checks.push(coded(rule, &[wanted], false));
            }
            checks
        }
        Class::BeforeInit if input.is_ping() => {
            vec![answered("wire.answers-requests")]
        }
        Class::Notification => {
            let replied = answer.filter(|(_, o)| http_status(o).is_none());
            vec![match replied {
                Some((seq, outcome)) => Check::judged(
                    "wire.no-reply-to-notification",
                    false,
                    format!("the notification was answered: {}", shown(outcome)),
                    vec![*seq],
                ),
                None => Check::judged(
                    "wire.no-reply-to-notification",
                    true,
                    "no reply",
                    Vec::new(),
                ),
            }]
        }
        Class::BeforeInit | Class::DuplicateId | Class::StrayResponse => Vec::new(),
    }
}

/// How long the answer to a case's input is waited for.
fn answer_wait(input: &Input, config: &Config) -> Duration {
    match input.class {
        Class::ParseError | Class::InvalidRequest | Class::Notification => {
            config.limits.scaled(QUIET_MS)
        }
        _ => config.limits.request,
    }
}

/// Why the spec forbids the requestor to send this input at all, where it does: a receiver
/// that stops after such input is only warned, since no sentence says what it must do then.
fn forbidden_input(input: &Input) -> Option<&'static str> {
    if input.before_init && !input.is_ping() {
        return Some("the input came before initialize, which requestors should not send");
    }
    match input.class {
        Class::StrayResponse => input.profile.facts().forbids_client_responses,
        _ => None,
    }
}

/// The survival check: the liveness request (`ping`, or `server/discover` under ext-tasks)
/// answered with a result after the input. Before initialize only
/// ping is allowed, so a receiver that stops after another early request is only warned.
fn survival(input: &Input, outcome: Result<Outcome, String>, seq: Vec<u64>) -> Check {
    let rule = "wire.survives";
    let probe = input.profile.wire().liveness;
    let failed = |why: String| {
        let check = Check::judged(rule, false, format!("after the input: {why}"), seq.clone());
        match forbidden_input(input) {
            Some(reason) => Check {
                verdict: Verdict::Warn,
                message: format!("{} ({reason})", check.message),
                ..check
            },
            None => check,
        }
    };
    match outcome {
        Ok(Outcome::Result(_)) => Check::judged(rule, true, format!("{probe} answered"), seq),
        Ok(e @ Outcome::Error(_)) => failed(format!("{probe} was answered with {}", shown(&e))),
        Err(why) => failed(why),
    }
}

/// Runs one case on a fresh session and judges it. Err: the receiver could not be reached
/// or initialized before the input was sent (a harness error, not a verdict).
pub async fn run_case<C: Connect>(
    connector: &C,
    config: &Config,
    input: &Input,
) -> Result<Vec<Check>, String> {
    let conn = connector
        .connect(Peer::A)
        .await
        .map_err(|e| e.to_string())?;
    let session = Session::start(conn, config.limits.request);
    let profile = input.profile;
    let open = || {
        profile.open(
            &session,
            ReceiverKind::Server,
            profile.default_client_capabilities(),
        )
    };
    if !input.before_init {
        open()
            .await
            .map_err(|e| format!("before the input was sent: {e}"))?;
    }
    let wait = answer_wait(input, config);
    let mut answer = None;
    for (i, line) in input.lines.iter().enumerate() {
        let ids: &[Value] = if i + 1 == input.lines.len() {
            &input.ids
        } else {
            &[]
        };
        match session.send_raw(line, ids, wait).await {
            Ok(reply) => answer = reply.answer,
            Err(e) => return Ok(vec![survival(input, Err(e.to_string()), Vec::new())]),
        }
    }
    if let (None, Some(why)) = (&answer, session.closed_reason()) {
        // it died on the input: that is the finding, not the missing answer
        return Ok(vec![survival(
            input,
            Err(format!("connection lost: {why}")),
            Vec::new(),
        )]);
    }
    let mut checks = judge_answer(input, answer.as_ref(), wait);
    if input.before_init {
        if let Err(e) = open().await {
            checks.push(survival(input, Err(e), Vec::new()));
            return Ok(checks);
        }
    }
    let ping = session
        .request(profile.wire().liveness, json!({}), config.limits.request)
        .await;
    checks.push(match ping {
        Ok(reply) => survival(input, Ok(reply.outcome), vec![reply.seq]),
        Err(e @ RequestError::Timeout { .. }) => {
            survival(input, Err(format!("{e} (hung)")), Vec::new())
        }
        Err(e) => survival(input, Err(e.to_string()), Vec::new()),
    });
    Ok(checks)
}

fn save(dir: &Path, case: &SavedCase) -> Result<PathBuf, String> {
    let path = dir.join(format!("fuzz-wire-{}.json", case.seed));
    let text = serde_json::to_string_pretty(case).unwrap_or_default();
    std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(&path, text + "\n"))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Sends `options.cases` random inputs (or fewer, once `time_limit` has passed).
pub async fn fuzz<C: Connect>(connector: &C, config: &Config, options: &Options) -> WireFuzz {
    let start = Instant::now();
    let mut found = WireFuzz {
        origin: Origin::of(connector),
        ..WireFuzz::default()
    };
    let (info, offer) = match probe_offer(connector, config, options.profile).await {
        Ok(p) => p,
        Err(e) => {
            found.error = Some(e);
            return found;
        }
    };
    let tasks = has_capability(
        &info.capabilities,
        options.profile.facts().task_tools_capability,
    );
    for case in 0..options.cases {
        if start.elapsed() >= options.time_limit {
            break;
        }
        let seed = options.seed.wrapping_add(case as u64);
        let input = inputs::draw(
            &mut seeded_rng(seed),
            seed,
            (&offer, options.profile),
            tasks,
            &config.fixtures,
        );
        let checks = match run_case(connector, config, &input).await {
            Ok(c) => c,
            Err(e) => {
                found.error = Some(format!("case {seed} ({}): {e}", input.class.name()));
                break;
            }
        };
        found.cases_run += 1;
        let worst = checks
            .iter()
            .map(|c| c.verdict)
            .max()
            .unwrap_or(Verdict::Pass);
        let tally = found.by_class.entry(input.class).or_default();
        tally[0] += 1;
        tally[match worst {
            Verdict::Fail | Verdict::Error => 3,
            Verdict::Warn => 2,
            _ => 1,
        }] += 1;
        for check in &checks {
            found.judge(input.class, seed, check);
        }
        for check in checks.iter().filter(|c| c.verdict >= Verdict::Warn) {
            if let Some(f) = found
                .findings
                .iter_mut()
                .find(|f| f.check.rule == check.rule && f.check.verdict == check.verdict)
            {
                f.times += 1;
                continue;
            }
            let case = SavedCase {
                seed,
                input: input.clone(),
                found: checks
                    .iter()
                    .filter(|c| c.verdict >= Verdict::Warn)
                    .cloned()
                    .collect(),
            };
            let saved = match &options.save_failures {
                Some(dir) => match save(dir, &case) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        found.error = Some(e);
                        None
                    }
                },
                None => None,
            };
            found.findings.push(Finding {
                case,
                check: check.clone(),
                times: 1,
                saved,
            });
        }
    }
    found.elapsed = start.elapsed();
    found
}

impl WireFuzz {
    /// Counts a check of a case of `class` under its rule, keeping the worst.
    fn judge(&mut self, class: Class, seed: u64, check: &Check) {
        let broken = usize::from(check.verdict >= Verdict::Warn);
        let key = (class, check.rule.clone());
        match self.judged.get_mut(&key) {
            Some(j) => {
                j.cases += 1;
                j.broken += broken;
                if check.verdict > j.worst.verdict {
                    j.worst = check.clone();
                    j.seed = seed;
                }
            }
            None => {
                let worst = check.clone();
                let cases = 1;
                self.judged.insert(
                    key,
                    Judged {
                        worst,
                        seed,
                        cases,
                        broken,
                    },
                );
            }
        }
    }

    /// The run as a report: a scenario per class (`fuzz-wire/<class>`), a check per rule (its
    /// worst over the class's cases, saying how many broke it and the seed that did), so the
    /// report formats, `--fail-on` and `taskcheck diff` work as for `run`.
    pub fn report(&self, profile: Profile) -> RunReport {
        let scenarios = self
            .by_class
            .iter()
            .map(|(class, [cases, ..])| {
                let checks = self
                    .judged
                    .iter()
                    .filter(|((c, _), _)| c == class)
                    .map(|(_, j)| Check {
                        message: format!(
                            "{} ({} of {} case(s) broke it; this one: --seed {} --cases 1)",
                            j.worst.message, j.broken, j.cases, j.seed
                        ),
                        // each case had its own session, whose trace is not kept
                        evidence: Vec::new(),
                        ..j.worst.clone()
                    })
                    .collect();
                ScenarioRun::of_checks(
                    format!("fuzz-wire/{}", class.name()),
                    format!("fuzz-wire: {} ({cases} case(s))", class.name()),
                    checks,
                )
            })
            .collect();
        RunReport::of_findings(profile, &self.origin, self.elapsed, scenarios)
    }

    /// The human summary `taskcheck fuzz-wire` prints.
    pub fn summary(&self, options: &Options) -> String {
        let mut out = format!(
            "fuzz-wire: {} case(s) in {:.1} s, seeds {}..{}\n",
            self.cases_run,
            self.elapsed.as_secs_f64(),
            options.seed,
            options.seed.wrapping_add(self.cases_run as u64)
        );
        out += &format!(
            "{:<18} {:>5} {:>5} {:>5} {:>5}\n",
            "class", "cases", "pass", "warn", "fail"
        );
        for (class, [n, pass, warn, fail]) in &self.by_class {
            out += &format!(
                "{:<18} {n:>5} {pass:>5} {warn:>5} {fail:>5}\n",
                class.name()
            );
        }
        for f in &self.findings {
            let c = &f.check;
            out += &format!(
                "{} {} ({} case(s); first: seed {}, {}): {}\n  sent: {}\n",
                c.verdict.label(),
                c.rule,
                f.times,
                f.case.seed,
                f.case.input.class.name(),
                c.message,
                f.case
                    .input
                    .lines
                    .iter()
                    .map(|l| crate::trace::preview(l, 200))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
            if let (Some(want), Some(got)) = (&c.expected, &c.actual) {
                out += &format!("  expected {want}, got {got}\n");
            }
            if let Some(p) = &f.saved {
                out += &format!(
                    "  saved {}; replay: taskcheck fuzz-wire --{} '{}' --replay {}\n",
                    p.display(),
                    match self.origin.transport.as_str() {
                        "http" => "url",
                        t => t,
                    },
                    self.origin.receiver,
                    p.display()
                );
            }
        }
        if self.findings.is_empty() && self.error.is_none() {
            out += "no rule broken\n";
        }
        if let Some(e) = &self.error {
            out += &format!("error: {e}\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::designs;

    fn input(class: Class, profile: Profile) -> Input {
        Input {
            class,
            lines: vec![r#"{"jsonrpc":"2.0","method":"notifications/x"}"#.into()],
            ids: Vec::new(),
            before_init: false,
            profile,
        }
    }

    #[test]
    fn a_body_too_large_for_the_http_server_leaves_the_rule_untestable() {
        let mut bad = input(Class::BadCursor, designs::TASKS_2025);
        bad.lines = vec![
            r#"{"jsonrpc":"2.0","id":"fw-1","method":"tasks/list","params":{"cursor":"x"}}"#.into(),
        ];
        let refused = Outcome::Error(json!({"httpStatus": 413, "message": "PayloadTooLargeError"}));
        let checks = judge_answer(&bad, Some(&(3, refused)), Duration::from_secs(1));
        let cursor = checks
            .iter()
            .find(|c| c.rule == "tasks.errors.bad-cursor")
            .unwrap();
        assert_eq!(cursor.verdict, Verdict::Untestable, "{}", cursor.message);
        let wrong = Outcome::Error(json!({"code": -32603, "message": "boom"}));
        let checks = judge_answer(&bad, Some(&(3, wrong)), Duration::from_secs(1));
        let cursor = checks
            .iter()
            .find(|c| c.rule == "tasks.errors.bad-cursor")
            .unwrap();
        assert_eq!(cursor.verdict, Verdict::Fail);
    }

    #[test]
    fn dying_on_input_the_spec_forbids_is_warned_and_on_legal_input_failed() {
        let died = |class, profile| {
            survival(&input(class, profile), Err("exited".into()), Vec::new()).verdict
        };
        // 2026-07-28: a client MUST NOT send responses; notifications are legal
        assert_eq!(
            died(Class::StrayResponse, designs::EXT_TASKS),
            Verdict::Warn
        );
        assert_eq!(died(Class::Notification, designs::EXT_TASKS), Verdict::Fail);
        // 2025-11-25: a client answers server requests, so a stray response is legal input
        assert_eq!(
            died(Class::StrayResponse, designs::TASKS_2025),
            Verdict::Fail
        );
        let mut early = input(Class::BeforeInit, designs::TASKS_2025);
        early.before_init = true;
        let check = survival(&early, Err("exited".into()), Vec::new());
        assert_eq!(check.verdict, Verdict::Warn, "{}", check.message);
    }
}
