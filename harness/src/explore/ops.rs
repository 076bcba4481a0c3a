//! The operations `explore` draws at random, and the scenario a sequence of them becomes.
//!
//! Operations name earlier tasks by index, modulo the tasks created so far, so any
//! subsequence (what shrinking tries) is still a valid sequence.

use crate::designs::Profile;
use crate::scenario::{Expect, PeerName, Requires, Scenario, Step, StepKind};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Fixture tools a task may run (each returns or fails on its own after `ms`).
pub const TASK_TOOLS: [&str; 6] = [
    "optional_sleep",
    "required_sleep",
    "tool_error",
    "protocol_error",
    "progress_sleep",
    "elicit_input",
];
/// Fixture tools called without a task too (none of them waits for taskcheck).
const PLAIN_TOOLS: [&str; 4] = [
    "optional_sleep",
    "tool_error",
    "protocol_error",
    "progress_sleep",
];

/// One thing a requestor does.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// tools/call of a fixture, as a task (with `ttl`, or none) or plainly.
    Create {
        tool: usize,
        ms: u64,
        task: bool,
        ttl: Option<u64>,
    },
    Get(usize),
    /// tasks/result, blocking; `overlap` sends two at once.
    Result {
        task: usize,
        overlap: bool,
    },
    Cancel(usize),
    /// Walk tasks/list; the task must be on it.
    List(usize),
    Wait(u64),
}

/// Sequences of `max_ops / 2` to `max_ops` operations, biased to create tasks and then poke them.
pub fn sequences(max_ops: usize) -> impl Strategy<Value = Vec<Op>> {
    let create = (
        0..TASK_TOOLS.len(),
        prop_oneof![Just(0u64), 0u64..300],
        prop::bool::weighted(0.85),
        prop_oneof![
            Just(None),
            prop::sample::select(vec![60_000u64, 120_000, 600_000]).prop_map(Some)
        ],
    )
        .prop_map(|(tool, ms, task, ttl)| Op::Create {
            tool,
            ms,
            task,
            ttl,
        });
    let op = prop_oneof![
        3 => create,
        4 => any::<u8>().prop_map(|t| Op::Get(t.into())),
        2 => (any::<u8>(), any::<bool>()).prop_map(|(t, overlap)| Op::Result { task: t.into(), overlap }),
        1 => any::<u8>().prop_map(|t| Op::Cancel(t.into())),
        1 => any::<u8>().prop_map(|t| Op::List(t.into())),
        1 => (0u64..200).prop_map(Op::Wait),
    ];
    let max = max_ops.max(1);
    prop::collection::vec(op, max.div_ceil(2)..=max)
}

/// What the receiver offers, so only operations it can take are drawn into steps.
#[derive(Debug, Clone, Default)]
pub struct Offer {
    /// The design of Tasks the receiver is tested under.
    pub profile: Profile,
    pub list: bool,
    pub cancel: bool,
    /// Fixture tools it lists.
    pub tools: Vec<String>,
}

const RULE_LISTED: &str = "tasks.list.contains-retrievable";
const RULE_CANCEL_TERMINAL: &str = "tasks.cancel.terminal-rejected";

pub(super) fn step(kind: StepKind) -> Step {
    Step {
        kind,
        rule: None,
        expect: None,
        checks: Vec::new(),
        timeout_ms: None,
        peer: PeerName::A,
        given: Vec::new(),
        absent: None,
        not_applicable_if: None,
    }
}

pub(super) fn send(method: &str, params: Value) -> Step {
    step(StepKind::Send {
        method: method.into(),
        params,
        repeat: None,
        within: None,
        save: None,
        abandon_after_ms: None,
        hold_open: false,
        headers: Default::default(),
    })
}

/// The scenario that performs drawn steps (`steps_2025` or the extension's) against a
/// receiver offering `offer`.
pub fn scenario(
    id: &str,
    title: &str,
    (steps, tools, capabilities): Steps,
    offer: &Offer,
) -> Scenario {
    let mut scenario = Scenario {
        id: id.into(),
        title: title.into(),
        rules: Vec::new(),
        tags: Some(vec!["explore".into()]),
        requires: Requires {
            capabilities,
            tools,
            ..Requires::default()
        },
        breaks: Vec::new(),
        client_capabilities: None,
        receiver: Default::default(),
        profile: offer.profile,
        timeout_ms: None,
        steps,
    };
    scenario.rules = scenario.judged_rules();
    scenario.rules.sort();
    scenario.rules.dedup();
    scenario
}

/// What a sequence becomes: its steps, the fixture tools and server capabilities they need.
pub(super) type Steps = (Vec<Step>, Vec<String>, Vec<String>);

/// The fixture tool a create draws and its tools/call params, if the receiver offers it (and,
/// for a call without a task, the tool runs plainly); the tool joins the ones `tools` needs.
pub(super) fn fixture_call(
    offer: &Offer,
    tool: usize,
    ms: u64,
    task: bool,
    tools: &mut Vec<String>,
) -> Option<(&'static str, Value)> {
    let name = TASK_TOOLS[tool % TASK_TOOLS.len()];
    if !offer.tools.iter().any(|t| t == name) || (!task && !PLAIN_TOOLS.contains(&name)) {
        return None;
    }
    if !tools.iter().any(|t| t == name) {
        tools.push(name.to_string());
    }
    Some((name, json!({"name": name, "arguments": {"ms": ms}})))
}

/// The steps of `ops` under 2025-11-25: task-augmented calls, tasks/result, tasks/list.
pub(super) fn steps_2025(ops: &[Op], offer: &Offer) -> Steps {
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
