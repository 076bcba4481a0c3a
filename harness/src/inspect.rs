//! Text for `list`, `explain` and the fault listing: what the catalogue, scenarios and faults hold.

use crate::designs::Profile;
use crate::fuzzwire::WIRE_RULES;
use crate::reference::faults::{list_of, FaultEntry};
use crate::scenario::Scenario;
use crate::spec::{self, Rule};
use crate::transport::ReceiverKind;

/// Who judges a rule: scenario ids and `monitor`.
pub fn checks_of(rule: &str, scenarios: &[Scenario]) -> Vec<String> {
    let mut out: Vec<String> = scenarios
        .iter()
        .filter(|s| s.rules.iter().any(|r| r == rule))
        .map(|s| s.id.clone())
        .collect();
    if Profile::ALL
        .iter()
        .any(|p| p.facts().monitor_rules.contains(&rule))
    {
        out.push("monitor".into());
    }
    if Profile::ALL
        .iter()
        .any(|p| p.facts().conduct_rules.contains(&rule))
    {
        out.push("self-check".into());
    }
    let fuzzed = |p: &Profile| p.facts().fuzz_wire_rules.contains(&rule);
    if WIRE_RULES.contains(&rule) || Profile::ALL.iter().any(fuzzed) {
        out.push("fuzz-wire".into());
    }
    if Profile::ALL
        .iter()
        .any(|p| p.facts().limits_rule == Some(rule))
    {
        out.push("load".into());
    }
    let every_scenario = [
        crate::runner::SURVIVES_RULE,
        crate::runner::STDOUT_RULE,
        crate::runner::ONE_RESPONSE_RULE,
    ];
    if every_scenario.contains(&rule) {
        out.push("every scenario".into());
    }
    out.extend(
        crate::requestor::builtin()
            .into_iter()
            .filter(|s| s.rules.iter().any(|r| r == rule))
            .map(|s| s.id),
    );
    out
}

/// `taskcheck coverage`: every rule with its checks and faults, a summary, and whether every
/// checked rule really has a check and a fault that makes it fail.
pub fn coverage(scenarios: &[Scenario], profile: Profile) -> (String, bool) {
    let mut out = format!(
        "{:<52} {:<10} {:<10} {:<44} faults\n",
        "rule", "level", "status", "checks"
    );
    let mut defects = Vec::new();
    let count = |s: spec::Status| profile.rules().filter(|r| r.status == s).count();
    for r in profile.rules() {
        let checks = checks_of(&r.id, scenarios);
        let faults = faults_of(&r.id);
        if r.status == spec::Status::Checked && (checks.is_empty() || faults.is_empty()) {
            defects.push(r.id.as_str());
        }
        let detail = match r.status {
            spec::Status::Checked | spec::Status::Info => checks.join(", "),
            _ => r.reason.clone().unwrap_or_default(),
        };
        out.push_str(&format!(
            "{:<52} {:<10} {:<10} {:<44} {}\n",
            r.id,
            r.level.as_str(),
            format!("{:?}", r.status).to_lowercase(),
            detail,
            faults.join(", ")
        ));
    }
    let checked = count(spec::Status::Checked);
    let pending = count(spec::Status::Pending);
    out.push_str(&format!(
        "\nchecked {checked} / testable {} / untestable {} (info {}, requestor {}, pending {pending})\n",
        checked + pending,
        count(spec::Status::Untestable),
        count(spec::Status::Info),
        count(spec::Status::Requestor),
    ));
    if !defects.is_empty() {
        out.push_str(&format!(
            "checked rules without a check or a fault: {}\n",
            defects.join(", ")
        ));
    }
    if !profile.facts().has_client_receivers {
        return (out, defects.is_empty());
    }
    let (client, client_defects) = client_coverage(scenarios);
    out.push_str(&client);
    (out, defects.is_empty() && client_defects.is_empty())
}

