//! `taskcheck fuzz-wire`: malformed and edge-case messages, each in a fresh session.

use super::args::{ProbedArgs, ReportArgs};
use super::explore::clock_seed;
use super::output::conclude;
use super::target::profile_for;
use super::{config, usage_error};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::{exit, fuzzwire, verdict};
use std::path::PathBuf;
use std::time::Duration;

/// What `fuzz-wire` takes.
#[derive(clap::Args, Clone)]
pub struct FuzzWireArgs {
    #[command(flatten)]
    pub receiver: ProbedArgs,
    /// Case k draws its input from seed N+k (default: from the clock, printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// How many inputs to send.
    #[arg(long, default_value_t = 200)]
    pub cases: usize,
    /// Start no case after this many seconds.
    #[arg(long, default_value_t = 300)]
    pub time_s: u64,
    /// Write the first case that breaks each rule here, as a file --replay sends again.
    #[arg(long, value_name = "DIR")]
    pub save_failures: Option<PathBuf>,
    /// Send one saved case again and judge it (instead of random cases).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "cases", "save_failures"])]
    pub replay: Option<PathBuf>,
    /// Reports: a scenario per input class (`fuzz-wire/<class>`), a check per rule.
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// Fuzzes (or replays one saved case) and reports.
pub async fn run(args: FuzzWireArgs) -> i32 {
    let config = config(&args.receiver.judge);
    if let Some(file) = &args.replay {
        let saved = fuzzwire::SavedCase::load(file).unwrap_or_else(|e| usage_error(e));
        let judged = with_target!(&args.receiver.target, config.limits.scale, |c| {
            fuzzwire::run_case(&c, &config, &saved.input).await
        });
        let checks = match judged {
            Ok(checks) => checks,
            Err(e) => {
                println!("error: {e}");
                return exit::HARNESS;
            }
        };
        for c in &checks {
            println!("{} {}: {}", c.verdict.label(), c.rule, c.message);
        }
        return match checks.iter().map(|c| c.verdict).max() {
            Some(verdict::Verdict::Error) => exit::HARNESS,
            Some(verdict::Verdict::Fail) => exit::NONCONFORMANT,
            _ => exit::CONFORMANT,
        };
    }
    let mut options = fuzzwire::Options {
        profile: Profile::default(),
        seed: args.seed.unwrap_or_else(clock_seed),
        cases: args.cases,
        time_limit: Duration::from_secs(args.time_s),
        save_failures: args.save_failures,
    };
    let found = with_target!(&args.receiver.target, config.limits.scale, |c| {
        options.profile = profile_for(&c, args.receiver.profile, &config.limits).await;
        fuzzwire::fuzz(&c, &config, &options).await
    });
    print!("{}", found.summary(&options));
    conclude(
        &found.report(options.profile),
        &args.reports,
        found.error.is_some(),
    )
}
