//! The tools of the `own-tools` variant: a server written as real ones are, not to the
//! fixture contract. Its only task tool is `required` and works a fixed time whatever it is
//! given; its plain tools are `forbidden`, as SDKs mark plain tools by default, one of them
//! with words of waiting and progress, neither with words of echoing; one tool's
//! words say it reports errors, which it does only for figures that do not add up (never
//! for what taskcheck sends); and one tool may destroy something, which taskcheck must never
//! call unasked.

use serde_json::{json, Value};

/// One tool of the variant, and the fixture whose behaviour it has.
struct OwnTool {
    name: &'static str,
    task_support: &'static str,
    description: &'static str,
    input_schema: fn() -> Value,
    annotations: fn() -> Value,
    /// The fixture it runs as, and the `ms` it always works.
    runs_as: (&'static str, u64),
}

/// How long the report tool works, whatever it is given.
pub const REPORT_MS: u64 = 1500;

const TOOLS: [OwnTool; 5] = [
    OwnTool {
        name: "generate_report",
        task_support: "required",
        description: "Generates the quarterly report.",
        input_schema: || json!({"type": "object", "properties": {"quarter": {"type": "string", "enum": ["Q1", "Q2", "Q3", "Q4"]}}, "required": ["quarter"]}),
        annotations: || json!({"readOnlyHint": true}),
        runs_as: ("required_sleep", REPORT_MS),
    },
    OwnTool {
        name: "check_quarter",
        task_support: "required",
        description: "Checks the quarter's figures and reports an error when they do not add up.",
        input_schema: || json!({"type": "object", "properties": {"quarter": {"type": "string", "enum": ["Q1", "Q2", "Q3", "Q4"]}}, "required": ["quarter"]}),
        annotations: || json!({"readOnlyHint": true}),
        runs_as: ("required_sleep", 100),
    },
    OwnTool {
        name: "wait_for_sync",
        task_support: "forbidden",
        description: "Waits until the cache is in sync, reporting progress.",
        input_schema: || json!({"type": "object", "properties": {}}),
        annotations: || json!({"readOnlyHint": true}),
        runs_as: ("forbidden_echo", 0),
    },
    OwnTool {
        name: "format_quarter",
        task_support: "forbidden",
        description: "Formats a quarter's name for display.",
        input_schema: || json!({"type": "object", "properties": {"quarter": {"type": "string", "enum": ["Q1", "Q2", "Q3", "Q4"]}}, "required": ["quarter"]}),
        annotations: || json!({"readOnlyHint": true}),
        runs_as: ("forbidden_echo", 0),
    },
    OwnTool {
        name: "purge_reports",
        task_support: "required",
        description: "Deletes every stored report; slow.",
        input_schema: || json!({"type": "object", "properties": {}}),
        annotations: || json!({"destructiveHint": true}),
        runs_as: ("tool_error", 0),
    },
];

/// The variant's `tools/list` result.
pub fn tools_list() -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": (t.input_schema)(),
                "annotations": (t.annotations)(),
                "execution": {"taskSupport": t.task_support},
            })
        })
        .collect();
    json!({ "tools": tools })
}

/// The fixture a call of one of the variant's tools runs as, with the arguments it runs with
/// and the tool's own taskSupport; None for a name it does not list.
pub fn as_fixture(name: &str, args: &Value) -> Option<(&'static str, Value, &'static str)> {
    let tool = TOOLS.iter().find(|t| t.name == name)?;
    let (fixture, ms) = tool.runs_as;
    let mut args = args.clone();
    if !args.is_object() {
        args = json!({});
    }
    args["ms"] = json!(ms);
    Some((fixture, args, tool.task_support))
}
