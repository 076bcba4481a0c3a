//! Catalogue coverage: every checked rule has a check and a fault; every fault targets a checked rule.

use mcp_taskcheck::designs::tasks_2025::reference::faults::FAULTS;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::inspect::{checks_of, faults_of};
use mcp_taskcheck::scenario;
use mcp_taskcheck::spec::{self, Status};

#[test]
fn every_checked_rule_has_a_check_and_a_fault() {
    let scenarios = scenario::builtin();
    for rule in spec::catalogue()
        .iter()
        .filter(|r| r.status == Status::Checked)
    {
        assert!(
            !checks_of(&rule.id, &scenarios).is_empty(),
            "{} has no check",
            rule.id
        );
        assert!(
            !faults_of(&rule.id).is_empty(),
            "{} has no fault that makes it fail",
            rule.id
        );
    }
}

#[test]
fn faults_and_scenarios_only_name_checked_or_info_rules() {
    for fault in FAULTS {
        for rule in fault.rules {
            let r = spec::rule(rule)
                .unwrap_or_else(|| panic!("fault {} names unknown rule {rule}", fault.name));
            assert_eq!(
                r.status,
                Status::Checked,
                "fault {} targets {rule}",
                fault.name
            );
        }
    }
    for s in scenario::builtin() {
        for rule in &s.rules {
            let r = spec::rule(rule).unwrap();
            assert!(
                matches!(r.status, Status::Checked | Status::Info),
                "{} judges {rule} ({:?})",
                s.id,
                r.status
            );
        }
    }
}

#[test]
fn no_testable_rule_is_left_pending() {
    let pending: Vec<&str> = Profile::ALL
        .iter()
        .flat_map(|p| p.rules())
        .filter(|r| r.status == Status::Pending)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(pending, Vec::<&str>::new());
}

#[test]
fn monitor_rules_are_checked_or_recorded_catalogue_rules() {
    for rule in mcp_taskcheck::designs::tasks_2025::monitor::MONITOR_RULES {
        let r = spec::rule(rule).unwrap_or_else(|| panic!("monitor judges unknown rule {rule}"));
        assert!(
            matches!(r.status, Status::Checked | Status::Info),
            "{rule}: {:?}",
            r.status
        );
    }
}

#[test]
fn taskcheck_checks_its_own_conduct_against_requestor_rules() {
    for rule in mcp_taskcheck::designs::tasks_2025::monitor::CONDUCT_RULES {
        let r = spec::rule(rule).unwrap_or_else(|| panic!("self-check of unknown rule {rule}"));
        assert_eq!(r.actor, spec::Actor::Requestor, "{rule}");
        // checked only where it is judged on someone: a receiver as a requestor (a monitor),
        // or a requestor under test (`taskcheck requestor`)
        let judged = mcp_taskcheck::designs::Profile::ALL
            .iter()
            .any(|p| p.requestor_rules().contains(&rule));
        assert!(
            r.status == Status::Requestor
                || judged
                || mcp_taskcheck::designs::tasks_2025::monitor::MONITOR_RULES.contains(&rule),
            "{rule}"
        );
    }
}

#[test]
fn the_coverage_command_reports_every_testable_rule_checked() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_taskcheck"))
        .arg("coverage")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let checked = mcp_taskcheck::designs::TASKS_2025
        .rules()
        .filter(|r| r.status == Status::Checked)
        .count();
    let summary = format!("checked {checked} / testable {checked} /");
    assert!(text.contains(&summary), "{summary} not in:\n{text}");
    assert!(
        text.contains("tasks.ttl.no-early-expiry") && text.contains("early-expiry"),
        "{text}"
    );
}

#[test]
fn official_counterparts_name_an_official_scenario_and_check() {
    for r in spec::catalogue() {
        for o in &r.official {
            let parts: Vec<&str> = o.split(':').collect();
            assert!(
                matches!(parts.as_slice(), [s, c] if s.starts_with("tasks-") && !c.is_empty()),
                "{}: official {o:?} is not `<official tasks scenario>:<check id>`",
                r.id
            );
        }
    }
}

#[test]
fn a_rule_derived_from_prose_fails_at_must_only_with_the_reason_written() {
    // FAIL at MUST needs a MUST in the text; a derived rule kept at MUST says why no legal
    // reading allows what it fails
    let unexplained: Vec<&str> = spec::catalogue()
        .iter()
        .filter(|r| r.derived_from.is_some() && r.level.is_mandatory())
        .filter(|r| {
            !r.note
                .as_deref()
                .is_some_and(|n| n.contains("judged at MUST because no legal reading allows"))
        })
        .map(|r| r.id.as_str())
        .collect();
    assert!(unexplained.is_empty(), "{unexplained:?}");
}
