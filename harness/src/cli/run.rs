//! `taskcheck run`: the scenarios against a server, and the suite runner `client` shares.

use super::args::{LibraryArgs, ReportArgs, SuiteArgs, TargetArgs};
use super::output::{emit, progress};
use super::target::tested_profile;
use super::{baseline, config, selected_for, timeout_scale, usage_error};
use mcp_taskcheck::project::Project;
use mcp_taskcheck::transport::Connect;
use mcp_taskcheck::transport::ReceiverKind;
use mcp_taskcheck::{exit, inspect, suite};
use std::path::PathBuf;
use std::sync::Arc;

/// What `run` takes.
#[derive(clap::Args, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Read the receiver, profile, fixtures, baseline and reports from this file (default:
    /// taskcheck.yaml in the working directory, if there is one); flags given here win.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Runs the selected scenarios against the receiver and reports.
pub async fn run(mut args: RunArgs) -> i32 {
    let found = Project::find(args.config.as_deref()).unwrap_or_else(|e| usage_error(e));
    if let Some(project) = found {
        if !args.suite.reports.quiet {
            eprintln!("taskcheck: settings from {}", project.file.display());
        }
        fill_in(&mut args, project);
    }
    // a fresh server per scenario: one at a time, so none is killed under another
    let jobs = args.target.url_from.as_ref().map(|_| 1);
    with_target!(&args.target, timeout_scale(&args.suite.judge), |c| {
        run_suite(c, &args.suite, jobs, ReceiverKind::Server).await
    })
}

/// Takes from `taskcheck.yaml` what the command line did not give.
fn fill_in(args: &mut RunArgs, project: Project) {
    let target = &mut args.target;
    if target.stdio.is_none() && target.url.is_none() && target.url_from.is_none() {
        (target.stdio, target.url, target.url_from) =
            (project.stdio, project.url, project.url_from);
    }
    if target.headers.is_empty() {
        target.headers = project.headers;
    }
    let suite = &mut args.suite;
    suite.library.profile = suite.library.profile.or(project.profile);
    if suite.judge.fixtures.is_none() {
        suite.judge.fixture_map = project.fixtures;
    }
    suite.judge.timeout_scale = suite.judge.timeout_scale.or(project.timeout_scale);
    let reports = &mut suite.reports;
    reports.fail_on = reports.fail_on.or(project.fail_on);
    reports.require_judged = reports.require_judged.or(project.require_judged);
    let or = |flag: &mut Option<PathBuf>, file: Option<PathBuf>| {
        if flag.is_none() {
            *flag = file;
        }
    };
    or(&mut reports.expected_failures, project.expected_failures);
    or(&mut reports.report_json, project.reports.json);
    or(&mut reports.report_junit, project.reports.junit);
    or(&mut reports.report_md, project.reports.md);
    or(&mut reports.report_html, project.reports.html);
    or(&mut reports.checks_json, project.reports.checks_json);
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
    // a selection no design's scenarios can meet is refused before any receiver starts
    let every_design = LibraryArgs {
        profile: None,
        ..library.clone()
    };
    selected_for(&every_design, &args.select, kind);
    let profile = match kind {
        ReceiverKind::Server => {
            let limits = config(&args.judge).limits;
            match tested_profile(&connector, library.profile, &limits, !args.reports.quiet).await {
                Ok(profile) => profile,
                Err((profile, why)) => {
                    // a broken baseline is still a usage error, said first
                    let tested = LibraryArgs {
                        profile: Some(profile),
                        ..library.clone()
                    };
                    baseline(&args.reports, &tested);
                    // nothing would open for any scenario either: say why once, and stop (no
                    // scenario ran, so no baseline entry is met or stale)
                    eprintln!(
                        "taskcheck: no session with the server opens, so no scenario ran: {why}"
                    );
                    let report = suite::unopened(&connector, profile, why);
                    let reports = ReportArgs {
                        expected_failures: None,
                        ..args.reports.clone()
                    };
                    return super::output::conclude(&report, &reports, true);
                }
            }
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
    if !config.fixtures.is_empty() && kind == ReceiverKind::Server && !args.reports.quiet {
        // say up front what the mapping leaves out
        if let Ok((info, tools)) =
            mcp_taskcheck::runner::probe(&connector, &config.limits, profile).await
        {
            let negotiates = profile.negotiates_task_support(&info.capabilities);
            let roles = profile.fixture_roles();
            eprint!(
                "{}",
                inspect::fixture_plan(&config.fixtures, &tools, &roles, negotiates, &scenarios)
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
