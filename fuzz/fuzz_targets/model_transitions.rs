//! Arbitrary sequences of Task snapshots through the reference model. No panic; verdicts are
//! deterministic; a task's verdicts do not depend on how other tasks' observations are
//! interleaved with its own; and `tasks.lifecycle.terminal-final` fails exactly when a
//! snapshot asked for after a terminal status was seen reports a different status.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_taskcheck::model::{Finding, Model, Observation, Source, TaskStatus};
use serde_json::{json, Value};
use std::collections::HashMap;

const STATUSES: [&str; 6] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
    "bogus",
];
const SOURCES: [Source; 5] = [
    Source::Create,
    Source::Get,
    Source::List,
    Source::Cancel,
    Source::StatusNotification,
];
const TIMES: [&str; 5] = [
    "2025-11-25T10:00:00Z",
    "2025-11-25T10:00:01Z",
    "2025-11-25T10:00:01.5+00:00",
    "2025-11-25T09:59:59Z",
    "yesterday",
];

#[derive(Arbitrary, Debug)]
struct Snapshot {
    task: u8,
    numeric_id: bool,
    status: u8,
    source: u8,
    created: u8,
    updated: Option<u8>,
    ttl: Option<u32>,
    status_message: Option<String>,
    /// How many messages earlier the request it answers was sent.
    lag: u8,
}

/// Each snapshot as the task it reports, its source, and its and its request's trace numbers.
fn observations(snapshots: &[Snapshot]) -> Vec<(Value, Source, u64, Option<u64>)> {
    let mut received = 0u64;
    snapshots
        .iter()
        .map(|s| {
            received += 1 + u64::from(s.lag);
            let id = if s.numeric_id {
                json!(s.task % 4)
            } else {
                json!(format!("t{}", s.task % 4))
            };
            let mut task = json!({
                "taskId": id,
                "status": STATUSES[usize::from(s.status) % STATUSES.len()],
                "createdAt": TIMES[usize::from(s.created) % TIMES.len()],
            });
            if let Some(u) = s.updated {
                task["lastUpdatedAt"] = json!(TIMES[usize::from(u) % TIMES.len()]);
            }
            if let Some(ttl) = s.ttl {
                task["ttl"] = json!(ttl);
            }
            if let Some(m) = &s.status_message {
                task["statusMessage"] = json!(m);
            }
            let source = SOURCES[usize::from(s.source) % SOURCES.len()];
            let asked = (source != Source::StatusNotification)
                .then(|| received.saturating_sub(1 + u64::from(s.lag % 8)));
            (task, source, received, asked)
        })
        .collect()
}

fn key(obs: &Observation) -> Value {
    obs.task["taskId"].clone()
}

fn judge(observations: &[&Observation]) -> Vec<Vec<Finding>> {
    let mut model = Model::default();
    observations.iter().map(|o| model.observe(o)).collect()
}

/// What a finding decides: its rule, whether it held, what it may follow, and for a failure
/// why and on what. A pass is described only the first time its rule holds in a model, so its
/// words depend on what that model saw before; its verdict must not.
fn verdict(f: &Finding) -> (&str, bool, Option<&str>, Option<(&str, &[u64])>) {
    let why = (!f.held).then_some((f.message.as_str(), f.evidence.as_slice()));
    (f.rule, f.held, f.follows, why)
}

fn verdicts_of(findings: &[Finding]) -> Vec<(&str, bool, Option<&str>, Option<(&str, &[u64])>)> {
    findings.iter().map(verdict).collect()
}

fuzz_target!(|snapshots: Vec<Snapshot>| {
    let owned = observations(&snapshots);
    let all: Vec<Observation> = owned
        .iter()
        .map(|(task, source, received, asked)| Observation {
            task,
            source: *source,
            received: *received,
            asked: *asked,
        })
        .collect();
    let refs: Vec<&Observation> = all.iter().collect();
    let verdicts = judge(&refs);
    assert_eq!(verdicts, judge(&refs), "verdicts are not deterministic");

    // each task alone, in its own model, gets the same verdicts
    let mut by_task: HashMap<Value, Vec<usize>> = HashMap::new();
    for (i, o) in all.iter().enumerate() {
        by_task.entry(key(o)).or_default().push(i);
    }
    for indices in by_task.values() {
        let alone = judge(&indices.iter().map(|i| &all[*i]).collect::<Vec<_>>());
        for (i, v) in indices.iter().zip(&alone) {
            assert_eq!(
                verdicts_of(&verdicts[*i]),
                verdicts_of(v),
                "verdicts depend on other tasks' observations"
            );
        }
    }

    // terminal-final: the oracle, computed from first principles
    let mut first_terminal: HashMap<Value, (TaskStatus, u64)> = HashMap::new();
    for (o, findings) in all.iter().zip(&verdicts) {
        let status = o.task["status"].as_str().and_then(TaskStatus::parse);
        let expected = match (first_terminal.get(&key(o)), o.asked, status) {
            (Some((terminal, seen)), Some(asked), Some(now)) => *seen < asked && now != *terminal,
            _ => false,
        };
        let reported = findings
            .iter()
            .any(|f| f.rule == "tasks.lifecycle.terminal-final" && !f.held);
        assert_eq!(
            reported, expected,
            "terminal-final at message {}: reported {reported}, expected {expected}",
            o.received
        );
        if let Some(s) = status.filter(|s| s.is_terminal()) {
            first_terminal.entry(key(o)).or_insert((s, o.received));
        }
    }
});
