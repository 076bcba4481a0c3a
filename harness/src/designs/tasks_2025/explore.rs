//! What a drawn sequence of operations becomes under 2025-11-25: task-augmented calls,
//! tasks/get, blocking tasks/result (two at once where drawn), tasks/cancel and a tasks/list
//! walk that must find the task.

use crate::explore::ops::{fixture_call, send, step, Offer, Op, Steps};
use crate::scenario::{Expect, StepKind};
use serde_json::json;

const RULE_LISTED: &str = "tasks.list.contains-retrievable";
const RULE_CANCEL_TERMINAL: &str = "tasks.cancel.terminal-rejected";

/// The steps of `ops` under 2025-11-25: task-augmented calls, tasks/result, tasks/list.
pub fn steps(ops: &[Op], offer: &Offer) -> Steps {
    let mut steps = Vec::new();
    let mut tasks = 0usize;
    let mut terminal: Vec<bool> = Vec::new();
    let mut tools = Vec::new();
    for op in ops {
        let pick = |i: &usize| (tasks > 0).then(|| i % tasks);
        match op {
            Op::Create {
                tool,
                ms,
                task,
                ttl,
            } => {
                let Some((name, mut params)) = fixture_call(offer, *tool, *ms, *task, &mut tools)
                else {
                    continue;
                };
                if !task {
                    steps.push(send("tools/call", params));
                    continue;
                }
                params["task"] = ttl.map(|t| json!({"ttl": t})).unwrap_or(json!({}));
                let mut create = send("tools/call", params);
                create.expect = Some(Expect::Result(
                    json!({"task": {"taskId": {"$capture": format!("t{tasks}")}}}),
                ));
                steps.push(create);
                if name == "elicit_input" {
                    steps.push(step(StepKind::Answer {
                        method: "elicitation/create".into(),
                        reply: json!({"action": "accept", "content": {"answer": "42"}}),
                    }));
                }
                tasks += 1;
                terminal.push(false);
            }
            Op::Get(i) => {
                if let Some(n) = pick(i) {
                    steps.push(send("tasks/get", json!({"taskId": format!("${{t{n}}}")})));
                }
            }
            Op::Result { task, overlap } => {
                if let Some(n) = pick(task) {
                    let result = send("tasks/result", json!({"taskId": format!("${{t{n}}}")}));
                    steps.push(match overlap {
                        true => step(StepKind::Parallel(vec![result.clone(), result])),
                        false => result,
                    });
                    terminal[n] = true;
                }
            }
            Op::Cancel(i) => {
                if let Some(n) = pick(i).filter(|_| offer.cancel) {
                    let mut cancel = send("tasks/cancel", json!({"taskId": format!("${{t{n}}}")}));
                    if terminal[n] {
                        cancel.rule = Some(RULE_CANCEL_TERMINAL.into());
                        cancel.expect = Some(Expect::Error(json!({"code": -32602})));
                    }
                    steps.push(cancel);
                    terminal[n] = true;
                }
            }
            Op::List(i) => {
                if let Some(n) = pick(i).filter(|_| offer.list) {
                    let mut walk = step(StepKind::WalkList {
                        contains: Some(format!("${{t{n}}}")),
                        lacks: None,
                        next_cursor_rule: None,
                        page_limit_rule: None,
                    });
                    walk.rule = Some(RULE_LISTED.into());
                    steps.push(walk);
                }
            }
            Op::Wait(ms) => steps.push(step(StepKind::Wait { ms: *ms })),
        }
    }
    let mut capabilities = vec!["tasks.requests.tools.call".to_string()];
    for (used, cap) in [
        (
            steps.iter().any(|s| s.rule.as_deref() == Some(RULE_LISTED)),
            "tasks.list",
        ),
        (
            ops.iter().any(|o| matches!(o, Op::Cancel(_))) && offer.cancel,
            "tasks.cancel",
        ),
    ] {
        if used {
            capabilities.push(cap.into());
        }
    }
    (steps, tools, capabilities)
}
