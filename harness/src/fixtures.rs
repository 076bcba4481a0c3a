//! The fixture contract: tools a receiver offers so scenarios get deterministic behaviour.

pub mod client;

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

/// One fixture role played by one of the receiver's own tools.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// The receiver's tool name.
    pub tool: String,
    /// Arguments sent instead of the fixture's; `${ms}`, `${text}` and `${steps}` stand for the
    /// fixture arguments the scenario gave (0, "" and 3 when it gave none). Absent: the
    /// fixture's own arguments are sent.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// How fixture roles map to the receiver's tools (`--fixtures FILE`); unmapped roles keep their names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FixtureMap(std::collections::BTreeMap<String, Mapping>);

impl FixtureMap {
    /// Parses a mapping file's text; errors are `file:line:column: cause`.
    pub fn parse(text: &str, file: &str, roles: &[&str]) -> Result<FixtureMap, String> {
        let map = crate::yaml::from_str(text, file)?;
        FixtureMap::checked(map, text, file, roles)
    }

    /// The map of roles read from `text` (a mapping file, or `taskcheck.yaml`'s `fixtures`); a
    /// role none of `roles` (every design's) names is an error naming its line.
    pub fn checked(
        map: std::collections::BTreeMap<String, Mapping>,
        text: &str,
        file: &str,
        roles: &[&str],
    ) -> Result<FixtureMap, String> {
        if let Some(role) = map.keys().find(|r| !roles.contains(&r.as_str())) {
            let line = crate::yaml::line_of_key(text, role);
            return Err(format!(
                "{file}:{line}:1: unknown fixture role {role:?} (one of {})",
                roles.join(", ")
            ));
        }
        Ok(FixtureMap(map))
    }

    /// Reads a mapping file.
    pub fn load(path: &std::path::Path, roles: &[&str]) -> Result<FixtureMap, String> {
        let file = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
        FixtureMap::parse(&text, &file, roles)
    }

    /// Whether the map maps no role at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a role is played by a tool of the receiver's own (`--fixtures`).
    pub fn maps(&self, role: &str) -> bool {
        self.0.contains_key(role)
    }

    /// Why the receiver cannot play a fixture role, given the tools it lists and whether it
    /// negotiates `taskSupport` (it declares `tasks.requests.tools.call`); None if it can.
    pub fn unavailable(&self, role: &str, tools: &[Value], negotiates: bool) -> Option<String> {
        let name = self.tool_name(role);
        let Some(tool) = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
        else {
            return Some(format!(
                "the receiver has no tool {name:?} for the fixture role {role:?} (see `taskcheck list --fixtures`)"
            ));
        };
        let declared = tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str);
        let wanted = find(role).and_then(|f| f.task_support);
        // taskSupport means something only where tasks.requests.tools.call is declared (spec,
        // Tool-Level Negotiation, rule 1): without it, any value (or none) plays the role
        (negotiates && declared != wanted).then(|| {
            let show = |s: Option<&str>| {
                s.map(|s| format!("{s:?}"))
                    .unwrap_or_else(|| "absent".into())
            };
            format!(
                "tool {name:?} declares taskSupport {}, but the fixture role {role:?} needs {}",
                show(declared),
                show(wanted)
            )
        })
    }

    /// The receiver's tool that plays a role.
    pub fn tool_name<'a>(&'a self, role: &'a str) -> &'a str {
        self.0.get(role).map(|m| m.tool.as_str()).unwrap_or(role)
    }

    /// Rewrites `tools/call` params naming a mapped role into a call of the receiver's tool.
    pub fn apply(&self, params: &Value) -> Result<Value, String> {
        let role = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(mapping) = self.0.get(role) else {
            return Ok(params.clone());
        };
        let mut out = params.clone();
        out["name"] = json!(mapping.tool);
        if let Some(template) = &mapping.arguments {
            let given = params.get("arguments").cloned().unwrap_or(json!({}));
            let mut vars = crate::matcher::Vars::new();
            for (key, default) in [("ms", json!(0)), ("text", json!("")), ("steps", json!(3))] {
                vars.insert(key.into(), given.get(key).cloned().unwrap_or(default));
            }
            // a tool that takes seconds: the same duration, exactly or rounded up
            let ms = vars["ms"].as_u64().unwrap_or(0);
            vars.insert("seconds".into(), json!(ms as f64 / 1000.0));
            vars.insert("seconds_ceil".into(), json!(ms.div_ceil(1000)));
            out["arguments"] = crate::matcher::substitute(template, &vars)
                .map_err(|e| format!("fixture mapping of {role:?}: {e}"))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 2025-11-25 roles, as the command line passes every design's.
    const ROLES: [&str; 3] = ["optional_sleep", "sync_echo", "elicit_input"];

    #[test]
    fn mapped_roles_call_the_receivers_tool() {
        let map = FixtureMap::parse(
            "optional_sleep:\n  tool: wait_a_bit\n  arguments: {millis: \"${ms}\", label: \"t-${ms}\"}\nsync_echo:\n  tool: echo\n",
            "map.yaml",
            &ROLES,
        )
        .unwrap();
        assert_eq!(map.tool_name("optional_sleep"), "wait_a_bit");
        assert_eq!(map.tool_name("tool_error"), "tool_error");
        let call = json!({"name": "optional_sleep", "arguments": {"ms": 200}, "task": {"ttl": 1}});
        assert_eq!(
            map.apply(&call).unwrap(),
            json!({"name": "wait_a_bit", "arguments": {"millis": 200, "label": "t-200"}, "task": {"ttl": 1}})
        );
        let seconds = FixtureMap::parse(
            "optional_sleep:\n  tool: sleep\n  arguments: {duration: \"${seconds}\", whole: \"${seconds_ceil}\"}\n",
            "map.yaml",
            &ROLES,
        )
        .unwrap();
        assert_eq!(
            seconds.apply(&call).unwrap()["arguments"],
            json!({"duration": 0.2, "whole": 1})
        );
        let echo = json!({"name": "sync_echo", "arguments": {"text": "x"}});
        assert_eq!(map.apply(&echo).unwrap()["arguments"], json!({"text": "x"}));
    }

    #[test]
    fn mapping_errors_name_file_and_line() {
        let e = FixtureMap::parse(
            "sync_echo:\n  tool: a\nno_such_role:\n  tool: b\n",
            "m.yaml",
            &ROLES,
        )
        .unwrap_err();
        assert!(e.starts_with("m.yaml:3:1: unknown fixture role"), "{e}");
        let e = FixtureMap::parse("sync_echo:\n  tol: a\n", "m.yaml", &ROLES).unwrap_err();
        assert!(e.starts_with("m.yaml:2:"), "{e}");
    }
}
