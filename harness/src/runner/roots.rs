//! One defect, one failure: after a scenario, each failure that a failure already reported
//! explains becomes that root's consequence, and is placed under it.
//!
//! Three relations say what explains what, each written where its knowledge lives:
//! - a step's `given` rules: the step's judgement takes them for granted (scenario file);
//! - a monitor finding's `follows` rule (the model: a cancelled task reported otherwise breaks
//!   `tasks.cancel.stays-cancelled` first);
//! - a task missing where it should be (gone before its ttl, `tasks.ttl.no-early-expiry`; not
//!   there yet after its creation, `ext-tasks.create.durable`) explains every answer that says
//!   it does not exist (the monitors' `vanished`).
//!
//! A consequence needs its root to be a failure of this scenario; without one it stays a failure.
//! A failure at MUST that a monitor saw is never the consequence (by its `follows`) of a root
//! that only warns (a SHOULD): it is a failure of its own.
//! A failure judged on an answer about a task whose ttl had elapsed is no failure at all: the
//! receiver may have discarded the task (the monitors' `expired`), so it is untestable.

use crate::scenario::Scenario;
use crate::trace::{Direction, Entry};
use crate::verdict::{Check, Root, Verdict};
use crate::wire::{self, MessageRef};
use std::collections::{BTreeMap, HashMap};

/// What the attribution knows besides the checks.
pub struct Facts<'a> {
    /// For each check (by index; missing at the end: none), the rule it may follow from.
    pub because: &'a [Option<&'static str>],
    /// Answers about a missing task, with the answer that first showed it missing and the
    /// rule its absence breaks.
    pub vanished: &'a BTreeMap<u64, (u64, &'static str)>,
    /// Answers about a task whose ttl had elapsed, each with why: what they break is
    /// untestable (the receiver may have discarded the task).
    pub expired: &'a BTreeMap<u64, String>,
    /// The step that sent each request (or took each receiver message), by trace number.
    pub sent_by: &'a BTreeMap<u64, String>,
    /// How many of the checks, the first, are the steps' own: a step's `given` rules explain
    /// its own judgements, never a monitor's (the monitors' relations are their `because`).
    pub steps: usize,
    pub trace: &'a [Entry],
}

/// The checks of scenario `id` with every explained failure turned into its root's
/// consequence, placed right after the root; every check that lacks a step gets the step its
/// evidence came from. `given` holds each step's `given` rules by label ([`given_by_step`]),
/// `own_rules` the rules it judges itself ([`rules_by_step`]).
pub fn attribute(
    id: &str,
    given: &HashMap<String, Vec<String>>,
    own_rules: &HashMap<String, Vec<String>>,
    checks: Vec<Check>,
    facts: &Facts,
) -> Vec<Check> {
    let step_of = StepOf::new(facts);
    let mut checks: Vec<Check> = checks
        .into_iter()
        .map(|mut c| {
            if c.step.is_none() {
                c.step = c.evidence.iter().rev().find_map(|seq| step_of.label(*seq));
            }
            let expired = c.evidence.iter().find_map(|seq| facts.expired.get(seq));
            if let (true, Some(why)) = (c.broke(), expired) {
                c.verdict = Verdict::Untestable;
                c.message = format!("{}; not judged: {why}", c.message);
            }
            c
        })
        .collect();
    let mut roots: Vec<Option<Root>> = vec![None; checks.len()];
    for i in 0..checks.len() {
        let c = &checks[i];
        // a root a step named itself (its rule, judged by the same step)
        if let Some(named) = c.root.as_ref().filter(|r| r.scenario.is_empty()) {
            let root = checks
                .iter()
                .position(|r| r.rule == named.rule && r.root.is_none() && r.broke());
            roots[i] = Some(Root {
                rule: named.rule.clone(),
                scenario: id.to_string(),
                step: root.and_then(|r| checks[r].step.clone()).or(c.step.clone()),
            });
            continue;
        }
        let vanished = c
            .evidence
            .iter()
            .find_map(|seq| facts.vanished.get(seq))
            .filter(|(_, rule)| c.rule != *rule);
        if !c.broke() {
            // a rule left untestable by a step that met a missing task follows from it too
            if let (Some((first, rule)), Verdict::Untestable, None) = (vanished, c.verdict, &c.root)
            {
                roots[i] = root_failure(&checks, &roots, i, rule).map(|_| Root {
                    rule: rule.to_string(),
                    scenario: id.to_string(),
                    step: step_of.label(*first),
                });
            }
            continue;
        }
        let follows = facts.because.get(i).copied().flatten();
        // a consequence never hides a MUST behind a SHOULD: what a monitor saw break at MUST
        // under a root that only warns is a failure of its own (a step's `given` is another
        // matter: the step's judgement could not be made, so nothing is hidden)
        let hides_must =
            |r: usize| c.verdict == Verdict::Fail && checks[r].verdict == Verdict::Warn;
        let root = if let Some((first, rule)) = vanished {
            root_failure(&checks, &roots, i, rule)
                .map(|_| (rule.to_string(), step_of.label(*first)))
        } else if let Some(rule) = follows {
            root_failure(&checks, &roots, i, rule)
                .filter(|r| !hides_must(*r))
                .map(|r| (rule.to_string(), checks[r].step.clone()))
        } else {
            let wanted = c
                .step
                .as_ref()
                .filter(|_| i < facts.steps)
                .and_then(|s| given.get(s));
            // a monitor judging the very message the step judged: one defect seen twice
            let own = c.step.as_ref().and_then(|s| own_rules.get(s));
            let judged_here = |rule: &String| own.is_some_and(|r| r.contains(rule));
            wanted
                .into_iter()
                .flatten()
                .find_map(|rule| {
                    // a given rule explains a failure only if it failed before it, or, for the
                    // step's own rule, on the same message (a monitor, judging what it judged)
                    let monitor_seen = judged_here(&c.rule) && !judged_here(rule);
                    earlier_failure(&checks, &roots, i, rule)
                        .or_else(|| {
                            monitor_seen
                                .then(|| same_message_failure(&checks, &roots, i, rule))
                                .flatten()
                        })
                        .map(|r| (rule.clone(), checks[r].step.clone()))
                })
                // the same rule failed on the same message by a check listed before (a step's,
                // then a monitor's): one defect seen twice
                .or_else(|| {
                    same_message_failure(&checks, &roots, i, &c.rule)
                        .filter(|r| *r < i)
                        .map(|r| (c.rule.clone(), checks[r].step.clone()))
                })
        };
        roots[i] = root.map(|(rule, step)| Root {
            rule,
            scenario: id.to_string(),
            step,
        });
    }
    for (c, root) in checks.iter_mut().zip(&roots) {
        if let Some(root) = root {
            *c = Check {
                root: None,
                ..c.clone()
            }
            .following(root.clone());
        }
    }
    under_their_roots(checks)
}

