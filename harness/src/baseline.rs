//! Expected failures (`--expected-failures FILE`) in the official conformance suite's YAML form:
//! `server:` lists `scenario` (every failure of it) or `scenario:check-id` (a rule id) entries.
//! An official suite's entry carries over: `official-scenario:check-id` lists the failures of
//! the rules the catalogue maps to that check (`official:`), and `official-scenario` those of
//! every rule mapped to one of its checks. A listed failure does not fail the run; an entry that
//! matches no failure is stale and does.

use crate::bad_input::BadInput;
use crate::spec;
use serde_json::Value;

/// One entry of a baseline.
#[derive(Debug, Clone, PartialEq)]
struct Expected {
    text: String,
    scenario: String,
    rule: Option<String>,
    /// The entry names the official suite's scenario (and check), not taskcheck's.
    official: bool,
}

/// A parsed baseline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baseline {
    entries: Vec<Expected>,
}

/// The 1-based line where `needle` first stands, for error positions.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or(0) + 1
}

impl Baseline {
    /// Parses a baseline's text, checking every entry names a known scenario (one of
    /// `scenarios`, the ids of what the command runs, or an official one) and rule.
    pub fn parse(text: &str, file: &str, scenarios: &[String]) -> Result<Baseline, BadInput> {
        let at =
            |needle: &str, cause: String| BadInput::on_line(file, line_of(text, needle), cause);
        if text.trim().is_empty() {
            return Ok(Baseline::default());
        }
        let doc: Value = serde_saphyr::from_str(text).map_err(|e| {
            let (line, _, cause) = crate::yaml::located(&e, text);
            BadInput::on_line(file, line, format!("not YAML: {cause}"))
        })?;
        let map = doc.as_object().ok_or_else(|| {
            BadInput::on_line(file, 1, "expected a mapping with a `server:` list of `scenario` or `scenario:check-id` entries")
        })?;
        let mut entries = Vec::new();
        for (key, list) in map {
            if key != "server" && key != "client" {
                return Err(at(key, format!("unknown key `{key}`: only `server` (and `client`, for client receivers) are read")));
            }
            let items = match list {
                Value::Null => continue,
                Value::Array(items) => items,
                _ => {
                    return Err(at(
                        key,
                        format!(
                            "`{key}` must be a list of `scenario` or `scenario:check-id` entries"
                        ),
                    ))
                }
            };
            for (i, item) in items.iter().enumerate() {
                let Some(entry) = item.as_str() else {
                    return Err(at(key, format!("entry {} of `{key}` is {item}, not a string `scenario` or `scenario:check-id`", i + 1)));
                };
                let (scenario, rule) = match entry.split_once(':') {
                    Some((s, r)) => (s.trim(), Some(r.trim())),
                    None => (entry.trim(), None),
                };
                let official = !scenarios.iter().any(|s| s == scenario);
                if official && !official_rules(scenario, rule).any(|_| true) {
                    let cause = match official_rules(scenario, None).any(|_| true) {
                        true => format!(
                            "no check `{}` of the official scenario `{scenario}` that a taskcheck rule maps (see the catalogue's `official:` fields)",
                            rule.unwrap_or_default()
                        ),
                        false => format!("no scenario `{scenario}` (see `taskcheck list`), nor an official one a taskcheck rule maps"),
                    };
                    return Err(at(entry, cause));
                }
                if let Some(r) = rule.filter(|r| !official && spec::rule(r).is_none()) {
                    return Err(at(
                        entry,
                        format!("no rule `{r}`: a check-id is a rule id (see `taskcheck list`)"),
                    ));
                }
                if key == "server" {
                    entries.push(Expected {
                        text: entry.to_string(),
                        scenario: scenario.to_string(),
                        rule: rule.map(str::to_string),
                        official,
                    });
                }
            }
        }
        Ok(Baseline { entries })
    }

