//! The canonical JSON report (`taskcheck-report/1`; its schema is `harness/schema/report.schema.json`).

use super::{Outcome, RunReport};
use crate::designs::Profile;
use crate::spec;
use serde_json::{json, Value};

/// The JSON Schema every JSON report validates against.
pub const REPORT_SCHEMA: &str = include_str!("../../schema/report.schema.json");

impl RunReport {
    /// The versioned JSON document.
    pub fn json(&self, outcome: &Outcome) -> Value {
        let mut doc = self.listed_json(outcome);
        if self.folded.sessions > 0 {
            doc["folded"] = json!({
                "sessions": self.folded.sessions,
                "rules": self.folded.checks.iter().map(|(rule, counts)| json!({
                    "id": rule,
                    "counts": counts.iter().map(|(v, n)| json!({"verdict": v, "count": n})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            });
        }
        doc
    }

    /// How much the run judged; a recording's report also lists the rules it never exercised.
    fn judged_json(&self, judged: super::Judged) -> Value {
        let mut out = json!({"rules": judged.rules, "untestable": judged.untestable});
        if !self.not_exercised.is_empty() {
            out["notExercised"] = json!(self.not_exercised);
        }
        if !self.other_transport.is_empty() {
            out["otherTransport"] = json!(self.other_transport);
        }
        out
    }

    /// The document without the folded sessions.
    fn listed_json(&self, outcome: &Outcome) -> Value {
        let t = self.totals();
        let judged = self.judged();
        let unjudged = self.unjudged_in();
        let server = self.scenarios.iter().find_map(|s| s.server.as_ref());
        json!({
            "format": "taskcheck-report/1",
            "taskcheck": env!("CARGO_PKG_VERSION"),
            "receiver": self.receiver,
            "transport": self.transport,
            "protocolVersion": self.profile.wire().protocol_version,
            "profile": self.profile.name(),
            "server": server.map(|s| json!({"serverInfo": s.server_info, "capabilities": s.capabilities, "protocolVersion": s.protocol_version})),
            "started": self.started,
            "durationMs": self.duration.as_millis() as u64,
            "harnessCpuMs": self.cpu.map(|c| c.as_millis() as u64),
            "exitCode": outcome.code,
            "outcome": outcome.meaning,
            "failOn": match outcome.fail_on { super::FailOn::Must => "must", super::FailOn::Should => "should" },
            "expectedFailures": outcome.expected,
            "staleBaseline": outcome.stale,
            "totals": {"passed": t.passed, "failed": t.failed, "warnings": t.warnings, "info": t.info, "notApplicable": t.not_applicable, "untestable": t.untestable, "consequences": t.consequences, "errors": t.errors},
            "judged": self.judged_json(judged),
            "bySide": self.sides_line(),
            "toolsCalled": self.tools_called().into_iter().map(|(name, c)| json!({"name": name, "calls": c.calls, "workMs": c.work_ms})).collect::<Vec<_>>(),
            "rules": self.rule_verdicts().into_iter().map(|(rule, v)| {
                let r = spec::rule(&rule);
                let untestable_in = unjudged.get(&rule).map_or(0, |s| s.len());
                json!({"id": rule, "side": self.side_of(&rule), "verdict": v, "level": r.map(|r| r.level.as_str()), "link": r.map(Profile::link), "untestableIn": untestable_in})
            }).collect::<Vec<_>>(),
            "scenarios": self.scenarios.iter().map(|s| json!({
                "id": s.id,
                "title": s.title,
                "verdict": RunReport::scenario_verdict(s),
                "durationMs": s.duration.as_millis() as u64,
                "error": s.error,
                "checks": s.checks.iter().map(|c| {
                    let r = spec::rule(&c.rule);
                    let messages: Vec<&Value> = c.evidence.iter().filter_map(|seq| s.trace.binary_search_by_key(seq, |e| e.seq).ok().and_then(|i| s.trace[i].message.as_ref())).collect();
                    json!({
                        "rule": c.rule,
                        "verdict": c.verdict,
                        "level": r.map(|r| r.level.as_str()),
                        "link": r.map(Profile::link),
                        "message": c.message,
                        "step": c.step,
                        "consequenceOf": c.root,
                        "expected": c.expected,
                        "actual": c.actual,
                        "expectedByBaseline": outcome.fails(c) && outcome.is_expected(&s.id, c),
                        "evidence": c.evidence,
                        "messages": messages,
                    })
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}
