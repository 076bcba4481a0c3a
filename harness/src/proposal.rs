//! `taskcheck init`'s proposal: which of a server's own tools could play each fixture role,
//! with what arguments. It proposes only on evidence (a tool of the role's name, or a name or
//! description that says what the role does, a `taskSupport` that answers the role's calls
//! the same way, and arguments its input schema accepts), since a tool mapped to a role it
//! does not play would make the role's checks accuse a correct server; a tool that may destroy
//! something is never proposed unless the user allows it; the user confirms before anything
//! is written.

use crate::fixtures::{allows, declared_support, find, show_support as show, Mapping};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// What the proposal says of one role.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// A tool of the role's own name plays it; no mapping needed.
    Itself,
    /// One of the server's tools, called with these arguments.
    Mapped(Mapping),
    /// No tool plays it; why, naming the near misses.
    Unplayed(String),
}

/// Words in a tool's name or description that say it does what a role does.
fn hints(role: &str) -> &'static [&'static str] {
    match role {
        "sync_echo" | "forbidden_echo" => &["echo", "repeat", "say"],
        "optional_sleep" | "required_sleep" => &["sleep", "wait", "delay", "slow", "long"],
        "tool_error" => &["error", "fail"],
        "protocol_error" => &["protocol", "throw", "exception", "crash"],
        // asking is not enough: a tool that asks an LLM samples, it does not elicit
        "elicit_input" => &[
            "elicit",
            "confirm",
            "question",
            "asks the user",
            "user input",
        ],
        "progress_sleep" => &["progress"],
        _ => &[],
    }
}

/// How well a tool's name and description say it plays `role`: 0 when they do not. A tool
/// that declares it runs as a task (taskSupport `required` or `optional`) is some evidence for
/// the sleep roles, which ask only for work that takes a while and completes, with progress
/// for one of them (init watches what it does before it proposes it).
fn score(tool: &Value, role: &str) -> usize {
    let declared = declared_support(tool);
    let task_tool = matches!(declared, Some("required" | "optional"))
        && matches!(role, "optional_sleep" | "required_sleep" | "progress_sleep");
    let text = |key: &str| {
        tool.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_lowercase()
    };
    let (name, description) = (text("name"), text("description"));
    let words: usize = hints(role)
        .iter()
        .map(|w| 2 * usize::from(name.contains(w)) + usize::from(says(&description, w)))
        .sum();
    words + usize::from(task_tool)
}

/// Words that deny what follows them in a description ("not a protocol error").
const NEGATIONS: [&str; 4] = ["not ", "never ", "no ", "without "];

/// Whether a description uses `word` without denying it just before.
fn says(description: &str, word: &str) -> bool {
    description.match_indices(word).any(|(at, _)| {
        let before = &description[description[..at]
            .char_indices()
            .rev()
            .nth(15)
            .map_or(0, |(i, _)| i)..at];
        !NEGATIONS.iter().any(|n| before.contains(n))
    })
}

