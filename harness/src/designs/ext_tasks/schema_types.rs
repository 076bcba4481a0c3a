//! Which schema type each message of an extension conversation has: the 2026-07-28 core
//! schema's and the extension schema's names, for `--schema` (both files, merged).

use serde_json::Value;

/// The type a result answering `method` must have (by its `resultType` for tools/call).
pub fn result_type(method: &str, result: &Value) -> Option<&'static str> {
    Some(match method {
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => match result.get("resultType").and_then(Value::as_str) {
            Some("task") => "CreateTaskResult",
            Some("input_required") => "InputRequiredResult",
            _ => "CallToolResult",
        },
        "tasks/get" => "GetTaskResult",
        "tasks/update" => "UpdateTaskResult",
        "tasks/cancel" => "CancelTaskResult",
        _ => return None,
    })
}

/// The type of a notification (the whole message).
pub fn notification_type(method: &str) -> &'static str {
    match method {
        "notifications/tasks" => "TaskStatusNotification",
        "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
        "notifications/message" => "LoggingMessageNotification",
        _ => "JSONRPCNotification",
    }
}

/// The type of an error response (the whole message).
pub const ERROR_TYPE: &str = "JSONRPCErrorResponse";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_call_results_are_typed_by_their_result_type() {
        assert_eq!(
            result_type("tools/call", &json!({"resultType": "task"})),
            Some("CreateTaskResult")
        );
        assert_eq!(
            result_type("tools/call", &json!({"resultType": "input_required"})),
            Some("InputRequiredResult")
        );
        assert_eq!(
            result_type("tools/call", &json!({"content": []})),
            Some("CallToolResult")
        );
        assert_eq!(result_type("subscriptions/listen", &json!({})), None);
        assert_eq!(
            notification_type("notifications/tasks"),
            "TaskStatusNotification"
        );
    }
}