/// The index of a failure of `rule` that is no consequence itself (not `me`).
fn root_failure(checks: &[Check], roots: &[Option<Root>], me: usize, rule: &str) -> Option<usize> {
    failure_where(checks, roots, me, rule, |_, _| true)
}

/// The index of a failure of `rule`, no consequence itself, listed before check `me` or seen
/// earlier on the wire (a monitor's, listed after the steps, from a message before `me`'s).
fn earlier_failure(
    checks: &[Check],
    roots: &[Option<Root>],
    me: usize,
    rule: &str,
) -> Option<usize> {
    let first = |c: &Check| c.evidence.iter().min().copied();
    let mine = first(&checks[me]);
    failure_where(checks, roots, me, rule, |j, c| {
        j < me || matches!((first(c), mine), (Some(a), Some(b)) if a < b)
    })
}

/// The index of a failure of `rule`, no consequence itself, whose evidence shares a message
/// with check `me`'s.
fn same_message_failure(
    checks: &[Check],
    roots: &[Option<Root>],
    me: usize,
    rule: &str,
) -> Option<usize> {
    let mine = &checks[me].evidence;
    failure_where(checks, roots, me, rule, |_, c| {
        c.evidence.iter().any(|seq| mine.contains(seq))
    })
}

/// The index of the first failure of `rule` but `me`, no consequence itself, that `also` holds
/// for (given its index and check).
fn failure_where(
    checks: &[Check],
    roots: &[Option<Root>],
    me: usize,
    rule: &str,
    also: impl Fn(usize, &Check) -> bool,
) -> Option<usize> {
    checks.iter().enumerate().position(|(j, c)| {
        j != me && c.rule == rule && c.broke() && roots[j].is_none() && also(j, c)
    })
}

/// Consequences moved right after the first failure of their root rule (in order).
fn under_their_roots(checks: Vec<Check>) -> Vec<Check> {
    let (followers, mut out): (Vec<Check>, Vec<Check>) =
        checks.into_iter().partition(|c| c.root.is_some());
    for f in followers {
        let rule = &f.root.as_ref().expect("partitioned on root").rule;
        let at = out
            .iter()
            .position(|c| &c.rule == rule && c.root.is_none() && c.broke())
            .map(|root| {
                // after the root and the consequences already under it
                let mut at = root + 1;
                while out.get(at).is_some_and(|c| c.root.is_some()) {
                    at += 1;
                }
                at
            })
            .unwrap_or(out.len());
        out.insert(at, f);
    }
    out
}