/// The fixture argument a property of the tool can carry (`${ms}`, `${seconds}`, ...), if any.
fn carried(role: &str, property: &str, schema: &Value) -> Option<&'static str> {
    let kind = kind_of(schema);
    let p = property.to_lowercase();
    let numeric = kind == "integer" || kind == "number";
    let echo = matches!(role, "sync_echo" | "forbidden_echo");
    // a duration's unit, by its name, else by its description where the name says only that
    // it is a duration (`duration`, `delay`: "how long to wait, in seconds")
    let said = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    let a_duration = DURATION_WORDS.iter().any(|w| p.contains(w));
    let says_ms = said.contains("millisecond")
        || said
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "ms");
    let in_ms = p == "ms"
        || p.contains("millis")
        || p.ends_with("_ms")
        || property.ends_with("Ms")
        || (a_duration && says_ms);
    if numeric && in_ms {
        return Some("${ms}");
    }
    let in_seconds = p.contains("second")
        || p.ends_with("_s")
        || p == "secs"
        || (a_duration && !says_ms && said.contains("second"));
    if numeric && in_seconds {
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

/// Words in a property's name that say it is a duration, its unit left to its description.
const DURATION_WORDS: [&str; 4] = ["duration", "delay", "sleep", "wait"];

/// A property's JSON type: its `type`, or the one number or string type of a union
/// (`["number", "null"]`, or an `anyOf` with `{"type": "null"}`, as Pydantic writes
/// `float | None`); empty where none is told.
fn kind_of(schema: &Value) -> &str {
    fn one(t: &Value) -> Option<&str> {
        match t {
            Value::String(k) if k != "null" => Some(k.as_str()),
            Value::Array(ks) => ks.iter().filter_map(Value::as_str).find(|k| *k != "null"),
            _ => None,
        }
    }
    if let Some(k) = schema.get("type").and_then(one) {
        return k;
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .find_map(|branch| branch.get("type").and_then(one))
        .unwrap_or_default()
}

/// The fixture arguments a mapping's placeholders stand for when its arguments are checked
/// against the tool's input schema.
fn checked_vars() -> crate::matcher::Vars {
    let mut vars = crate::matcher::Vars::new();
    for (key, value) in [
        ("ms", json!(1000)),
        ("seconds", json!(1.0)),
        ("seconds_ceil", json!(1)),
        ("text", json!("taskcheck")),
        ("steps", json!(3)),
    ] {
        vars.insert(key.into(), value);
    }
    vars
}

/// The arguments a tool takes to play `role`, or why it cannot: fixture arguments where a
/// property carries one, a sample value for every other required property, all of it valid
/// against the tool's `inputSchema` (checked with the `jsonschema` crate). A plain-call role
/// asks nothing of what a tool does with them, so its tool may take samples alone.
fn arguments(tool: &Value, role: &str) -> Result<Value, String> {
    let carrying = arguments_carrying(tool, role, true);
    match carrying {
        Err(_) if plain_role(role) => arguments_carrying(tool, role, false).or(carrying),
        found => found,
    }
}

/// The arguments of [`arguments`], fixture arguments carried where a property can when `carry`.
fn arguments_carrying(tool: &Value, role: &str, carry: bool) -> Result<Value, String> {
    let empty = Map::new();
    let properties = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required = required(tool);
    let mut args = Map::new();
    for (name, schema) in properties {
        let already = |v: &str| args.values().any(|a| a == v);
        match carried(role, name, schema).filter(|_| carry) {
            Some(v) if !already(v) => {
                args.insert(name.clone(), json!(v));
            }
            _ if required.contains(&name.as_str()) => {
                args.insert(name.clone(), crate::schema::sample(schema));
            }
            _ => {}
        }
    }
    let args = Value::Object(args);
    if let Some(schema) = tool.get("inputSchema").filter(|s| s.is_object()) {
        let sent = crate::matcher::substitute(&args, &checked_vars()).unwrap_or(json!({}));
        let validator = jsonschema::validator_for(schema)
            .map_err(|e| format!("has an input schema taskcheck cannot read: {e}"))?;
        let first = validator.iter_errors(&sent).next().map(|e| e.to_string());
        if let Some(e) = first {
            return Err(format!(
                "rejects the arguments taskcheck would send ({sent}): {e} (map it by hand)"
            ));
        }
    }
    Ok(args)
}

/// Whether a role's timed scenarios need the tool's duration measured: it plays a role whose
/// work takes `ms`, and takes no duration of its own.
pub fn needs_duration(role: &str, mapping: &Mapping) -> bool {
    let timed = matches!(role, "optional_sleep" | "required_sleep" | "progress_sleep");
    let text = mapping
        .arguments
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default();
    timed && !text.contains("${ms}") && !text.contains("${seconds")
}

/// How a tool's `execution.taskSupport` answers a role's calls (always alike when the server
/// does not negotiate it): 2 for both kinds of call, 1 for one (the other kind of call is left
/// out of the role's scenarios), 0 for neither.
fn agreement(tool: &Value, wanted: Option<&str>, negotiates: bool) -> usize {
    let declared = declared_support(tool);
    [false, true]
        .into_iter()
        .filter(|task| !negotiates || allows(declared, *task) == allows(wanted, *task))
        .count()
}

/// Whether a role makes plain calls only (the echo roles of the 2025-11-25 contract, whose
/// scenarios need a tool without task support, whatever it does).
fn plain_role(role: &str) -> bool {
    find(role).is_some_and(|f| !allows(f.task_support, true))
}

/// Whether a tool that declares `declared` may play `role`, where the server negotiates
/// taskSupport: a task role never goes to a tool that never runs as a task, and a plain-call
/// role chosen on no words needs a tool without task support.
fn may_play(declared: Option<&str>, role: &str, words: bool) -> bool {
    match plain_role(role) {
        true => words || !allows(declared, true),
        false => allows(declared, true),
    }
}

/// Words in a tool's name that say it may destroy something.
const DESTRUCTIVE_WORDS: [&str; 9] = [
    "delete", "remove", "drop", "destroy", "purge", "erase", "wipe", "reset", "truncate",
];

/// Why taskcheck must not call a tool unless the user allows it: its annotations say it may
/// destroy something (`destructiveHint: true`), or it is not marked read-only and its name
/// says it deletes. None for a tool it may call.
pub fn unsafe_to_call(tool: &Value) -> Option<String> {
    let hint = |key: &str| {
        tool.pointer(&format!("/annotations/{key}"))
            .and_then(Value::as_bool)
    };
    if hint("readOnlyHint") == Some(true) {
        return None;
    }
    if hint("destructiveHint") == Some(true) {
        return Some("its annotations say it may destroy something (destructiveHint)".into());
    }
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    let word = DESTRUCTIVE_WORDS.iter().find(|w| name.contains(*w))?;
    Some(format!(
        "its name says it may destroy something ({word:?}) and its annotations do not say it is read-only"
    ))
}

/// What the server declares that decides which of its tools may play a role.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// It serves tasks under the design tested (a server without them plays no task role).
    pub tasks: bool,
    /// It negotiates `taskSupport` (declares task-augmented `tools/call`).
    pub negotiates: bool,
}

/// The proposal for every fixture role, given the server's tools, what it declares, and the
/// tools the user allows although they may destroy something (`--allow-tool`).
pub fn propose(
    roles: &[&'static str],
    tools: &[Value],
    declared: Declared,
    allowed: &[String],
) -> BTreeMap<&'static str, Choice> {
    let negotiates = declared.negotiates;
    let name = |t: &Value| {
        t.get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let own = |t: &Value| roles.contains(&name(t).as_str());
    let forbidden = |t: &Value| unsafe_to_call(t).filter(|_| !allowed.contains(&name(t)));
    roles
        .iter()
        .map(|&role| {
            // a role of the 2025-11-25 contract has a taskSupport; another design's does not
            // negotiate one
            let wanted = find(role).and_then(|f| f.task_support);
            if !declared.tasks && !plain_role(role) {
                let why = "the server declares no Tasks under this design, so no tool of it runs as a task";
                return (role, Choice::Unplayed(why.into()));
            }
            if let Some(tool) = tools.iter().find(|t| name(t) == role) {
                if agreement(tool, wanted, negotiates) > 0 && forbidden(tool).is_none() {
                    return (role, Choice::Itself);
                }
            }
            let mut why = Vec::new();
            for tool in ranked(role, tools, roles, negotiates) {
                match mapping_for(tool, role, negotiates, allowed) {
                    Ok(mapping) => return (role, Choice::Mapped(mapping)),
                    Err(e) => why.push(format!("{:?} {e}", name(tool))),
                }
            }
            let why = match why.is_empty() {
                true if tools.is_empty() => "the server lists no tools".to_string(),
                true if hints(role).is_empty() => "what it does cannot be told from a tool's name or description (`taskcheck list --fixtures` says what it must do): map a tool that does it by hand".to_string(),
                true => {
                    let fitting: Vec<String> = tools
                        .iter()
                        .filter(|t| !own(t) && agreement(t, wanted, negotiates) > 0)
                        .filter(|t| !negotiates || may_play(declared_support(t), role, false))
                        .map(|t| format!("{:?}", name(t)))
                        .collect();
                    let near = match fitting.is_empty() {
                        true => String::new(),
                        false => format!(
                            " (near misses, whose taskSupport fits but whose words do not: {}; map one by hand if it does this)",
                            fitting.join(", ")
                        ),
                    };
                    format!("no tool's name or description says it does this{near}")
                }
                false => format!("near misses: {}", why.join("; ")),
            };
            (role, Choice::Unplayed(why))
        })
        .collect()
}

/// The tools that may play `role`, best evidence first (a taskSupport that answers every call
/// of the role alike, the role's own taskSupport, then the words, then a read-only hint); a
/// fixture tool of another role never plays this one, and a plain-call role asks only for a
/// tool without task support, words or none.
fn ranked<'t>(role: &str, tools: &'t [Value], roles: &[&str], negotiates: bool) -> Vec<&'t Value> {
    let wanted = find(role).and_then(|f| f.task_support);
    let own =
        |t: &Value| roles.contains(&t.get("name").and_then(Value::as_str).unwrap_or_default());
    let mut candidates: Vec<&Value> = tools
        .iter()
        .filter(|t| {
            let plain = plain_role(role) && (!negotiates || !allows(declared_support(t), true));
            !own(t) && (score(t, role) > 0 || plain)
        })
        .collect();
    let exact = |t: &Value| declared_support(t) == wanted;
    let read_only = |t: &Value| t.pointer("/annotations/readOnlyHint") == Some(&json!(true));
    candidates.sort_by_key(|t| {
        let agrees = agreement(t, wanted, negotiates);
        std::cmp::Reverse((agrees, exact(t), score(t, role), read_only(t)))
    });
    candidates
}

