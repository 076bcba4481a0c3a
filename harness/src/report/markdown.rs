//! A Markdown summary, fit for `$GITHUB_STEP_SUMMARY` or a pull-request comment.

use super::{Outcome, RunReport, NOT_EXERCISED};
use crate::designs::Profile;
use crate::spec;
use crate::verdict::Verdict;

/// Text safe inside a Markdown table cell.
fn cell(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    crate::trace::preview(&one_line, 240)
}

impl RunReport {
    /// The Markdown summary.
    pub fn markdown(&self, outcome: &Outcome) -> String {
        let t = self.totals();
        let icon = match outcome.code {
            0 => "✅",
            1 => "❌",
            _ => "⚠️",
        };
        let mut out = format!(
            "## taskcheck: MCP {} conformance\n\n{icon} **exit {}**: {}\n\nReceiver `{}` over {}, {} scenario(s) in {} ms.\n\n",
            self.profile.facts().title,
            outcome.code,
            cell(&outcome.meaning),
            cell(&self.receiver),
            self.transport,
            self.sessions(),
            self.duration.as_millis()
        );
        out.push_str(&format!(
            "**{}**; {}.\n\n",
            self.rules_line(),
            super::totals_line(&t)
        ));
        if let Some(sides) = self.sides_line() {
            out.push_str(&format!("**by side**: {sides}.\n\n"));
        }
        if let Some(note) = self.no_tasks_note() {
            out.push_str(&format!("{note}\n\n"));
        }
        out.push_str(&format!("{}.\n\n", cell(&self.tools_line())));
        if let Some(folded) = self.folded.summary() {
            out.push_str(&format!("{}\n\n", cell(&folded)));
        }
        let mixed = self.sides_line().is_some();
        let rows: Vec<String> = self
            .scenarios
            .iter()
            .flat_map(|s| {
                s.checks
                    .iter()
                    .filter(|c| {
                        matches!(
                            c.verdict,
                            Verdict::Fail | Verdict::Warn | Verdict::Error | Verdict::Consequence
                        )
                    })
                    .map(move |c| {
                        let r = spec::rule(&c.rule);
                        let baseline = if outcome.fails(c) && outcome.is_expected(&s.id, c) {
                            " (baseline)"
                        } else {
                            ""
                        };
                        // a consequence sits under its root
                        let arrow = if c.root.is_some() { "↳ " } else { "" };
                        format!(
                            "| {arrow}{}{baseline} | [`{}`]({}){} | {} | `{}` | {} |\n",
                            c.verdict.label(),
                            c.rule,
                            r.map(Profile::link).unwrap_or_default(),
                            self.side_mark(&c.rule, mixed),
                            r.map(|r| r.level.as_str()).unwrap_or_default(),
                            s.id,
                            cell(&format!(
                                "{}{}",
                                super::terminal::step_prefix(c),
                                c.explained()
                            ))
                        )
                    })
            })
            .collect();
        if rows.is_empty() {
            out.push_str("Every judged rule held.\n");
        } else {
            out.push_str(&self.rules_not_met_table());
            out.push_str("\n### Every check that did not pass\n\n| verdict | rule | level | scenario | why |\n|---|---|---|---|---|\n");
            for r in rows {
                out.push_str(&r);
            }
        }
        out.push_str(&self.untestable_table());
        out.push_str(&self.not_exercised_list());
        out.push_str(&self.other_transport_list());
        if !outcome.stale.is_empty() {
            out.push_str("\n### Stale baseline entries (they pass now: remove them)\n\n");
            for s in &outcome.stale {
                out.push_str(&format!("- `{s}`\n"));
            }
        }
        out
    }

    /// A row per rule no scenario could judge, with what would make it testable (empty when
    /// every applicable rule was judged).
    fn untestable_table(&self) -> String {
        let untestable = self.untestable_rules();
        if untestable.is_empty() {
            return String::new();
        }
        let mixed = self.sides_line().is_some();
        let mut out = format!(
            "\n### Rules no scenario could judge ({})\n\nNot judged is not passed: each says what would make it testable.\n\n| rule | level | why not judged |\n|---|---|---|\n",
            untestable.len()
        );
        for (rule, why) in untestable {
            let r = spec::rule(&rule);
            out.push_str(&format!(
                "| [`{rule}`]({}){} | {} | {} |\n",
                r.map(Profile::link).unwrap_or_default(),
                self.side_mark(&rule, mixed),
                r.map(|r| r.level.as_str()).unwrap_or_default(),
                cell(&why)
            ));
        }
        out
    }

    /// The rules a recorded conversation never exercised, each linked to the spec (empty for
    /// a live run).
    fn not_exercised_list(&self) -> String {
        if self.not_exercised.is_empty() {
            return String::new();
        }
        let mixed = self.sides_line().is_some();
        let rules: Vec<String> = self
            .not_exercised
            .iter()
            .map(|rule| {
                let link = spec::rule(rule).map(Profile::link).unwrap_or_default();
                format!("[`{rule}`]({link}){}", self.side_mark(rule, mixed))
            })
            .collect();
        format!(
            "\n### Rules this traffic did not exercise ({})\n\n{NOT_EXERCISED}\n\n{}\n",
            rules.len(),
            rules.join(", ")
        )
    }

    /// The rules a recording's transport makes not applicable (empty for a live run).
    fn other_transport_list(&self) -> String {
        if self.other_transport.is_empty() {
            return String::new();
        }
        let rules: Vec<String> = self
            .other_transport
            .iter()
            .map(|rule| format!("`{rule}`"))
            .collect();
        format!(
            "\n{}: {}.\n",
            super::other_transport_note(&self.transport),
            rules.join(", ")
        )
    }

    /// A row per rule not met, worst first: how many scenarios broke it at its root, and the
    /// first of them with why, so one defect seen in many scenarios reads as one line.
    fn rules_not_met_table(&self) -> String {
        let bad = self.rules_not_met();
        let mut out = String::from(
            "### Rules not met\n\n| verdict | rule | level | scenarios | first seen |\n|---|---|---|---|---|\n",
        );
        let mixed = self.sides_line().is_some();
        for (rule, verdict) in bad {
            let broken: Vec<(&str, &crate::verdict::Check)> = self
                .scenarios
                .iter()
                .flat_map(|s| s.checks.iter().map(move |c| (s.id.as_str(), c)))
                .filter(|(_, c)| c.rule == rule && c.verdict == verdict)
                .collect();
            let mut scenarios: Vec<&str> = broken.iter().map(|(s, _)| *s).collect();
            scenarios.dedup();
            let first = broken.first().map(|(s, c)| {
                format!("`{s}` {}{}", super::terminal::step_prefix(c), c.explained())
            });
            let r = spec::rule(&rule);
            out.push_str(&format!(
                "| {} | [`{rule}`]({}){} | {} | {} | {} |\n",
                verdict.label(),
                r.map(Profile::link).unwrap_or_default(),
                self.side_mark(&rule, mixed),
                r.map(|r| r.level.as_str()).unwrap_or_default(),
                scenarios.len(),
                cell(&first.unwrap_or_default())
            ));
        }
        out
    }
}
