//! `taskcheck explore`: random operation sequences, shrunk when one fails.

use super::args::{ProbedArgs, ReportArgs};
use super::config;
use super::output::conclude;
use super::target::profile_for;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::explore::{self as exploring};
use std::path::PathBuf;

/// What `explore` takes.
#[derive(clap::Args, Clone)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub receiver: ProbedArgs,
    /// Case k draws its operations from seed N+k (default: from the clock, printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How many random sequences to run.
    #[arg(long, default_value_t = 50)]
    pub cases: usize,
    /// Longest sequence of operations.
    #[arg(long, default_value_t = 24)]
    pub max_ops: usize,
    /// Most runs spent shrinking a failing sequence.
    #[arg(long, default_value_t = 200)]
    pub shrink_runs: usize,
    /// Write the minimal failing sequence here as a scenario `taskcheck run --scenarios` replays.
    #[arg(long, value_name = "DIR")]
    pub save_failures: Option<PathBuf>,
    /// Reports: `explore/held` (a check per rule the clean cases judged), the failure shrunk
    /// (`explore/seed-N`) and each failure seen once (`explore/once-seed-N`).
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// Explores, and reports the first failure shrunk.
pub async fn run(args: ExploreArgs) -> i32 {
    let config = config(&args.receiver.judge);
    let mut options = exploring::Options {
        profile: Profile::default(),
        seed: args.seed.unwrap_or_else(clock_seed),
        cases: args.cases,
        max_ops: args.max_ops,
        shrink_runs: args.shrink_runs,
        save_failures: args.save_failures,
    };
    let found = with_target!(&args.receiver.target, config.limits.scale, |c| {
        options.profile = profile_for(&c, args.receiver.profile, &config.limits).await;
        exploring::explore(&c, &config, &options).await
    });
    print!("{}", found.summary(&options));
    conclude(
        &found.report(options.profile),
        &args.reports,
        found.error.is_some(),
    )
}

/// A seed from the clock, when none is given.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
