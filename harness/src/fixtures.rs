//! The fixture contract: tools a receiver offers so scenarios get deterministic behaviour.

pub mod client;

use crate::bad_input::BadInput;
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

/// Whether a `tools/call` is allowed by an `execution.taskSupport` (absent is `forbidden`),
/// task-augmented or not.
pub fn allows(task_support: Option<&str>, task: bool) -> bool {
    match task_support.unwrap_or("forbidden") {
        "required" => task,
        "optional" => true,
        _ => !task,
    }
}

/// Why a tool declaring `declared` cannot stand for fixture `role` in a call that is
/// task-augmented (`task`) or not: the role's taskSupport and the tool's answer that call
/// differently (a `required` tool called plainly where the role is `optional`), so the call
/// would judge the tool by a promise it never made. None when they agree, or for a role that
/// is no 2025-11-25 fixture.
pub fn disagrees(role: &str, tool: &str, declared: Option<&str>, task: bool) -> Option<String> {
    let wanted = find(role)?.task_support;
    (allows(wanted, task) != allows(declared, task)).then(|| {
        let call = match task {
            true => "a task-augmented call",
            false => "a plain call",
        };
        format!(
            "this step makes {call} of the fixture role {role:?} (taskSupport {}), and the tool playing it, {tool:?}, declares taskSupport {}",
            show_support(wanted),
            show_support(declared)
        )
    })
}

/// The `execution.taskSupport` a listed tool declares, if any.
pub fn declared_support(tool: &Value) -> Option<&str> {
    tool.pointer("/execution/taskSupport")
        .and_then(Value::as_str)
}

/// An `execution.taskSupport` as written, or `absent`.
pub fn show_support(support: Option<&str>) -> String {
    support
        .map(|s| format!("{s:?}"))
        .unwrap_or_else(|| "absent".into())
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
    /// How long the tool works whatever it is given, in ms, for a tool that takes no duration
    /// (`taskcheck init` measures it): a scenario that times the role's work runs that much
    /// slower, so what it proves by timing still holds.
    #[serde(default, rename = "duration-ms")]
    pub duration_ms: Option<u64>,
    /// A quicker tool that plays the role too, called instead by the steps that make many
    /// tasks and need only that each is made (`repeat`), so a run asks less of the server's
    /// work (`taskcheck init` picks the quickest it measured).
    #[serde(default, rename = "many-tasks")]
    pub many_tasks: Option<Box<Mapping>>,
}

/// How fixture roles map to the receiver's tools (`--fixtures FILE`); unmapped roles keep their names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FixtureMap(std::collections::BTreeMap<String, Mapping>);

impl FixtureMap {
    /// Parses a mapping file's text; errors are `file:line:column: cause`.
    pub fn parse(text: &str, file: &str, roles: &[&str]) -> Result<FixtureMap, BadInput> {
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
    ) -> Result<FixtureMap, BadInput> {
        if let Some(role) = map.keys().find(|r| !roles.contains(&r.as_str())) {
            let line = crate::yaml::line_of_key(text, role);
            return Err(BadInput::at(
                file,
                line,
                1,
                format!(
                    "unknown fixture role {role:?} (one of {})",
                    roles.join(", ")
                ),
            ));
        }
        Ok(FixtureMap(map))
    }

    /// The map of one role.
    pub fn single(role: &str, mapping: Mapping) -> FixtureMap {
        FixtureMap([(role.to_string(), mapping)].into())
    }

