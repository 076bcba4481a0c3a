//! What a judging command prints and writes: the terminal report, every report file, and the
//! progress bar.

use super::args::ReportArgs;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_taskcheck::baseline::Baseline;
use mcp_taskcheck::exit;
use mcp_taskcheck::report::{width, Detail, RunReport};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Prints the terminal report and writes every requested one; returns the exit code.
pub fn emit(report: &RunReport, reports: &ReportArgs, baseline: Option<&Baseline>) -> i32 {
    emit_on(report, reports, baseline, false)
}

/// As [`emit`], the terminal report on stderr when `on_stderr` (where stdout carries the
/// protocol, as under `watch`).
pub fn emit_on(
    report: &RunReport,
    reports: &ReportArgs,
    baseline: Option<&Baseline>,
    on_stderr: bool,
) -> i32 {
    let outcome = report.outcome(
        reports.fail_on.unwrap_or_default(),
        baseline,
        reports.require_judged.unwrap_or_default(),
    );
    let terminal = match on_stderr {
        true => std::io::stderr().is_terminal(),
        false => std::io::stdout().is_terminal(),
    };
    let colour = terminal && std::env::var_os("NO_COLOR").is_none();
    let detail = match (reports.verbose, reports.quiet) {
        (true, _) => Detail::Verbose,
        (_, true) => Detail::Quiet,
        _ => Detail::Normal,
    };
    let text = report.terminal(&outcome, colour, detail, width::stdout_width());
    // the files first, so that the exit line stays the last a combined log shows
    let code = write_reports(report, &outcome, reports);
    match on_stderr {
        true => eprint!("{text}"),
        false => print!("{text}"),
    }
    code
}

/// For a command that prints its own summary (`explore`, `fuzz-wire`): judges its report under
/// `--fail-on` and the baseline, writes every report file, prints the exit line and returns the
/// exit code (the harness's when `harness_error`, the command could not do its work).
pub fn conclude(report: &RunReport, reports: &ReportArgs, harness_error: bool) -> i32 {
    let ids: Vec<String> = report.scenarios.iter().map(|s| s.id.clone()).collect();
    let baseline = super::expected_failures(reports, &ids);
    let outcome = report.outcome(
        reports.fail_on.unwrap_or_default(),
        baseline.as_ref(),
        reports.require_judged.unwrap_or_default(),
    );
    let code = match (write_reports(report, &outcome, reports), harness_error) {
        (exit::CONFORMANT, true) => exit::HARNESS,
        (code, _) => code,
    };
    match code == outcome.code {
        true => println!("exit {}: {}", outcome.code, outcome.meaning),
        false => println!("exit {code}"),
    }
    code
}

/// Writes every report file requested and says which on stderr; returns the outcome's exit
/// code, or the harness's if a file could not be written.
pub fn write_reports(
    report: &RunReport,
    outcome: &mcp_taskcheck::report::Outcome,
    reports: &ReportArgs,
) -> i32 {
    let pretty = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap_or_default();
    let outputs: [(&Option<PathBuf>, &dyn Fn() -> String); 5] = [
        (&reports.report_json, &|| pretty(report.json(outcome))),
        (&reports.report_junit, &|| report.junit(outcome)),
        (&reports.report_md, &|| report.markdown(outcome)),
        (&reports.report_html, &|| report.html(outcome)),
        (&reports.checks_json, &|| {
            pretty(report.checks_json(outcome))
        }),
    ];
    let mut written = Vec::new();
    for (path, render) in outputs {
        if let Some(path) = path {
            if let Err(e) = std::fs::write(path, render()) {
                eprintln!("taskcheck: cannot write {}: {e}", path.display());
                return exit::HARNESS;
            }
            written.push(path.display().to_string());
        }
    }
    // on stderr, beside the terminal report that stdout carries (scripts parse it); -q keeps
    // to the verdict
    if !written.is_empty() && !reports.quiet {
        eprintln!("taskcheck: wrote {}", written.join(", "));
    }
    outcome.code
}

/// A progress bar on stderr, drawn only when stderr is a terminal and the run passes a second.
pub fn progress(scenarios: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(scenarios as u64), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} scenarios  {msg}") {
        bar.set_style(style);
    }
    if std::io::stderr().is_terminal() {
        let later = bar.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if !later.is_finished() {
                later.set_draw_target(ProgressDrawTarget::stderr());
            }
        });
    }
    bar
}
