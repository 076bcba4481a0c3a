//! The command line's wiring: the option groups commands share, what they print and write,
//! the receiver they reach, and a module per command.

#[macro_use]
mod target;
pub mod args;
pub mod check;
pub mod client;
pub mod diff;
pub mod explore;
pub mod fuzz_wire;
pub mod init;
pub mod inspect;
pub mod load;
mod output;
pub mod reference;
pub mod requestor;
pub mod run;
pub mod watch;

use args::{JudgeArgs, LibraryArgs, ReportArgs, SelectArgs};
use mcp_taskcheck::baseline::Baseline;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::exit;
use mcp_taskcheck::fixtures::FixtureMap;
use mcp_taskcheck::runner::{Config, Limits};
use mcp_taskcheck::scenario::{self, Scenario};
use mcp_taskcheck::schema::SchemaSet;
use mcp_taskcheck::transport::ReceiverKind;
use std::sync::Arc;
use std::time::Duration;

/// Says what is wrong with the command line and exits 2.
pub fn usage_error(message: impl std::fmt::Display) -> ! {
    eprintln!("taskcheck: {message}");
    std::process::exit(exit::USAGE);
}

/// A profile named on the command line.
pub fn parse_profile(name: &str) -> Result<Profile, String> {
    Profile::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        format!("no profile {name:?} (one of {})", names.join(", "))
    })
}

/// Every scenario of the profile given (of every profile when none is).
pub fn library(args: &LibraryArgs) -> Vec<Scenario> {
    let mut all = scenario::builtin();
    if let Some(dir) = &args.scenarios {
        for s in scenario::load_dir(dir).unwrap_or_else(|e| usage_error(e)) {
            all.retain(|b| b.id != s.id);
            all.push(s);
        }
    }
    all.retain(|s| args.profile.is_none_or(|p| s.profile == p));
    all
}

/// The library's scenarios a selection picks; an unknown id, rule or tag is a usage error.
pub fn selected(lib: &LibraryArgs, select: &SelectArgs) -> Vec<Scenario> {
    pick(library(lib), select)
}

/// The scenarios a selection picks among those for one kind of receiver.
pub fn selected_for(lib: &LibraryArgs, select: &SelectArgs, kind: ReceiverKind) -> Vec<Scenario> {
    let (all, other): (Vec<Scenario>, Vec<Scenario>) =
        library(lib).into_iter().partition(|s| s.receiver == kind);
    if let Some(s) = other.iter().find(|s| select.only.contains(&s.id)) {
        let (side, command) = match s.receiver {
            ReceiverKind::Server => ("server", "taskcheck run"),
            ReceiverKind::Client => ("client", "taskcheck client"),
        };
        usage_error(format!(
            "scenario {:?} is for {side} receivers: run it with `{command}`",
            s.id
        ));
    }
    pick(all, select)
}

/// The scenarios of `all` a selection picks.
fn pick(all: Vec<Scenario>, select: &SelectArgs) -> Vec<Scenario> {
    scenario::select(all, &select.only, &select.rules, &select.tags)
        .unwrap_or_else(|e| usage_error(e))
}

/// The `--timeout-scale` given; one that is not a positive number is a usage error.
pub fn timeout_scale(args: &JudgeArgs) -> f64 {
    let scale = args.timeout_scale.unwrap_or(1.0);
    if !(scale.is_finite() && scale > 0.0) {
        usage_error(format!(
            "--timeout-scale must be a positive number, not {scale}"
        ));
    }
    scale
}

/// The run configuration the judging flags ask for; a bad one is a usage error.
pub fn config(args: &JudgeArgs) -> Config {
    let scale = timeout_scale(args);
    let scaled = |ms: u64| Duration::from_millis(ms).mul_f64(scale);
    let limits = Limits {
        request: scaled(args.timeout_ms),
        scenario: scaled(args.scenario_timeout_ms),
        poll: scaled(args.timeout_ms.max(2000)),
        scale,
    };
    let official = (!args.schema.is_empty())
        .then(|| SchemaSet::load_all(&args.schema).unwrap_or_else(|e| usage_error(e)))
        .map(Arc::new);
    let fixtures = args
        .fixtures
        .as_deref()
        .map(|p| FixtureMap::load(p, &Profile::fixture_roles()).unwrap_or_else(|e| usage_error(e)))
        .unwrap_or_else(|| args.fixture_map.clone());
    Config::new(limits, official, fixtures)
}

/// The baseline of `--expected-failures`, checked against the scenario library.
pub fn baseline(reports: &ReportArgs, lib: &LibraryArgs) -> Option<Baseline> {
    let ids: Vec<String> = library(lib).into_iter().map(|s| s.id).collect();
    expected_failures(reports, &ids)
}

/// The baseline of `--expected-failures`, its scenarios one of `ids` (or official ones).
pub fn expected_failures(reports: &ReportArgs, ids: &[String]) -> Option<Baseline> {
    reports
        .expected_failures
        .as_deref()
        .map(|p| Baseline::load(p, ids).unwrap_or_else(|e| usage_error(e)))
}
