//! The `renamed-tools` variant every design's reference has: each fixture tool listed under a
//! name of its own, taking its arguments under keys of its own and answering in words of its
//! own, as a real server's tools do. Played through the `--fixtures` map
//! [`FIXTURES_MAP`] it must give the verdicts the fixture tools give (tests/invariance.rs):
//! no verdict may rest on taskcheck's tool names, argument keys or a tool's output.

use serde_json::{json, Map, Value};

/// The argument keys of the fixture contract and the variant's own for them.
const KEYS: [(&str, &str); 3] = [("ms", "wait_for"), ("text", "words"), ("steps", "beats")];

/// The `--fixtures` map that has the variant's tools play every fixture role of both designs.
pub const FIXTURES_MAP: &str = "\
optional_sleep: {tool: sleep_optional_tool, arguments: {wait_for: \"${ms}\"}}
required_sleep: {tool: sleep_required_tool, arguments: {wait_for: \"${ms}\"}}
sync_echo: {tool: echo_sync_tool, arguments: {words: \"${text}\"}}
forbidden_echo: {tool: echo_forbidden_tool, arguments: {words: \"${text}\"}}
tool_error: {tool: error_tool_tool, arguments: {wait_for: \"${ms}\"}}
protocol_error: {tool: error_protocol_tool, arguments: {wait_for: \"${ms}\"}}
elicit_input: {tool: input_elicit_tool, arguments: {}}
progress_sleep: {tool: sleep_progress_tool, arguments: {wait_for: \"${ms}\", beats: \"${steps}\"}}
elicit_pair: {tool: pair_elicit_tool, arguments: {}}
elicit_twice: {tool: twice_elicit_tool, arguments: {}}
confirm_first: {tool: first_confirm_tool, arguments: {}}
";

/// The variant's name for a fixture tool: its words the other way round (`sleep_optional_tool`).
pub fn name_of(fixture: &str) -> String {
    let words: Vec<&str> = fixture.split('_').rev().collect();
    format!("{}_tool", words.join("_"))
}

/// The fixture a name of the variant's stands for, among `fixtures`.
pub fn fixture_of<'a>(name: &str, fixtures: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    fixtures.into_iter().find(|f| name_of(f) == name)
}

fn renamed_keys(map: &Map<String, Value>, own: bool) -> Map<String, Value> {
    map.iter()
        .map(|(k, v)| {
            let key = KEYS
                .iter()
                .find(|(fixture, mine)| if own { fixture == k } else { mine == k })
                .map(|(fixture, mine)| if own { *mine } else { *fixture })
                .unwrap_or(k);
            (key.to_string(), v.clone())
        })
        .collect()
}

/// A fixture tool as the variant lists it: its own name and argument keys.
pub fn listed(mut tool: Value) -> Value {
    if let Some(name) = tool.get("name").and_then(Value::as_str) {
        tool["name"] = json!(name_of(name));
    }
    if let Some(props) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    {
        tool["inputSchema"]["properties"] = Value::Object(renamed_keys(props, true));
    }
    tool
}

/// The fixture's arguments for arguments given under the variant's keys.
pub fn arguments(args: &Value) -> Value {
    match args.as_object() {
        Some(map) => Value::Object(renamed_keys(map, false)),
        None => args.clone(),
    }
}

/// A tool's result in the variant's own words: every text item says something else.
pub fn output(mut result: Value) -> Value {
    if let Some(items) = result.get_mut("content").and_then(Value::as_array_mut) {
        for item in items {
            if let Some(text) = item.get("text").and_then(Value::as_str) {
                item["text"] = json!(format!(
                    "done, in words of its own ({} characters)",
                    text.len()
                ));
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_keys_go_there_and_back() {
        assert_eq!(name_of("optional_sleep"), "sleep_optional_tool");
        let fixtures = ["sync_echo", "optional_sleep"];
        assert_eq!(
            fixture_of("sleep_optional_tool", fixtures),
            Some("optional_sleep")
        );
        assert_eq!(fixture_of("optional_sleep", fixtures), None);
        let tool = json!({"name": "progress_sleep", "inputSchema": {"type": "object",
            "properties": {"ms": {"type": "integer"}, "steps": {"type": "integer"}}}});
        let own = listed(tool);
        assert_eq!(own["name"], "sleep_progress_tool");
        assert_eq!(
            own["inputSchema"]["properties"],
            json!({"wait_for": {"type": "integer"}, "beats": {"type": "integer"}})
        );
        assert_eq!(
            arguments(&json!({"wait_for": 5, "beats": 2, "other": 1})),
            json!({"ms": 5, "steps": 2, "other": 1})
        );
        let said = output(json!({"content": [{"type": "text", "text": "slept 5"}]}));
        assert_ne!(said["content"][0]["text"], "slept 5");
    }

    #[test]
    fn the_map_names_every_role_by_the_variants_name() {
        for line in FIXTURES_MAP.lines() {
            let (role, rest) = line.split_once(':').unwrap();
            assert!(rest.contains(&name_of(role)), "{line}");
        }
    }
}