/// Every tool that may play `role` as [`propose`] would map it, best evidence first: the next
/// to try where a call shows the one proposed does something else.
pub fn candidates(
    role: &str,
    tools: &[Value],
    roles: &[&str],
    negotiates: bool,
    allowed: &[String],
) -> Vec<Mapping> {
    ranked(role, tools, roles, negotiates)
        .into_iter()
        .filter_map(|t| mapping_for(t, role, negotiates, allowed).ok())
        .collect()
}

/// How `tool` plays `role`, or why it may not: a tool that may destroy something and is not
/// `allowed`, whose taskSupport answers no call of the role, that never runs as a task for a
/// task role, or whose arguments cannot be built.
fn mapping_for(
    tool: &Value,
    role: &str,
    negotiates: bool,
    allowed: &[String],
) -> Result<Mapping, String> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let wanted = find(role).and_then(|f| f.task_support);
    let support = declared_support(tool);
    let words = score(tool, role) > 0;
    let danger = unsafe_to_call(tool).filter(|_| !allowed.contains(&name));
    let arguments = match (danger, agreement(tool, wanted, negotiates)) {
        (Some(danger), _) => Err(format!(
            "{danger}: `--allow-tool {name}` lets taskcheck call it"
        )),
        (None, 0) => Err(format!(
            "declares taskSupport {}, which answers no call of the role as its {} does",
            show(support),
            show(wanted)
        )),
        (None, _) if negotiates && !may_play(support, role, words) => Err(format!(
            "declares taskSupport {}: {}",
            show(support),
            match plain_role(role) {
                true => "it runs as a task, and nothing says it does this",
                false => "it never runs as a task",
            }
        )),
        (None, _) => arguments(tool, role),
    }?;
    Ok(Mapping {
        tool: name,
        arguments: Some(arguments),
        duration_ms: None,
        many_tasks: None,
    })
}

