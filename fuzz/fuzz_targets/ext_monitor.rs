//! Arbitrary conversations of the Tasks extension through its monitors (`designs::ext_tasks`).
//! No panic; verdicts are deterministic; and `ext-tasks.lifecycle.transitions` fails exactly
//! when a Task asked for after a terminal status of the same task arrived shows another status.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_taskcheck::designs::ext_tasks::monitor::judge;
use mcp_taskcheck::monitor::Context;
use mcp_taskcheck::trace::{Direction, Entry};
use mcp_taskcheck::verdict::Verdict;
use serde_json::{json, Value};
use std::collections::HashMap;

const METHODS: [&str; 5] = [
    "tools/call",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "server/discover",
];
const STATUSES: [&str; 6] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
    "bogus",
];
const TYPES: [Option<&str>; 4] = [Some("task"), Some("complete"), Some("input_required"), None];

#[derive(Arbitrary, Debug)]
struct Exchange {
    method: u8,
    task: u8,
    status: u8,
    result_type: u8,
    /// Answer an error instead.
    error: bool,
    /// How many later exchanges are sent before this one is answered.
    delay: u8,
    key: Option<u8>,
}

fn entry(seq: u64, dir: Direction, message: Value) -> Entry {
    Entry::of(seq, dir, seq, message)
}

fuzz_target!(|exchanges: Vec<Exchange>| {
    let exchanges = &exchanges[..exchanges.len().min(64)];
    // requests in order; each answer after `delay` more requests (or at the end)
    let mut entries = Vec::new();
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut seq = 0;
    for (i, x) in exchanges.iter().enumerate() {
        let method = METHODS[usize::from(x.method) % METHODS.len()];
        let id = format!("t{}", x.task % 3);
        entries.push(entry(seq, Direction::Out, json!({"jsonrpc": "2.0", "id": i, "method": method, "params": {"taskId": id, "name": "x"}})));
        seq += 1;
        pending.push((i + usize::from(x.delay % 4), i));
        pending.sort();
        while pending.first().is_some_and(|(due, _)| *due <= i) {
            let (_, j) = pending.remove(0);
            entries.push(answer(seq, j, &exchanges[j]));
            seq += 1;
        }
    }
    for (_, j) in pending {
        entries.push(answer(seq, j, &exchanges[j]));
        seq += 1;
    }
    let caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let ctx = Context {
        capabilities: &caps,
        official: None,
        breaks: &[],
        authorization: false,
    };
    let first = judge(&entries, &ctx);
    let again = judge(&entries, &ctx);
    let verdicts = |j: &mcp_taskcheck::monitor::Judgement| -> Vec<(String, Verdict)> {
        j.checks
            .iter()
            .map(|c| (c.rule.clone(), c.verdict))
            .collect()
    };
    assert_eq!(
        verdicts(&first),
        verdicts(&again),
        "verdicts are not deterministic"
    );

    // the oracle: a status after a terminal one, asked for after that terminal one arrived
    let mut asked_at: HashMap<u64, u64> = HashMap::new();
    let mut terminal: HashMap<String, (String, u64)> = HashMap::new();
    let mut expected = false;
    for e in &entries {
        let m = e.message.as_ref().unwrap();
        let id = m["id"].as_u64().unwrap();
        if e.dir == Direction::Out {
            asked_at.insert(id, e.seq);
            continue;
        }
        let method = m.get("method");
        let x = &exchanges[id as usize];
        let name = METHODS[usize::from(x.method) % METHODS.len()];
        let result = &m["result"];
        let is_task = match name {
            "tasks/get" => true,
            "tools/call" => {
                result.get("taskId").is_some()
                    && result.get("status").is_some()
                    && result.get("content").is_none()
            }
            _ => false,
        };
        if method.is_some() || x.error || !is_task {
            continue;
        }
        let (Some(task), Some(status)) = (result["taskId"].as_str(), result["status"].as_str())
        else {
            continue;
        };
        if let Some((was, at)) = terminal.get(task) {
            if *at < asked_at[&id] && was != status {
                expected = true;
            }
        }
        if matches!(status, "completed" | "failed" | "cancelled") {
            terminal
                .entry(task.to_string())
                .or_insert((status.to_string(), e.seq));
        }
    }
    let reported = first
        .checks
        .iter()
        .any(|c| c.rule == "ext-tasks.lifecycle.transitions" && c.verdict == Verdict::Fail);
    assert_eq!(
        reported, expected,
        "transitions: reported {reported}, expected {expected}"
    );
});

fn answer(seq: u64, i: usize, x: &Exchange) -> Entry {
    if x.error {
        return entry(
            seq,
            Direction::In,
            json!({"jsonrpc": "2.0", "id": i, "error": {"code": -32602, "message": "Task not found"}}),
        );
    }
    let mut result = json!({
        "taskId": format!("t{}", x.task % 3),
        "status": STATUSES[usize::from(x.status) % STATUSES.len()],
        "createdAt": "2026-07-28T10:00:00Z",
        "lastUpdatedAt": "2026-07-28T10:00:00Z",
        "ttlMs": null,
    });
    if let Some(t) = TYPES[usize::from(x.result_type) % TYPES.len()] {
        result["resultType"] = json!(t);
    }
    if let Some(k) = x.key {
        result["inputRequests"] = json!({format!("k{}", k % 2): {"method": "elicitation/create", "params": {"message": format!("m{}", k % 3)}}});
    }
    entry(
        seq,
        Direction::In,
        json!({"jsonrpc": "2.0", "id": i, "result": result}),
    )
}
