//! The built-in Tasks schema agrees with the official 2025-11-25 schema.json on a corpus of
//! valid and invalid Tasks messages.

use mcp_taskcheck::schema::{self, SchemaSet};
use serde_json::{json, Value};

fn official() -> SchemaSet {
    let path = concat!(env!("TASKCHECK_SPEC_DIR"), "/2025-11-25/schema.json");
    SchemaSet::load(std::path::Path::new(path)).expect("the official schema loads")
}

fn task() -> Value {
    json!({"taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "status": "working",
           "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
           "ttl": 60000, "pollInterval": 5000})
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

fn without(mut v: Value, key: &str) -> Value {
    v.as_object_mut().unwrap().remove(key);
    v
}

fn request(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// (type, message, valid)
fn corpus() -> Vec<(&'static str, Value, bool)> {
    let related = json!({"io.modelcontextprotocol/related-task": {"taskId": "t"}});
    vec![
        ("Task", task(), true),
        ("Task", with(task(), "ttl", Value::Null), true),
        (
            "Task",
            with(task(), "statusMessage", json!("working on it")),
            true,
        ),
        ("Task", without(task(), "pollInterval"), true),
        (
            "Task",
            with(task(), "status", json!("input_required")),
            true,
        ),
        ("Task", with(task(), "status", json!("done")), false),
        ("Task", with(task(), "taskId", json!(7)), false),
        ("Task", with(task(), "pollInterval", json!("5000")), false),
        ("Task", with(task(), "pollInterval", json!(0.5)), false),
        ("Task", with(task(), "statusMessage", json!(3)), false),
        ("Task", with(task(), "ttl", json!("60000")), false),
        ("Task", without(task(), "ttl"), false),
        ("Task", without(task(), "createdAt"), false),
        ("Task", without(task(), "lastUpdatedAt"), false),
        ("Task", without(task(), "status"), false),
        ("CreateTaskResult", json!({"task": task()}), true),
        (
            "CreateTaskResult",
            json!({"task": task(), "_meta": {"io.modelcontextprotocol/model-immediate-response": "started"}}),
            true,
        ),
        ("CreateTaskResult", json!({"content": []}), false),
        (
            "CreateTaskResult",
            json!({"task": without(task(), "taskId")}),
            false,
        ),
        ("GetTaskResult", task(), true),
        (
            "GetTaskResult",
            with(task(), "status", json!("finished")),
            false,
        ),
        (
            "CancelTaskResult",
            with(task(), "status", json!("cancelled")),
            true,
        ),
        ("CancelTaskResult", without(task(), "createdAt"), false),
        (
            "ListTasksResult",
            json!({"tasks": [task()], "nextCursor": "abc"}),
            true,
        ),
        ("ListTasksResult", json!({"tasks": []}), true),
        (
            "ListTasksResult",
            json!({"tasks": [task()], "nextCursor": 2}),
            false,
        ),
        ("ListTasksResult", json!({"nextCursor": "abc"}), false),
        (
            "ListTasksResult",
            json!({"tasks": [with(task(), "taskId", json!(1))]}),
            false,
        ),
        (
            "GetTaskPayloadResult",
            json!({"content": [], "_meta": related}),
            true,
        ),
        ("GetTaskPayloadResult", json!({"_meta": "x"}), false),
        ("RelatedTaskMetadata", json!({"taskId": "t"}), true),
        ("RelatedTaskMetadata", json!({"taskId": 1}), false),
        ("RelatedTaskMetadata", json!({}), false),
        ("TaskMetadata", json!({"ttl": 60000}), true),
        ("TaskMetadata", json!({}), true),
        ("TaskMetadata", json!({"ttl": "soon"}), false),
        ("TaskMetadata", json!("soon"), false),
        ("ToolExecution", json!({"taskSupport": "optional"}), true),
        ("ToolExecution", json!({}), true),
        ("ToolExecution", json!({"taskSupport": "sometimes"}), false),
        (
            "GetTaskRequest",
            request("tasks/get", json!({"taskId": "t"})),
            true,
        ),
        (
            "GetTaskRequest",
            request("tasks/get", json!({"taskId": 4})),
            false,
        ),
        ("GetTaskRequest", request("tasks/get", json!({})), false),
        (
            "GetTaskPayloadRequest",
            request("tasks/result", json!({"taskId": "t"})),
            true,
        ),
        (
            "GetTaskPayloadRequest",
            request("tasks/result", json!({})),
            false,
        ),
        (
            "CancelTaskRequest",
            request("tasks/cancel", json!({"taskId": "t"})),
            true,
        ),
        (
            "CancelTaskRequest",
            request("tasks/cancel", json!({"taskId": null})),
            false,
        ),
        (
            "ListTasksRequest",
            request("tasks/list", json!({"cursor": "c"})),
            true,
        ),
        (
            "ListTasksRequest",
            request("tasks/list", json!({"cursor": 3})),
            false,
        ),
        (
            "TaskStatusNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task()}),
            true,
        ),
        (
            "TaskStatusNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": without(task(), "status")}),
            false,
        ),
        (
            "TaskStatusNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status"}),
            false,
        ),
        // the result types tasks wrap: a tasks/result payload is held to its request's
        (
            "CallToolResult",
            json!({"content": [{"type": "text", "text": "x"}], "isError": true}),
            true,
        ),
        ("CallToolResult", json!({"_meta": related}), false),
        ("CallToolResult", json!({"content": "x"}), false),
        ("CallToolResult", json!({"task": task()}), false),
        (
            "CreateMessageResult",
            json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}),
            true,
        ),
        (
            "CreateMessageResult",
            json!({"role": "assistant", "content": {"type": "text", "text": "x"}}),
            false,
        ),
        (
            "ElicitResult",
            json!({"action": "accept", "content": {}}),
            true,
        ),
        ("ElicitResult", json!({"action": "maybe"}), false),
        ("ElicitResult", json!({}), false),
        (
            "ElicitRequest",
            request(
                "elicitation/create",
                json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}, "task": "soon"}),
            ),
            false,
        ),
        (
            "CreateMessageRequest",
            request(
                "sampling/createMessage",
                json!({"messages": [], "maxTokens": 1, "task": {"ttl": "a minute"}}),
            ),
            false,
        ),
        (
            "CreateMessageRequest",
            request(
                "sampling/createMessage",
                json!({"messages": [], "maxTokens": 1, "task": {"ttl": 60000}}),
            ),
            true,
        ),
    ]
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn builtin_and_official_schemas_agree_on_the_corpus() {
    let official = official();
    let builtin = schema::builtin();
    let mut disagreements = Vec::new();
    for (type_name, message, valid) in corpus() {
        assert!(
            official.defines(type_name),
            "the official schema has no {type_name}"
        );
        assert!(
            builtin.defines(type_name),
            "the built-in schema has no {type_name}"
        );
        let ours = builtin.check(type_name, &message);
        let theirs = official.check(type_name, &message);
        if ours.is_empty() != valid || theirs.is_empty() != valid {
            disagreements.push(format!(
                "{type_name} {message}: expected {}, built-in {ours:?}, official {theirs:?}",
                if valid { "valid" } else { "invalid" }
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn an_unreadable_schema_is_a_usage_error_naming_the_file() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_taskcheck"))
        .args([
            "run",
            "--stdio",
            "true",
            "--schema",
            "/nonexistent/schema.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/schema.json"));
}
