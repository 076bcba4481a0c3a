//! The fixture contract: tools a receiver offers so scenarios get deterministic behaviour.

use serde_json::{json, Value};

/// One fixture tool.
pub struct Fixture {
    pub name: &'static str,
    /// `execution.taskSupport`, or None for a tool without an `execution` field.
    pub task_support: Option<&'static str>,
    pub behaviour: &'static str,
}

/// Every fixture tool; each takes an optional integer `ms` (default 0), how long it works.
pub const FIXTURES: [Fixture; 8] = [
    Fixture { name: "sync_echo", task_support: None, behaviour: "returns `arguments.text`" },
    Fixture { name: "forbidden_echo", task_support: Some("forbidden"), behaviour: "returns `arguments.text`" },
    Fixture { name: "optional_sleep", task_support: Some("optional"), behaviour: "after `ms`, returns \"slept <ms>\"" },
    Fixture { name: "required_sleep", task_support: Some("required"), behaviour: "after `ms`, returns \"slept <ms>\"" },
    Fixture { name: "tool_error", task_support: Some("optional"), behaviour: "after `ms`, a CallToolResult with `isError: true`" },
    Fixture { name: "protocol_error", task_support: Some("optional"), behaviour: "after `ms`, the request ends in JSON-RPC error -32603" },
    Fixture {
        name: "elicit_input",
        task_support: Some("optional"),
        behaviour: "sends `elicitation/create` (form, one required string `answer`), with related-task `_meta` when run as a task, status `input_required` until answered; returns the answer (or \"declined\" / \"cancelled\") as text",
    },
    Fixture {
        name: "progress_sleep",
        task_support: Some("optional"),
        behaviour: "sends `notifications/progress` with the request's `progressToken` `steps` times (default 3) over `ms`",
    },
];

/// Server capabilities a fixture receiver declares.
pub fn server_capabilities() -> Value {
    json!({"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}})
}

/// Looks a fixture up by name.
pub fn find(name: &str) -> Option<&'static Fixture> {
    FIXTURES.iter().find(|f| f.name == name)
}

/// The `tools/list` result of a fixture receiver.
pub fn tools_list() -> Value {
    let tools: Vec<Value> = FIXTURES
        .iter()
        .map(|f| {
            let mut properties = json!({"ms": {"type": "integer", "minimum": 0}});
            match f.name {
                "sync_echo" | "forbidden_echo" => properties["text"] = json!({"type": "string"}),
                "progress_sleep" => properties["steps"] = json!({"type": "integer", "minimum": 1}),
                _ => {}
            }
            let mut tool = json!({
                "name": f.name,
                "description": f.behaviour,
                "inputSchema": {"type": "object", "properties": properties},
            });
            if let Some(support) = f.task_support {
                tool["execution"] = json!({"taskSupport": support});
            }
            tool
        })
        .collect();
    json!({ "tools": tools })
}

/// The contract as a Markdown table (printed by `taskcheck list --fixtures`).
pub fn contract_table() -> String {
    let mut out = String::from("| tool | execution.taskSupport | behaviour |\n|---|---|---|\n");
    for f in &FIXTURES {
        let support = f
            .task_support
            .map(|s| format!("\"{s}\""))
            .unwrap_or_else(|| "(no `execution` field)".into());
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            f.name, support, f.behaviour
        ));
    }
    out.push_str("\nEvery tool takes an optional integer `ms` (default 0). Text results are one `{\"type\":\"text\"}` item.\n");
    out.push_str(&format!(
        "Server capabilities: `{}`.\n",
        server_capabilities()["tasks"]
    ));
    out
}
