//! `taskcheck watch`: a real client and server judged in their own traffic (over stdio).

use super::args::ReportArgs;
use super::expected_failures;
use super::output::emit_on;
use mcp_taskcheck::{exit, offline, watch};

/// What `watch` takes.
#[derive(clap::Args, Clone)]
pub struct WatchArgs {
    #[command(flatten)]
    pub reports: ReportArgs,
    /// The server command and its arguments, after `--` (run directly, not by a shell).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Relays the conversation, then judges the server in it and reports on stderr (stdout is
/// the protocol); the exit code is `run`'s.
pub async fn run(args: WatchArgs) -> i32 {
    // a broken baseline is refused before the conversation, whose one session is unnamed
    let baseline = expected_failures(&args.reports, &[offline::UNNAMED.to_string()]);
    let watched = match watch::stdio(&args.command).await {
        Ok(watched) => watched,
        Err(e) => {
            eprintln!("taskcheck watch: {e}");
            return exit::HARNESS;
        }
    };
    let origin = format!("{} (watched)", args.command.join(" "));
    // the watched session is no scenario of the library: only the monitors judge it
    let report = offline::judge(watched.entries, None, &[], &origin);
    eprintln!(
        "taskcheck watch: {}; the client's side (requestor rules) is not judged yet",
        watched.ended
    );
    emit_on(&report, &args.reports, baseline.as_ref(), true)
}
