//! Which schema type each message of a 2025-11-25 conversation has, named as the official
//! schema and the built-in one name them.

use crate::schema::{SchemaSet, Violation};
use serde_json::Value;

/// What a message is, for pairing it with types.
pub enum Shape<'a> {
    Request {
        method: &'a str,
        message: &'a Value,
    },
    Notification {
        method: &'a str,
        message: &'a Value,
    },
    /// A result, with the request it answers (and, for tasks/result, the method of the
    /// request that created the task, whose result type the payload has).
    Result {
        method: &'a str,
        request_params: &'a Value,
        result: &'a Value,
        task_of: Option<&'a str>,
    },
    /// An error response (the whole message).
    Error {
        message: &'a Value,
    },
}

/// The (type, value) pairs a message must satisfy.
pub fn types_of<'a>(shape: &Shape<'a>) -> Vec<(&'static str, &'a Value)> {
    let mut out: Vec<(&'static str, &'a Value)> = Vec::new();
    match shape {
        Shape::Request { method, message } => {
            let name = match *method {
                "initialize" => "InitializeRequest",
                "ping" => "PingRequest",
                "tools/list" => "ListToolsRequest",
                "tools/call" => "CallToolRequest",
                "tasks/get" => "GetTaskRequest",
                "tasks/result" => "GetTaskPayloadRequest",
                "tasks/list" => "ListTasksRequest",
                "tasks/cancel" => "CancelTaskRequest",
                "elicitation/create" => "ElicitRequest",
                "sampling/createMessage" => "CreateMessageRequest",
                _ => "JSONRPCRequest",
            };
            out.push((name, message));
            if let Some(meta) = related_task(message.get("params")) {
                out.push(("RelatedTaskMetadata", meta));
            }
        }
        Shape::Notification { method, message } => {
            let name = match *method {
                "notifications/initialized" => "InitializedNotification",
                "notifications/tasks/status" => "TaskStatusNotification",
                "notifications/progress" => "ProgressNotification",
                "notifications/cancelled" => "CancelledNotification",
                "notifications/message" => "LoggingMessageNotification",
                _ => "JSONRPCNotification",
            };
            out.push((name, message));
            if let Some(meta) = related_task(message.get("params")) {
                out.push(("RelatedTaskMetadata", meta));
            }
        }
        Shape::Result {
            method,
            request_params,
            result,
            task_of,
        } => {
            let augmented = request_params.get("task").is_some();
            let created = augmented && result.get("task").is_some();
            let name = match *method {
                "initialize" => Some("InitializeResult"),
                "tools/list" => Some("ListToolsResult"),
                _ if created => Some("CreateTaskResult"),
                "tools/call" => Some("CallToolResult"),
                "tasks/get" => Some("GetTaskResult"),
                "tasks/result" => Some("GetTaskPayloadResult"),
                "tasks/list" => Some("ListTasksResult"),
                "tasks/cancel" => Some("CancelTaskResult"),
                "elicitation/create" => Some("ElicitResult"),
                "sampling/createMessage" => Some("CreateMessageResult"),
                _ => None,
            };
            out.extend(name.map(|n| (n, *result)));
            // the payload of tasks/result is what the task's own request returns
            let payload = match (*method, *task_of) {
                ("tasks/result", Some("tools/call")) => Some("CallToolResult"),
                ("tasks/result", Some("elicitation/create")) => Some("ElicitResult"),
                ("tasks/result", Some("sampling/createMessage")) => Some("CreateMessageResult"),
                _ => None,
            };
            out.extend(payload.map(|n| (n, *result)));
            if let Some(meta) = related_task(Some(result)) {
                out.push(("RelatedTaskMetadata", meta));
            }
        }
        Shape::Error { message } => out.push(("JSONRPCErrorResponse", message)),
    }
    out
}

fn related_task(object: Option<&Value>) -> Option<&Value> {
    object?.get("_meta")?.get(crate::wire::RELATED_TASK)
}

/// Every violation of a message against a schema set.
pub fn violations(set: &SchemaSet, shape: &Shape) -> Vec<Violation> {
    types_of(shape)
        .into_iter()
        .flat_map(|(name, value)| set.check(name, value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_paired_with_their_request() {
        let params = json!({"name": "x", "task": {"ttl": 1}});
        // the pairing reads which request a result answers, not what the task holds
        let result = json!({"task": {"taskId": "a", "status": "working"}});
        let shape = Shape::Result {
            method: "tools/call",
            request_params: &params,
            result: &result,
            task_of: None,
        };
        let names: Vec<&str> = types_of(&shape).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["CreateTaskResult"]);
        let plain = json!({"content": []});
        let shape = Shape::Result {
            method: "tools/call",
            request_params: &json!({"name": "x"}),
            result: &plain,
            task_of: None,
        };
        assert_eq!(types_of(&shape)[0].0, "CallToolResult");
        let payload = json!({"_meta": {}});
        let shape = Shape::Result {
            method: "tasks/result",
            request_params: &json!({"taskId": "a"}),
            result: &payload,
            task_of: Some("tools/call"),
        };
        let names: Vec<&str> = types_of(&shape).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["GetTaskPayloadResult", "CallToolResult"]);
        assert!(
            !violations(crate::schema::builtin(), &shape).is_empty(),
            "a CallToolResult has content"
        );
    }
}
