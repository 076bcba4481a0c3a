//! `taskcheck watch`: a real client and server judged in their own traffic, over stdio (as the
//! client's server command) or Streamable HTTP (as a reverse proxy).

use super::args::ReportArgs;
use super::output::emit_on;
use super::{expected_failures, usage_error};
use mcp_taskcheck::report::RunReport;
use mcp_taskcheck::watch::{http, stdio};
use mcp_taskcheck::{exit, offline};
use std::net::SocketAddr;
use std::time::Duration;

/// What `watch` takes.
#[derive(clap::Args, Clone)]
pub struct WatchArgs {
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Serve as a Streamable HTTP reverse proxy on this address (`127.0.0.1:8080`; port 0
    /// picks one), its URL printed first on stdout, instead of wrapping a stdio server.
    #[arg(long, value_name = "ADDR:PORT", requires = "upstream")]
    pub listen: Option<SocketAddr>,
    /// The Streamable HTTP endpoint every request to the proxy goes to.
    #[arg(long, value_name = "URL", requires = "listen")]
    pub upstream: Option<String>,
    /// Stop the proxy once this many sessions have ended (a DELETE).
    #[arg(long, value_name = "N", requires = "listen")]
    pub sessions: Option<usize>,
    /// Stop the proxy after this many seconds without a request.
    #[arg(long, value_name = "SECONDS", requires = "listen")]
    pub idle_exit: Option<u64>,
    /// The stdio server command and its arguments, after `--` (run directly, not by a shell).
    #[arg(
        last = true,
        value_name = "COMMAND",
        required_unless_present = "listen",
        conflicts_with = "listen"
    )]
    pub command: Vec<String>,
}

/// Relays the conversation, then judges the server in it (and the client, where it can) and
/// reports on stderr (stdout is the protocol, or the proxy's URL); the exit code is `run`'s.
pub async fn run(args: WatchArgs) -> i32 {
    // a broken baseline is refused before any traffic; sessions are named as they come
    let baseline = expected_failures(&args.reports, &[offline::UNNAMED.to_string()]);
    let report = match (&args.listen, &args.upstream) {
        (Some(listen), Some(upstream)) => proxy(*listen, upstream, &args).await,
        _ => wrapped(&args.command).await,
    };
    match report {
        Ok(report) => emit_on(&report, &args.reports, baseline.as_ref(), true),
        Err(e) => {
            eprintln!("taskcheck watch: {e}");
            exit::HARNESS
        }
    }
}

/// The proxy's report: every session it relayed, the server judged in each.
async fn proxy(listen: SocketAddr, upstream: &str, args: &WatchArgs) -> Result<RunReport, String> {
    let url = reqwest::Url::parse(upstream)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or_else(|| usage_error(format!("--upstream {upstream:?} is not an http(s) URL")));
    let stop = http::Stop {
        sessions: args.sessions,
        idle: args.idle_exit.map(Duration::from_secs),
    };
    let entries = http::run(listen, url, stop).await?;
    let origin = format!("{upstream} (watched through a proxy)");
    eprintln!("taskcheck watch: the proxy stopped; the clients are not judged over HTTP yet");
    Ok(offline::judge(entries, None, &[], &origin))
}

/// The stdio wrapper's report: the server judged, and the client where it can be.
async fn wrapped(command: &[String]) -> Result<RunReport, String> {
    let watched = stdio::run(command).await?;
    let origin = format!("{} (watched)", command.join(" "));
    // the watched session is no scenario of the library: only the monitors judge it; its
    // trace, kept in the report, is what the client is judged on too
    let mut report = offline::judge(watched.entries, None, &[], &origin);
    let client = match report.scenarios.first() {
        Some(session) => client_checks(&report, &session.trace, watched.client_ended),
        None => Err("no session was recorded".to_string()),
    };
    let said = match (client, report.scenarios.first_mut()) {
        (Ok(checks), Some(session)) => {
            session.checks.extend(checks);
            "the client judged by the requestor rules".to_string()
        }
        (Ok(_), None) => "the client is not judged: no session was recorded".to_string(),
        (Err(why), _) => format!("the client is not judged: {why}"),
    };
    eprintln!("taskcheck watch: {}; {said}", watched.ended);
    Ok(report)
}

/// The requestor checks of the watched client, or why there are none: a client is judged
/// only once it ended the conversation itself (a server that went first cut it short), against
/// a server that met every rule it was judged on (a client echoing the invalid task id it was
/// given breaks a rule through no fault of its own), and under a design whose requestor judges
/// need no ask.
fn client_checks(
    report: &RunReport,
    entries: &[mcp_taskcheck::trace::Entry],
    client_ended: bool,
) -> Result<Vec<mcp_taskcheck::verdict::Check>, String> {
    if !client_ended {
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
        .judge_watched_requestor(entries)
        .ok_or_else(|| {
            format!(
                "taskcheck cannot judge a client of the {} design in traffic it did not ask for yet",
                report.profile
            )
        })
}
