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

/// Relays the conversation, then judges the server in it (and the client, where the design
/// can) and reports on stderr (stdout is the protocol); the exit code is `run`'s.
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
    let mut report = offline::judge(watched.entries.clone(), None, &[], &origin);
    let said = match (
        client_checks(&report, &watched),
        report.scenarios.first_mut(),
    ) {
        (Ok(checks), Some(session)) => {
            session.checks.extend(checks);
            "the client judged by the requestor rules".to_string()
        }
        (Ok(_), None) => "the client is not judged: no session was recorded".to_string(),
        (Err(why), _) => format!("the client is not judged: {why}"),
    };
    eprintln!("taskcheck watch: {}; {said}", watched.ended);
    emit_on(&report, &args.reports, baseline.as_ref(), true)
}

/// The requestor checks of the watched client, or why there are none: a client is judged
/// only once it ended the conversation itself (a server that went first cut it short), against
/// a server that met every rule it was judged on (a client echoing the invalid task id it was
/// given breaks a rule through no fault of its own), and under a design whose requestor judges
/// need no ask.
fn client_checks(
    report: &mcp_taskcheck::report::RunReport,
    watched: &watch::Watched,
) -> Result<Vec<mcp_taskcheck::verdict::Check>, String> {
    if !watched.client_ended {
        return Err("the server ended the conversation before the client did".into());
    }
    if let Some((rule, verdict)) = report.rules_not_met().into_iter().next() {
        return Err(format!(
            "the server did not meet {rule} ({}), and what a client does after that is no evidence against it",
            verdict.label()
        ));
    }
    report
        .profile
        .judge_watched_requestor(&watched.entries)
        .ok_or_else(|| {
            format!(
                "taskcheck cannot judge a client of the {} design in traffic it did not ask for yet",
                report.profile
            )
        })
}
