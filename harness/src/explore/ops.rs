//! The operations `explore` draws at random, and the scenario a sequence of them becomes.
//!
//! Operations name earlier tasks by index, modulo the tasks created so far, so any
//! subsequence (what shrinking tries) is still a valid sequence.

use crate::scenario::{PeerName, Step, StepKind};
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
    pub list: bool,
    pub cancel: bool,
    /// Fixture tools it lists.
    pub tools: Vec<String>,
}

/// A step of a kind, with nothing else said.
pub fn step(kind: StepKind) -> Step {
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

/// A request step.
pub fn send(method: &str, params: Value) -> Step {
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

/// What a sequence becomes: its steps, the fixture tools and server capabilities they need.
pub type Steps = (Vec<Step>, Vec<String>, Vec<String>);

/// The fixture tool a create draws and its tools/call params, if the receiver offers it (and,
/// for a call without a task, the tool runs plainly); the tool joins the ones `tools` needs.
pub fn fixture_call(
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
