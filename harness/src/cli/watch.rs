//! `taskcheck watch`: a real client and server judged in their own traffic, over stdio (as the
//! client's server command) or Streamable HTTP (as a reverse proxy).

use super::args::ReportArgs;
use super::output::emit_on;
use super::{expected_failures, usage_error};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::offline::{self, Sides};
use mcp_taskcheck::report::RunReport;
use mcp_taskcheck::trace::Entry;
use mcp_taskcheck::watch::{http, stdio};
use mcp_taskcheck::{exit, suite};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// What `watch` takes.
#[derive(clap::Args, Clone)]
pub struct WatchArgs {
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Which side to judge: the server (receiver rules), the client (requestor rules), or both.
    #[arg(long, value_enum, default_value = "both")]
    pub judge: Sides,
    /// The design of Tasks the traffic speaks: `2025-11-25` or `ext-tasks` (by default each
    /// conversation's own, from its messages).
    #[arg(long, value_name = "NAME", value_parser = super::parse_profile)]
    pub profile: Option<Profile>,
    /// Write every message relayed here, as JSON lines (each tagged with its conversation),
    /// for `taskcheck check` to judge again.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The stdio conversation's name in the reports and the trace (default `trace`): give each
    /// watch its own where their traces are judged together by `taskcheck check`.
    #[arg(long, value_name = "NAME", conflicts_with = "listen")]
    pub name: Option<String>,
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
    /// Stop the proxy after this many seconds without a request (the clients still in a
    /// conversation are then judged as having gone quiet).
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

/// Relays the conversation, then judges the server in it and the client (a client only where
/// it ended the conversation itself against a server that broke no MUST) and reports on
/// stderr (stdout is the protocol, or the proxy's URL); the exit code is `run`'s.
pub async fn run(args: WatchArgs) -> i32 {
    // a broken baseline is refused before any traffic; sessions are named as they come
    let baseline = expected_failures(&args.reports, &[offline::UNNAMED.to_string()]);
    let report = match (&args.listen, &args.upstream) {
        (Some(listen), Some(upstream)) => proxy(*listen, upstream, &args).await,
        _ => wrapped(&args).await,
    };
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("taskcheck watch: {e}");
            return exit::HARNESS;
        }
    };
    if let Some(path) = &args.trace {
        if let Err(e) = suite::write_trace(path, &report) {
            eprintln!("taskcheck watch: cannot write {}: {e}", path.display());
            return exit::HARNESS;
        }
    }
    emit_on(&report, &args.reports, baseline.as_ref(), true)
}

/// The proxy's report: every conversation it relayed, judged.
async fn proxy(listen: SocketAddr, upstream: &str, args: &WatchArgs) -> Result<RunReport, String> {
    let url = reqwest::Url::parse(upstream)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or_else(|| usage_error(format!("--upstream {upstream:?} is not an http(s) URL")));
    let stop = http::Stop {
        sessions: args.sessions,
        idle: args.idle_exit.map(Duration::from_secs),
    };
    let relayed = http::run(listen, url, stop).await?;
    let origin = format!("{upstream} (watched through a proxy)");
    eprintln!(
        "taskcheck watch: the proxy stopped ({}); {} conversation(s) relayed, {} ended by their client",
        relayed.stopped.said(),
        relayed.conversations,
        relayed.ended
    );
    Ok(offline::judge(
        relayed.entries,
        None,
        &[],
        &origin,
        args.judge,
        args.profile,
    ))
}

/// The stdio wrapper's report: the conversation, judged.
async fn wrapped(args: &WatchArgs) -> Result<RunReport, String> {
    let watched = stdio::run(&args.command).await?;
    let origin = format!("{} (watched)", args.command.join(" "));
    let who = match watched.ender {
        stdio::Ender::Client => "the client ended the conversation",
        stdio::Ender::Server => "the server ended the conversation",
        stdio::Ender::Signal => "taskcheck watch was stopped by a signal",
    };
    eprintln!("taskcheck watch: {who}; {}", watched.ended);
    let named = |e: Entry| Entry {
        scenario: args.name.clone(),
        ..e
    };
    Ok(offline::judge(
        watched.entries.into_iter().map(named).collect(),
        None,
        &[],
        &origin,
        args.judge,
        args.profile,
    ))
}
