//! Monitors: checks that watch every message of a session. A pure function of the trace.

use crate::model::{Finding, Model, Observation, Source};
use crate::trace::{Direction, Entry};
use crate::verdict::Check;
use crate::wire::{self, Message, Outcome};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Every rule a monitor judges.
pub const MONITOR_RULES: [&str; 13] = [
    "tasks.capability.declare",
    "tasks.id.string",
    "tasks.id.unique",
    "tasks.lifecycle.initial-working",
    "tasks.lifecycle.terminal-final",
    "tasks.ttl.created-at",
    "tasks.ttl.last-updated-at",
    "tasks.ttl.created-at-constant",
    "tasks.ttl.last-updated-monotonic",
    "tasks.ttl.get-includes-ttl",
    "tasks.meta.result-related-task",
    "tasks.meta.no-related-task-in-results",
    "tasks.notify.no-related-task",
];

/// Whether a dotted path (`tasks.requests.tools.call`) exists in a capabilities object.
pub fn has_capability(capabilities: &Value, path: &str) -> bool {
    path.split('.')
        .try_fold(capabilities, |v, key| v.get(key))
        .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
}

/// Judges a whole trace; one check per rule exercised (the first failure, or a pass).
pub fn judge(entries: &[Entry], capabilities: &Value) -> Vec<Check> {
    let mut findings: Vec<Finding> = Vec::new();
    let mut model = Model::default();
    let mut asked: HashMap<String, (String, Value, u64)> = HashMap::new();
    for e in entries {
        let Some(value) = &e.message else { continue };
        let Ok(msg) = wire::classify(value) else {
            continue;
        };
        match (e.dir, msg) {
            (Direction::Out, Message::Request { id, method, params }) => {
                asked.insert(id.to_string(), (method, params, e.seq));
            }
            (
                Direction::In,
                Message::Response {
                    id,
                    outcome: Outcome::Result(result),
                },
            ) => {
                let Some((method, params, asked_seq)) = asked.get(&id.to_string()) else {
                    continue;
                };
                let mut observe = |task: &Value, source: Source| {
                    let obs = Observation {
                        task: task.clone(),
                        source,
                        received: e.seq,
                        asked: Some(*asked_seq),
                    };
                    findings.extend(model.observe(&obs));
                };
                match method.as_str() {
                    "tools/call" if params.get("task").is_some() => {
                        if let Some(task) = result.get("task").filter(|t| t.is_object()) {
                            observe(task, Source::Create);
                            let declared =
                                has_capability(capabilities, "tasks.requests.tools.call");
                            findings.push(Finding {
                                rule: "tasks.capability.declare",
                                held: declared,
                                message: if declared {
                                    "task created for a declared request type".into()
                                } else {
                                    "a CreateTaskResult answered tools/call, but the receiver never declared tasks.requests.tools.call".into()
                                },
                                evidence: vec![*asked_seq, e.seq],
                            });
                        }
                    }
                    "tasks/get" | "tasks/cancel" => {
                        let source = if method == "tasks/get" {
                            Source::Get
                        } else {
                            Source::Cancel
                        };
                        observe(&result, source);
                        findings.push(no_related_task_in_result(method, &result, e.seq));
                    }
                    "tasks/list" => {
                        for task in result
                            .get("tasks")
                            .and_then(Value::as_array)
                            .map(Vec::as_slice)
                            .unwrap_or_default()
                        {
                            observe(task, Source::List);
                        }
                        findings.push(no_related_task_in_result(method, &result, e.seq));
                    }
                    "tasks/result" => {
                        let want = params.get("taskId").map(wire::id_text);
                        let got = wire::related_task_value(&result).map(wire::id_text);
                        findings.push(Finding {
                            rule: "tasks.meta.result-related-task",
                            held: want.is_some() && got == want,
                            message: match got {
                                Some(g) => format!("tasks/result _meta related-task taskId {g:?}, requested {want:?}"),
                                None => "tasks/result result has no related-task _meta".into(),
                            },
                            evidence: vec![e.seq],
                        });
                    }
                    _ => {}
                }
            }
            (Direction::In, Message::Notification { method, params })
                if method == "notifications/tasks/status" =>
            {
                let obs = Observation {
                    task: params.clone(),
                    source: Source::StatusNotification,
                    received: e.seq,
                    asked: None,
                };
                findings.extend(model.observe(&obs));
                findings.push(Finding {
                    rule: "tasks.notify.no-related-task",
                    held: !wire::has_related_task(&params),
                    message: "notifications/tasks/status related-task _meta".into(),
                    evidence: vec![e.seq],
                });
            }
            _ => {}
        }
    }
    summarize(findings)
}

