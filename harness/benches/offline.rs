//! Offline checking throughput: a realistic recorded trace (initialize, then task creations,
//! polls, status notifications, results and lists) through decoding, schema validation, the
//! model and every monitor, as `taskcheck check` does it. Reports messages per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mcp_taskcheck::offline;
use serde_json::{json, Value};

/// A trace of `tasks` task lifecycles, as JSON lines; returns the text and its message count.
fn recorded_trace(tasks: usize) -> (String, u64) {
    let mut lines = Vec::new();
    let mut seq = 0u64;
    let mut push = |dir: &str, message: Value| {
        lines.push(json!({"scenario": "load", "seq": seq, "dir": dir, "transport": "stdio", "t_ms": seq, "message": message}).to_string());
        seq += 1;
    };
    push(
        "out",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}),
    );
    push(
        "in",
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "serverInfo": {"name": "r", "version": "0"},
        "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}}}),
    );
    let mut id = 1u64;
    for _ in 0..tasks {
        let task_id = uuid::Uuid::new_v4().to_string();
        let task = |status: &str, updated: &str| {
            json!({"taskId": task_id, "status": status, "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": updated, "ttl": 60000, "pollInterval": 50})
        };
        push(
            "out",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "optional_sleep", "arguments": {"ms": 20}, "task": {"ttl": 60000}}}),
        );
        push(
            "in",
            json!({"jsonrpc": "2.0", "id": id, "result": {"task": task("working", "2025-11-25T10:30:00Z")}}),
        );
        id += 1;
        push(
            "out",
            json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"taskId": task_id}}),
        );
        push(
            "in",
            json!({"jsonrpc": "2.0", "id": id, "result": task("working", "2025-11-25T10:30:00Z")}),
        );
        id += 1;
        push(
            "in",
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task("completed", "2025-11-25T10:30:01Z")}),
        );
        push(
            "out",
            json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"taskId": task_id}}),
        );
        push(
            "in",
            json!({"jsonrpc": "2.0", "id": id, "result": task("completed", "2025-11-25T10:30:01Z")}),
        );
        id += 1;
        push(
            "out",
            json!({"jsonrpc": "2.0", "id": id, "method": "tasks/result", "params": {"taskId": task_id}}),
        );
        push(
            "in",
            json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "slept 20"}], "isError": false,
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": task_id}}}}),
        );
        id += 1;
    }
    (lines.join("\n"), seq)
}

fn offline_checking(c: &mut Criterion) {
    let (text, messages) = recorded_trace(2000);
    let mut group = c.benchmark_group("offline");
    group.throughput(Throughput::Elements(messages));
    group.sample_size(10);
    group.bench_function("decode", |b| {
        b.iter(|| offline::read_trace(&text, "bench").expect("the trace parses"))
    });
    let entries = offline::read_trace(&text, "bench").expect("the trace parses");
    group.bench_function("schema+model+monitors", |b| {
        b.iter(|| {
            offline::judge(
                entries.clone(),
                None,
                &[],
                "bench",
                offline::Sides::Receiver,
                None,
            )
        })
    });
    group.bench_function("decode+schema+model+monitors", |b| {
        b.iter(|| {
            let entries = offline::read_trace(&text, "bench").expect("the trace parses");
            let report =
                offline::judge(entries, None, &[], "bench", offline::Sides::Receiver, None);
            assert_eq!(report.totals().failed, 0);
            report
        })
    });
    group.finish();
}

criterion_group!(benches, offline_checking);
criterion_main!(benches);
