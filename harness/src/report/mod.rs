//! Reports: what a run found, the outcome that sets the exit code, and every output format.

mod checks_json;
mod flow;
mod folded;
mod html;
mod json;
mod junit;
mod markdown;
mod terminal;
pub mod width;

pub use folded::Folded;
pub use json::REPORT_SCHEMA;
pub use terminal::Detail;

use crate::baseline::Baseline;
use crate::designs::Profile;
use crate::exit;
use crate::runner::ScenarioRun;
use crate::verdict::{Check, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// Which failures make the run non-conformant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FailOn {
    #[default]
    Must,
    Should,
}

/// What every report says of the rules a recorded conversation never exercised.
pub const NOT_EXERCISED: &str = "Not judged is not passed: no message of this traffic asked for what these rules need (`taskcheck run` asks for it).";

/// What every report says of the rules a recording's transport makes not applicable.
pub fn other_transport_note(transport: &str) -> String {
    format!("Not applicable, these rules speak of another transport than this recording's ({transport})")
}

/// The side a rule judges, given the design's requestor rules.
fn side_in(requestor: &[&str], rule: &str) -> &'static str {
    match requestor.contains(&rule) {
        true => "requestor",
        false => "receiver",
    }
}

/// How many rules a run judged, and how many applied but could not be judged.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Judged {
    pub rules: usize,
    pub untestable: usize,
    /// Rules a recorded conversation never exercised (`check`, `watch`).
    pub not_exercised: usize,
}

impl Judged {
    /// `on 14 of 45 applicable rule(s) judged (31 untestable)`, or `on 47 rule(s) judged`
    /// when every applicable rule was; a recording adds `, 30 not exercised by this traffic`.
    pub fn phrase(&self) -> String {
        let judged = match self.untestable {
            0 => format!("on {} rule(s) judged", self.rules),
            n => format!(
                "on {} of {} applicable rule(s) judged ({n} untestable)",
                self.rules,
                self.rules + n
            ),
        };
        match self.not_exercised {
            0 => judged,
            n => format!("{judged}, {n} not exercised by this traffic"),
        }
    }
}

/// How much a run must judge to be conformant (`--require-judged`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Require {
    /// Whatever was judged.
    #[default]
    Any,
    /// Every applicable rule: none untestable.
    All,
    /// At least this many rules.
    Rules(usize),
}

impl std::str::FromStr for Require {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(Require::All),
            n => n
                .parse()
                .map(Require::Rules)
                .map_err(|_| format!("{s:?} is neither `all` nor a number of rules")),
        }
    }
}

impl Require {
    /// Why `judged` is too little, if it is.
    fn short_of(self, judged: Judged) -> Option<String> {
        match self {
            Require::All if judged.untestable + judged.not_exercised > 0 => {
                Some("--require-judged all".into())
            }
            Require::Rules(n) if judged.rules < n => Some(format!("--require-judged {n}")),
            _ => None,
        }
    }
}

/// A whole run: metadata and every scenario's outcome.
pub struct RunReport {
    /// The design of Tasks the run judged.
    pub profile: Profile,
    pub receiver: String,
    pub transport: String,
    pub started: String,
    pub duration: Duration,
    pub scenarios: Vec<ScenarioRun>,
    /// Sessions counted, not listed (offline `check` of a long trace).
    pub folded: Folded,
    /// CPU time taskcheck itself spent (all its threads, none of its receivers), if measured.
    pub cpu: Option<Duration>,
    /// The work one call of a tool costs the receiver, in ms, for the tools that work a fixed
    /// time whatever they are given (a fixture map's `duration-ms`, which `init` measured).
    pub fixed_work_ms: BTreeMap<String, u64>,
    /// The rules of the sides judged that no message of a recorded conversation exercised
    /// (`check`, `watch`: what a rule needs was never asked); empty for a live run.
    pub not_exercised: Vec<String>,
    /// The rules of the sides judged that speak of another transport than the recording's:
    /// not applicable to it (empty for a live run, whose scenarios say so themselves).
    pub other_transport: Vec<String>,
}

/// Counts of verdicts over every check.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub warnings: usize,
    pub info: usize,
    pub not_applicable: usize,
    pub untestable: usize,
    /// Observations explained by a failure already counted (never counted as failed).
    pub consequences: usize,
    pub errors: usize,
}

/// How often the run called one of the receiver's tools, and the work those calls asked of
/// it, in ms, where known.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Called {
    pub calls: usize,
    pub work_ms: Option<u64>,
}

/// A duration for a reader: `850 ms`, `3.6 s`, `8 min 30 s`.
fn spoken_ms(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
    }
}