fn no_related_task_in_result(method: &str, result: &Value, seq: u64) -> Finding {
    let held = !wire::has_related_task(result);
    Finding {
        rule: "tasks.meta.no-related-task-in-results",
        held,
        message: if held {
            format!("{method} result without related-task _meta")
        } else {
            format!("{method} result carries related-task _meta")
        },
        evidence: vec![seq],
    }
}

/// One check per rule: its first failure with a count, or a pass with the number of observations.
fn summarize(findings: Vec<Finding>) -> Vec<Check> {
    let mut by_rule: BTreeMap<&'static str, Vec<Finding>> = BTreeMap::new();
    for f in findings {
        by_rule.entry(f.rule).or_default().push(f);
    }
    by_rule
        .into_iter()
        .map(|(rule, fs)| {
            let failures: Vec<&Finding> = fs.iter().filter(|f| !f.held).collect();
            match failures.first() {
                Some(first) => {
                    let more = if failures.len() > 1 {
                        format!(" (and {} more)", failures.len() - 1)
                    } else {
                        String::new()
                    };
                    Check::judged(
                        rule,
                        false,
                        format!("{}{more}", first.message),
                        first.evidence.clone(),
                    )
                }
                None => Check::judged(
                    rule,
                    true,
                    format!("held in {} observation(s)", fs.len()),
                    Vec::new(),
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Verdict;
    use serde_json::json;

    fn entry(seq: u64, dir: Direction, message: Value) -> Entry {
        Entry {
            scenario: None,
            seq,
            dir,
            transport: "stdio".into(),
            t_ms: 0,
            message: Some(message),
            text: None,
        }
    }

    #[test]
    fn judges_result_meta_and_capability() {
        let task = json!({"taskId": "a", "status": "working", "createdAt": "2025-11-25T10:00:00Z", "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 1});
        let trace = vec![
            entry(
                0,
                Direction::Out,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "task": {}}}),
            ),
            entry(
                1,
                Direction::In,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"task": task}}),
            ),
            entry(
                2,
                Direction::Out,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": "a"}}),
            ),
            entry(
                3,
                Direction::In,
                json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}}),
            ),
        ];
        let checks = judge(&trace, &json!({}));
        let verdict = |r: &str| checks.iter().find(|c| c.rule == r).map(|c| c.verdict);
        assert_eq!(verdict("tasks.capability.declare"), Some(Verdict::Fail));
        assert_eq!(
            verdict("tasks.meta.result-related-task"),
            Some(Verdict::Fail)
        );
        assert_eq!(
            verdict("tasks.lifecycle.initial-working"),
            Some(Verdict::Pass)
        );
        let declared = judge(
            &trace,
            &json!({"tasks": {"requests": {"tools": {"call": {}}}}}),
        );
        assert!(declared
            .iter()
            .any(|c| c.rule == "tasks.capability.declare" && c.verdict == Verdict::Pass));
    }

    #[test]
    fn capability_paths() {
        let caps = json!({"tasks": {"list": {}, "cancel": false}});
        assert!(has_capability(&caps, "tasks.list"));
        assert!(!has_capability(&caps, "tasks.cancel"));
        assert!(!has_capability(&caps, "tasks.requests.tools.call"));
    }
}