/// The `given` rules of every step of a scenario, by the step's label.
pub fn given_by_step(scenario: &Scenario) -> HashMap<String, Vec<String>> {
    scenario
        .labelled_steps()
        .into_iter()
        .filter(|(_, s)| !s.given.is_empty())
        .map(|(label, s)| (label, s.given.clone()))
        .collect()
}

/// The rules each step of a scenario judges itself, by the step's label.
pub fn rules_by_step(scenario: &Scenario) -> HashMap<String, Vec<String>> {
    scenario
        .labelled_steps()
        .into_iter()
        .map(|(label, s)| (label, s.rules()))
        .collect()
}

/// Which step a trace number belongs to: the step that sent it, or that sent the request it
/// answers.
struct StepOf<'a> {
    sent_by: &'a BTreeMap<u64, String>,
    /// Each answer's request, by trace number.
    asked: HashMap<u64, u64>,
}

impl<'a> StepOf<'a> {
    fn new(facts: &Facts<'a>) -> StepOf<'a> {
        let mut requests: HashMap<(Option<&str>, String), u64> = HashMap::new();
        let mut asked = HashMap::new();
        // a recorded trace has no steps, so no answer has a step to find
        let trace = match facts.sent_by.is_empty() {
            true => &[][..],
            false => facts.trace,
        };
        for e in trace {
            let Some(Ok(message)) = e.message.as_ref().map(wire::classify_ref) else {
                continue;
            };
            match (e.dir, message) {
                (Direction::Out, MessageRef::Request { id, .. }) => {
                    requests.insert((e.peer.as_deref(), id.to_string()), e.seq);
                }
                (Direction::In, MessageRef::Response { id, .. }) => {
                    if let Some(req) = requests.get(&(e.peer.as_deref(), id.to_string())) {
                        asked.insert(e.seq, *req);
                    }
                }
                _ => {}
            }
        }
        StepOf {
            sent_by: facts.sent_by,
            asked,
        }
    }

    fn label(&self, seq: u64) -> Option<String> {
        self.sent_by
            .get(&seq)
            .or_else(|| self.asked.get(&seq).and_then(|r| self.sent_by.get(r)))
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attributes `checks`, each following the rule `because` gives it.
    fn attributed(checks: Vec<Check>, because: &[Option<&'static str>]) -> Vec<Check> {
        let none = BTreeMap::new();
        let facts = Facts {
            because,
            vanished: &BTreeMap::new(),
            expired: &BTreeMap::new(),
            sent_by: &none,
            steps: usize::MAX,
            trace: &[],
        };
        attribute("s", &HashMap::new(), &HashMap::new(), checks, &facts)
    }

    #[test]
    fn a_must_failure_is_never_the_consequence_of_a_root_that_only_warns() {
        let should = "tasks.cancel.stop-execution";
        let must = "tasks.progress.stops-when-terminal";
        let checks = vec![
            Check::with(should, Verdict::Warn, "kept working"),
            Check::with(must, Verdict::Fail, "progress after cancelled"),
        ];
        let out = attributed(checks, &[None, Some(should)]);
        let failed = out.iter().find(|c| c.rule == must).unwrap();
        assert!(failed.root.is_none(), "{out:?}");
        assert_eq!(failed.verdict, Verdict::Fail);
        // under a root that fails, the same failure is its consequence
        let checks = vec![
            Check::with("tasks.lifecycle.terminal-final", Verdict::Fail, "reopened"),
            Check::with(must, Verdict::Fail, "progress after cancelled"),
        ];
        let out = attributed(checks, &[None, Some("tasks.lifecycle.terminal-final")]);
        let followed = out.iter().find(|c| c.rule == must).unwrap();
        assert!(followed.root.is_some(), "{out:?}");
    }

    #[test]
    fn a_step_whose_premise_only_warned_stays_its_consequence() {
        // the step could not judge what it was for: no MUST was seen broken
        let should = "ext-tasks.update.input-accepted";
        let must = "ext-tasks.get.completed-result";
        let at_step = |rule: &str, verdict| Check {
            step: Some("9".into()),
            ..Check::with(rule, verdict, "")
        };
        let checks = vec![at_step(should, Verdict::Warn), at_step(must, Verdict::Fail)];
        let given = HashMap::from([("9".to_string(), vec![should.to_string()])]);
        let none = BTreeMap::new();
        let facts = Facts {
            because: &[],
            vanished: &BTreeMap::new(),
            expired: &BTreeMap::new(),
            sent_by: &none,
            steps: usize::MAX,
            trace: &[],
        };
        let out = attribute("s", &given, &HashMap::new(), checks, &facts);
        let followed = out.iter().find(|c| c.rule == must).unwrap();
        assert!(followed.root.is_some(), "{out:?}");
    }
}