/// The rules client-receiver scenarios judge, each with the reference-client faults that make
/// it fail; the defects are checked rules without one.
fn client_coverage(scenarios: &[Scenario]) -> (String, Vec<String>) {
    let client: Vec<Scenario> = scenarios
        .iter()
        .filter(|s| s.receiver == ReceiverKind::Client)
        .cloned()
        .collect();
    let rules: std::collections::BTreeSet<&String> = client.iter().flat_map(|s| &s.rules).collect();
    let mut out = format!(
        "\nclient receivers (`taskcheck client`): {} rule(s) judged by {} scenario(s)\n",
        rules.len(),
        client.len()
    );
    let mut defects = Vec::new();
    for rule in rules {
        let faults = client_faults_of(rule);
        let checked = spec::rule(rule).is_some_and(|r| r.status == spec::Status::Checked);
        if checked && faults.is_empty() {
            defects.push(rule.clone());
        }
        out.push_str(&format!(
            "  {:<52} {:<44} {}\n",
            rule,
            checks_of(rule, &client)
                .into_iter()
                .filter(|c| c == "monitor" || client.iter().any(|s| &s.id == c))
                .collect::<Vec<_>>()
                .join(", "),
            faults.join(", ")
        ));
    }
    if !defects.is_empty() {
        out.push_str(&format!(
            "client-judged rules without a reference-client fault: {}\n",
            defects.join(", ")
        ));
    }
    (out, defects)
}

/// The faults of every design's reference client.
fn client_faults() -> Vec<FaultEntry> {
    Profile::reference_clients()
        .flat_map(|c| c.faults())
        .collect()
}

/// Faults of the reference client that make a rule fail.
pub fn client_faults_of(rule: &str) -> Vec<&'static str> {
    client_faults()
        .into_iter()
        .filter(|f| f.rules.contains(&rule))
        .map(|f| f.name)
        .collect()
}

/// Faults that make a rule fail, on its own or as the consequence of the failure that shows
/// the same defect first (a rule only ever seen through another's observation).
pub fn faults_of(rule: &str) -> Vec<&'static str> {
    Profile::ALL
        .iter()
        .flat_map(|p| p.faults())
        .chain(requestor_faults())
        .filter(|f| f.rules.contains(&rule) || f.follows.contains(&rule))
        .map(|f| f.name)
        .collect()
}

/// The faults of every design's reference requestor.
fn requestor_faults() -> Vec<FaultEntry> {
    Profile::ALL
        .iter()
        .filter_map(|p| p.reference_requestor())
        .flat_map(|r| r.faults())
        .collect()
}

/// `taskcheck list`: scenarios, then rules.
pub fn list(
    scenarios: &[Scenario],
    requestors: &[crate::requestor::RequestorScenario],
    soaks_left_out: usize,
    profile: Profile,
) -> String {
    let clients = scenarios
        .iter()
        .filter(|s| s.receiver == ReceiverKind::Client)
        .count();
    let mut out = format!(
        "{} scenario(s): {} of servers (`taskcheck run`), {clients} of clients receiving tasks (`taskcheck client`)\n",
        scenarios.len(),
        scenarios.len() - clients
    );
    for s in scenarios {
        out.push_str(&format!("  {:<34} {}\n", s.id, s.title));
    }
    if soaks_left_out > 0 {
        out.push_str(&format!(
            "  and {soaks_left_out} soak scenario(s), which take minutes and run only when named: `--tag {}` lists and runs them\n",
            crate::scenario::SOAK
        ));
    }
    if !requestors.is_empty() {
        out.push_str(&format!(
            "\n{} requestor scenario(s) (`taskcheck requestor`, clients requesting tasks):\n",
            requestors.len()
        ));
        for s in requestors.iter() {
            out.push_str(&format!("  {:<34} {}\n", s.id, s.title));
        }
    }
    out.push_str(&format!(
        "\n{} rule(s) of the {profile} profile:\n",
        profile.rules().count()
    ));
    for r in profile.rules() {
        out.push_str(&format!(
            "  {:<52} {:<10} {}\n      {}\n",
            r.id,
            r.level.as_str(),
            format!("{:?}", r.status).to_lowercase(),
            r.summary
        ));
    }
    out
}

