//! `taskcheck requestor`: judging a client as a requestor of tasks. For every requestor
//! scenario taskcheck starts the client under test with the reference receiver (the legal
//! variants the scenario names) as its server, over stdio or (`--http`) Streamable HTTP,
//! recording the conversation (`reference --record`), tells the client what to do
//! (`TASKCHECK_REQUEST`), waits for it to finish, and judges every message it sent by the
//! design's requestor rules.

pub mod polls;
pub mod watched;

use crate::designs::Profile;
use crate::reference::record;
use crate::report::RunReport;
use crate::runner::ScenarioRun;
use crate::trace::Entry;
use crate::transport::client::shell_quote;
use crate::transport::stdio::{spawn_group, GroupGuard};
use crate::verdict::{Check, Verdict};
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt};

/// One requestor scenario: what the server does (legal variants of the reference receiver)
/// and what the client is asked to do.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestorScenario {
    pub id: String,
    pub title: String,
    /// The rules it is meant to judge (the monitors judge every message, whatever these are).
    pub rules: Vec<String>,
    /// What the client is asked to do, given to it as JSON in `TASKCHECK_REQUEST`.
    pub ask: crate::scenario::Ask,
    /// Legal variants of the reference receiver that plays the server.
    #[serde(default)]
    pub serve: Vec<String>,
    /// Faults of the reference receiver served on purpose, to see the client not take a
    /// server's invalid answer for a valid one (the client may end in an error then).
    #[serde(default)]
    pub misbehave: Vec<String>,
    /// The longest the client may take, in ms.
    #[serde(default = "default_deadline")]
    pub deadline_ms: u64,
    /// The one transport it applies to (`http`), where it judges what only that transport has.
    #[serde(default)]
    pub transport: Option<String>,
    #[serde(skip)]
    pub profile: Profile,
}

/// The poll interval a reference requestor uses where a task suggests none, in ms.
pub const REFERENCE_POLL_MS: u64 = 500;
/// How long a reference requestor waits for any one answer.
pub const REFERENCE_WAIT: Duration = Duration::from_secs(10);
/// How long a reference requestor's fault that leaves input unanswered keeps polling.
pub const GIVES_UP_AFTER: Duration = Duration::from_secs(2);

/// Waits before a reference requestor's next poll of a task created at `created`: its
/// interval (20 ms when `fast`, a fault), cut short when the cancellation asked for is due.
pub async fn wait_to_poll(
    interval_ms: u64,
    fast: bool,
    created: Instant,
    cancel_after: Option<Duration>,
) {
    let pause = Duration::from_millis(if fast { 20 } else { interval_ms });
    let left = cancel_after.map(|c| c.saturating_sub(created.elapsed()));
    tokio::time::sleep(left.map_or(pause, |l| l.min(pause))).await;
}

/// A reference requestor's request params, with (`vendor`, its `vendor-meta` variant) a vendor
/// key of its own added to their `_meta`, which no rule may mind.
pub fn with_vendor_meta(mut params: serde_json::Value, vendor: bool) -> serde_json::Value {
    if vendor {
        params["_meta"]["com.example/trace"] = serde_json::json!("taskcheck-reference");
    }
    params
}

fn default_deadline() -> u64 {
    20_000
}

/// The requestor scenarios of every design, from the library (`scenarios/<design>/requestor/`).
pub fn builtin() -> Vec<RequestorScenario> {
    Profile::ALL
        .iter()
        .flat_map(|p| {
            let folder = p.facts().requestor_folder;
            crate::scenario::builtin_texts(folder.unwrap_or_default())
                .into_iter()
                .filter(move |_| folder.is_some())
                .map(move |(file, text)| {
                    let mut s: RequestorScenario =
                        serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
                    s.profile = *p;
                    s
                })
        })
        .collect()
}

/// How `requestor` runs clients.
pub struct Settings {
    /// The client, run by /bin/sh with the server command appended.
    pub command: String,
    /// Multiplies every scenario's deadline.
    pub timeout_scale: f64,
    /// Scenarios run at once, each with its own client and server.
    pub jobs: usize,
    /// Serve the client over Streamable HTTP (its command gets the URL) instead of stdio.
    pub http: bool,
}

/// Runs every scenario against the client and reports, rule by rule.
pub async fn run_all(settings: &Settings, scenarios: Vec<RequestorScenario>) -> RunReport {
    let started = crate::timestamp::now();
    let start = Instant::now();
    let profile = scenarios.first().map(|s| s.profile).unwrap_or_default();
    use futures::StreamExt;
    let runs: Vec<ScenarioRun> = futures::stream::iter(&scenarios)
        .map(|s| run_one(settings, s))
        .buffered(settings.jobs.max(1))
        .collect()
        .await;
    RunReport {
        folded: Default::default(),
        profile,
        cpu: None,
        fixed_work_ms: Default::default(),
        not_exercised: Vec::new(),
        other_transport: Vec::new(),
        receiver: format!("{} (a requestor per scenario)", settings.command),
        transport: match settings.http {
            true => "http",
            false => "stdio",
        }
        .into(),
        started,
        duration: start.elapsed(),
        scenarios: runs,
    }
}

