//! What `taskcheck init` sees when it calls a tool once as a task (`runner::observe_task`),
//! against each design's reference receiver, whose fixture tools do what their roles say: each
//! role is confirmed by the tool that plays it and refused by one that does something else.

use mcp_taskcheck::calibration::{plays, Observed};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::runner::{observe_task, Limits};
use mcp_taskcheck::transport::stdio::StdioConnector;
use serde_json::json;
use std::time::Duration;

fn reference(args: &str) -> StdioConnector {
    StdioConnector {
        command: format!("{} reference {args}", env!("CARGO_BIN_EXE_taskcheck")),
        max_line: 1 << 20,
    }
}

fn limits() -> Limits {
    Limits {
        request: Duration::from_secs(10),
        scenario: Duration::from_secs(30),
        poll: Duration::from_secs(10),
        scale: 1.0,
    }
}

/// What each fixture tool does as a task, called with `ms`.
fn observed(profile: Profile, args: &str, tool: &str, ms: u64) -> Observed {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let call = json!({"name": tool, "arguments": {"ms": ms}});
    runtime
        .block_on(observe_task(&reference(args), &limits(), profile, call))
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// Each role's tool is confirmed in its role and refused in the others'.
fn roles_are_told_apart(profile: Profile, args: &str, roles: &[&str]) {
    for tool in roles {
        let seen = observed(profile, args, tool, 300);
        for role in roles {
            // work that reports progress is work that completes, too
            let same = role == tool || (*role, *tool) == ("optional_sleep", "progress_sleep");
            assert_eq!(
                plays(role, &seen).is_ok(),
                same,
                "{profile}: {tool} as {role}: {}",
                seen.describe()
            );
        }
    }
}

#[test]
fn each_fixture_tool_of_the_2025_reference_plays_its_own_role_only() {
    let roles = [
        "optional_sleep",
        "tool_error",
        "protocol_error",
        "elicit_input",
        "progress_sleep",
    ];
    roles_are_told_apart(Profile::default(), "", &roles);
    let progress = observed(Profile::default(), "", "progress_sleep", 300);
    assert!(progress.progress > 0, "{}", progress.describe());
    let slept = observed(Profile::default(), "", "optional_sleep", 300);
    assert!(
        slept.took >= Duration::from_millis(300),
        "{}",
        slept.describe()
    );
}

#[test]
fn each_fixture_tool_of_the_extension_reference_plays_its_own_role_only() {
    let ext = Profile::by_name("ext-tasks").unwrap();
    let roles = [
        "optional_sleep",
        "tool_error",
        "protocol_error",
        "elicit_input",
    ];
    roles_are_told_apart(ext, "--profile ext-tasks", &roles);
    roles_are_told_apart(ext, "--profile ext-tasks --variant own-input-keys", &roles);
}

#[test]
fn work_answered_at_once_under_the_extension_plays_no_sleep_role() {
    let ext = Profile::by_name("ext-tasks").unwrap();
    let args = "--profile ext-tasks --variant immediate-short-work";
    let at_once = observed(ext, args, "optional_sleep", 0);
    assert!(!at_once.task, "{}", at_once.describe());
    let why = plays("optional_sleep", &at_once).unwrap_err();
    assert!(why.contains("answered at once without a task"), "{why}");
    assert_eq!(
        plays(
            "optional_sleep",
            &observed(ext, args, "optional_sleep", 300)
        ),
        Ok(())
    );
}
