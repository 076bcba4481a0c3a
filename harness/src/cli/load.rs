//! `taskcheck load`: many task-augmented calls in flight on one session.

use super::args::{ReportArgs, TargetArgs};
use super::output::conclude;
use super::parse_profile;
use super::target::profile_for;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::report::Origin;
use mcp_taskcheck::runner::Limits;
use mcp_taskcheck::{exit, load};
use std::path::PathBuf;
use std::time::Duration;

/// What `load` takes.
#[derive(clap::Args, Clone)]
pub struct LoadArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (default: what the receiver speaks).
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    pub profile: Option<Profile>,
    /// How many tasks to create.
    #[arg(long, default_value_t = 1000)]
    pub tasks: usize,
    /// How many are in flight at once.
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Start no new task after this many seconds.
    #[arg(long)]
    pub duration_s: Option<u64>,
    /// Per-request timeout in ms.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Seeds the tools' random durations (0-20 ms).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the measurements (counts, throughput, latencies, limits) here as JSON.
    #[arg(long, value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// Reports: one `load` scenario with a check per rule judged (and --fail-on, a baseline).
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// Runs the load and reports its figures and failures.
pub async fn run(args: LoadArgs) -> i32 {
    let mut opts = load::LoadOptions {
        tasks: args.tasks,
        concurrency: args.concurrency,
        duration: args.duration_s.map(Duration::from_secs),
        timeout: Duration::from_millis(args.timeout_ms),
        seed: args.seed,
        profile: Profile::default(),
    };
    // detection asks with the load's own request timeout
    let limits = Limits {
        request: opts.timeout,
        scenario: opts.timeout,
        poll: opts.timeout,
        scale: 1.0,
    };
    let (report, origin) = with_target!(&args.target, limits.scale, |c| {
        let origin = Origin::of(&c);
        opts.profile = profile_for(&c, args.profile, &limits).await;
        (load::run_load(&c, &opts).await, origin)
    });
    print!("{}", report.table(opts.profile.wire().get));
    if let Some(path) = &args.summary_json {
        let doc = serde_json::to_string_pretty(&report.json()).unwrap_or_default();
        if let Err(e) = std::fs::write(path, doc) {
            eprintln!("taskcheck: cannot write {}: {e}", path.display());
            return exit::HARNESS;
        }
    }
    let judged = report.run_report(opts.profile, &origin);
    conclude(&judged, &args.reports, report.error.is_some())
}