static RECORDINGS: AtomicUsize = AtomicUsize::new(0);

/// A file the reference records one conversation to, removed when dropped.
struct Recording(PathBuf);

impl Drop for Recording {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs the client once for scenario `s` and judges what it sent.
async fn run_one(settings: &Settings, s: &RequestorScenario) -> ScenarioRun {
    let start = Instant::now();
    let over = match settings.http {
        true => "http",
        false => "stdio",
    };
    if let Some(only) = s.transport.as_deref().filter(|t| *t != over) {
        let why = format!("applies only over {only} (this run is over {over})");
        let checks = s
            .rules
            .iter()
            .map(|r| Check::with(r, Verdict::NotApplicable, why.clone()))
            .collect();
        return ScenarioRun::of_checks(s.id.clone(), s.title.clone(), checks);
    }
    let n = RECORDINGS.fetch_add(1, Ordering::Relaxed);
    let file = Recording(std::env::temp_dir().join(format!(
        "taskcheck-requestor-{}-{n}.jsonl",
        std::process::id()
    )));
    let outcome = drive(settings, s, &file.0).await;
    let ended = record::unix_ms();
    let end = match &outcome {
        Err(Unfinished::Deadline(_)) => record::STOPPED,
        _ => record::ENDED,
    };
    let outcome = outcome.map_err(Unfinished::into_reason);
    let entries = std::fs::read_to_string(&file.0)
        .map_err(|e| e.to_string())
        .and_then(|text| crate::offline::read_trace(&text, &file.0.to_string_lossy()))
        .map(|entries| with_end(entries, ended, end));
    let mut run = ScenarioRun::of_checks(s.id.clone(), s.title.clone(), Vec::new());
    run.duration = start.elapsed();
    let entries = match entries {
        Ok(entries) => entries,
        Err(e) => {
            run.error = Some(match outcome {
                Err(why) => why,
                Ok(()) => format!("the client never started the server it was given: {e}"),
            });
            return run;
        }
    };
    run.checks = s.profile.judge_requestor(&entries, &s.ask);
    // a consequence's root is a failure of this scenario
    for root in run.checks.iter_mut().filter_map(|c| c.root.as_mut()) {
        if root.scenario.is_empty() {
            root.scenario = s.id.clone();
        }
    }
    let unjudged = match &outcome {
        Ok(()) => "not observed: the client never did what would show it".to_string(),
        Err(why) => why.clone(),
    };
    for rule in &s.rules {
        if !run.checks.iter().any(|c| &c.rule == rule) {
            run.checks
                .push(Check::with(rule, Verdict::Untestable, unjudged.clone()));
        }
    }
    run.trace = entries;
    run
}

/// The recording with an entry `end` for when the requestor ended (at `ended`, ms since the
/// Unix epoch), on the recording's clock: what it did not do before then, it never did.
fn with_end(mut entries: Vec<Entry>, ended: u64, end: &str) -> Vec<Entry> {
    let started = entries.iter().find_map(|e| {
        e.text
            .as_deref()?
            .strip_prefix(record::STARTED)?
            .parse::<u64>()
            .ok()
    });
    if let Some(started) = started {
        let seq = entries.last().map_or(1, |e| e.seq + 1);
        let at = ended.saturating_sub(started);
        entries.push(record::note(seq, at, end.into()));
    }
    entries
}

/// The most of a client's stderr kept (its end), in bytes.
const STDERR_KEPT: usize = 16 * 1024;

/// Starts the reference receiver over HTTP (`server`, its stdio command words) and reads its
/// URL; it is killed when the guard is dropped.
async fn serve_http(server: &str) -> Result<(String, GroupGuard), String> {
    let (mut child, group) = spawn_group(&format!("{server} --http")).map_err(|e| e.0)?;
    let stdout = child.stdout.take().ok_or("the reference has no stdout")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let url = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .map_err(|_| "the reference did not say its URL within 10 s".to_string())?
        .map_err(|e| format!("cannot read the reference's URL: {e}"))?
        .ok_or("the reference ended before it said its URL")?;
    // the process group outlives this child handle: the guard kills it
    tokio::spawn(async move {
        let _ = child.wait().await;
        drop(lines);
    });
    Ok((url, group))
}

/// Why a client did not finish well.
enum Unfinished {
    /// It was stopped at its deadline.
    Deadline(String),
    /// It could not be run, or it exited with an error.
    Failed(String),
}

impl From<String> for Unfinished {
    fn from(why: String) -> Unfinished {
        Unfinished::Failed(why)
    }
}

impl Unfinished {
    fn into_reason(self) -> String {
        match self {
            Unfinished::Deadline(why) | Unfinished::Failed(why) => why,
        }
    }
}

/// Starts the client with its server and waits for it to end; the error says why it did not.
async fn drive(
    settings: &Settings,
    s: &RequestorScenario,
    record: &std::path::Path,
) -> Result<(), Unfinished> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find taskcheck: {e}"))?;
    let mut server = vec![
        exe.to_string_lossy().to_string(),
        "reference".into(),
        "--profile".into(),
        s.profile.name().into(),
        "--record".into(),
        record.to_string_lossy().to_string(),
    ];
    for v in &s.serve {
        server.extend(["--variant".to_string(), v.clone()]);
    }
    for f in &s.misbehave {
        server.extend(["--fault".to_string(), f.clone()]);
    }
    let server: Vec<String> = server.iter().map(|w| shell_quote(w)).collect();
    // over HTTP the server runs beside the client, which is given its URL
    let (endpoint, _served) = match settings.http {
        false => (server.join(" "), None),
        true => {
            let (url, served) = serve_http(&server.join(" ")).await?;
            (shell_quote(&url), Some(served))
        }
    };
    let line = format!(
        "export TASKCHECK_SCENARIO={}; export TASKCHECK_REQUEST={}; {} {endpoint}",
        shell_quote(&s.id),
        shell_quote(&serde_json::to_string(&s.ask).unwrap_or_default()),
        settings.command,
    );
    let (mut child, _group) = spawn_group(&line).map_err(|e| e.0)?;
    drop(child.stdin.take());
    // read what it writes, so a full pipe never blocks it, keeping only the end of its stderr
    // (which explains a failure): a flood costs no memory
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let drain = tokio::spawn(async move {
        if let Some(mut out) = stdout {
            let _ = tokio::io::copy(&mut out, &mut tokio::io::sink()).await;
        }
    });
    let errors = tokio::spawn(async move {
        let mut kept: Vec<u8> = Vec::new();
        let mut chunk = [0u8; 8192];
        if let Some(mut err) = stderr {
            while let Ok(n) = err.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                kept.extend_from_slice(&chunk[..n]);
                let excess = kept.len().saturating_sub(STDERR_KEPT);
                kept.drain(..excess);
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    });
    let deadline = Duration::from_millis((s.deadline_ms as f64 * settings.timeout_scale) as u64);
    let status = tokio::time::timeout(deadline, child.wait()).await;
    drain.abort();
    match status {
        Err(_) => Err(Unfinished::Deadline(format!(
            "the client did not finish within {} ms",
            deadline.as_millis()
        ))),
        Ok(Err(e)) => Err(format!("cannot wait for the client: {e}").into()),
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => {
            let said = tokio::time::timeout(Duration::from_millis(500), errors)
                .await
                .ok()
                .and_then(Result::ok)
                .map(|text| error_line(&text))
                .unwrap_or_default();
            Err(format!("the client exited with {status}: {said}").into())
        }
    }
}

/// The line of a client's stderr that names its error: the first that starts like one
/// (`Error: …`, Python's `ValueError: …`), else its last line; a stack trace around it is left
/// out, so the reason stays one line.
fn error_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let names_error = |line: &str| {
        line.split([':', ' '])
            .next()
            .is_some_and(|word| word.ends_with("Error") || word.ends_with("Exception"))
    };
    let line = lines
        .iter()
        .copied()
        .find(|l| names_error(l))
        .or(lines.last().copied());
    let line = line.unwrap_or("");
    line.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::error_line;

    #[test]
    fn the_error_line_is_found_in_a_stack_trace() {
        let rust = "Error: Mcp error: -32021: Missing capability\n\nStack backtrace:\n   0: main\n      12: _start\n";
        assert_eq!(
            error_line(rust),
            "Error: Mcp error: -32021: Missing capability"
        );
        let python = "Traceback (most recent call last):\n  File \"d.py\", line 3, in <module>\n    main()\nKeyError: 'tool'\n";
        assert_eq!(error_line(python), "KeyError: 'tool'");
        let node = "file:///d.mjs:4\n    throw new TypeError('no tool');\n\nTypeError: no tool\n    at file:///d.mjs:4:7\n";
        assert_eq!(error_line(node), "TypeError: no tool");
        assert_eq!(error_line("first\nthe last words\n\n"), "the last words");
        assert_eq!(error_line(""), "");
    }
}
