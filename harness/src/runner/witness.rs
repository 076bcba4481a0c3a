//! One judge: the design's monitors judge every rule the messages of a session can show, and
//! their verdict is the one published, so `run`, `check` and `watch` agree on the same
//! traffic. A scenario's own expectation of such a rule is a second witness: its pass is never
//! published over the monitors' (a pass they could not see in the trace is no pass), nor is a
//! failure they saw too (what it could not judge, and why, stays said); a failure they did not see stays,
//! so nothing is hidden (and the consistency tests, which compare `run` with `check` on the
//! same trace, fail on it), unless it was seen on a message the monitors saw break another
//! rule, or that said a task does not exist where it should (one defect, one failure: the
//! monitors' failure explains it). The rules only a scenario can judge keep its verdict.

use crate::spec;
use crate::verdict::{Check, Verdict};
use std::collections::{BTreeMap, BTreeSet};

/// The checks a scenario's steps made that the published verdict keeps, given the rules the
/// design's monitors judge (`monitored`), their checks of this session (`monitors`) and the
/// messages their failures explain (`explained`).
pub fn published(
    steps: Vec<Check>,
    monitored: &[&str],
    monitors: &[Check],
    explained: &BTreeSet<u64>,
) -> Vec<Check> {
    // for each rule the monitors judged: whether any of their checks of it failed
    let mut judged: BTreeMap<&str, bool> = BTreeMap::new();
    for m in monitors.iter().filter(|m| m.verdict.is_judgement()) {
        *judged.entry(m.rule.as_str()).or_default() |= m.broke();
    }
    let witnessed = |rule: &str| {
        monitored.contains(&rule) && spec::rule(rule).is_none_or(|r| r.scenario_only.is_none())
    };
    steps
        .into_iter()
        .filter(|c| {
            if !witnessed(&c.rule) {
                return true;
            }
            let failed = judged.get(c.rule.as_str()).copied();
            let seen_broken = c.evidence.iter().any(|seq| explained.contains(seq));
            match c.verdict {
                Verdict::Fail | Verdict::Warn => failed != Some(true) && !seen_broken,
                Verdict::Pass | Verdict::Info | Verdict::Consequence => false,
                // why a step could not judge (a tool no one plays) stays said
                Verdict::Untestable | Verdict::NotApplicable | Verdict::Error => true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(rule: &str, verdict: Verdict) -> Check {
        Check::with(rule, verdict, "")
    }

    #[test]
    fn a_step_stays_only_where_it_saw_what_the_monitors_did_not() {
        let monitors = [
            check("a", Verdict::Pass),
            check("b", Verdict::Fail),
            check("c", Verdict::Untestable),
        ];
        let steps = vec![
            check("a", Verdict::Pass),       // confirmed
            check("a", Verdict::Fail),       // a failure the monitors missed: kept
            check("b", Verdict::Pass),       // the monitors' failure stands
            check("b", Verdict::Fail),       // seen by both: once
            check("c", Verdict::Pass),       // a pass the monitors did not see: none
            check("c", Verdict::Untestable), // why it could not: kept
            check("d", Verdict::Warn),       // a rule no monitor judges: kept
            check("d", Verdict::Pass),       // and its pass
            check("a", Verdict::Error),      // taskcheck's own trouble: kept
            Check {
                evidence: vec![6, 7],
                ..check("c", Verdict::Fail) // on a message the monitors saw break: none
            },
        ];
        let monitored = ["a", "b", "c"];
        let explained = BTreeSet::from([7]);
        let kept: Vec<(String, Verdict)> = published(steps, &monitored, &monitors, &explained)
            .into_iter()
            .map(|c| (c.rule, c.verdict))
            .collect();
        assert_eq!(
            kept,
            vec![
                ("a".into(), Verdict::Fail),
                ("c".into(), Verdict::Untestable),
                ("d".into(), Verdict::Warn),
                ("d".into(), Verdict::Pass),
                ("a".into(), Verdict::Error),
            ]
        );
    }
}
