//! Reports: the terminal summary, the JSON document, and the verdict that sets the exit code.

use crate::exit;
use crate::runner::ScenarioRun;
use crate::spec;
use crate::verdict::{Check, Verdict};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// Which failures make the run non-conformant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Must,
    Should,
}

/// A whole run: metadata and every scenario's outcome.
pub struct RunReport {
    pub receiver: String,
    pub transport: String,
    pub started: String,
    pub duration: Duration,
    pub scenarios: Vec<ScenarioRun>,
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
    pub errors: usize,
}

impl RunReport {
    fn checks(&self) -> impl Iterator<Item = &Check> {
        self.scenarios.iter().flat_map(|s| s.checks.iter())
    }

    /// Counts every check's verdict.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for c in self.checks() {
            match c.verdict {
                Verdict::Pass => t.passed += 1,
                Verdict::Fail => t.failed += 1,
                Verdict::Warn => t.warnings += 1,
                Verdict::Info => t.info += 1,
                Verdict::NotApplicable => t.not_applicable += 1,
                Verdict::Untestable => t.untestable += 1,
                Verdict::Error => t.errors += 1,
            }
        }
        t
    }

    /// The worst verdict of each rule over all scenarios.
    pub fn rule_verdicts(&self) -> BTreeMap<String, Verdict> {
        let mut out: BTreeMap<String, Verdict> = BTreeMap::new();
        for c in self.checks() {
            let slot = out.entry(c.rule.clone()).or_insert(c.verdict);
            *slot = (*slot).max(c.verdict);
        }
        out
    }

    /// The exit code and its meaning.
    pub fn exit_code(&self, fail_on: FailOn) -> (i32, String) {
        let t = self.totals();
        if t.errors > 0 || self.scenarios.iter().any(|s| s.error.is_some()) {
            let cause = self
                .scenarios
                .iter()
                .find_map(|s| s.error.as_ref().map(|e| format!("{}: {e}", s.id)))
                .unwrap_or_default();
            return (
                exit::HARNESS,
                format!("harness or transport error ({cause})"),
            );
        }
        if t.passed + t.failed + t.warnings == 0 {
            return (
                exit::HARNESS,
                "no check was executed: nothing was judged".into(),
            );
        }
        if t.failed > 0 {
            return (
                exit::NONCONFORMANT,
                format!("non-conformant: {} MUST-level check(s) failed", t.failed),
            );
        }
        if fail_on == FailOn::Should && t.warnings > 0 {
            return (
                exit::NONCONFORMANT,
                format!(
                    "non-conformant under --fail-on should: {} SHOULD-level warning(s)",
                    t.warnings
                ),
            );
        }
        (
            exit::CONFORMANT,
            "conformant: every judged MUST held".into(),
        )
    }

    /// The human report.
    pub fn terminal(&self, fail_on: FailOn) -> String {
        let mut out = String::new();
        for s in &self.scenarios {
            // an INFO (a recorded MAY) never stands for a scenario that judged something
            let worst = s
                .checks
                .iter()
                .map(|c| c.verdict)
                .filter(|v| *v != Verdict::Info)
                .max()
                .or_else(|| s.checks.first().map(|_| Verdict::Info))
                .unwrap_or(Verdict::Untestable);
            out.push_str(&format!(
                "{:<10} {}  ({} ms)  {}\n",
                worst.label(),
                s.id,
                s.duration.as_millis(),
                s.title
            ));
            for c in &s.checks {
                out.push_str(&format!(
                    "    {:<10} {}  {}\n",
                    c.verdict.label(),
                    c.rule,
                    c.message
                ));
            }
            if let Some(e) = &s.error {
                out.push_str(&format!("    cause: {e}\n"));
            }
        }
        let bad: Vec<_> = self
            .rule_verdicts()
            .into_iter()
            .filter(|(_, v)| matches!(v, Verdict::Fail | Verdict::Warn | Verdict::Error))
            .collect();
        if !bad.is_empty() {
            out.push_str("\nrules not met:\n");
            for (rule, v) in bad {
                let link = spec::rule(&rule).map(|r| r.link()).unwrap_or_default();
                out.push_str(&format!("  {:<10} {rule}  {link}\n", v.label()));
            }
        }
        let t = self.totals();
        let (code, meaning) = self.exit_code(fail_on);
        out.push_str(&format!(
            "\n{} passed / {} failed / {} warnings / {} info / {} not-applicable / {} untestable / {} errors in {} scenario(s), {} ms\nexit {code}: {meaning}\n",
            t.passed, t.failed, t.warnings, t.info, t.not_applicable, t.untestable, t.errors, self.scenarios.len(), self.duration.as_millis()
        ));
        out
    }

    /// The versioned JSON document.
    pub fn json(&self, fail_on: FailOn) -> Value {
        let (code, meaning) = self.exit_code(fail_on);
        let t = self.totals();
        let server = self.scenarios.iter().find_map(|s| s.server.as_ref());
        json!({
            "format": "taskcheck-report/1",
            "taskcheck": env!("CARGO_PKG_VERSION"),
            "receiver": self.receiver,
            "transport": self.transport,
            "protocolVersion": spec::PROTOCOL_VERSION,
            "server": server.map(|s| json!({"serverInfo": s.server_info, "capabilities": s.capabilities, "protocolVersion": s.protocol_version})),
            "started": self.started,
            "durationMs": self.duration.as_millis() as u64,
            "exitCode": code,
            "outcome": meaning,
            "totals": {"passed": t.passed, "failed": t.failed, "warnings": t.warnings, "info": t.info, "notApplicable": t.not_applicable, "untestable": t.untestable, "errors": t.errors},
            "rules": self.rule_verdicts().into_iter().map(|(rule, v)| {
                let r = spec::rule(&rule);
                json!({"id": rule, "verdict": v, "level": r.map(|r| r.level.as_str()), "link": r.map(|r| r.link())})
            }).collect::<Vec<_>>(),
            "scenarios": self.scenarios.iter().map(|s| json!({
                "id": s.id,
                "title": s.title,
                "durationMs": s.duration.as_millis() as u64,
                "error": s.error,
                "checks": s.checks.iter().map(|c| {
                    let messages: Vec<&Value> = c.evidence.iter().filter_map(|seq| s.trace.get(*seq as usize).and_then(|e| e.message.as_ref())).collect();
                    json!({"rule": c.rule, "verdict": c.verdict, "level": spec::rule(&c.rule).map(|r| r.level.as_str()), "message": c.message, "evidence": c.evidence, "messages": messages})
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}
