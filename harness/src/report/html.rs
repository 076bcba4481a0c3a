//! One self-contained HTML file (no network): the summary, a filterable table of every check,
//! and per scenario its checks, the statuses each task went through, and a sequence diagram of
//! the actual messages with the evidence of failures in red.

use super::flow::{escape, escape_content, sequence_svg, task_statuses};
use super::{totals_line, Outcome, RunReport};
use crate::designs::Profile;
use crate::spec;
use crate::verdict::Verdict;
use std::collections::BTreeSet;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em 2em;color:#222}\
.m{white-space:pre-wrap;overflow-wrap:anywhere}\
h1{font-size:1.4em}table{border-collapse:collapse;width:100%;margin:.5em 0}\
td,th{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}\
.v{font-weight:600;white-space:nowrap}.pass{color:#137333}.fail{color:#b3261e}.warn{color:#a05a00}\
.error{color:#8e24aa}.info{color:#0b57d0}.not-applicable,.untestable,.consequence{color:#777}\
.follows td:nth-child(2){padding-left:1.6em}\
.exit{padding:.6em 1em;border-radius:6px;background:#f1f3f4;display:inline-block}\
.exit.code0{background:#e6f4ea}.exit.code1{background:#fce8e6}.exit.code3{background:#fef7e0}\
details{margin:.6em 0;border:1px solid #ddd;border-radius:6px;padding:.4em .8em}summary{cursor:pointer}\
.flow text{font:11px monospace}.flow .lane{font:bold 12px sans-serif}.flow .life{stroke:#bbb;stroke-dasharray:4 3}\
.flow .msg line{stroke:#555}.flow .msg.bad line{stroke:#b3261e;stroke-width:2}.flow .msg.bad text{fill:#b3261e;font-weight:bold}\
.flow marker path{fill:#555}code{background:#f6f8fa;padding:0 3px}#filters{margin:.5em 0}";

/// The checks table's filter, and a scenario named by the URL's `#s-<id>` opened (the
/// links of `reports/index.html`).
const SCRIPT: &str = "var passed=['pass','info','not-applicable'];\
function filter(){var v=document.getElementById('verdict').value,\
q=document.getElementById('q').value.toLowerCase();\
document.querySelectorAll('#checks tbody tr').forEach(function(r){\
var d=r.dataset.verdict,by=v==='not-passed'?passed.indexOf(d)<0:(!v||d===v);\
var ok=by&&(!q||r.textContent.toLowerCase().indexOf(q)>=0);\
r.style.display=ok?'':'none';});}filter();\
function reveal(){var e=location.hash&&document.getElementById(location.hash.slice(1));\
if(e&&e.tagName==='DETAILS'){e.open=true;e.scrollIntoView();}}\
window.addEventListener('hashchange',reveal);reveal();";

/// A rule's id, linked to its explanation at the end of the page.
fn rule_link(rule: &str) -> String {
    format!("<a href=\"#r-{0}\">{0}</a>", escape(rule))
}

/// Whether a scenario's section shows a check in full: one that did not pass, or could not
/// be judged.
fn shown_in_full(v: Verdict) -> bool {
    !matches!(v, Verdict::Pass | Verdict::Info | Verdict::NotApplicable)
}

fn verdict_cell(v: Verdict) -> String {
    let class = serde_json::to_value(v)
        .ok()
        .and_then(|c| c.as_str().map(str::to_string))
        .unwrap_or_default();
    format!("<td class=\"v {class}\">{}</td>", v.label())
}

impl RunReport {
    /// A rule's link, with whose side it judges where the report judged both.
    fn rule_cell(&self, rule: &str, mixed: bool) -> String {
        format!(
            "{}{}",
            rule_link(rule),
            escape(&self.side_mark(rule, mixed))
        )
    }

    /// Every rule the report judged, explained as `taskcheck explain` does (level, sentence,
    /// spec link, the scenarios that judge it, the faults that break it), each at `#r-<rule>`.
    fn explanations(&self) -> String {
        let scenarios: Vec<_> = crate::scenario::builtin()
            .into_iter()
            .filter(|s| s.profile == self.profile)
            .collect();
        let mut out = String::from("<h2>Rules</h2>\n");
        for (id, verdict) in self.rule_verdicts() {
            let text = match spec::rule(&id) {
                Some(rule) => crate::inspect::explain(rule, &scenarios),
                None => format!("{id}: not in the catalogue"),
            };
            out.push_str(&format!(
                "<details id=\"r-{}\"><summary><span class=\"v {}\">{}</span> <b>{}</b></summary><pre>{}</pre></details>\n",
                escape(&id),
                serde_json::to_value(verdict).unwrap_or_default().as_str().unwrap_or_default(),
                verdict.label(),
                escape(&id),
                escape(&text),
            ));
        }
        out
    }

    /// The HTML report.
    pub fn html(&self, outcome: &Outcome) -> String {
        let mut out = format!(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>taskcheck report: {}</title><style>{STYLE}</style></head><body>\n\
<h1>taskcheck: MCP {} conformance</h1>\n<p>Receiver <code>{}</code> over {}, started {}, {} scenario(s) in {} ms.</p>\n\
<p class=\"exit code{}\"><b>exit {}</b>: {}</p>\n<p>{}</p>\n<p>{}</p>\n<p>{}.</p>\n",
            escape(&self.receiver),
            self.profile.facts().title,
            escape(&self.receiver),
            self.transport,
            escape(&self.started),
            self.sessions(),
            self.duration.as_millis(),
            outcome.code,
            outcome.code,
            escape(&outcome.meaning),
            self.rules_line(),
            totals_line(&self.totals()),
            escape(&self.tools_line()),
        );
        if let Some(folded) = self.folded.summary() {
            out.push_str(&format!("<p>{}</p>\n", escape(&folded)));
        }
        if let Some(sides) = self.sides_line() {
            out.push_str(&format!("<p><b>by side</b>: {}</p>\n", escape(&sides)));
        }
        let mixed = self.sides_line().is_some();
        let not_met = self.rules_not_met();
        if !not_met.is_empty() {
            out.push_str("<h2>Rules not met</h2>\n<table><tr><th>verdict</th><th>rule</th><th>level</th><th>summary</th></tr>\n");
            for (rule, v) in not_met {
                let r = spec::rule(&rule);
                out.push_str(&format!(
                    "<tr>{}<td>{} (<a href=\"{}\">spec</a>)</td><td>{}</td><td>{}</td></tr>\n",
                    verdict_cell(v),
                    self.rule_cell(&rule, mixed),
                    r.map(Profile::link).unwrap_or_default(),
                    r.map(|r| r.level.as_str()).unwrap_or_default(),
                    escape(r.map(|r| r.summary.as_str()).unwrap_or_default()),
                ));
            }
            out.push_str("</table>\n");
        }
        let untestable = self.untestable_rules();
        if !untestable.is_empty() {
            out.push_str(&format!("<h2>Rules no scenario could judge ({})</h2>\n<p>Not judged is not passed: each says what would make it testable.</p>\n<table><tr><th>rule</th><th>level</th><th>why not judged</th></tr>\n", untestable.len()));
            for (rule, why) in untestable {
                let r = spec::rule(&rule);
                out.push_str(&format!(
                    "<tr><td>{} (<a href=\"{}\">spec</a>)</td><td>{}</td><td>{}</td></tr>\n",
                    self.rule_cell(&rule, mixed),
                    r.map(Profile::link).unwrap_or_default(),
                    r.map(|r| r.level.as_str()).unwrap_or_default(),
                    escape(&why),
                ));
            }
            out.push_str("</table>\n");
        }
        if !self.not_exercised.is_empty() {
            let rules: Vec<String> = self
                .not_exercised
                .iter()
                .map(|rule| {
                    let link = spec::rule(rule).map(Profile::link).unwrap_or_default();
                    format!(
                        "<a href=\"{link}\">{}</a>{}",
                        escape(rule),
                        escape(&self.side_mark(rule, mixed))
                    )
                })
                .collect();
            out.push_str(&format!(
                "<h2>Rules this traffic did not exercise ({})</h2>\n<p>{}</p>\n<p>{}</p>\n",
                rules.len(),
                escape(super::NOT_EXERCISED),
                rules.join(", ")
            ));
        }
        if !self.other_transport.is_empty() {
            out.push_str(&format!(
                "<p>{}: {}.</p>\n",
                escape(&super::other_transport_note(&self.transport)),
                escape(&self.other_transport.join(", "))
            ));
        }
        // the table opens on what did not pass, where anything did not
        let all_passed = self
            .scenarios
            .iter()
            .flat_map(|s| &s.checks)
            .all(|c| !shown_in_full(c.verdict));
        let (every, not_passed) = (
            "<option value=\"\">every verdict</option>",
            "<option value=\"not-passed\">not passed</option>",
        );
        let options = match all_passed {
            true => format!("{every}{not_passed}"),
            false => format!("{not_passed}{every}"),
        };
        out.push_str(&format!("<h2>Checks</h2>\n<div id=\"filters\"><select id=\"verdict\" onchange=\"filter()\">{options}"));
        for v in [
            "fail",
            "warn",
            "error",
            "untestable",
            "consequence",
            "not-applicable",
            "info",
            "pass",
        ] {
            out.push_str(&format!("<option value=\"{v}\">{v}</option>"));
        }
        out.push_str("</select> <input id=\"q\" placeholder=\"filter by text\" oninput=\"filter()\"></div>\n");
        out.push_str("<table id=\"checks\"><thead><tr><th>verdict</th><th>scenario</th><th>rule</th><th>message</th></tr></thead><tbody>\n");
        for s in &self.scenarios {
            for c in &s.checks {
                let class = serde_json::to_value(c.verdict).unwrap_or_default();
                let baseline = if outcome.fails(c) && outcome.is_expected(&s.id, c) {
                    " <i>(expected by the baseline)</i>"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "<tr data-verdict=\"{}\">{}<td><a href=\"#s-{}\">{}</a></td><td>{}</td><td class=\"m\">{}{baseline}</td></tr>\n",
                    class.as_str().unwrap_or_default(),
                    verdict_cell(c.verdict),
                    escape(&s.id),
                    escape(&s.id),
                    self.rule_cell(&c.rule, mixed),
                    escape_content(&format!("{}{}", super::terminal::step_prefix(c), c.explained())),
                ));
            }
        }
        out.push_str("</tbody></table>\n<h2>Scenarios</h2>\n");
        for s in &self.scenarios {
            let verdict = RunReport::scenario_verdict(s);
            let open = if verdict.not_met() { " open" } else { "" };
            out.push_str(&format!(
                "<details id=\"s-{}\"{open}><summary><span class=\"v {}\">{}</span> <b>{}</b> {} ({} ms)</summary>\n",
                escape(&s.id),
                serde_json::to_value(verdict).unwrap_or_default().as_str().unwrap_or_default(),
                verdict.label(),
                escape(&s.id),
                escape(&s.title),
                s.duration.as_millis()
            ));
            if let Some(e) = &s.error {
                out.push_str(&format!("<p class=\"error m\">cause: {}</p>\n", escape(e)));
            }
            // what passed is one line here (each such check is a row of the table above);
            // what did not pass, in full
            let passed: Vec<&str> = s
                .checks
                .iter()
                .filter(|c| !shown_in_full(c.verdict))
                .map(|c| c.rule.as_str())
                .collect();
            if !passed.is_empty() {
                out.push_str(&format!(
                    "<p>{} check(s) passed, recorded or did not apply: {}</p>\n",
                    passed.len(),
                    escape(&passed.join(", "))
                ));
            }
            out.push_str("<table>");
            for c in s.checks.iter().filter(|c| shown_in_full(c.verdict)) {
                let compared = match (&c.expected, &c.actual) {
                    (Some(e), Some(a)) => format!(
                        "<br><small>expected {}<br>actual {}</small>",
                        escape_content(e),
                        escape_content(a)
                    ),
                    _ => String::new(),
                };
                // a consequence sits under its root, indented
                let follows = if c.root.is_some() {
                    " class=\"follows\""
                } else {
                    ""
                };
                out.push_str(&format!(
                    "<tr{follows}>{}<td>{}</td><td class=\"m\">{}{compared}</td></tr>\n",
                    verdict_cell(c.verdict),
                    self.rule_cell(&c.rule, mixed),
                    escape_content(&format!(
                        "{}{}",
                        super::terminal::step_prefix(c),
                        c.explained()
                    ))
                ));
            }
            out.push_str("</table>\n");
            let statuses = task_statuses(&s.trace, self.profile.wire().status_notification);
            if !statuses.is_empty() {
                out.push_str("<p>Task statuses seen:</p><ul>");
                for (id, seen) in statuses {
                    out.push_str(&format!(
                        "<li><code>{}</code>: {}</li>",
                        escape(&id),
                        escape(&seen.join(" → "))
                    ));
                }
                out.push_str("</ul>\n");
            }
            let bad: BTreeSet<u64> = s
                .checks
                .iter()
                .filter(|c| c.verdict.not_met())
                .flat_map(|c| c.evidence.iter().copied())
                .collect();
            out.push_str(&sequence_svg(&s.trace, &bad));
            out.push_str("\n</details>\n");
        }
        out.push_str(&self.explanations());
        out.push_str(&format!("<script>{SCRIPT}</script>\n</body></html>\n"));
        out
    }
}
