//! `taskcheck init`'s proposal: which of a server's own tools could play each fixture role,
//! with what arguments. It proposes only on evidence (a tool of the role's name, or a name or
//! description that says what the role does, the right `taskSupport` and arguments that carry
//! the fixture's), since a tool mapped to a role it does not play would make the role's checks
//! accuse a correct server; the user confirms before anything is written.

use crate::fixtures::{Fixture, Mapping, FIXTURES};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// What the proposal says of one role.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// A tool of the role's own name plays it; no mapping needed.
    Itself,
    /// One of the server's tools, called with these arguments.
    Mapped(Mapping),
    /// No tool plays it; why.
    Unplayed(String),
}

/// Words in a tool's name or description that say it does what a role does.
fn hints(role: &str) -> &'static [&'static str] {
    match role {
        "sync_echo" | "forbidden_echo" => &["echo", "repeat", "say"],
        "optional_sleep" | "required_sleep" => &["sleep", "wait", "delay", "slow", "long"],
        "tool_error" => &["error", "fail"],
        "protocol_error" => &["protocol", "throw", "exception", "crash"],
        "elicit_input" => &["elicit", "ask", "input", "confirm", "question"],
        "progress_sleep" => &["progress"],
        _ => &[],
    }
}

/// How well a tool's name and description say it plays `role`: 0 when they do not.
fn score(tool: &Value, role: &str) -> usize {
    let text = |key: &str| {
        tool.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_lowercase()
    };
    let (name, description) = (text("name"), text("description"));
    hints(role)
        .iter()
        .map(|w| 2 * usize::from(name.contains(w)) + usize::from(description.contains(w)))
        .sum()
}

/// The fixture argument a property of the tool can carry (`${ms}`, `${seconds}`, ...), if any.
fn carried(role: &str, property: &str, schema: &Value) -> Option<&'static str> {
    let kind = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let p = property.to_lowercase();
    let numeric = kind == "integer" || kind == "number";
    let echo = matches!(role, "sync_echo" | "forbidden_echo");
    let in_ms = p == "ms" || p.contains("millis") || p.ends_with("_ms") || property.ends_with("Ms");
    if numeric && in_ms {
        return Some("${ms}");
    }
    if numeric && (p.contains("second") || p.ends_with("_s") || p == "secs") {
        return Some(if kind == "integer" {
            "${seconds_ceil}"
        } else {
            "${seconds}"
        });
    }
    if numeric && role == "progress_sleep" && matches!(p.as_str(), "steps" | "count" | "n") {
        return Some("${steps}");
    }
    if kind == "string" && echo {
        return Some("${text}");
    }
    None
}

/// The arguments a tool takes to play `role`, or why it cannot: a required property no fixture
/// argument fills, or a role whose behaviour depends on an argument the tool lacks.
fn arguments(tool: &Value, role: &str) -> Result<Value, String> {
    let empty = Map::new();
    let properties = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required = required(tool);
    let mut args = Map::new();
    for (name, schema) in properties {
        let already = |v: &str| args.values().any(|a| a == v);
        match carried(role, name, schema) {
            Some(v) if !already(v) => {
                args.insert(name.clone(), json!(v));
            }
            _ if required.contains(&name.as_str()) => {
                return Err(format!(
                    "needs `{name}`, which no fixture argument fills (map it by hand)"
                ))
            }
            _ => {}
        }
    }
    let has = |v: &str| {
        args.values()
            .any(|a| a.as_str().is_some_and(|a| a.starts_with(v)))
    };
    let timed = matches!(role, "optional_sleep" | "required_sleep" | "progress_sleep");
    if timed && !has("${ms}") && !has("${seconds") {
        return Err(
            "takes no duration, and the role's scenarios need a task that is still working".into(),
        );
    }
    if matches!(role, "sync_echo" | "forbidden_echo") && !has("${text}") {
        return Err("takes no string to echo".into());
    }
    Ok(Value::Object(args))
}

/// Whether a tool's `execution.taskSupport` is the role's (always, when the server does not
/// negotiate it).
fn supports(tool: &Value, fixture: &Fixture, negotiates: bool) -> bool {
    let declared = tool
        .pointer("/execution/taskSupport")
        .and_then(Value::as_str);
    !negotiates || declared == fixture.task_support
}