    /// Reads a mapping file.
    pub fn load(path: &std::path::Path, roles: &[&str]) -> Result<FixtureMap, BadInput> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| BadInput::unreadable(&file, &e))?;
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

    /// Why the receiver cannot play a fixture role its tools lack (`tool` found none).
    pub fn missing_tool(&self, role: &str) -> String {
        let name = self.tool_name(role);
        format!("the receiver has no tool {name:?} for the fixture role {role:?} (see `taskcheck list --fixtures`)")
    }

    /// The receiver's tool that plays a role, from the tools it lists.
    pub fn tool<'t>(&self, role: &str, tools: &'t [Value]) -> Option<&'t Value> {
        let name = self.tool_name(role);
        tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }

    /// The tool's fixed duration, for a role played by a tool that takes none.
    pub fn duration_ms(&self, role: &str) -> Option<u64> {
        self.0.get(role).and_then(|m| m.duration_ms)
    }

    /// Each mapped tool's fixed work per call, in ms, for those that take no duration.
    pub fn fixed_work_ms(&self) -> std::collections::BTreeMap<String, u64> {
        self.0
            .values()
            .flat_map(|m| std::iter::once(m).chain(m.many_tasks.as_deref()))
            .filter_map(|m| Some((m.tool.clone(), m.duration_ms?)))
            .collect()
    }

    /// How a scenario's timing must stretch where roles are played by tools that work a
    /// fixed time, given its calls (role, the `ms` asked): the factor (the most, over calls
    /// asking for some `ms`, of the fixed time over that `ms`; at least 1) and the longest
    /// fixed time of a role it calls.
    pub fn slowdown<'a>(&self, calls: impl Iterator<Item = (&'a str, u64)>) -> (f64, u64) {
        let mut factor: f64 = 1.0;
        let mut longest = 0;
        for (role, ms) in calls {
            let Some(fixed) = self.duration_ms(role) else {
                continue;
            };
            longest = longest.max(fixed);
            if ms > 0 {
                factor = factor.max(fixed as f64 / ms as f64);
            }
        }
        (factor, longest)
    }

    /// The receiver's tool that plays a role.
    pub fn tool_name<'a>(&'a self, role: &'a str) -> &'a str {
        self.0.get(role).map(|m| m.tool.as_str()).unwrap_or(role)
    }

    /// Rewrites `tools/call` params naming a mapped role into a call of the receiver's tool
    /// (where the `task.ttl` takes part in the scenario's timing, `timed_ttl`, a tool that
    /// works a fixed time longer than the call's `ms` is given that much more of it). One of
    /// `many` calls goes to the role's `many-tasks` tool where it has one.
    pub fn apply(&self, params: &Value, timed_ttl: bool, many: bool) -> Result<Value, String> {
        let role = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(mapping) = self.0.get(role) else {
            return Ok(params.clone());
        };
        let mapping = match (many, &mapping.many_tasks) {
            (true, Some(quick)) => quick,
            _ => mapping,
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
        // a tool that works longer than the call asked: its requested ttl counts from the
        // same creation, so it grows by the difference, and the ttl still ends where the
        // scenario meant it to, after the work
        if let (true, Some(fixed), Some(ttl)) = (
            timed_ttl,
            mapping.duration_ms,
            out.pointer("/task/ttl").and_then(Value::as_u64),
        ) {
            let asked = params
                .pointer("/arguments/ms")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            out["task"]["ttl"] = json!(ttl + fixed.saturating_sub(asked));
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
            map.apply(&call, false, false).unwrap(),
            json!({"name": "wait_a_bit", "arguments": {"millis": 200, "label": "t-200"}, "task": {"ttl": 1}})
        );
        let seconds = FixtureMap::parse(
            "optional_sleep:\n  tool: sleep\n  arguments: {duration: \"${seconds}\", whole: \"${seconds_ceil}\"}\n",
            "map.yaml",
            &ROLES,
        )
        .unwrap();
        assert_eq!(
            seconds.apply(&call, false, false).unwrap()["arguments"],
            json!({"duration": 0.2, "whole": 1})
        );
        let echo = json!({"name": "sync_echo", "arguments": {"text": "x"}});
        assert_eq!(
            map.apply(&echo, false, false).unwrap()["arguments"],
            json!({"text": "x"})
        );
    }

    #[test]
    fn mapping_errors_name_file_and_line() {
        let e = FixtureMap::parse(
            "sync_echo:\n  tool: a\nno_such_role:\n  tool: b\n",
            "m.yaml",
            &ROLES,
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(1)), "{e}");
        assert!(
            e.to_string()
                .starts_with("m.yaml:3:1: unknown fixture role"),
            "{e}"
        );
        let e = FixtureMap::parse("sync_echo:\n  tol: a\n", "m.yaml", &ROLES).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("m.yaml", Some(2)), "{e}");
    }

    #[test]
    fn a_tool_of_fixed_duration_stretches_timing_and_ttl() {
        let map = FixtureMap::parse(
            "optional_sleep:\n  tool: report\n  arguments: {}\n  duration-ms: 1500\n",
            "map.yaml",
            &ROLES,
        )
        .unwrap();
        // 1500 ms of work where the scenario asked for 500: three times slower
        let calls = [
            ("optional_sleep", 500),
            ("optional_sleep", 0),
            ("sync_echo", 10),
        ];
        assert_eq!(map.slowdown(calls.into_iter()), (3.0, 1500));
        assert_eq!(map.slowdown([("sync_echo", 10)].into_iter()), (1.0, 0));
        // the ttl grows by the work the call did not ask for
        let call = json!({"name": "optional_sleep", "arguments": {"ms": 0}, "task": {"ttl": 600}});
        assert_eq!(map.apply(&call, true, false).unwrap()["task"]["ttl"], 2100);
        // a ttl that is a magnitude, not a timing (ten years), is sent as written
        assert_eq!(map.apply(&call, false, false).unwrap()["task"]["ttl"], 600);
    }

    #[test]
    fn a_step_making_many_tasks_calls_the_quicker_tool_and_its_work_counts() {
        let map = FixtureMap::parse(
            "optional_sleep:\n  tool: report\n  arguments: {q: Q1}\n  duration-ms: 1500\n  many-tasks: {tool: check, arguments: {q: Q2}, duration-ms: 100}\n",
            "map.yaml",
            &ROLES,
        )
        .unwrap();
        let call = json!({"name": "optional_sleep", "arguments": {"ms": 0}, "task": {"ttl": 600}});
        let once = map.apply(&call, false, false).unwrap();
        let many = map.apply(&call, false, true).unwrap();
        assert_eq!(
            (once["name"].clone(), once["arguments"]["q"].clone()),
            (json!("report"), json!("Q1"))
        );
        assert_eq!(
            (many["name"].clone(), many["arguments"]["q"].clone()),
            (json!("check"), json!("Q2"))
        );
        assert_eq!(
            map.fixed_work_ms(),
            [("check".to_string(), 100), ("report".to_string(), 1500)].into()
        );
        // a role without one calls its own tool either way
        let plain =
            FixtureMap::parse("optional_sleep:\n  tool: report\n", "map.yaml", &ROLES).unwrap();
        assert_eq!(plain.apply(&call, false, true).unwrap()["name"], "report");
    }

    #[test]
    fn a_call_is_left_out_only_where_the_tool_answers_it_otherwise_than_the_role() {
        // a required tool plays optional_sleep's task calls, not its plain ones
        assert!(disagrees("optional_sleep", "t", Some("required"), true).is_none());
        let why = disagrees("optional_sleep", "t", Some("required"), false).unwrap();
        assert!(
            why.contains("plain call") && why.contains("\"required\""),
            "{why}"
        );
        // no `execution` answers as forbidden does
        assert!(disagrees("forbidden_echo", "t", None, true).is_none());
        assert!(disagrees("required_sleep", "t", Some("optional"), false).is_some());
        assert!(disagrees("elicit_pair", "t", None, true).is_none());
    }
}