/// What the run means: the exit code, why, and how the baseline was applied.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub code: i32,
    pub meaning: String,
    pub fail_on: FailOn,
    /// Failing checks (`scenario:rule`) the baseline lists: they do not fail the run.
    pub expected: BTreeSet<String>,
    /// Baseline entries that match no failure any more.
    pub stale: Vec<String>,
}

impl Outcome {
    /// Whether a check fails the run (not counting the baseline).
    pub fn fails(&self, c: &Check) -> bool {
        self.fails_verdict(c.verdict)
    }

    /// Whether a verdict fails the run (not counting the baseline).
    fn fails_verdict(&self, v: Verdict) -> bool {
        v == Verdict::Fail || (self.fail_on == FailOn::Should && v == Verdict::Warn)
    }

    /// Whether a failing check is one the baseline expects.
    pub fn is_expected(&self, scenario: &str, c: &Check) -> bool {
        self.expected.contains(&format!("{scenario}:{}", c.rule))
    }
}

/// Whom a command's findings are about and when it began: a report's header.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    /// The receiver's command or URL.
    pub receiver: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// When the command began (RFC 3339).
    pub started: String,
}

impl Origin {
    /// The receiver a connector reaches, from now.
    pub fn of<C: crate::transport::Connect>(connector: &C) -> Origin {
        Origin {
            receiver: connector.describe(),
            transport: connector.transport().to_string(),
            started: crate::timestamp::now(),
        }
    }
}

impl RunReport {
    /// The report of a command that judges its own cases (`explore`, `fuzz-wire`, `load`):
    /// no folded sessions and no CPU figure.
    pub fn of_findings(
        profile: Profile,
        origin: &Origin,
        duration: Duration,
        scenarios: Vec<ScenarioRun>,
    ) -> RunReport {
        RunReport {
            folded: Default::default(),
            profile,
            receiver: origin.receiver.clone(),
            transport: origin.transport.clone(),
            started: origin.started.clone(),
            duration,
            scenarios,
            cpu: None,
            fixed_work_ms: Default::default(),
            not_exercised: Vec::new(),
            other_transport: Vec::new(),
        }
    }

    /// Every check's rule and verdict, listed and folded, with how many times it was given. A
    /// rule a monitor saw hold or recorded ([`observation`]) counts once per run: which
    /// scenarios happen to show it (a status notification before the session closes) follows
    /// timing, so counting each would make identical runs count differently.
    fn verdicts(&self) -> impl Iterator<Item = (&str, Verdict, usize)> {
        let listed = self.scenarios.iter().flat_map(|s| s.checks.iter());
        let sightings = listed
            .clone()
            .filter(|c| observation(c))
            .map(|c| (c.rule.as_str(), c.verdict))
            .chain(self.folded.observed.keys().map(|(r, v)| (r.as_str(), *v)))
            .collect::<BTreeSet<_>>();
        listed
            .filter(|c| !observation(c))
            .map(|c| (c.rule.as_str(), c.verdict, 1))
            .chain(self.folded.verdicts().filter(|(_, _, n)| *n > 0))
            .chain(sightings.into_iter().map(|(r, v)| (r, v, 1)))
    }

    /// The receiver's tools the run called (the names of the `tools/call` requests taskcheck
    /// sent), each with its number of calls and the work they asked of it in ms, where known:
    /// a tool's fixed work per call ([`RunReport::fixed_work_ms`]), else the `ms` a call gave.
    pub fn tools_called(&self) -> BTreeMap<String, Called> {
        let mut out: BTreeMap<String, Called> = BTreeMap::new();
        let sent = self.scenarios.iter().flat_map(|s| s.trace.iter());
        for entry in sent.filter(|e| e.dir == crate::trace::Direction::Out) {
            let Some(message) = &entry.message else {
                continue;
            };
            if message.get("method").and_then(|m| m.as_str()) != Some("tools/call") {
                continue;
            }
            let Some(name) = message.pointer("/params/name").and_then(|n| n.as_str()) else {
                continue;
            };
            let work = self.fixed_work_ms.get(name).copied().or_else(|| {
                message
                    .pointer("/params/arguments/ms")
                    .and_then(|m| m.as_u64())
            });
            let called = out.entry(name.to_string()).or_default();
            called.calls += 1;
            if let Some(ms) = work {
                *called.work_ms.get_or_insert(0) += ms;
            }
        }
        out
    }

