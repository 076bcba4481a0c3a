//! Sessions a report counts instead of listing: offline `check` of a long trace lists its first
//! sessions and a few examples of each rule not met, and folds the rest into counts per rule,
//! so the report of a trace of any size fits in memory.

use super::Outcome;
use crate::runner::ScenarioRun;
use crate::verdict::Verdict;
use std::collections::BTreeMap;

/// The sessions counted, not listed.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Folded {
    pub sessions: usize,
    /// Each rule's checks, counted by verdict.
    pub checks: BTreeMap<String, BTreeMap<Verdict, usize>>,
    /// The failing and warning checks by session and rule, counted: what a baseline matches
    /// and the exit code weighs.
    pub failing: BTreeMap<(String, String, Verdict), usize>,
    /// The rules a monitor saw hold or recorded ([`super::observation`]), each with how many
    /// of the counted checks were such sightings: the totals count each once per run.
    pub observed: BTreeMap<(String, Verdict), usize>,
}

impl Folded {
    /// Counts a session instead of listing it.
    pub fn add(&mut self, run: &ScenarioRun) {
        self.sessions += 1;
        for c in &run.checks {
            if super::observation(c) {
                *self
                    .observed
                    .entry((c.rule.clone(), c.verdict))
                    .or_default() += 1;
            }
            *self
                .checks
                .entry(c.rule.clone())
                .or_default()
                .entry(c.verdict)
                .or_default() += 1;
            if matches!(c.verdict, Verdict::Fail | Verdict::Warn) {
                *self
                    .failing
                    .entry((run.id.clone(), c.rule.clone(), c.verdict))
                    .or_default() += 1;
            }
        }
    }

    /// Every folded check's verdict, as often as it was given, sightings left out (the
    /// report counts those with its own, [`Folded::observed`]).
    pub fn verdicts(&self) -> impl Iterator<Item = (&str, Verdict, usize)> {
        self.checks.iter().flat_map(move |(rule, counts)| {
            counts.iter().map(move |(v, n)| {
                let seen = self.observed.get(&(rule.clone(), *v)).copied().unwrap_or(0);
                (rule.as_str(), *v, n - seen)
            })
        })
    }

    /// A rule's folded verdicts, worst first: `FAIL ×2, PASS ×40`.
    pub fn counts_text(&self, rule: &str) -> String {
        let counts = self.checks.get(rule).into_iter().flatten().rev();
        counts
            .map(|(v, n)| format!("{} ×{n}", v.label()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// How many of a rule's folded checks fail the run, the baseline not listing them.
    pub fn unexpected(&self, rule: &str, outcome: &Outcome) -> usize {
        self.failing
            .iter()
            .filter(|((scenario, r, v), _)| {
                r == rule
                    && outcome.fails_verdict(*v)
                    && !outcome.expected.contains(&format!("{scenario}:{rule}"))
            })
            .map(|(_, n)| n)
            .sum()
    }

    /// One line saying what was folded, or None when nothing was.
    pub fn summary(&self) -> Option<String> {
        if self.sessions == 0 {
            return None;
        }
        let checks: usize = self.checks.values().flat_map(|c| c.values()).sum();
        let mut unmet: BTreeMap<&str, usize> = BTreeMap::new();
        for (rule, v, n) in self.verdicts() {
            if v.not_met() {
                *unmet.entry(rule).or_default() += n;
            }
        }
        let unmet = match unmet.is_empty() {
            true => "every one of them held or was not judged".to_string(),
            false => format!(
                "not met: {}",
                unmet
                    .iter()
                    .map(|(rule, n)| format!("{rule} ×{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Some(format!(
            "{} more session(s) folded: {checks} checks counted in the totals and rules, not listed; {unmet}",
            self.sessions
        ))
    }
}