/// `taskcheck explain RULE`.
pub fn explain(rule: &Rule, scenarios: &[Scenario]) -> String {
    let mut out = format!(
        "{}\n  level:    {}\n  actor:    {}\n  status:   {}\n  section:  {}\n  summary:  {}\n",
        rule.id,
        rule.level.as_str(),
        lower(rule.actor),
        lower(rule.status),
        Profile::link(rule),
        rule.summary
    );
    if let Some(d) = &rule.derived_from {
        out.push_str(&format!(
            "  derived:  no keyword states it; derived from {d}\n"
        ));
    }
    if let Some(n) = &rule.note {
        out.push_str(&format!("  note:     {n}\n"));
    }
    if let Some(why) = &rule.scenario_only {
        out.push_str(&format!(
            "  judged:   only by `run`'s scenarios, not from a recorded trace: {why}\n"
        ));
    }
    if let Some(r) = &rule.reason {
        out.push_str(&format!("  reason:   {r}\n"));
    }
    if !rule.official.is_empty() {
        out.push_str(&format!(
            "  official: {} (the official suite's checks of the same requirement)\n",
            rule.official.join(", ")
        ));
    }
    let joined = |items: Vec<String>| {
        if items.is_empty() {
            "(none)".to_string()
        } else {
            items.join(", ")
        }
    };
    out.push_str(&format!(
        "  checks:   {}\n",
        joined(checks_of(&rule.id, scenarios))
    ));
    // the fixture roles those scenarios call: what a server's tools must play to judge it
    let roles: std::collections::BTreeSet<&str> = scenarios
        .iter()
        .filter(|s| s.rules.contains(&rule.id))
        .flat_map(|s| s.requires.tools.iter().map(String::as_str))
        .collect();
    if !roles.is_empty() {
        out.push_str(&format!(
            "  roles:    {} (fixture roles its scenarios call; `taskcheck list --fixtures`)\n",
            roles.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    // each reference that can break the rule, with its faults
    let of = |faults: Vec<FaultEntry>| -> Vec<&'static str> {
        faults
            .into_iter()
            .filter(|f| f.rules.contains(&rule.id.as_str()))
            .map(|f| f.name)
            .collect()
    };
    let receiver = of(Profile::ALL.iter().flat_map(|p| p.faults()).collect());
    let client = client_faults_of(&rule.id);
    let requestor = of(requestor_faults());
    let mut by: Vec<String> = Vec::new();
    for (reference, faults) in [
        ("reference", &receiver),
        ("reference-client", &client),
        ("reference-requestor", &requestor),
    ] {
        match faults.is_empty() {
            true => {}
            // the reference client shares the receiver's task store, and its faults
            false if reference == "reference-client" && *faults == receiver => {
                by.push("reference-client: the same".into())
            }
            false => by.push(format!("{reference}: {}", faults.join(", "))),
        }
    }
    out.push_str(&format!(
        "  faults:   {}\n",
        joined(
            vec![by.join("; ")]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect()
        )
    ));
    out
}

/// A catalogue enum as `list` shows it.
fn lower(value: impl std::fmt::Debug) -> String {
    format!("{value:?}").to_lowercase()
}

/// The reference client's faults, one line each: name, first rule, what it does.
pub fn client_fault_list() -> String {
    list_of(client_faults().iter())
}

/// Before a run with `--fixtures`: which tool plays each of the design's fixture `roles`,
/// which no tool plays (and why), and the rules that leaves with no scenario to judge them.
pub fn fixture_plan(
    map: &crate::fixtures::FixtureMap,
    tools: &[serde_json::Value],
    roles: &[&str],
    negotiates: bool,
    scenarios: &[Scenario],
) -> String {
    let mut out = String::from("fixture roles (as mapped):\n");
    let mut unavailable = Left::default();
    for &role in roles {
        let line = match map.tool(role, tools) {
            None => {
                unavailable.unplayed.insert(role.to_string());
                format!("unplayed: {}", map.missing_tool(role))
            }
            Some(tool) => {
                let name = map.tool_name(role);
                let declared = crate::fixtures::declared_support(tool);
                let left: Vec<&str> = [(false, "plain"), (true, "task-augmented")]
                    .into_iter()
                    .filter(|(task, _)| {
                        unavailable.calls_left_out(role, name, declared, *task, negotiates)
                    })
                    .map(|(_, kind)| kind)
                    .collect();
                let by = match map.maps(role) {
                    true => format!("played by {name:?}"),
                    false => "played by the tool of that name".into(),
                };
                match left.is_empty() {
                    true => by,
                    false => format!(
                        "{by}; its {} calls are left out (it declares taskSupport {})",
                        left.join(" and "),
                        crate::fixtures::show_support(declared)
                    ),
                }
            }
        };
        out.push_str(&format!("  {role:<16} {line}\n"));
    }
    if let Some(left) = left_by_role(&unavailable, scenarios) {
        out.push_str(&format!(
            "left untestable (every scenario judging them needs a role or call left out): {left}\n"
        ));
    }
    out
}

/// What a run leaves out: the fixture roles no tool plays, and the calls of a played role its
/// tool's taskSupport does not answer as the role's does (`(role, task-augmented)`).
#[derive(Debug, Default)]
pub struct Left {
    pub unplayed: std::collections::BTreeSet<String>,
    pub calls: std::collections::BTreeSet<(String, bool)>,
}

impl Left {
    /// Whether a run leaves out the task-augmented (`task`) or plain calls of `role`, played
    /// by `tool` declaring `declared` on a server that `negotiates` taskSupport; noted if so.
    pub fn calls_left_out(
        &mut self,
        role: &str,
        tool: &str,
        declared: Option<&str>,
        task: bool,
        negotiates: bool,
    ) -> bool {
        let left = negotiates && crate::fixtures::disagrees(role, tool, declared, task).is_some();
        if left {
            self.calls.insert((role.to_string(), task));
        }
        left
    }

    /// Whether a call of `role` (task-augmented or not) is left out.
    fn leaves(&self, role: &str, task: bool) -> bool {
        self.unplayed.contains(role) || self.calls.contains(&(role.to_string(), task))
    }

    /// How a role a scenario needs is left out, if it is: `progress_sleep`, or
    /// `optional_sleep's plain calls`.
    fn how(&self, role: &str) -> Option<String> {
        if self.unplayed.contains(role) {
            return Some(role.to_string());
        }
        let kinds: Vec<&str> = [(false, "plain"), (true, "task-augmented")]
            .into_iter()
            .filter(|(task, _)| self.calls.contains(&(role.to_string(), *task)))
            .map(|(_, kind)| kind)
            .collect();
        (!kinds.is_empty()).then(|| format!("{role}'s {} calls", kinds.join(" and ")))
    }
}

/// The rules [`left_untestable`] gives, grouped by the left-out roles their scenarios call:
/// `progress_sleep (tasks.cancel.stop-execution, ...); optional_sleep's plain calls (...)`, so
/// each group says what would make it testable. None when no rule is left.
pub fn left_by_role(unavailable: &Left, scenarios: &[Scenario]) -> Option<String> {
    let left = left_untestable(unavailable, scenarios);
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for rule in left {
        let roles: std::collections::BTreeSet<String> = scenarios
            .iter()
            .filter(|s| s.rules.contains(&rule))
            .flat_map(|s| s.requires.tools.iter())
            .filter_map(|r| unavailable.how(r))
            .collect();
        let roles = roles.into_iter().collect::<Vec<_>>().join(" or ");
        match groups.iter_mut().find(|(r, _)| *r == roles) {
            Some((_, rules)) => rules.push(rule),
            None => groups.push((roles, vec![rule])),
        }
    }
    let said: Vec<String> = groups
        .into_iter()
        .map(|(roles, rules)| format!("{roles} ({})", rules.join(", ")))
        .collect();
    (!said.is_empty()).then(|| said.join("; "))
}

/// The rules no scenario can judge when the `unavailable` fixture roles are unplayed, as a run
/// leaves steps out: a step calling an unplayed role, one using what a left-out step would
/// have captured, and one waiting for what the receiver sends after a step was left out. The
/// rules no step holds (a monitor's) need the scenario to call some played role, or none.
pub fn left_untestable(unavailable: &Left, scenarios: &[Scenario]) -> Vec<String> {
    use crate::scenario::StepKind;
    let mut judged = std::collections::BTreeSet::new();
    let mut all = std::collections::BTreeSet::new();
    for scenario in scenarios {
        all.extend(scenario.rules.iter().cloned());
        let (mut missing, mut left_any) = (std::collections::BTreeSet::new(), false);
        let mut held = std::collections::BTreeSet::new();
        for (_, step) in scenario.labelled_steps() {
            if matches!(step.kind, StepKind::Parallel(_) | StepKind::Sequence(_)) {
                continue;
            }
            let call = match &step.kind {
                StepKind::Send { method, params, .. } if method == "tools/call" => params
                    .get("name")
                    .and_then(|n| n.as_str())
                    .map(|role| (role, params.get("task").is_some())),
                _ => None,
            };
            let waits = matches!(
                step.kind,
                StepKind::Notification { .. } | StepKind::Answer { .. }
            );
            let left = call.is_some_and(|(role, task)| unavailable.leaves(role, task))
                || step.uses().iter().any(|v| missing.contains(v))
                || (waits && left_any);
            held.extend(step.rules());
            if left {
                left_any = true;
                missing.extend(step.sets());
            } else {
                judged.extend(step.rules());
            }
        }
        let runs = scenario.requires.tools.is_empty()
            || scenario
                .requires
                .tools
                .iter()
                .any(|r| !unavailable.unplayed.contains(r.as_str()));
        if runs {
            judged.extend(
                scenario
                    .rules
                    .iter()
                    .filter(|r| !held.contains(*r))
                    .cloned(),
            );
        }
    }
    all.difference(&judged).cloned().collect()
}
