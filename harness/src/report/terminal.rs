//! The terminal report, as test runners print theirs: a line per scenario with its verdict and
//! time, details only under the scenarios that did not pass (every check with `-v`, none with
//! `-q`), then the rules not met, the counts by rule, the totals and what the exit code means;
//! coloured when asked.

use super::{totals_line, Outcome, RunReport};
use crate::designs::Profile;
use crate::spec;
use crate::verdict::{Check, Verdict};

/// How much of a run the terminal report shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Only the summary: rules not met, counts and the exit line (no tools called).
    Quiet,
    /// A line per scenario; under one that did not pass, its checks that did not pass, each
    /// with what was expected and seen, the rule's sentence and link.
    #[default]
    Normal,
    /// Every check of every scenario.
    Verbose,
}

/// Whether a check is shown under a scenario that did not pass.
fn not_passed(c: &Check) -> bool {
    matches!(
        c.verdict,
        Verdict::Fail | Verdict::Warn | Verdict::Error | Verdict::Untestable | Verdict::Consequence
    )
}

/// What a failing check held the receiver to: the answer expected and seen, then the rule's
/// level and summary and its link, indented under the check.
fn details(c: &Check) -> String {
    let pad = " ".repeat(16);
    let mut out = String::new();
    if let (Some(expected), Some(actual)) = (&c.expected, &c.actual) {
        // a step's message already says what it expected and got
        if !c.message.contains(actual.as_str()) {
            out.push_str(&format!(
                "{pad}expected: {expected}\n{pad}actual:   {actual}\n"
            ));
        }
    }
    if let Some(r) = spec::rule(&c.rule) {
        out.push_str(&format!(
            "{pad}{}: {}\n{pad}{}\n",
            r.level.as_str(),
            r.summary,
            Profile::link(r)
        ));
    }
    out
}

/// What an untestable check's message comes down to: the cause under the steps it passed
/// through (`needs ${task}: `, a wait a left-out step may have caused), so the checks one
/// missing role left untestable share one.
fn cause(message: &str) -> &str {
    const THROUGH: [&str; 2] = [
        crate::runner::WAITS_LEFT_OUT,
        crate::runner::NOT_OBSERVED_LEFT_OUT,
    ];
    let mut rest = message;
    loop {
        if let Some(after) = THROUGH.iter().find_map(|p| rest.strip_prefix(p)) {
            rest = after;
        } else if let Some((_, after)) = rest
            .strip_prefix("needs ${")
            .and_then(|r| r.split_once("}: "))
        {
            rest = after;
        } else {
            return rest;
        }
    }
}

/// Untestable (rule, message) pairs grouped by [`cause`], in first-seen order, each with the
/// rules it left unjudged (each once).
fn by_cause<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut causes: Vec<(&str, Vec<&str>)> = Vec::new();
    for (rule, message) in pairs {
        let why = cause(message);
        match causes.iter_mut().find(|(w, _)| *w == why) {
            Some((_, rules)) if !rules.contains(&rule) => rules.push(rule),
            Some(_) => {}
            None => causes.push((why, vec![rule])),
        }
    }
    causes
}

/// The untestable checks of a scenario, a line per cause with the rules it left unjudged; a
/// cause an earlier scenario gave (`said`) is named by that scenario instead of repeated.
fn untestable_lines(
    scenario: &str,
    checks: &[&Check],
    said: &mut std::collections::HashMap<String, String>,
    colour: bool,
) -> String {
    let causes = by_cause(checks.iter().map(|c| (c.rule.as_str(), c.message.as_str())));
    let mut out = String::new();
    for (why, rules) in causes {
        out.push_str(&format!(
            "    {} {}\n",
            label(Verdict::Untestable, colour),
            rules.join(", ")
        ));
        match said.get(why) {
            Some(first) => out.push_str(&format!("        why: as in {first} above\n")),
            None => {
                out.push_str(&format!("        why: {why}\n"));
                said.insert(why.to_string(), scenario.to_string());
            }
        }
    }
    out
}