    /// Reads a baseline file.
    pub fn load(path: &std::path::Path, scenarios: &[String]) -> Result<Baseline, BadInput> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| BadInput::unreadable(&file, &e))?;
        Baseline::parse(&text, &file, scenarios)
    }

    fn matches(e: &Expected, scenario: &str, rule: &str) -> bool {
        match e.official {
            true => official_rules(&e.scenario, e.rule.as_deref()).any(|r| r.id == rule),
            false => e.scenario == scenario && e.rule.as_deref().is_none_or(|r| r == rule),
        }
    }

    /// Whether a failing check (scenario, rule) is listed.
    pub fn lists(&self, scenario: &str, rule: &str) -> bool {
        self.entries
            .iter()
            .any(|e| Baseline::matches(e, scenario, rule))
    }

    /// Entries that match none of the failures: they should be removed.
    pub fn stale(&self, failing: &[(String, String)]) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| !failing.iter().any(|(s, r)| Baseline::matches(e, s, r)))
            .map(|e| e.text.clone())
            .collect()
    }
}

/// The rules the catalogue maps to an official scenario's check (any of its checks when none).
fn official_rules<'a>(
    scenario: &'a str,
    check: Option<&'a str>,
) -> impl Iterator<Item = &'static spec::Rule> + 'a {
    spec::catalogue().iter().filter(move |r| {
        r.official.iter().any(|o| match o.split_once(':') {
            Some((s, c)) => s == scenario && check.is_none_or(|want| want == c),
            None => false,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> Vec<String> {
        crate::scenario::builtin()
            .into_iter()
            .map(|s| s.id)
            .collect()
    }

    #[test]
    fn entries_match_scenarios_or_their_checks() {
        let b = Baseline::parse(
            "server:\n  - cancel-terminal\n  - create-poll-result:tasks.result.exact\nclient: []\n",
            "b.yaml",
            &library(),
        )
        .unwrap();
        assert!(b.lists("cancel-terminal", "tasks.cancel.terminal-rejected"));
        assert!(b.lists("create-poll-result", "tasks.result.exact"));
        assert!(!b.lists("create-poll-result", "tasks.result.blocks"));
        let failing = vec![(
            "cancel-terminal".to_string(),
            "tasks.cancel.terminal-rejected".to_string(),
        )];
        assert_eq!(
            b.stale(&failing),
            vec!["create-poll-result:tasks.result.exact"]
        );
    }

    #[test]
    fn mistakes_get_targeted_messages() {
        let lib = library();
        let err = |t: &str| Baseline::parse(t, "b.yaml", &lib).unwrap_err().to_string();
        assert!(err("servers:\n  - x\n").starts_with("b.yaml:1: unknown key `servers`"));
        assert!(err("server: cancel-terminal\n").contains("must be a list"));
        assert!(err("server:\n  - {a: 1}\n").contains("not a string"));
        assert_eq!(
            err("server:\n  - cancel-terminal\n  - no-such\n"),
            "b.yaml:3: no scenario `no-such` (see `taskcheck list`), nor an official one a taskcheck rule maps"
        );
        assert!(err("server:\n  - tasks-lifecycle:no-such-check\n")
            .contains("no check `no-such-check` of the official scenario `tasks-lifecycle`"));
        assert!(err("server:\n  - cancel-terminal:tasks.nope\n").contains("no rule `tasks.nope`"));
        assert!(err("- a\n").contains("expected a mapping"));
        assert!(err("server: [\n").starts_with("b.yaml:"));
        assert_eq!(
            Baseline::parse("", "b.yaml", &lib).unwrap(),
            Baseline::default()
        );
    }

    #[test]
    fn an_official_suites_entries_list_the_rules_mapped_to_their_checks() {
        let b = Baseline::parse(
            "server:\n  - tasks-dispatch-and-envelope:sep-2663-durable-create-strong-consistency\n  - tasks-mrtr-input\n",
            "b.yaml",
            &library(),
        )
        .unwrap();
        // the check's rule, in whichever taskcheck scenario it failed
        assert!(b.lists("ext-cancel", "ext-tasks.create.durable"));
        assert!(b.lists(
            "ext-input-pair",
            "ext-tasks.update.partial-keeps-input-required"
        ));
        assert!(!b.lists("ext-cancel", "ext-tasks.cancel.ack-empty"));
        let failing = vec![(
            "ext-create-poll-complete".to_string(),
            "ext-tasks.create.durable".to_string(),
        )];
        assert_eq!(b.stale(&failing), vec!["tasks-mrtr-input"]);
    }
}