/// The proposal for every fixture role, given the server's tools and whether it negotiates
/// `taskSupport` (declares task-augmented `tools/call`).
pub fn propose(tools: &[Value], negotiates: bool) -> BTreeMap<&'static str, Choice> {
    let name = |t: &Value| {
        t.get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let own = |t: &Value| FIXTURES.iter().any(|f| f.name == name(t));
    FIXTURES
        .iter()
        .map(|fixture| {
            let role = fixture.name;
            if let Some(tool) = tools.iter().find(|t| name(t) == role) {
                if supports(tool, fixture, negotiates) {
                    return (role, Choice::Itself);
                }
            }
            // best evidence first; a fixture tool of another role never plays this one
            let mut candidates: Vec<&Value> = tools
                .iter()
                .filter(|t| !own(t) && score(t, role) > 0 && supports(t, fixture, negotiates))
                .collect();
            candidates.sort_by_key(|t| std::cmp::Reverse(score(t, role)));
            let mut why = Vec::new();
            for tool in candidates {
                match arguments(tool, role) {
                    Ok(arguments) => {
                        let mapping = Mapping {
                            tool: name(tool),
                            arguments: Some(arguments),
                        };
                        return (role, Choice::Mapped(mapping));
                    }
                    Err(e) => why.push(format!("{:?} {e}", name(tool))),
                }
            }
            let wanted = fixture
                .task_support
                .map(|s| format!("taskSupport {s:?}"))
                .unwrap_or_else(|| "no `execution`".into());
            let why = match why.is_empty() {
                true if tools.is_empty() => "the server lists no tools".to_string(),
                true => format!("no tool's name or description says it does this, with {wanted}"),
                false => why.join("; "),
            };
            (role, Choice::Unplayed(why))
        })
        .collect()
}

/// The roles a proposal maps to one of the server's tools, with their mapping.
pub fn mapped<'a>(
    proposal: &'a BTreeMap<&'static str, Choice>,
) -> Vec<(&'static str, &'a Mapping)> {
    proposal
        .iter()
        .filter_map(|(role, c)| match c {
            Choice::Mapped(m) => Some((*role, m)),
            _ => None,
        })
        .collect()
}

/// The properties a tool's input schema requires.
pub fn required(tool: &Value) -> Vec<&str> {
    tool.pointer("/inputSchema/required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(
        name: &str,
        support: Option<&str>,
        description: &str,
        props: Value,
        required: &[&str],
    ) -> Value {
        let mut t = json!({"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": props, "required": required}});
        if let Some(s) = support {
            t["execution"] = json!({"taskSupport": s});
        }
        t
    }

    #[test]
    fn fixture_tools_play_themselves_and_renamed_ones_are_found_by_what_they_say() {
        let tools = [
            tool(
                "optional_sleep",
                Some("optional"),
                "",
                json!({"ms": {"type": "integer"}}),
                &[],
            ),
            tool(
                "slow_report",
                Some("required"),
                "a long job",
                json!({"delay_ms": {"type": "integer"}}),
                &[],
            ),
            tool(
                "ask_user",
                Some("optional"),
                "asks the user a question",
                json!({}),
                &[],
            ),
            tool(
                "say",
                None,
                "repeats what it is given",
                json!({"message": {"type": "string"}}),
                &["message"],
            ),
            tool(
                "countdown",
                Some("optional"),
                "reports progress",
                json!({"seconds": {"type": "number"}, "steps": {"type": "integer"}}),
                &[],
            ),
            tool(
                "deploy",
                Some("optional"),
                "deploys the app",
                json!({"env": {"type": "string"}}),
                &["env"],
            ),
        ];
        let p = propose(&tools, true);
        assert_eq!(p["optional_sleep"], Choice::Itself);
        let mapped = |role: &str| match &p[role] {
            Choice::Mapped(m) => (m.tool.clone(), m.arguments.clone().unwrap()),
            other => panic!("{role}: {other:?}"),
        };
        assert_eq!(
            mapped("required_sleep"),
            ("slow_report".into(), json!({"delay_ms": "${ms}"}))
        );
        assert_eq!(mapped("elicit_input"), ("ask_user".into(), json!({})));
        assert_eq!(
            mapped("sync_echo"),
            ("say".into(), json!({"message": "${text}"}))
        );
        assert_eq!(
            mapped("progress_sleep"),
            (
                "countdown".into(),
                json!({"seconds": "${seconds}", "steps": "${steps}"})
            )
        );
        // a tool with the wrong taskSupport, or no evidence, plays nothing
        assert!(
            matches!(p["forbidden_echo"], Choice::Unplayed(_)),
            "{:?}",
            p["forbidden_echo"]
        );
        assert!(matches!(p["protocol_error"], Choice::Unplayed(_)));
        let roles: Vec<&str> = super::mapped(&p)
            .into_iter()
            .map(|(role, _)| role)
            .collect();
        assert_eq!(
            roles,
            [
                "elicit_input",
                "progress_sleep",
                "required_sleep",
                "sync_echo"
            ]
        );
    }

    #[test]
    fn a_tool_that_cannot_take_the_fixtures_arguments_is_not_proposed() {
        let tools = [
            tool(
                "wait_for_build",
                Some("optional"),
                "",
                json!({"build": {"type": "string"}}),
                &["build"],
            ),
            tool("sleepy", Some("optional"), "", json!({}), &[]),
        ];
        let p = propose(&tools, true);
        let Choice::Unplayed(why) = &p["optional_sleep"] else {
            panic!("{:?}", p["optional_sleep"])
        };
        assert!(why.contains("needs `build`"), "{why}");
        assert!(why.contains("takes no duration"), "{why}");
        // without negotiation, taskSupport does not matter
        let p = propose(
            &[tool(
                "echo",
                Some("optional"),
                "",
                json!({"text": {"type": "string"}}),
                &[],
            )],
            false,
        );
        assert!(matches!(p["forbidden_echo"], Choice::Mapped(_)));
    }
}
