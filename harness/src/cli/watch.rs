//! `taskcheck watch`: a real client and server judged in their own traffic, over stdio (as the
//! client's server command) or Streamable HTTP (as a reverse proxy), and with `--exec`, the
//! traffic of a command watch runs itself (a test suite, an agent host) until it exits.

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
    /// Run this shell command (an integration test suite, an agent host) against the watched
    /// server, and stop when it exits: it finds the proxy's URL in `TASKCHECK_URL`, or, over
    /// stdio, the command that starts the server through watch in `TASKCHECK_SERVER_COMMAND`
    /// (shell-quoted; each start is a conversation of its own). The exit code is the verdict's
    /// when the traffic failed it, else the command's.
    #[arg(long, value_name = "SHELL COMMAND")]
    pub exec: Option<String>,
    /// Relay and record only, into a new file of this directory (what `--exec` gives each
    /// start of the server over stdio): no report, exit 0 once the conversation ends.
    #[arg(long, value_name = "DIR", hide = true, conflicts_with_all = ["listen", "exec"])]
    pub record_into: Option<PathBuf>,
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
    if let Some(dir) = &args.record_into {
        return recorded_into(dir, &args.command).await;
    }
    // a broken baseline is refused before any traffic; sessions are named as they come
    let baseline = expected_failures(&args.reports, &[offline::UNNAMED.to_string()]);
    let command = Served::default();
    let started = mcp_taskcheck::timestamp::now();
    let clock = std::time::Instant::now();
    let report = match (&args.listen, &args.upstream, &args.exec) {
        (Some(listen), Some(upstream), _) => proxy(*listen, upstream, &args, &command).await,
        (_, _, Some(exec)) => executed(exec, &args, &command).await,
        _ => wrapped(&args).await,
    };
    let report = match report {
        // watch saw the conversation as it happened: when, and for how long
        Ok(report) => RunReport {
            started,
            duration: clock.elapsed(),
            ..report
        },
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
    let verdict = emit_on(&report, &args.reports, baseline.as_ref(), true);
    match command.code() {
        Some(code) if verdict == exit::CONFORMANT && code != 0 => {
            eprintln!("taskcheck watch: the command exited {code}");
            code
        }
        _ => verdict,
    }
}

/// The command `--exec` ran, once it exited: how.
#[derive(Default, Clone)]
struct Served(std::sync::Arc<std::sync::Mutex<Option<std::process::ExitStatus>>>);

impl Served {
    /// Runs `exec` in a shell with `env`, and tells `ended` once it exits.
    fn start(
        &self,
        exec: &str,
        env: &[(&str, &str)],
        ended: tokio::sync::watch::Sender<bool>,
    ) -> Result<(), String> {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", exec])
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot run --exec {exec:?}: {e}"))?;
        let status = self.0.clone();
        tokio::spawn(async move {
            let waited = child.wait().await.ok();
            *status.lock().unwrap_or_else(|p| p.into_inner()) = waited;
            let _ = ended.send(true);
        });
        Ok(())
    }

    /// The command's exit code, once it exited (a signal's end is 128 plus its number).
    fn code(&self) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        let status = (*self.0.lock().unwrap_or_else(|p| p.into_inner()))?;
        Some(status.code().unwrap_or(128 + status.signal().unwrap_or(0)))
    }
}

/// The proxy's report: every conversation it relayed, judged.
async fn proxy(
    listen: SocketAddr,
    upstream: &str,
    args: &WatchArgs,
    command: &Served,
) -> Result<RunReport, String> {
    let url = reqwest::Url::parse(upstream)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or_else(|| usage_error(format!("--upstream {upstream:?} is not an http(s) URL")));
    let (ended, stopping) = tokio::sync::watch::channel(false);
    let stop = http::Stop {
        sessions: args.sessions,
        idle: args.idle_exit.map(Duration::from_secs),
        command: args.exec.as_ref().map(|_| stopping),
    };
    let started = |url: &str| match &args.exec {
        Some(exec) => command.start(exec, &[("TASKCHECK_URL", url)], ended),
        None => Ok(()),
    };
    let relayed = http::run(listen, url, stop, started).await?;
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

/// `--exec` over stdio: the command runs with `TASKCHECK_SERVER_COMMAND`, a watch of the
/// server that records each conversation into a directory of its own; once it exits, every
/// conversation recorded there, judged.
async fn executed(exec: &str, args: &WatchArgs, command: &Served) -> Result<RunReport, String> {
    let dir = std::env::temp_dir().join(format!("taskcheck-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let me = std::env::current_exe().map_err(|e| format!("cannot find taskcheck itself: {e}"))?;
    let mut wrapper = vec![
        me.to_string_lossy().into_owned(),
        "watch".into(),
        "--record-into".into(),
        dir.to_string_lossy().into_owned(),
        "--".into(),
    ];
    wrapper.extend(args.command.iter().cloned());
    let quoted = shlex::try_join(wrapper.iter().map(String::as_str))
        .map_err(|e| format!("cannot quote the server command: {e}"))?;
    let (ended, mut done) = tokio::sync::watch::channel(false);
    command.start(exec, &[("TASKCHECK_SERVER_COMMAND", &quoted)], ended)?;
    tokio::select! {
        _ = done.wait_for(|d| *d) => {}
        _ = mcp_taskcheck::watch::terminated() => {}
    }
    let mut entries = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|f| f.ok().map(|f| f.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        entries.extend(offline::read_trace(&text, &file.to_string_lossy())?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "taskcheck watch: the command ended; {} conversation(s) with the server recorded",
        files.len()
    );
    let origin = format!("{} (watched under {exec:?})", args.command.join(" "));
    Ok(offline::judge(
        entries,
        None,
        &[],
        &origin,
        args.judge,
        args.profile,
    ))
}

/// `--record-into DIR`: one conversation relayed and recorded into a new file of `DIR`,
/// named by this process, written as soon as it ended (a client may stop its server then) and
/// again once the server is done; no report.
async fn recorded_into(dir: &std::path::Path, command: &[String]) -> i32 {
    let name = format!("session-{}", std::process::id());
    let path = dir.join(format!("{name}.jsonl"));
    let write = |entries: &[Entry]| {
        let named: Vec<Entry> = entries
            .iter()
            .map(|e| Entry {
                scenario: Some(name.clone()),
                ..e.clone()
            })
            .collect();
        // written whole, then moved into place: the judging side never reads half of it
        let part = path.with_extension("part");
        mcp_taskcheck::trace::write_jsonl(&part, &named)
            .and_then(|()| std::fs::rename(&part, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    let mut early = Ok(());
    let watched = match stdio::run(command, |entries| early = write(entries)).await {
        Ok(w) => w,
        Err(e) => {
            eprintln!("taskcheck watch: {e}");
            return exit::HARNESS;
        }
    };
    match early.and_then(|()| write(&watched.entries)) {
        Ok(()) => exit::CONFORMANT,
        Err(e) => {
            eprintln!("taskcheck watch: {e}");
            exit::HARNESS
        }
    }
}

/// The stdio wrapper's report: the conversation, judged.
async fn wrapped(args: &WatchArgs) -> Result<RunReport, String> {
    let watched = stdio::run(&args.command, |_| {}).await?;
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
