//! `taskcheck explore`: model-based random testing of a live receiver. Random sequences of
//! operations over the fixture tools run as scenarios, judged by the same steps, model and
//! monitors as the library; a failing sequence is shrunk to a minimal one and saved as a
//! scenario `taskcheck run` replays. The same seed gives the same sequences.

pub mod ops;

use crate::designs::Profile;
use crate::monitor::has_capability;
use crate::report::{Origin, RunReport};
use crate::runner::{probe, run_scenario, Config, ScenarioRun};
use crate::scenario::{self, Requires, Scenario};
use crate::session::ServerInfo;
use crate::transport::Connect;
use crate::verdict::{Check, Verdict};
use ops::{Offer, Op};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;
use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;

/// What to explore.
#[derive(Debug, Clone)]
pub struct Options {
    /// The design of Tasks the receiver is tested under.
    pub profile: Profile,
    /// Case `k` draws from seed `seed + k`, so one case replays alone with `--seed seed+k --cases 1`.
    pub seed: u64,
    pub cases: usize,
    pub max_ops: usize,
    /// Most runs spent shrinking a failure.
    pub shrink_runs: usize,
    /// Where the minimal failing scenario is written.
    pub save_failures: Option<PathBuf>,
}

/// A failing case, shrunk.
#[derive(Debug, Clone)]
pub struct Failure {
    pub case_seed: u64,
    /// The check that broke a rule, as the drawn sequence broke it.
    pub check: Check,
    /// Length of the sequence as drawn.
    pub drawn_ops: usize,
    pub ops: Vec<Op>,
    pub scenario: Scenario,
    pub shrink_runs: usize,
    /// Whether the minimal scenario failed again when run once more.
    pub reproduced: bool,
    pub saved: Option<PathBuf>,
}

/// A case that failed once but not when run again: a real violation seen on the wire, too
/// timing-dependent to shrink.
#[derive(Debug, Clone)]
pub struct Unreproduced {
    pub case_seed: u64,
    pub check: Check,
}

/// What an exploration found.
#[derive(Debug, Clone, Default)]
pub struct Exploration {
    /// The receiver explored, and when.
    pub origin: Origin,
    pub elapsed: std::time::Duration,
    pub cases_run: usize,
    pub steps_run: usize,
    /// Per rule, the first check that held it in a case that broke nothing, and how many did.
    pub held: BTreeMap<String, (Check, usize)>,
    /// The first case that failed twice in a row, shrunk (exploration stops there).
    pub failure: Option<Failure>,
    /// Cases that failed once and passed on the rerun, before `failure` was found.
    pub unreproduced: Vec<Unreproduced>,
    /// The receiver could not be probed, or the failure could not be saved.
    pub error: Option<String>,
}

/// The first check that breaks a rule (or could not be judged for a transport reason).
fn first_bad(run: &ScenarioRun) -> Option<&Check> {
    run.checks.iter().find(|c| c.verdict >= Verdict::Warn)
}