/// `text` in at most `room` columns, cut at a word and ended with `…` when it is longer.
fn shortened(text: &str, room: usize) -> String {
    if textwrap::core::display_width(text) <= room {
        return text.to_string();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        if textwrap::core::display_width(&out) + word.chars().count() + 2 > room {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    format!("{out}…")
}

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
    /// Rules joined with commas, each with its side where the report judged both.
    fn marked<'a>(&self, rules: impl Iterator<Item = &'a str>, mixed: bool) -> String {
        let each: Vec<String> = rules
            .map(|rule| format!("{rule}{}", self.side_mark(rule, mixed)))
            .collect();
        each.join(", ")
    }

    /// The human report, as much of it as `detail` asks, fitted to `width` columns: a
    /// scenario's line keeps to one (its title cut short), any other line breaks between words.
    pub fn terminal(
        &self,
        outcome: &Outcome,
        colour: bool,
        detail: Detail,
        width: usize,
    ) -> String {
        let mut out = String::new();
        let mut said = std::collections::HashMap::new();
        let mixed = self.sides_line().is_some();
        for s in self.scenarios.iter().filter(|_| detail != Detail::Quiet) {
            let verdict = RunReport::scenario_verdict(s);
            let head = format!(
                "{} {}  ({} ms)  ",
                label(verdict, colour),
                s.id,
                s.duration.as_millis()
            );
            let room = width.saturating_sub(textwrap::core::display_width(&head));
            out.push_str(&format!("{head}{}\n", shortened(&s.title, room)));
            // a scenario that did not apply says why in one line
            let why = s
                .checks
                .iter()
                .find(|c| c.verdict == Verdict::NotApplicable);
            if let (Verdict::NotApplicable, Detail::Normal, Some(c)) = (verdict, detail, why) {
                out.push_str(&format!("    why: {}\n", c.message));
            }
            let passed = matches!(
                verdict,
                Verdict::Pass | Verdict::Info | Verdict::NotApplicable
            );
            let shown = s.checks.iter().filter(|c| match detail {
                Detail::Verbose => true,
                _ => !passed && not_passed(c),
            });
            // what could not be judged, a line per cause (every check with -v)
            let (untestable, shown): (Vec<&Check>, Vec<&Check>) =
                shown.partition(|c| c.verdict == Verdict::Untestable && detail == Detail::Normal);
            for c in shown {
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
                // lines a message quotes (a receiver's stderr) sit on their own, under it
                let said = c.explained().replace('\n', "\n          ");
                out.push_str(&format!(
                    "{indent}{} {}{}  {}{said}{expected}\n",
                    label(c.verdict, colour),
                    c.rule,
                    self.side_mark(&c.rule, mixed),
                    step_prefix(c),
                ));
                if detail == Detail::Normal && c.verdict.not_met() {
                    out.push_str(&details(c));
                }
            }
            if !untestable.is_empty() {
                out.push_str(&untestable_lines(&s.id, &untestable, &mut said, colour));
            }
            if let Some(e) = &s.error {
                out.push_str(&format!("    cause: {}\n", e.replace('\n', "\n          ")));
            }
        }
        if let Some(folded) = self.folded.summary().filter(|_| detail != Detail::Quiet) {
            out.push_str(&format!("… {folded}\n"));
        }
        let bad = self.rules_not_met();
        if detail == Detail::Quiet {
            // the summary in four lines: what is not met, on one line, then the counts
            let each: Vec<String> = bad
                .iter()
                .map(|(rule, v)| {
                    let side = self.side_mark(rule, mixed);
                    match colour {
                        true => format!("\x1b[{}m{}\x1b[0m {rule}{side}", colour_of(*v), v.label()),
                        false => format!("{} {rule}{side}", v.label()),
                    }
                })
                .collect();
            if !each.is_empty() {
                out.push_str(&format!("not met: {}\n", each.join(", ")));
            }
        } else if !bad.is_empty() {
            out.push_str("\nrules not met:\n");
            for (rule, v) in bad {
                let link = spec::rule(&rule).map(Profile::link).unwrap_or_default();
                let side = self.side_mark(&rule, mixed);
                out.push_str(&format!("  {} {rule}{side}  {link}\n", label(v, colour)));
            }
        }
        let untestable = self.untestable_rules();
        if !untestable.is_empty() && detail != Detail::Quiet {
            // a line per cause, with the rules it left unjudged
            let causes = by_cause(untestable.iter().map(|(r, why)| (r.as_str(), why.as_str())));
            out.push_str("\nrules no scenario could judge, and what would make them testable:\n");
            for (why, rules) in causes {
                out.push_str(&format!(
                    "  {} {}\n      why: {why}\n",
                    label(Verdict::Untestable, colour),
                    self.marked(rules.into_iter(), mixed)
                ));
            }
        }
        if !self.not_exercised.is_empty() && detail != Detail::Quiet {
            out.push_str(&format!(
                "\nrules this traffic did not exercise ({}): {}\n  {}\n",
                self.not_exercised.len(),
                self.marked(self.not_exercised.iter().map(String::as_str), mixed),
                super::NOT_EXERCISED
            ));
        }
        if !self.other_transport.is_empty() && detail != Detail::Quiet {
            out.push_str(&format!(
                "{}: {}\n",
                super::other_transport_note(&self.transport),
                self.other_transport.join(", ")
            ));
        }
        if let Some(note) = self.no_tasks_note() {
            out.push_str(&format!("\n{note}\n"));
        }
        // the tools called, but in the summary alone (the JSON report lists them too)
        if detail != Detail::Quiet {
            out.push_str(&format!("\n{}\n", self.tools_line()));
        }
        if let Some(sides) = self.sides_line() {
            out.push_str(&format!("by side: {sides}\n"));
        }
        out.push_str(&format!(
            "{}\n{}; {} scenario(s) in {} ms\nexit {}: {}\n",
            self.rules_line(),
            totals_line(&self.totals()),
            self.sessions(),
            self.duration.as_millis(),
            outcome.code,
            outcome.meaning
        ));
        let out = match detail {
            Detail::Quiet => out.trim_start(),
            _ => &out,
        };
        super::width::fit(out, width)
    }
}