    /// The tools called and what they cost, in words: `tools called (work asked): echo ×4,
    /// sleep ×12 (3.6 s)`, or `no tool called`.
    pub fn tools_line(&self) -> String {
        let called = self.tools_called();
        match called.is_empty() {
            true => "no tool called".to_string(),
            false => {
                let each: Vec<String> = called
                    .iter()
                    .map(|(t, c)| match c.work_ms.filter(|ms| *ms > 0) {
                        Some(ms) => format!("{t} ×{} ({})", c.calls, spoken_ms(ms)),
                        None => format!("{t} ×{}", c.calls),
                    })
                    .collect();
                let asked = called.values().any(|c| c.work_ms.is_some_and(|ms| ms > 0));
                let work = if asked { " (work asked)" } else { "" };
                format!("tools called{work}: {}", each.join(", "))
            }
        }
    }

    /// The number of sessions judged, listed and folded.
    pub fn sessions(&self) -> usize {
        self.scenarios.len() + self.folded.sessions
    }

    /// Counts every check's verdict.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for (_, verdict, n) in self.verdicts() {
            *match verdict {
                Verdict::Pass => &mut t.passed,
                Verdict::Fail => &mut t.failed,
                Verdict::Warn => &mut t.warnings,
                Verdict::Info => &mut t.info,
                Verdict::NotApplicable => &mut t.not_applicable,
                Verdict::Untestable => &mut t.untestable,
                Verdict::Consequence => &mut t.consequences,
                Verdict::Error => &mut t.errors,
            } += n;
        }
        t
    }

    /// Each rule's verdict over the run: the worst of its judgements, or where no scenario
    /// judged it, the worst of why not (a rule untestable in one scenario and passed in
    /// another passed).
    pub fn rule_verdicts(&self) -> BTreeMap<String, Verdict> {
        let mut out: BTreeMap<String, Verdict> = BTreeMap::new();
        for (rule, verdict, _) in self.verdicts() {
            let slot = out.entry(rule.to_string()).or_insert(verdict);
            *slot = match (slot.is_judgement(), verdict.is_judgement()) {
                (true, false) => *slot,
                (false, true) => verdict,
                _ => (*slot).max(verdict),
            };
        }
        out
    }

    /// For each rule, the scenarios that could not judge it (untestable there).
    pub fn unjudged_in(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for s in &self.scenarios {
            for c in s.checks.iter().filter(|c| c.verdict == Verdict::Untestable) {
                out.entry(c.rule.clone()).or_default().insert(s.id.clone());
            }
        }
        out
    }

    /// The rules no scenario could judge, each with why its first scenario could not.
    pub fn untestable_rules(&self) -> Vec<(String, String)> {
        let why = |rule: &str| {
            self.scenarios
                .iter()
                .flat_map(|s| &s.checks)
                .find(|c| c.rule == rule && c.verdict == Verdict::Untestable)
                .map(|c| c.message.clone())
                .unwrap_or_default()
        };
        self.rule_verdicts()
            .into_iter()
            .filter(|(_, v)| *v == Verdict::Untestable)
            .map(|(rule, _)| {
                let why = why(&rule);
                (rule, why)
            })
            .collect()
    }

    /// How much the run judged: rules judged, and rules that applied but stayed untestable.
    pub fn judged(&self) -> Judged {
        let mut j = Judged {
            not_exercised: self.not_exercised.len(),
            ..Judged::default()
        };
        for v in self.rule_verdicts().into_values() {
            match v {
                Verdict::Untestable => j.untestable += 1,
                Verdict::NotApplicable => {}
                _ => j.rules += 1,
            }
        }
        j
    }

    /// Every (scenario, rule) a check failed or warned on, whatever the failure policy.
    fn not_met(&self) -> Vec<(String, String)> {
        let broke = |v: Verdict| matches!(v, Verdict::Fail | Verdict::Warn);
        let checks = self.scenarios.iter().flat_map(|s| {
            s.checks
                .iter()
                .filter(|c| broke(c.verdict))
                .map(|c| (s.id.clone(), c.rule.clone()))
        });
        let folded = self
            .folded
            .failing
            .iter()
            .filter(|((_, _, v), _)| broke(*v))
            .map(|((s, r, _), _)| (s.clone(), r.clone()));
        checks.chain(folded).collect()
    }

    /// The outcome under a failure policy and an optional baseline of expected failures.
    pub fn outcome(
        &self,
        fail_on: FailOn,
        baseline: Option<&Baseline>,
        require: Require,
    ) -> Outcome {
        let mut outcome = Outcome {
            code: exit::CONFORMANT,
            meaning: String::new(),
            fail_on,
            expected: BTreeSet::new(),
            stale: Vec::new(),
        };
        // each failing (scenario, rule) with how many checks failed it
        let mut failing: Vec<((String, String), usize)> = self
            .scenarios
            .iter()
            .flat_map(|s| {
                let o = &outcome;
                s.checks
                    .iter()
                    .filter(move |c| o.fails(c))
                    .map(move |c| ((s.id.clone(), c.rule.clone()), 1))
            })
            .collect();
        for ((scenario, rule, verdict), n) in &self.folded.failing {
            if outcome.fails_verdict(*verdict) {
                failing.push(((scenario.clone(), rule.clone()), *n));
            }
        }
        let mut unexpected = 0;
        // a defect every session shows (a guessable id) fails one rule in many scenarios
        let mut unexpected_rules = BTreeSet::new();
        for ((scenario, rule), n) in &failing {
            if baseline.is_some_and(|b| b.lists(scenario, rule)) {
                outcome.expected.insert(format!("{scenario}:{rule}"));
            } else {
                unexpected += n;
                unexpected_rules.insert(rule.as_str());
            }
        }
        if let Some(b) = baseline {
            // an entry is stale only where its rule is met: a WARN under --fail-on must is
            // not met, though it fails nothing
            outcome.stale = b.stale(&self.not_met());
        }
        let t = self.totals();
        (outcome.code, outcome.meaning) =
            if t.errors > 0 || self.scenarios.iter().any(|s| s.error.is_some()) {
                let cause = self
                    .scenarios
                    .iter()
                    .find_map(|s| s.error.as_ref().map(|e| format!("{}: {e}", s.id)))
                    .unwrap_or_default();
                (
                    exit::HARNESS,
                    format!("harness or transport error ({cause})"),
                )
            } else if t.passed + t.failed + t.warnings == 0 {
                (
                    exit::HARNESS,
                    "no check was executed: nothing was judged".into(),
                )
            } else if unexpected > 0 {
                let kind = match fail_on {
                    FailOn::Must => "MUST-level rule(s) failed",
                    FailOn::Should => "rule(s) failed or warned (--fail-on should)",
                };
                (
                    exit::NONCONFORMANT,
                    format!(
                        "non-conformant: {} {kind}{}, in {unexpected} check(s)",
                        unexpected_rules.len(),
                        self.whose(&unexpected_rules)
                    ),
                )
            } else if !outcome.stale.is_empty() {
                (
                    exit::NONCONFORMANT,
                    format!(
                        "stale baseline: remove {} from the expected failures, it passes now",
                        outcome.stale.join(", ")
                    ),
                )
            } else if let Some(asked) = require.short_of(self.judged()) {
                (
                    exit::TOO_LITTLE_JUDGED,
                    format!(
                        "too little judged for {asked}: no failure {}",
                        self.judged().phrase()
                    ),
                )
            } else if !outcome.expected.is_empty() {
                (
                    exit::CONFORMANT,
                    format!(
                        "conformant but for {} expected failure(s) listed in the baseline, {}",
                        outcome.expected.len(),
                        self.judged().phrase()
                    ),
                )
            } else {
                (
                    exit::CONFORMANT,
                    format!(
                        "conformant: every judged MUST held, {}",
                        self.judged().phrase()
                    ),
                )
            };
        outcome
    }

    /// Said plainly when the receiver declares no task support at all (it does not implement
    /// the profile's Tasks, e.g. an SDK release line that removed them).
    pub fn no_tasks_note(&self) -> Option<&'static str> {
        let capabilities = &self
            .scenarios
            .iter()
            .find_map(|s| s.server.as_ref())?
            .capabilities;
        self.profile.no_tasks_note(capabilities)
    }

    /// The rules that were not met (fail, warn, error), worst verdict each, what to fix first
    /// first.
    pub fn rules_not_met(&self) -> Vec<(String, Verdict)> {
        let mut bad: Vec<(String, Verdict)> = self
            .rule_verdicts()
            .into_iter()
            .filter(|(_, v)| v.not_met())
            .collect();
        // what to fix first comes first: MUST failures, a receiver that went away before the
        // rest, then SHOULDs, then what kept taskcheck from judging
        let rank = |v: Verdict| match v {
            Verdict::Fail => 0,
            Verdict::Warn => 1,
            Verdict::Error => 2,
            _ => 3,
        };
        bad.sort_by_key(|(rule, v)| (rank(*v), rule != crate::runner::SURVIVES_RULE));
        bad
    }

    /// The side of the conversation a rule judges: `requestor` for the design's client
    /// rules, else `receiver`.
    pub fn side_of(&self, rule: &str) -> &'static str {
        side_in(&self.profile.requestor_rules(), rule)
    }

    /// ` (requestor)` after a rule where the report judged rules of both sides (`mixed`),
    /// so every list of rules says whose each is; nothing where it judged one side.
    pub fn side_mark(&self, rule: &str, mixed: bool) -> String {
        match mixed {
            true => format!(" ({})", self.side_of(rule)),
            false => String::new(),
        }
    }

    /// ` (requestor: 2)`, or ` (receiver: 1, requestor: 2)`: whose the failed rules are, where
    /// the report judged rules of both sides (nothing where it judged one).
    fn whose(&self, failed: &BTreeSet<&str>) -> String {
        if self.sides_line().is_none() {
            return String::new();
        }
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for rule in failed {
            *by.entry(self.side_of(rule)).or_default() += 1;
        }
        let each: Vec<String> = by.iter().map(|(side, n)| format!("{side}: {n}")).collect();
        format!(" ({})", each.join(", "))
    }

    /// Each side's outcome, where the report judged rules of both (a recorded conversation
    /// judged `--judge both`): `receiver: every judged MUST held, on 30 rule(s) judged`, so a
    /// failing client never reads as a non-conformant server.
    pub fn sides_line(&self) -> Option<String> {
        let requestor = self.profile.requestor_rules();
        // per side: rules judged, failed (MUST), warned (SHOULD)
        let mut counts: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
        for (rule, v) in self.rule_verdicts() {
            if !v.is_judgement() {
                continue;
            }
            let c = counts.entry(side_in(&requestor, &rule)).or_default();
            c.0 += 1;
            c.1 += usize::from(v == Verdict::Fail);
            c.2 += usize::from(v == Verdict::Warn);
        }
        if counts.len() < 2 {
            return None;
        }
        let said: Vec<String> = counts
            .iter()
            .map(|(side, (judged, failed, warned))| {
                let held = match failed {
                    0 => "every judged MUST held".to_string(),
                    n => format!("{n} MUST-level rule(s) failed"),
                };
                let warned = match warned {
                    0 => String::new(),
                    n => format!(", {n} warned (SHOULD)"),
                };
                format!("{side}: {held}{warned}, on {judged} rule(s) judged")
            })
            .collect();
        Some(said.join("; "))
    }

    /// The rules counted by their worst verdict over the run, worst first:
    /// `rules: 1 failed (MUST), 40 passed`.
    pub fn rules_line(&self) -> String {
        let mut by: BTreeMap<Verdict, usize> = BTreeMap::new();
        for v in self.rule_verdicts().into_values() {
            *by.entry(v).or_default() += 1;
        }
        let counts: Vec<String> = by
            .iter()
            .rev()
            .map(|(v, n)| {
                let what = match v {
                    Verdict::Pass => "passed",
                    Verdict::Info => "recorded (MAY)",
                    Verdict::NotApplicable => "not applicable",
                    Verdict::Untestable => "untestable",
                    Verdict::Consequence => "broken only as a consequence",
                    Verdict::Warn => "warned (SHOULD)",
                    Verdict::Fail => "failed (MUST)",
                    Verdict::Error => "not judged (error)",
                };
                format!("{n} {what}")
            })
            .collect();
        format!("rules: {}", counts.join(", "))
    }

    /// The verdict standing for a scenario: its worst, ignoring INFO unless that is all.
    pub fn scenario_verdict(run: &ScenarioRun) -> Verdict {
        run.checks
            .iter()
            .map(|c| c.verdict)
            .filter(|v| *v != Verdict::Info)
            .max()
            .or_else(|| run.checks.first().map(|_| Verdict::Info))
            .unwrap_or(Verdict::Untestable)
    }
}

/// Whether a check is a monitor's sighting of a rule holding or recorded (a pass or info
/// outside any step): how many scenarios show one follows timing.
pub(crate) fn observation(c: &Check) -> bool {
    c.step.is_none() && matches!(c.verdict, Verdict::Pass | Verdict::Info)
}

/// The one-line summary of the totals.
pub fn totals_line(t: &Totals) -> String {
    let rest = [
        (t.warnings, "warnings"),
        (t.info, "info"),
        (t.not_applicable, "not applicable"),
        (t.untestable, "untestable"),
        (t.consequences, "consequences"),
        (t.errors, "errors"),
    ];
    let mut parts = vec![
        format!("{} passed", t.passed),
        format!("{} failed", t.failed),
    ];
    parts.extend(
        rest.iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}")),
    );
    format!("checks: {}", parts.join(", "))
}