/// A deterministic random source for one seed.
pub fn seeded_rng(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

fn rng(seed: u64) -> TestRunner {
    TestRunner::new_with_rng(proptest::test_runner::Config::default(), seeded_rng(seed))
}

fn offer_of(capabilities: &Value, tools: &[Value], config: &Config) -> Offer {
    let listed = |role: &&&str| {
        let name = config.fixtures.tool_name(role);
        tools
            .iter()
            .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
    };
    Offer {
        list: capabilities.pointer("/tasks/list").is_some(),
        cancel: capabilities.pointer("/tasks/cancel").is_some(),
        tools: ops::TASK_TOOLS
            .iter()
            .filter(listed)
            .map(|t| t.to_string())
            .collect(),
    }
}

/// Opens one conversation and lists the tools: what the receiver declares and offers.
pub async fn probe_offer<C: Connect>(
    connector: &C,
    config: &Config,
    profile: Profile,
) -> Result<(ServerInfo, Offer), String> {
    let (info, tools) = probe(connector, &config.limits, profile)
        .await
        .map_err(|e| format!("cannot probe the receiver: {e}"))?;
    let offer = offer_of(&info.capabilities, &tools, config);
    Ok((info, offer))
}

/// Runs `options.cases` random cases; stops at the first failure, shrinks it and saves it.
pub async fn explore<C: Connect>(connector: &C, config: &Config, options: &Options) -> Exploration {
    let start = std::time::Instant::now();
    let mut found = Exploration {
        origin: Origin::of(connector),
        ..Exploration::default()
    };
    search(connector, config, options, &mut found).await;
    found.elapsed = start.elapsed();
    found
}

/// The cases of an exploration, into `found`.
async fn search<C: Connect>(
    connector: &C,
    config: &Config,
    options: &Options,
    found: &mut Exploration,
) {
    let (info, offer) = match probe_offer(connector, config, options.profile).await {
        Ok(p) => p,
        Err(e) => {
            found.error = Some(e);
            return;
        }
    };
    let negotiates = options.profile.facts().task_tools_capability;
    if !has_capability(&info.capabilities, negotiates) || offer.tools.is_empty() {
        found.error = Some(format!(
            "the receiver declares no {negotiates} or lists no fixture tool (see `taskcheck list --fixtures`)"
        ));
        return;
    }
    let strategy = ops::sequences(options.max_ops);
    for case in 0..options.cases {
        let case_seed = options.seed.wrapping_add(case as u64);
        let name = |suffix: &str| format!("explore-{case_seed}{suffix}");
        let Ok(tree) = strategy.new_tree(&mut rng(case_seed)) else {
            continue;
        };
        let drawn = tree.current();
        let first = drawn_scenario(&name(""), "", &drawn, &offer, options.profile);
        if first.steps.is_empty() {
            continue;
        }
        found.cases_run += 1;
        found.steps_run += first.steps.len();
        let run = run_scenario(connector, &first, config).await;
        let Some(bad) = first_bad(&run).cloned() else {
            for check in run.checks {
                let held = found.held.entry(check.rule.clone());
                // its session's trace is not kept, so the check points into none
                let sample = Check {
                    evidence: Vec::new(),
                    ..check
                };
                held.or_insert((sample, 0)).1 += 1;
            }
            continue;
        };
        let fails_alike = |run: &ScenarioRun| {
            run.checks
                .iter()
                .any(|c| c.rule == bad.rule && c.verdict == bad.verdict)
        };
        // a failure is shrunk only if it recurs: a fluke would shrink to nothing useful
        if !fails_alike(&run_scenario(connector, &first, config).await) {
            found.unreproduced.push(Unreproduced {
                case_seed,
                check: bad.clone(),
            });
            continue;
        }
        let mut shrink = Shrink {
            runs: 0,
            budget: options.shrink_runs,
        };
        let minimal = shrink
            .minimise(drawn.clone(), |ops| {
                let s = drawn_scenario(&name(""), "", ops, &offer, options.profile);
                async move {
                    if s.steps.is_empty() {
                        return false;
                    }
                    // twice, so a timing fluke does not become the minimal sequence
                    for _ in 0..2 {
                        if !fails_alike(&run_scenario(connector, &s, config).await) {
                            return false;
                        }
                    }
                    true
                }
            })
            .await;
        let shrink_runs = shrink.runs;
        let steps = drawn_scenario(&name(""), "", &minimal, &offer, options.profile)
            .steps
            .len();
        let title = format!(
            "explore seed {case_seed}: {steps} steps that make {} {}",
            bad.rule,
            bad.verdict.label()
        );
        let scenario = drawn_scenario(&name(""), &title, &minimal, &offer, options.profile);
        let reproduced = fails_alike(&run_scenario(connector, &scenario, config).await);
        let mut failure = Failure {
            case_seed,
            check: bad.clone(),
            drawn_ops: drawn.len(),
            ops: minimal,
            scenario,
            shrink_runs,
            reproduced,
            saved: None,
        };
        if let Some(dir) = &options.save_failures {
            let path = dir.join(format!("{}.yaml", failure.scenario.id));
            let written = std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(&path, scenario::print(&failure.scenario)));
            match written {
                Ok(()) => failure.saved = Some(path),
                Err(e) => found.error = Some(format!("cannot write {}: {e}", path.display())),
            }
        }
        found.failure = Some(failure);
        break;
    }
}