/// Every tool but `chosen` and the fixtures' own that may play the task role `role`, words or
/// none, each as it would play it: the candidates whose calls can be measured for a quicker
/// one.
pub fn others_for(
    role: &str,
    chosen: &str,
    tools: &[Value],
    roles: &[&str],
    negotiates: bool,
    allowed: &[String],
) -> Vec<Mapping> {
    tools
        .iter()
        .filter_map(|t| mapping_for(t, role, negotiates, allowed).ok())
        .filter(|m| m.tool != chosen && !roles.contains(&m.tool.as_str()))
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

    /// The 2025-11-25 roles.
    const ROLES: [&str; 8] = [
        "sync_echo",
        "forbidden_echo",
        "optional_sleep",
        "required_sleep",
        "tool_error",
        "protocol_error",
        "elicit_input",
        "progress_sleep",
    ];

    /// A server that serves tasks and negotiates taskSupport.
    const SERVES: Declared = Declared {
        tasks: true,
        negotiates: true,
    };

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
    fn a_duration_takes_its_unit_from_its_name_or_description_whatever_union_types_it() {
        let sleeper = |props: Value| {
            let t = tool("long_job", Some("optional"), "A long job", props, &[]);
            match &propose(&ROLES, &[t], SERVES, &[])["optional_sleep"] {
                Choice::Mapped(m) => m.arguments.clone().unwrap_or_default(),
                other => panic!("{other:?}"),
            }
        };
        // Pydantic's `float | None`, in seconds by its description
        let seconds = sleeper(
            json!({"duration": {"anyOf": [{"type": "number"}, {"type": "null"}],
            "description": "How long to work, in seconds"}}),
        );
        assert_eq!(seconds, json!({"duration": "${seconds}"}));
        let ms = sleeper(json!({"delay": {"type": ["integer", "null"],
            "description": "delay in milliseconds"}}));
        assert_eq!(ms, json!({"delay": "${ms}"}));
        let named = sleeper(json!({"seconds": {"type": ["number", "null"]}}));
        assert_eq!(named, json!({"seconds": "${seconds}"}));
        // a duration whose unit nothing says carries no fixture duration (init measures it)
        let unsaid = sleeper(json!({"duration": {"type": "number"}}));
        assert_eq!(unsaid, json!({}));
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
        let p = propose(&ROLES, &tools, SERVES, &[]);
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
        // no `execution` answers every call as `forbidden` does; no evidence plays nothing
        assert_eq!(mapped("forbidden_echo"), mapped("sync_echo"));
        assert!(matches!(p["protocol_error"], Choice::Unplayed(_)));
        let roles: Vec<&str> = super::mapped(&p)
            .into_iter()
            .map(|(role, _)| role)
            .collect();
        assert_eq!(
            roles,
            [
                "elicit_input",
                "forbidden_echo",
                "progress_sleep",
                "required_sleep",
                "sync_echo"
            ]
        );
    }

    #[test]
    fn tools_play_roles_by_what_they_are_and_only_safe_ones_unasked() {
        let tools = [
            // a required task tool with a fixed duration and an argument of its own
            tool(
                "build_site",
                Some("required"),
                "builds the site",
                json!({"target": {"type": "string", "enum": ["prod", "dev"]}}),
                &["target"],
            ),
            tool(
                "delete_cache",
                Some("optional"),
                "slow cleanup",
                json!({}),
                &[],
            ),
            tool(
                "echo",
                Some("forbidden"),
                "",
                json!({"text": {"type": "string", "maxLength": 3}}),
                &["text"],
            ),
        ];
        let p = propose(&ROLES, &tools, SERVES, &[]);
        let Choice::Mapped(m) = &p["optional_sleep"] else {
            panic!("{:?}", p["optional_sleep"])
        };
        assert_eq!(m.tool, "build_site");
        assert_eq!(m.arguments, Some(json!({"target": "prod"})));
        assert!(needs_duration("optional_sleep", m));
        // forbidden answers no call of a required role alike; a name that deletes is refused
        let Choice::Unplayed(why) = &p["tool_error"] else {
            panic!("{:?}", p["tool_error"])
        };
        assert!(why.contains("near misses"), "{why}");
        let p = propose(&ROLES, &tools[1..], SERVES, &[]);
        let Choice::Unplayed(why) = &p["optional_sleep"] else {
            panic!("{:?}", p["optional_sleep"])
        };
        assert!(why.contains("--allow-tool delete_cache"), "{why}");
        let p = propose(&ROLES, &tools[1..], SERVES, &["delete_cache".to_string()]);
        assert!(matches!(&p["optional_sleep"], Choice::Mapped(m) if m.tool == "delete_cache"));
        // arguments the input schema rejects ("taskcheck" is longer than 3) are not sent
        let Choice::Unplayed(why) = &p["sync_echo"] else {
            panic!("{:?}", p["sync_echo"])
        };
        assert!(why.contains("rejects the arguments"), "{why}");
        // without negotiation, taskSupport does not matter
        let p = propose(
            &ROLES,
            &[tool(
                "echo",
                Some("optional"),
                "",
                json!({"text": {"type": "string"}}),
                &[],
            )],
            Declared {
                tasks: true,
                negotiates: false,
            },
            &[],
        );
        assert!(matches!(p["forbidden_echo"], Choice::Mapped(_)));
        let annotated = json!({"name": "x", "annotations": {"destructiveHint": true}});
        assert!(unsafe_to_call(&annotated).is_some());
        let read_only = json!({"name": "drop_x", "annotations": {"readOnlyHint": true}});
        assert!(unsafe_to_call(&read_only).is_none());
    }

    #[test]
    fn a_tool_that_never_runs_as_a_task_plays_no_task_role_and_any_plain_tool_plays_the_plain_ones()
    {
        let tools = [
            // its words say it sleeps and reports progress, but it never runs as a task
            tool(
                "wait_for_sync",
                Some("forbidden"),
                "waits for the sync, reporting progress",
                json!({}),
                &[],
            ),
            tool(
                "render",
                Some("required"),
                "renders the scene",
                json!({}),
                &[],
            ),
            // no word of echoing: a plain tool is all the plain-call roles need
            tool(
                "list_scenes",
                Some("forbidden"),
                "lists the scenes",
                json!({"folder": {"type": "string", "enum": ["a", "b"]}}),
                &["folder"],
            ),
        ];
        let p = propose(&ROLES, &tools, SERVES, &[]);
        let played = |role: &str| match &p[role] {
            Choice::Mapped(m) => m.tool.clone(),
            other => panic!("{role}: {other:?}"),
        };
        assert_eq!(played("optional_sleep"), "render");
        assert_eq!(played("required_sleep"), "render");
        assert_eq!(played("progress_sleep"), "render");
        assert_eq!(played("sync_echo"), "wait_for_sync");
        let Choice::Mapped(m) = &p["forbidden_echo"] else {
            panic!("{:?}", p["forbidden_echo"])
        };
        assert_eq!(m.tool, "wait_for_sync");
        let p = propose(&ROLES, &tools[2..], SERVES, &[]);
        let Choice::Mapped(m) = &p["sync_echo"] else {
            panic!("{:?}", p["sync_echo"])
        };
        assert_eq!(
            (m.tool.as_str(), m.arguments.clone()),
            ("list_scenes", Some(json!({"folder": "a"})))
        );
        // a server without Tasks: no task role at all, the plain ones as before
        let without = Declared {
            tasks: false,
            negotiates: false,
        };
        let p = propose(&ROLES, &tools, without, &[]);
        for role in ROLES {
            match (plain_role(role), &p[role]) {
                (true, Choice::Mapped(_)) => {}
                (false, Choice::Unplayed(why)) => {
                    assert!(why.contains("declares no Tasks"), "{why}")
                }
                (_, other) => panic!("{role}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_description_that_denies_a_word_is_no_evidence_and_other_designs_roles_are_named() {
        assert!(!says(
            "returns an error result, not a protocol error",
            "protocol"
        ));
        assert!(says("ends in a protocol error", "protocol"));
        let tools = [tool(
            "careful",
            Some("optional"),
            "never throws; not a protocol error",
            json!({}),
            &[],
        )];
        let p = propose(&["protocol_error", "elicit_pair"], &tools, SERVES, &[]);
        assert!(matches!(&p["protocol_error"], Choice::Unplayed(_)));
        let Choice::Unplayed(why) = &p["elicit_pair"] else {
            panic!("{:?}", p["elicit_pair"])
        };
        assert!(why.contains("map a tool that does it by hand"), "{why}");
    }
}
