//! Loading scenarios: the embedded library, user directories, and parse errors with positions.

use super::Scenario;
use crate::designs::Profile;
use crate::spec;
use include_dir::{include_dir, Dir};
use std::collections::BTreeSet;
use std::path::Path;

// harness/scenarios links to the top-level scenarios/, so the packaged crate carries them too
static BUILTIN: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/scenarios");

/// The files of one folder of the library (`scenarios/<folder>`), name and text, in order.
pub fn builtin_texts(folder: &str) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = BUILTIN
        .get_dir(folder)
        .map(|d| d.files().collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|f| Some((f.path().display().to_string(), f.contents_utf8()?)))
        .collect();
    out.sort();
    out
}

/// A scenario file that cannot be used: file, position and cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: u64,
    pub column: u64,
    pub cause: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.cause
        )
    }
}

/// Parses and validates one scenario file's text.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let err = |line, column, cause: String| ScenarioError {
        file: file.to_string(),
        line,
        column,
        cause,
    };
    let scenario: Scenario = serde_saphyr::from_str(text).map_err(|e| {
        let (line, column, cause) = crate::yaml::located(&e, text);
        err(
            line as u64,
            column as u64,
            step_key(&cause).unwrap_or(cause),
        )
    })?;
    let locate = |needle: &str| -> (u64, u64) {
        text.lines()
            .enumerate()
            .find_map(|(i, l)| l.find(needle).map(|c| (i as u64 + 1, c as u64 + 1)))
            .unwrap_or((1, 1))
    };
    if scenario.id.is_empty()
        || !scenario
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        let (l, c) = locate("id:");
        return Err(err(
            l,
            c,
            format!(
                "scenario id {:?} must be a non-empty slug of letters, digits and '-'",
                scenario.id
            ),
        ));
    }
    for rule in &scenario.rules {
        if spec::rule(rule).is_none() {
            let (l, c) = locate(rule);
            return Err(err(
                l,
                c,
                format!("unknown rule id {rule:?} (see `taskcheck list`)"),
            ));
        }
        if !applies(rule, scenario.profile) {
            let (l, c) = locate(rule);
            return Err(err(
                l,
                c,
                format!(
                    "rule {rule:?} is not a rule of the profile {} (set `profile:` to the one it belongs to)",
                    scenario.profile
                ),
            ));
        }
    }
    for rule in &scenario.breaks {
        if spec::rule(rule).is_none_or(|r| r.actor != spec::Actor::Requestor) {
            let (l, c) = locate(rule);
            return Err(err(
                l,
                c,
                format!(
                    "`breaks` lists {rule:?}, which is not a requestor rule (see `taskcheck list`)"
                ),
            ));
        }
    }
    for rule in scenario.judged_rules() {
        if !scenario.rules.contains(&rule) {
            let (l, c) = locate(&rule);
            return Err(err(
                l,
                c,
                format!("rule {rule:?} is judged by a step but not listed in `rules`"),
            ));
        }
    }
    for rule in scenario.given_rules() {
        if spec::rule(&rule).is_none() {
            let (l, c) = locate(&rule);
            return Err(err(
                l,
                c,
                format!("`given` names unknown rule id {rule:?} (see `taskcheck list`)"),
            ));
        }
    }
    if scenario.steps.is_empty() {
        let (l, c) = locate("steps");
        return Err(err(l, c, "a scenario needs at least one step".into()));
    }
    Ok(scenario)
}

/// Whether a scenario of a profile may judge a rule: the profile's own, or one its catalogue
/// says holds under every design (`every_design`).
fn applies(rule: &str, profile: Profile) -> bool {
    Profile::of_rule(rule) == profile || crate::spec::rule(rule).is_some_and(|r| r.every_design)
}

