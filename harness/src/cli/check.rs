//! `taskcheck check`: a recorded trace judged offline.

use super::args::{LibraryArgs, ReportArgs, SelectArgs};
use super::output::emit;
use super::{baseline, library, selected, usage_error};
use mcp_taskcheck::offline::{self, Sides};
use mcp_taskcheck::schema::SchemaSet;
use std::collections::HashSet;
use std::path::PathBuf;

/// What `check` takes.
#[derive(clap::Args, Clone)]
pub struct CheckArgs {
    /// The trace file.
    pub trace: PathBuf,
    /// Also validate every message against this official MCP schema.json (repeatable:
    /// the extension's schema.json beside the 2026-07-28 one).
    #[arg(long, value_name = "FILE")]
    pub schema: Vec<PathBuf>,
    /// List the first N sessions to end; after them only the first three to show each rule
    /// not met, and count the rest in the totals and rules (`folded`), so the report of a
    /// trace of any size stays small.
    #[arg(long, value_name = "N", default_value_t = 500)]
    pub fold_after: usize,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Which side to judge: the receiver (by default), the requestor (what the client did:
    /// for a trace where taskcheck was not the client, such as `watch --trace` writes), or both.
    #[arg(long, value_enum, default_value = "receiver")]
    pub judge: Sides,
    /// Judge only the sessions recorded of the scenarios these pick (by default every session,
    /// whatever its name).
    #[command(flatten)]
    pub select: SelectArgs,
}

/// Judges the trace and reports.
pub fn run(args: CheckArgs) -> i32 {
    let CheckArgs {
        trace,
        schema,
        fold_after,
        reports,
        library: lib,
        select,
        judge,
    } = args;
    let chosen = !(select.only.is_empty() && select.rules.is_empty() && select.tags.is_empty());
    let only: Option<HashSet<String>> =
        chosen.then(|| selected(&lib, &select).into_iter().map(|s| s.id).collect());
    let official = (!schema.is_empty())
        .then(|| SchemaSet::load_all(&schema).unwrap_or_else(|e| usage_error(e)));
    // only the HTML report draws whole sessions; the others need what checks name
    let keep_traces = reports.report_html.is_some();
    let report = offline::check_file(
        &trace,
        official.as_ref(),
        &library(&lib),
        keep_traces,
        fold_after,
        only.as_ref(),
        judge,
    )
    .unwrap_or_else(|e| usage_error(e));
    let baseline = baseline(&reports, &lib);
    emit(&report, &reports, baseline.as_ref())
}
