//! The option groups several commands share: the receiver, the reports, the selection and
//! library of scenarios, and how they are judged.

use super::parse_profile;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::fixtures::FixtureMap;
use mcp_taskcheck::report::{FailOn, Require};
use std::path::PathBuf;

/// The receiver under test and how to reach it (`run` and `load`).
#[derive(clap::Args, Clone)]
#[command(group(clap::ArgGroup::new("receiver").args(["stdio", "url", "url_from"])))]
pub struct TargetArgs {
    /// The receiver: a command spoken to over stdio (run by /bin/sh).
    #[arg(long, value_name = "COMMAND")]
    pub stdio: Option<String>,
    /// The receiver: a Streamable HTTP endpoint.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The receiver: a command that serves Streamable HTTP and prints its endpoint URL as its
    /// first line of stdout; started afresh for every scenario, scenarios one at a time.
    #[arg(long, value_name = "COMMAND")]
    pub url_from: Option<String>,
    /// An HTTP header sent on every request, `Name: value` (repeatable; values never reach
    /// reports or traces).
    #[arg(long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// An HTTP header of the first requestor only (e.g. its credentials); with --auth-b,
    /// tasks of one authorization context must be invisible to the other.
    #[arg(long, value_name = "HEADER")]
    pub auth_a: Option<String>,
    /// An HTTP header of the second requestor only.
    #[arg(long, value_name = "HEADER")]
    pub auth_b: Option<String>,
    /// Longest wait to connect to an HTTP receiver, in ms.
    #[arg(long, default_value_t = 5000)]
    pub connect_timeout_ms: u64,
    /// Longest line (or HTTP message) accepted from the receiver, in bytes.
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    pub max_line_bytes: usize,
}

/// What a run's outcome is judged by, and where its reports go (`run` and `check`).
#[derive(clap::Args, Clone)]
pub struct ReportArgs {
    /// Show every check of every scenario (default: a line per scenario, and the checks that
    /// did not pass under the scenarios that did not).
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Show only the summary: the rules not met, the counts and the exit line.
    #[arg(short, long)]
    pub quiet: bool,
    /// What makes the run non-conformant (exit 1) [default: must].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// How much must be judged for a run without failure to pass: `all` (no rule left
    /// untestable) or a number of rules; short of it, exit 4 [default: whatever was judged].
    #[arg(long, value_name = "all|N")]
    pub require_judged: Option<Require>,
    /// Write the JSON report here (`taskcheck schema report` prints its schema).
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// Write a JUnit XML report here (a test case per check).
    #[arg(long, value_name = "FILE")]
    pub report_junit: Option<PathBuf>,
    /// Write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub report_md: Option<PathBuf>,
    /// Write a self-contained HTML report here.
    #[arg(long, value_name = "FILE")]
    pub report_html: Option<PathBuf>,
    /// Write the official conformance suite's checks.json shape here.
    #[arg(long, value_name = "FILE")]
    pub checks_json: Option<PathBuf>,
    /// Failures to expect (YAML `server:` list of `scenario` or `scenario:rule`); a listed
    /// failure does not fail the run, a listed entry that passes does.
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
}

/// Which scenarios of the library run.
#[derive(clap::Args, Clone, Default)]
pub struct SelectArgs {
    /// Only these scenario ids (repeatable).
    #[arg(long = "scenario", value_name = "ID")]
    pub only: Vec<String>,
    /// Only scenarios that judge this rule (repeatable).
    #[arg(long = "rule", value_name = "RULE")]
    pub rules: Vec<String>,
    /// Only scenarios with this tag (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
}

/// The scenario library: the built-in one, with a directory of your own and a profile.
#[derive(clap::Args, Clone)]
pub struct LibraryArgs {
    /// A directory of scenario files that adds to (or overrides by id) the built-in library.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (the extension on 2026-07-28). `run`
    /// asks the receiver when it is not given; the other commands default to 2025-11-25.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    pub profile: Option<Profile>,
}

/// Which scenarios run, how they are judged and reported (`run` and `client`).
#[derive(clap::Args, Clone)]
pub struct SuiteArgs {
    #[command(flatten)]
    pub library: LibraryArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Scenarios run at once, each in its own session (default: 8, since scenarios wait on
    /// the receiver, not on the CPU).
    #[arg(long)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Write every message of every session here, as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

/// How scenarios are run and judged (`run` and `explore`).
#[derive(clap::Args, Clone)]
pub struct JudgeArgs {
    /// Longest wait for each answer of the receiver, in ms.
    #[arg(long, default_value_t = 5000)]
    pub timeout_ms: u64,
    /// Per-scenario deadline in ms.
    #[arg(long, default_value_t = 30000)]
    pub scenario_timeout_ms: u64,
    /// Also validate every message against this official MCP schema.json (repeatable: the
    /// extension's schema.json beside the 2026-07-28 one).
    #[arg(long, value_name = "FILE")]
    pub schema: Vec<PathBuf>,
    /// Map fixture roles to the receiver's own tools (YAML, as `taskcheck init` writes it;
    /// `taskcheck list --fixtures` lists the roles).
    #[arg(long, value_name = "FILE")]
    pub fixtures: Option<PathBuf>,
    /// The mapping `taskcheck.yaml` gives, when --fixtures does not.
    #[arg(skip)]
    pub fixture_map: FixtureMap,
    /// Multiply every timeout and wait by this factor (slow machines, slow receivers), and the
    /// durations scenarios mark `$scaled` [default: 1]. A rule judged by a deadline (a prompt
    /// CreateTaskResult, a task leaving input_required) gives a receiver that much longer.
    #[arg(long)]
    pub timeout_scale: Option<f64>,
}

/// A receiver with the profile it is tested under and how it is judged (`explore` and
/// `fuzz-wire`).
#[derive(clap::Args, Clone)]
pub struct ProbedArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (default: what the receiver speaks).
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    pub profile: Option<Profile>,
    #[command(flatten)]
    pub judge: JudgeArgs,
}
