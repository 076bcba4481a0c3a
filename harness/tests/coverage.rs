//! Catalogue coverage: every checked rule has a check and a fault; every fault targets a checked rule.

use mcp_taskcheck::inspect::{checks_of, faults_of};
use mcp_taskcheck::reference::faults::FAULTS;
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
fn pending_rules_are_the_known_backlog() {
    // Shrinks as the coverage issue lands checks; a rule may only leave this list by being checked.
    let pending: Vec<&str> = spec::catalogue()
        .iter()
        .filter(|r| r.status == Status::Pending)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        pending,
        vec![
            "tasks.capability.list-supported",
            "tasks.capability.cancel-supported",
            "tasks.ttl.no-early-expiry",
            "tasks.meta.related-messages",
            "tasks.progress.token-valid",
            "tasks.list.next-cursor",
            "tasks.errors.informative-message",
            "tasks.failed.status-message",
            "tasks.failed.tool-error",
            "tasks.security.bind-context",
            "tasks.security.secure-ids",
            "tasks.security.no-list-without-identity",
        ]
    );
}

#[test]
fn monitor_rules_are_checked_catalogue_rules() {
    for rule in mcp_taskcheck::monitor::MONITOR_RULES {
        let r = spec::rule(rule).unwrap_or_else(|| panic!("monitor judges unknown rule {rule}"));
        assert_eq!(r.status, Status::Checked, "{rule}");
    }
}