/// A key a step does not take, said as such (the parser lists every kind and field as one
/// list): the key, the kind or field it is closest to, then the kinds and the fields apart.
fn step_key(cause: &str) -> Option<String> {
    let rest = cause.strip_prefix("unknown field `")?;
    let (key, expected) = rest.split_once("`, expected one of ")?;
    let kinds: Vec<&str> = super::STEP_KINDS.iter().map(|k| k.key).collect();
    if !kinds.iter().all(|k| expected.split(", ").any(|e| e == *k)) {
        return None;
    }
    let fields: Vec<&str> = expected
        .split(", ")
        .filter(|e| !kinds.contains(e))
        .collect();
    let near = did_you_mean(key, kinds.iter().chain(&fields).copied());
    Some(format!(
        "a step takes no key `{key}`{near} (its kind is one of {}; its fields are among {})",
        kinds.join(", "),
        fields.join(", ")
    ))
}

/// A scenario as YAML that [`parse`] reads back to an equal scenario.
pub fn print(scenario: &Scenario) -> String {
    serde_saphyr::to_string(scenario).unwrap_or_else(|e| format!("# cannot print: {e}\n"))
}

/// The scenarios built into the binary, in id order.
pub fn builtin() -> Vec<Scenario> {
    // each design's scenarios are in its folders (`scenarios/<design>/<receiver>`)
    let folders = Profile::ALL.iter().flat_map(|p| p.facts().scenario_folders);
    let mut out: Vec<Scenario> = folders
        .filter_map(|f| BUILTIN.get_dir(f))
        .flat_map(|d| d.files())
        .filter(|f| f.path().extension().is_some_and(|e| e == "yaml"))
        .map(|f| {
            let name = format!("scenarios/{}", f.path().display());
            parse(f.contents_utf8().unwrap_or_default(), &name)
                .unwrap_or_else(|e| panic!("built-in scenario is broken: {e}"))
        })
        .chain(
            Profile::ALL
                .iter()
                .flat_map(|p| p.facts().own_scenarios)
                .map(|(name, text)| {
                    parse(text, name).unwrap_or_else(|e| panic!("built-in scenario is broken: {e}"))
                }),
        )
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The tag of scenarios that take minutes (soaks): a selection picks them only when it names
/// them (`--scenario`) or the tag (`--tag soak`), never by default or by a rule they judge.
pub const SOAK: &str = "soak";

/// Whether a scenario is a soak (tagged [`SOAK`]).
pub fn is_soak(s: &Scenario) -> bool {
    s.tags.iter().flatten().any(|t| t == SOAK)
}

/// `; did you mean "…"?` naming the one of `known` closest to a mistyped `name`, if one is
/// close (a typo or two away); otherwise nothing.
pub fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> String {
    known
        .map(|k| (strsim::levenshtein(name, k), k))
        .filter(|(distance, _)| *distance <= 2.max(name.len() / 8))
        .min()
        .map(|(_, k)| format!("; did you mean {k:?}?"))
        .unwrap_or_default()
}

/// The scenarios a selection picks: by id (`only`), by a rule they judge, by tag; empty
/// criteria pick everything but the soaks. A name that picks nothing is an error.
pub fn select(
    all: Vec<Scenario>,
    only: &[String],
    rules: &[String],
    tags: &[String],
) -> Result<Vec<Scenario>, String> {
    if let Some(id) = only.iter().find(|id| !all.iter().any(|s| &s.id == *id)) {
        let near = did_you_mean(id, all.iter().map(|s| s.id.as_str()));
        return Err(format!("no scenario {id:?}{near} (see `taskcheck list`)"));
    }
    if let Some(r) = rules.iter().find(|r| spec::rule(r).is_none()) {
        let near = did_you_mean(r, spec::catalogue().iter().map(|r| r.id.as_str()));
        return Err(format!("no rule {r:?}{near} (see `taskcheck list`)"));
    }
    let has_tag = |s: &Scenario, t: &String| s.tags.iter().flatten().any(|x| x == t);
    if let Some(t) = tags.iter().find(|t| !all.iter().any(|s| has_tag(s, t))) {
        let known: BTreeSet<&str> = all
            .iter()
            .flat_map(|s| s.tags.iter().flatten())
            .map(String::as_str)
            .collect();
        let near = did_you_mean(t, known.into_iter());
        return Err(format!(
            "no scenario has the tag {t:?}{near} (see `taskcheck list`)"
        ));
    }
    let picked: Vec<Scenario> = all
        .into_iter()
        .filter(|s| only.is_empty() || only.contains(&s.id))
        .filter(|s| rules.is_empty() || s.rules.iter().any(|r| rules.contains(r)))
        .filter(|s| tags.is_empty() || tags.iter().any(|t| has_tag(s, t)))
        .filter(|s| !is_soak(s) || only.contains(&s.id) || tags.iter().any(|t| t == SOAK))
        .collect();
    if picked.is_empty() {
        return Err("the selection picks no scenario (see `taskcheck list`)".into());
    }
    Ok(picked)
}

/// Loads every `*.yaml` file of a directory; the first broken file is the error.
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, ScenarioError> {
    let unreadable = |cause: String| ScenarioError {
        file: dir.display().to_string(),
        line: 0,
        column: 0,
        cause,
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| unreadable(format!("cannot read the scenario directory: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let name = p.display().to_string();
            let text = std::fs::read_to_string(p).map_err(|e| ScenarioError {
                file: name.clone(),
                line: 0,
                column: 0,
                cause: format!("cannot read: {e}"),
            })?;
            parse(&text, &name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_scenarios_parse_and_round_trip() {
        let all = builtin();
        assert!(all.len() >= 10);
        for s in &all {
            let printed = print(s);
            assert_eq!(&parse(&printed, "printed").unwrap(), s, "{}", s.id);
        }
    }

    /// Every tool a built-in scenario calls is one it requires, so a receiver without it
    /// leaves the calling steps untestable instead of failing them.
    #[test]
    fn builtin_scenarios_require_every_tool_they_call() {
        use crate::scenario::{Step, StepKind};
        fn called(steps: &[Step], out: &mut Vec<String>) {
            for step in steps {
                match &step.kind {
                    StepKind::Send { method, params, .. } if method == "tools/call" => {
                        out.extend(params["name"].as_str().map(str::to_string))
                    }
                    StepKind::Parallel(inner) | StepKind::Sequence(inner) => called(inner, out),
                    _ => {}
                }
            }
        }
        for s in builtin() {
            let mut tools = Vec::new();
            called(&s.steps, &mut tools);
            for tool in tools {
                assert!(s.requires.tools.contains(&tool), "{} calls {tool}", s.id);
            }
        }
    }

    #[test]
    fn errors_name_file_line_column_and_cause() {
        let text = "id: x\ntitle: t\nrules: []\nsteps:\n  - send: ping\n    wait: 3\n";
        let e = parse(text, "bad.yaml").unwrap_err();
        assert_eq!(e.file, "bad.yaml");
        assert!(e.cause.contains("exactly one kind"), "{e}");
        assert!(e.line >= 5, "{e}");

        let e = parse("id: x\ntitle: [\n", "b.yaml").unwrap_err();
        assert!(e.line >= 2, "{e}");

        let e = parse(
            "id: x\ntitle: t\nrules: [tasks.nope]\nsteps: [{wait: 1}]\n",
            "c.yaml",
        )
        .unwrap_err();
        assert_eq!(
            (e.line, e.cause.contains("unknown rule id")),
            (3, true),
            "{e}"
        );

        let e = parse(
            "id: x\ntitle: t\nrules: []\nbogus: 1\nsteps: [{wait: 1}]\n",
            "d.yaml",
        )
        .unwrap_err();
        assert_eq!(e.line, 4, "{e}");

        // a mistyped step kind is said as a key the step does not take, with the nearest
        let e = parse(
            "id: x\ntitle: t\nrules: []\nsteps:\n  - sned: ping\n",
            "e.yaml",
        )
        .unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        assert!(
            e.cause.starts_with("a step takes no key `sned`; did you mean \"send\"? (its kind is one of send, notify,"),
            "{e}"
        );
        // an unclosed brace is pointed at, its position said once
        let e = parse(
            "id: x\ntitle: t\nrules: []\nsteps:\n  - send: ping\n    params: {a: 1\n  - wait: 1\n",
            "f.yaml",
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (6, 13), "{e}");
        assert!(!e.cause.contains("column"), "{e}");
    }
}
