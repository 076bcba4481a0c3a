//! `taskcheck run`: the scenarios against a server, and the suite runner `client` shares.

use super::args::{SuiteArgs, TargetArgs};
use super::output::{emit, progress};
use super::target::profile_for;
use super::{baseline, config, selected_for, timeout_scale};
use mcp_taskcheck::scenario::ReceiverKind;
use mcp_taskcheck::transport::Connect;
use mcp_taskcheck::{exit, inspect, monitor, suite};
use std::sync::Arc;

/// What `run` takes.
#[derive(clap::Args, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// Runs the selected scenarios against the receiver and reports.
pub async fn run(args: RunArgs) -> i32 {
    // a fresh server per scenario: one at a time, so none is killed under another
    let jobs = args.target.url_from.as_ref().map(|_| 1);
    with_target!(&args.target, timeout_scale(&args.suite.judge), |c| {
        run_suite(c, &args.suite, jobs, ReceiverKind::Server).await
    })
}

/// Scenarios run at once without `--jobs`: they spend their time waiting on the receiver, so
/// more of them than there are CPUs shortens a run; list walks keep their own guard against
/// concurrent creations (`runner::steps`), so the count never changes a verdict.
const DEFAULT_JOBS: usize = 8;

/// Runs the scenarios for this kind of receiver that the selection picks and reports;
/// `jobs` overrides `--jobs`.
pub async fn run_suite<C: Connect + 'static>(
    connector: C,
    args: &SuiteArgs,
    jobs: Option<usize>,
    kind: ReceiverKind,
) -> i32 {
    let mut library = args.library.clone();
    let profile = match kind {
        ReceiverKind::Server => {
            let limits = config(&args.judge).limits;
            profile_for(&connector, library.profile, &limits).await
        }
        ReceiverKind::Client => library.profile.unwrap_or_default(),
    };
    library.profile = Some(profile);
    let args = &SuiteArgs {
        library,
        ..args.clone()
    };
    let scenarios = selected_for(&args.library, &args.select, kind);
    let baseline = baseline(&args.reports, &args.library);
    let config = config(&args.judge);
    if !config.fixtures.is_empty() && kind == ReceiverKind::Server {
        // say up front what the mapping leaves out
        if let Ok((info, tools)) =
            mcp_taskcheck::runner::probe(&connector, &config.limits, profile).await
        {
            let negotiates =
                monitor::has_capability(&info.capabilities, profile.task_tools_capability());
            eprint!(
                "{}",
                inspect::fixture_plan(&config.fixtures, &tools, negotiates, &scenarios)
            );
        }
    }
    let jobs = jobs.or(args.jobs).unwrap_or(DEFAULT_JOBS);
    let bar = progress(scenarios.len());
    let on_done: suite::OnDone = {
        let bar = bar.clone();
        Arc::new(move |run| {
            bar.set_message(run.id.clone());
            bar.inc(1);
        })
    };
    let report = suite::run_all(Arc::new(connector), scenarios, config, jobs, on_done).await;
    bar.finish_and_clear();
    let code = emit(&report, &args.reports, baseline.as_ref());
    if let Some(path) = &args.trace {
        if let Err(e) = suite::write_trace(path, &report) {
            eprintln!("taskcheck: cannot write {}: {e}", path.display());
            return exit::HARNESS;
        }
    }
    code
}
