//! The fixture tools the official conformance suite's `tasks-*` scenarios call
//! (`@modelcontextprotocol/conformance`, 0.2.0 alpha line), served by the extension's
//! reference beside its own so `interop/calibrate.sh` can run that suite against it. Each runs
//! as one of the reference's own behaviours, with its arguments translated; none is part of
//! taskcheck's fixture contract.

use serde_json::{json, Value};

/// When a tool makes a task.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// Never: always a plain result.
    SyncOnly,
    /// When the request declares the extension; a plain result otherwise.
    Either,
    /// Only as a task: without the extension, -32021.
    TaskOnly,
}

/// An official fixture tool: its name, when it makes a task, the reference tool it runs as,
/// its input schema's properties, and what it does.
pub struct OfficialTool {
    pub name: &'static str,
    pub runs: Runs,
    pub runs_as: &'static str,
    pub properties: &'static str,
    pub what: &'static str,
}

/// The official suite's tasks fixture tools.
pub const TOOLS: &[OfficialTool] = &[
    OfficialTool { name: "greet", runs: Runs::SyncOnly, runs_as: "greet", properties: r#"{"name":{"type":"string"}}"#, what: "returns \"Hello, <name>!\"; never a task" },
    OfficialTool { name: "slow_compute", runs: Runs::Either, runs_as: "optional_sleep", properties: r#"{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}"#, what: "sleeps `seconds`, then returns (optional_sleep)" },
    OfficialTool { name: "failing_job", runs: Runs::TaskOnly, runs_as: "tool_error", properties: "{}", what: "after 1 s, a tool execution error (tool_error); only as a task" },
    OfficialTool { name: "protocol_error_job", runs: Runs::Either, runs_as: "protocol_error", properties: "{}", what: "after 100 ms, JSON-RPC error -32603 (protocol_error)" },
    OfficialTool { name: "confirm_delete", runs: Runs::TaskOnly, runs_as: "elicit_input", properties: r#"{"filename":{"type":"string"}}"#, what: "asks one elicitation inside its task (elicit_input); only as a task" },
    OfficialTool { name: "multi_input", runs: Runs::TaskOnly, runs_as: "elicit_pair", properties: "{}", what: "asks two elicitations at once inside its task (elicit_pair); only as a task" },
    OfficialTool { name: "test_tool_with_task", runs: Runs::TaskOnly, runs_as: "confirm_first", properties: "{}", what: "asks `user_name` over an InputRequiredResult, then makes a task whose result carries the answer (confirm_first); only as a task" },
];

/// The official tool of this name, if it is one.
pub fn find(name: &str) -> Option<&'static OfficialTool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The arguments of the reference tool an official call runs as.
pub fn translate(tool: &OfficialTool, args: &Value) -> Value {
    let ms = match tool.name {
        "slow_compute" => (args["seconds"].as_f64().unwrap_or(0.0).max(0.0) * 1000.0) as u64,
        "failing_job" => 1000,
        "protocol_error_job" => 100,
        _ => 0,
    };
    let mut translated = args.clone();
    translated["ms"] = json!(ms);
    translated
}

/// The tools/list entry of an official tool.
pub fn listed(tool: &OfficialTool) -> Value {
    let properties: Value = serde_json::from_str(tool.properties).unwrap_or(json!({}));
    json!({"name": tool.name, "description": format!("official conformance fixture: {}", tool.what),
        "inputSchema": {"type": "object", "properties": properties}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_official_tool_runs_as_a_reference_tool_and_lists_a_valid_schema() {
        let own: Vec<&str> = super::super::reference::TOOLS
            .iter()
            .map(|(n, _)| *n)
            .collect();
        for tool in TOOLS {
            assert!(
                tool.runs_as == "greet" || own.contains(&tool.runs_as),
                "{}",
                tool.name
            );
            assert!(
                listed(tool)["inputSchema"]["properties"].is_object(),
                "{}",
                tool.name
            );
        }
    }

    #[test]
    fn seconds_become_milliseconds() {
        let slow = find("slow_compute").unwrap();
        assert_eq!(
            translate(slow, &json!({"seconds": 2, "label": "x"}))["ms"],
            2000
        );
        assert_eq!(translate(slow, &json!({"seconds": 0}))["ms"], 0);
        assert_eq!(
            translate(find("failing_job").unwrap(), &json!({}))["ms"],
            1000
        );
    }
}
