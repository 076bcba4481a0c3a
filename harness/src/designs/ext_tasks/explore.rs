//! What a drawn sequence of operations becomes under the Tasks extension: calls that declare
//! the extension (the server creates the task) or not (a plain call), input answered with
//! tasks/update, a task followed to its end by polling (there is no tasks/result), and
//! cancellation as the acknowledgement it is. tasks/list does not exist: a `List` is left out.

use super::{EXTENSION, META_CAPABILITIES};
use crate::explore::ops::{fixture_call, send, step, Offer, Op, Steps};
use crate::scenario::{Expect, StepKind};
use serde_json::json;

const RULE_CANCEL_ACK: &str = "ext-tasks.cancel.ack-empty";
/// The statuses a task followed to its end may reach.
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// The steps of `ops` under the extension.
pub fn steps(ops: &[Op], offer: &Offer) -> Steps {
    let mut steps = Vec::new();
    let mut tasks = 0usize;
    let mut tools: Vec<String> = Vec::new();
    for op in ops {
        let pick = |i: &usize| (tasks > 0).then(|| i % tasks);
        match op {
            Op::Create { tool, ms, task, .. } => {
                let Some((name, mut params)) = fixture_call(offer, *tool, *ms, *task, &mut tools)
                else {
                    continue;
                };
                if !task {
                    // a request that does not declare the extension gets no task
                    params["_meta"] = json!({META_CAPABILITIES: {"elicitation": {}}});
                    steps.push(send("tools/call", params));
                    continue;
                }
                let mut create = send("tools/call", params);
                create.expect = Some(Expect::Result(
                    json!({"taskId": {"$capture": format!("t{tasks}")}}),
                ));
                steps.push(create);
                if name == "elicit_input" {
                    steps.push(step(StepKind::Respond {
                        task: format!("${{t{tasks}}}"),
                        reply: json!({"action": "accept", "content": {"name": "42"}}),
                        at_most: None,
                        again: None,
                    }));
                }
                tasks += 1;
            }
            Op::Get(i) => {
                if let Some(n) = pick(i) {
                    steps.push(send("tasks/get", json!({"taskId": format!("${{t{n}}}")})));
                }
            }
            Op::Result { task, overlap } => {
                if let Some(n) = pick(task) {
                    let poll = step(StepKind::Poll {
                        task: format!("${{t{n}}}"),
                        until: TERMINAL.iter().map(|s| s.to_string()).collect(),
                        capture: None,
                    });
                    steps.push(match overlap {
                        true => step(StepKind::Parallel(vec![poll.clone(), poll])),
                        false => poll,
                    });
                }
            }
            Op::Cancel(i) => {
                if let Some(n) = pick(i) {
                    let mut cancel = send("tasks/cancel", json!({"taskId": format!("${{t{n}}}")}));
                    cancel.rule = Some(RULE_CANCEL_ACK.into());
                    cancel.expect = Some(Expect::Result(
                        json!({"taskId": {"$absent": true}, "status": {"$absent": true}}),
                    ));
                    steps.push(cancel);
                }
            }
            Op::List(_) => {}
            Op::Wait(ms) => steps.push(step(StepKind::Wait { ms: *ms })),
        }
    }
    (steps, tools, vec![format!("extensions.{EXTENSION}")])
}