/// Delta debugging over a failing sequence: drop ever smaller runs of operations, keeping
/// every removal after which it still fails. Durations stay as drawn: timing-dependent
/// failures need them.
struct Shrink {
    runs: usize,
    budget: usize,
}

impl Shrink {
    async fn minimise<F, Fut>(&mut self, mut ops: Vec<Op>, fails: F) -> Vec<Op>
    where
        F: Fn(&[Op]) -> Fut,
        Fut: Future<Output = bool>,
    {
        let mut chunk = ops.len().div_ceil(2).max(1);
        loop {
            let mut at = 0;
            while at < ops.len() && self.runs < self.budget {
                let mut candidate = ops.clone();
                candidate.drain(at..(at + chunk).min(ops.len()));
                self.runs += 1;
                if !candidate.is_empty() && fails(&candidate).await {
                    ops = candidate;
                } else {
                    at += chunk;
                }
            }
            if chunk == 1 || self.runs >= self.budget {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        ops
    }
}

impl Exploration {
    /// The exploration as a run report, for the same report files and `--fail-on` as `run`:
    /// `explore/held` has a check per rule that held in the cases that broke nothing, the
    /// failure (`explore/seed-N`) and every unreproduced one (`explore/once-seed-N`) the check
    /// that broke a rule.
    pub fn report(&self, profile: Profile) -> RunReport {
        let run = ScenarioRun::of_checks;
        let mut scenarios = Vec::new();
        if !self.held.is_empty() {
            let checks = self
                .held
                .values()
                .map(|(check, n)| Check {
                    message: format!("{} (held in {n} check(s))", check.message),
                    ..check.clone()
                })
                .collect();
            let title = format!(
                "explore: the rules the {} case(s) that broke nothing judged",
                self.cases_run
            );
            scenarios.push(run("explore/held".into(), title, checks));
        }
        if let Some(f) = &self.failure {
            let check = Check {
                message: format!(
                    "{} (seed {}; shrunk from {} to {} op(s); replay: --seed {} --cases 1)",
                    f.check.message,
                    f.case_seed,
                    f.drawn_ops,
                    f.ops.len(),
                    f.case_seed
                ),
                evidence: Vec::new(),
                ..f.check.clone()
            };
            let title = f.scenario.title.clone();
            scenarios.push(run(
                format!("explore/seed-{}", f.case_seed),
                title,
                vec![check],
            ));
        }
        for u in &self.unreproduced {
            let check = Check {
                message: format!(
                    "{} (once; passed when run again, not shrunk)",
                    u.check.message
                ),
                evidence: Vec::new(),
                ..u.check.clone()
            };
            let title = format!("explore seed {}: failed once", u.case_seed);
            scenarios.push(run(
                format!("explore/once-seed-{}", u.case_seed),
                title,
                vec![check],
            ));
        }
        if let Some(e) = &self.error {
            scenarios.push(ScenarioRun {
                error: Some(e.clone()),
                ..run("explore".into(), "explore".into(), Vec::new())
            });
        }
        RunReport::of_findings(profile, &self.origin, self.elapsed, scenarios)
    }

    /// The human summary `taskcheck explore` prints.
    pub fn summary(&self, options: &Options) -> String {
        let mut out = format!(
            "explore: {} case(s), {} step(s), seeds {}..{}\n",
            self.cases_run,
            self.steps_run,
            options.seed,
            options.seed.wrapping_add(options.cases as u64)
        );
        if let Some(f) = &self.failure {
            out += &format!(
                "FAIL seed {}: {} {}: {}\nshrunk from {} to {} op(s) in {} run(s); {}\n",
                f.case_seed,
                f.check.rule,
                f.check.verdict.label(),
                f.check.message,
                f.drawn_ops,
                f.ops.len(),
                f.shrink_runs,
                if f.reproduced {
                    "the minimal sequence fails again"
                } else {
                    "the minimal sequence did not fail again (timing-dependent?)"
                }
            );
            out += &format!("replay one case: --seed {} --cases 1\n", f.case_seed);
            match &f.saved {
                Some(p) => {
                    out += &format!(
                        "saved {}; replay: taskcheck run --scenarios {} --scenario {}\n",
                        p.display(),
                        p.parent()
                            .map(|d| d.display().to_string())
                            .unwrap_or_default(),
                        f.scenario.id
                    )
                }
                None => out += &format!("---\n{}", scenario::print(&f.scenario)),
            }
        }
        for u in &self.unreproduced {
            out += &format!(
                "FAIL seed {} (once; passed when run again, not shrunk): {} {}: {}\n",
                u.case_seed,
                u.check.rule,
                u.check.verdict.label(),
                u.check.message
            );
        }
        if self.failure.is_none() && self.unreproduced.is_empty() && self.error.is_none() {
            out += "no failure found\n";
        }
        if let Some(e) = &self.error {
            out += &format!("error: {e}\n");
        }
        out
    }
}

/// The scenario that performs `ops` against a receiver offering `offer`, in its design.
pub fn drawn_scenario(
    id: &str,
    title: &str,
    ops: &[Op],
    offer: &Offer,
    profile: Profile,
) -> Scenario {
    let (steps, tools, capabilities) = profile.explore_steps(ops, offer);
    let mut scenario = Scenario {
        id: id.into(),
        title: title.into(),
        rules: Vec::new(),
        tags: Some(vec!["explore".into()]),
        requires: Requires {
            capabilities,
            tools,
            ..Requires::default()
        },
        breaks: Vec::new(),
        client_capabilities: None,
        receiver: Default::default(),
        profile,
        timeout_ms: None,
        steps,
    };
    scenario.rules = scenario.judged_rules();
    scenario.rules.sort();
    scenario.rules.dedup();
    scenario
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(seed: u64) -> Vec<Op> {
        ops::sequences(24)
            .new_tree(&mut rng(seed))
            .unwrap()
            .current()
    }

    fn everything() -> Offer {
        Offer {
            list: true,
            cancel: true,
            tools: ops::TASK_TOOLS.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_sequence() {
        assert_eq!(drawn(42), drawn(42));
        assert_ne!(drawn(42), drawn(43));
    }

    #[test]
    fn every_drawn_sequence_prints_as_a_scenario_that_parses_back() {
        // the designs that draw steps at all (a design may define none)
        let exploring: Vec<&Profile> = Profile::ALL
            .iter()
            .filter(|p| !p.explore_steps(&drawn(0), &everything()).0.is_empty())
            .collect();
        assert!(exploring.len() >= 2, "{exploring:?}");
        for profile in exploring {
            let offer = everything();
            for seed in 0..200 {
                let s = drawn_scenario(
                    &format!("explore-{seed}"),
                    "t",
                    &drawn(seed),
                    &offer,
                    *profile,
                );
                let back = scenario::parse(&scenario::print(&s), "saved.yaml")
                    .unwrap_or_else(|e| panic!("{profile} seed {seed}: {e}"));
                assert_eq!(back, s);
                assert_eq!(back.profile, *profile);
            }
        }
    }

    #[test]
    fn shrinking_finds_the_one_operation_that_matters() {
        let ops: Vec<Op> = (0..20).map(Op::Wait).collect();
        let mut shrink = Shrink {
            runs: 0,
            budget: 1000,
        };
        let minimal = futures::executor::block_on(
            shrink.minimise(ops, |o| std::future::ready(o.contains(&Op::Wait(13)))),
        );
        assert_eq!(minimal, vec![Op::Wait(13)]);
        assert!(shrink.runs < 40, "{} runs", shrink.runs);
    }
}
