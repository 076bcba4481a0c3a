//! What a requestor scenario asks of the client under test (`ask:`), handed to it as JSON in
//! `TASKCHECK_REQUEST`: one type for the scenario files, the reference requestors and the
//! drivers' docs (`taskcheck schema ask`). An unknown key is an error, not a rule left
//! silently untestable.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What the client is asked to do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ask {
    /// The tool to call (a fixture role's name: the reference receiver's tool).
    pub tool: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// 2025-11-25: call it as a task where its `execution.taskSupport` allows (under the
    /// extension the server decides, every request declaring the extension).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub task: bool,
    /// Cancel the task with `tasks/cancel` this long after it was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_after_ms: Option<u64>,
    /// Call it this many times, one after the other (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// 2025-11-25: then walk `tasks/list` with the cursors it gives.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list: bool,
    /// The extension: first list the tools (`tools/list`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list_tools: bool,
}

impl Ask {
    /// The `tools/call` params it asks for.
    pub fn call_params(&self) -> Value {
        let arguments = self.arguments.clone().unwrap_or_default();
        serde_json::json!({"name": self.tool, "arguments": arguments})
    }

    /// How many calls it asks for.
    pub fn calls(&self) -> u32 {
        self.times.unwrap_or(1)
    }

    /// Reads an ask from JSON (`TASKCHECK_REQUEST`); an unknown key is an error.
    pub fn from_json(text: &str) -> Result<Ask, String> {
        serde_json::from_str(text).map_err(|e| format!("not an ask (taskcheck schema ask): {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ask_goes_there_and_back_and_refuses_an_unknown_key() {
        let text =
            r#"{"tool":"optional_sleep","arguments":{"ms":0},"task":true,"times":3,"list":true}"#;
        let ask = Ask::from_json(text).unwrap();
        assert_eq!(ask.calls(), 3);
        assert_eq!(serde_json::to_string(&ask).unwrap(), text);
        let typo = Ask::from_json(r#"{"tool":"x","cancel_after":400}"#).unwrap_err();
        assert!(typo.contains("cancel_after"), "{typo}");
    }
}
