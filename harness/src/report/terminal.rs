//! The terminal report: a line per scenario with its checks, the rules not met, the totals and
//! what the exit code means; coloured when asked.

use super::{totals_line, Outcome, RunReport};
use crate::spec;
use crate::verdict::Verdict;

/// ANSI colour of a verdict.
fn colour_of(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "32",
        Verdict::Fail => "31",
        Verdict::Warn => "33",
        Verdict::Error => "35",
        Verdict::Info => "36",
        Verdict::NotApplicable | Verdict::Untestable | Verdict::Consequence => "2",
    }
}

/// A verdict label padded to a column, coloured if `colour`.
fn label(v: Verdict, colour: bool) -> String {
    let padded = format!("{:<11}", v.label());
    if colour {
        format!("\x1b[{}m{padded}\x1b[0m", colour_of(v))
    } else {
        padded
    }
}

/// `step N: ` for a check a scenario step judged.
pub(super) fn step_prefix(c: &crate::verdict::Check) -> String {
    c.step
        .as_ref()
        .map(|s| format!("step {s}: "))
        .unwrap_or_default()
}

impl RunReport {
    /// The human report.
    pub fn terminal(&self, outcome: &Outcome, colour: bool) -> String {
        let mut out = String::new();
        for s in &self.scenarios {
            out.push_str(&format!(
                "{} {}  ({} ms)  {}\n",
                label(RunReport::scenario_verdict(s), colour),
                s.id,
                s.duration.as_millis(),
                s.title
            ));
            for c in &s.checks {
                let expected = if outcome.fails(c) && outcome.is_expected(&s.id, c) {
                    " (expected: listed in the baseline)"
                } else {
                    ""
                };
                // a consequence sits under its root, indented
                let indent = if c.root.is_some() {
                    "      ↳ "
                } else {
                    "    "
                };
                out.push_str(&format!(
                    "{indent}{} {}  {}{}{expected}\n",
                    label(c.verdict, colour),
                    c.rule,
                    step_prefix(c),
                    c.explained()
                ));
            }
            if let Some(e) = &s.error {
                out.push_str(&format!("    cause: {e}\n"));
            }
        }
        if let Some(folded) = self.folded.summary() {
            out.push_str(&format!("… {folded}\n"));
        }
        let bad = self.rules_not_met();
        if !bad.is_empty() {
            out.push_str("\nrules not met:\n");
            for (rule, v) in bad {
                let link = spec::rule(&rule).map(|r| r.link()).unwrap_or_default();
                out.push_str(&format!("  {} {rule}  {link}\n", label(v, colour)));
            }
        }
        if let Some(note) = self.no_tasks_note() {
            out.push_str(&format!("\n{note}\n"));
        }
        out.push_str(&format!(
            "\n{} in {} scenario(s), {} ms\nexit {}: {}\n",
            totals_line(&self.totals()),
            self.sessions(),
            self.duration.as_millis(),
            outcome.code,
            outcome.meaning
        ));
        out
    }
}
