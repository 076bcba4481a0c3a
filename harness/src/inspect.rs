//! Text for `list`, `explain` and the fault listing: what the catalogue, scenarios and faults hold.

use crate::fuzzwire::FUZZ_WIRE_RULES;
use crate::monitor::{CONDUCT_RULES, MONITOR_RULES};
use crate::reference::faults::FAULTS;
use crate::scenario::Scenario;
use crate::spec::{self, Rule};

/// Who judges a rule: scenario ids and `monitor`.
pub fn checks_of(rule: &str, scenarios: &[Scenario]) -> Vec<String> {
    let mut out: Vec<String> = scenarios
        .iter()
        .filter(|s| s.rules.iter().any(|r| r == rule))
        .map(|s| s.id.clone())
        .collect();
    if MONITOR_RULES.contains(&rule) {
        out.push("monitor".into());
    }
    if CONDUCT_RULES.contains(&rule) {
        out.push("self-check".into());
    }
    if FUZZ_WIRE_RULES.contains(&rule) {
        out.push("fuzz-wire".into());
    }
    if rule == crate::load::LIMITS_RULE {
        out.push("load".into());
    }
    out
}

/// `taskcheck coverage`: every rule with its checks and faults, a summary, and whether every
/// checked rule really has a check and a fault that makes it fail.
pub fn coverage(scenarios: &[Scenario]) -> (String, bool) {
    let mut out = format!(
        "{:<52} {:<10} {:<10} {:<44} faults\n",
        "rule", "level", "status", "checks"
    );
    let mut defects = Vec::new();
    let count = |s: spec::Status| spec::catalogue().iter().filter(|r| r.status == s).count();
    for r in spec::catalogue() {
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
    (out, defects.is_empty())
}

/// Faults that make a rule fail.
pub fn faults_of(rule: &str) -> Vec<&'static str> {
    FAULTS
        .iter()
        .filter(|f| f.rules.contains(&rule))
        .map(|f| f.name)
        .collect()
}

/// `taskcheck list`: scenarios, then rules.
pub fn list(scenarios: &[Scenario]) -> String {
    let mut out = format!("{} scenario(s):\n", scenarios.len());
    for s in scenarios {
        out.push_str(&format!("  {:<34} {}\n", s.id, s.title));
    }
    out.push_str(&format!("\n{} rule(s):\n", spec::catalogue().len()));
    for r in spec::catalogue() {
        out.push_str(&format!(
            "  {:<52} {:<10} {:<10} {}\n",
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
    let mut out =
        format!(
        "{}\n  level:    {}\n  actor:    {:?}\n  status:   {:?}\n  section:  {}\n  summary:  {}\n",
        rule.id, rule.level.as_str(), rule.actor, rule.status, rule.link(), rule.summary
    );
    if let Some(n) = &rule.note {
        out.push_str(&format!("  note:     {n}\n"));
    }
    if let Some(r) = &rule.reason {
        out.push_str(&format!("  reason:   {r}\n"));
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
    let faults = faults_of(&rule.id)
        .into_iter()
        .map(str::to_string)
        .collect();
    out.push_str(&format!("  faults:   {}\n", joined(faults)));
    out
}

/// `taskcheck reference --list-faults`.
pub fn fault_list() -> String {
    FAULTS
        .iter()
        .map(|f| format!("{:<40} {:<48} {}\n", f.name, f.rules[0], f.description))
        .collect()
}
