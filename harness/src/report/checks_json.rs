//! The official MCP conformance suite's `checks.json` shape, so its tooling can read taskcheck's
//! results: `id, name, description, status, timestamp, specReferences, details, errorMessage`.

use super::{Outcome, RunReport};
use crate::designs::Profile;
use crate::spec;
use crate::verdict::Verdict;
use serde_json::{json, Value};

/// The spec references of a rule, as the official suite writes them.
fn references(r: Option<&spec::Rule>) -> Vec<Value> {
    r.map(|r| vec![json!({"id": format!("MCP-Tasks-{}", r.section), "url": Profile::link(r)})])
        .unwrap_or_default()
}

/// The official suite's status of a verdict.
fn status(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "SUCCESS",
        Verdict::Fail | Verdict::Error => "FAILURE",
        Verdict::Warn => "WARNING",
        Verdict::NotApplicable | Verdict::Untestable | Verdict::Consequence => "SKIPPED",
        Verdict::Info => "INFO",
    }
}

impl RunReport {
    /// One entry per check; the id is the official suite's check id where the catalogue maps
    /// the rule to one (`official:`), else `scenario:rule`, as baselines name checks.
    pub fn checks_json(&self, outcome: &Outcome) -> Value {
        let entries: Vec<Value> = self
            .scenarios
            .iter()
            .flat_map(|s| {
                s.checks.iter().map(move |c| {
                    let r = spec::rule(&c.rule);
                    let status = status(c.verdict);
                    let own = format!("{}:{}", s.id, c.rule);
                    let id = r
                        .and_then(spec::Rule::official_check)
                        .map_or(own.clone(), str::to_string);
                    let mut entry = json!({
                        "id": id,
                        "name": c.rule,
                        "description": r.map(|r| r.summary.as_str()).unwrap_or_default(),
                        "status": status,
                        "timestamp": self.started,
                        "specReferences": references(r),
                        "details": {
                            "taskcheckId": own,
                            "scenario": s.id,
                            "level": r.map(|r| r.level.as_str()),
                            "verdict": c.verdict,
                            "message": c.message,
                            "step": c.step,
                            "consequenceOf": c.root,
                            "expected": c.expected,
                            "actual": c.actual,
                            "evidence": c.evidence,
                            "expectedByBaseline": outcome.fails(c) && outcome.is_expected(&s.id, c),
                        },
                    });
                    if let Some(r) = r.filter(|r| !r.official.is_empty()) {
                        entry["details"]["officialChecks"] =
                            json!(r.official_checks().collect::<Vec<_>>());
                    }
                    if matches!(c.verdict, Verdict::Fail | Verdict::Error | Verdict::Warn) {
                        entry["errorMessage"] = json!(c.message);
                    }
                    if let Some(root) = &c.root {
                        entry["details"]["reason"] = json!(root.to_string());
                    }
                    entry
                })
            })
            .collect();
        let folded = self.folded.checks.iter().map(|(rule, counts)| {
            let r = spec::rule(rule);
            let worst = counts.keys().max().copied().unwrap_or(Verdict::Pass);
            json!({
                "id": format!("folded:{rule}"),
                "name": rule,
                "description": r.map(|r| r.summary.as_str()).unwrap_or_default(),
                "status": status(worst),
                "timestamp": self.started,
                "specReferences": references(r),
                "details": {
                    "folded": self.folded.counts_text(rule),
                    "sessions": self.folded.sessions,
                    "level": r.map(|r| r.level.as_str()),
                    "verdict": worst,
                    "unexpectedFailures": self.folded.unexpected(rule, outcome),
                },
            })
        });
        Value::Array(entries.into_iter().chain(folded).collect())
    }
}
