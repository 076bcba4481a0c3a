//! Receivers that break the transport: taskcheck ends within its timeouts, names the cause,
//! writes its report, and leaves no process behind. What the receiver did after initialize
//! is a verdict (exit 1: it exited or stopped answering, `wire.survives`; it wrote no MCP on
//! stdout, `transport.stdio.stdout-only-mcp`); what kept taskcheck from judging is exit 3.

mod common;

use common::*;
use mcp_taskcheck::reference::hostile::HOSTILE;
use std::time::{Duration, Instant};

const INIT_REPLY: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"hostile","version":"0"}}}"#;

/// The JUnit, Markdown and HTML reports of a run tagged `tag`: their flags and paths.
fn other_reports(tag: &str) -> (Vec<String>, Vec<std::path::PathBuf>) {
    let mut args = Vec::new();
    let mut paths = Vec::new();
    for (flag, ext) in [
        ("--report-junit", "xml"),
        ("--report-md", "md"),
        ("--report-html", "html"),
    ] {
        let path = temp_path(&format!("{tag}.{ext}"));
        let _ = std::fs::remove_file(&path);
        args.extend([flag.to_string(), path.to_str().unwrap().to_string()]);
        paths.push(path);
    }
    (args, paths)
}

/// Which of these reports is missing or empty.
fn unwritten(paths: &[std::path::PathBuf]) -> Vec<String> {
    paths
        .iter()
        .filter(|p| std::fs::metadata(p).map_or(true, |m| m.len() == 0))
        .map(|p| p.display().to_string())
        .collect()
}

fn no_process_matches(marker: &str) -> bool {
    let out = std::process::Command::new("pgrep")
        .args(["-f", marker])
        .output()
        .unwrap();
    out.stdout.is_empty()
}

fn assert_harness_error(receiver: &str, tag: &str, cause: &str, marker: &str) {
    assert_ends(receiver, &[], tag, (cause, 3), marker)
}

/// A run with extra arguments (a scenario selection, say) ends with `code`, naming `cause`.
fn assert_ends(
    receiver: &str,
    extra: &[&str],
    tag: &str,
    (cause, code): (&str, i32),
    marker: &str,
) {
    let want = code;
    let start = Instant::now();
    let (reports, paths) = other_reports(tag);
    let mut args = vec!["--timeout-ms", "500", "--scenario-timeout-ms", "3000"];
    args.extend_from_slice(extra);
    args.extend(reports.iter().map(String::as_str));
    let (code, out, doc) = run(receiver, &args, tag);
    assert_eq!(
        unwritten(&paths),
        Vec::<String>::new(),
        "reports not written"
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(code, want, "{out}");
    assert!(
        one_line(&out).contains(&one_line(cause)),
        "cause {cause:?} not named:\n{out}"
    );
    assert_eq!(doc["exitCode"], want, "the report was written");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        no_process_matches(marker),
        "a child process survived: {marker}"
    );
}

#[test]
fn garbage_on_stdout() {
    assert_harness_error(
        "sh -c 'sleep 987651 & echo this-is-not-json; wait'",
        "garbage",
        "invalid output",
        "sleep 987651",
    );
}

#[test]
fn never_answers() {
    assert_harness_error(
        "sh -c 'sleep 987652 & wait'",
        "silent",
        "no response to initialize within 500 ms",
        "sleep 987652",
    );
}

#[test]
fn exits_after_initialize_failing_wire_survives() {
    let script = format!(
        "sh -c 'read l; echo '\"'\"'{INIT_REPLY}'\"'\"'; read l; read l; echo dying >&2; sleep 987653 & exit 0'"
    );
    assert_ends(
        &script,
        &[],
        "exits",
        (
            "the receiver exited (exit status: 0); the last of its stderr:\n          dying",
            1,
        ),
        "sleep 987653",
    );
}

#[test]
fn a_request_that_times_out_says_what_the_receiver_sent_meanwhile() {
    // initialized, then every request is met with a log notification and never answered
    let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"busy"}}"#;
    let script = format!(
        "sh -c 'read l; echo '\"'\"'{INIT_REPLY}'\"'\"'; read l; sleep 987658 & while read l; do echo '\"'\"'{log}'\"'\"'; done'"
    );
    assert_ends(
        &script,
        &["--scenario", "create-poll-result"],
        "meanwhile",
        (
            "the receiver stopped answering: no response to tools/list within 500 ms (meanwhile it sent notifications/message), nor to a ping",
            1,
        ),
        "sleep 987658",
    );
}

/// A server command that does not exist, or a server that never answers its opening
/// request: the run stops before its first scenario, within seconds, with one line naming the
/// cause (the shell's own "not found"), says nothing of which design the server speaks, still
/// writes its reports, and ends in exit 3.
#[test]
fn a_dead_or_silent_server_stops_the_run_at_once_with_one_cause() {
    for (receiver, tag, cause) in [
        (
            "no-such-server-command-4821",
            "dead-server",
            "no-such-server-command-4821: not found",
        ),
        (
            "sh -c 'sleep 987659 & wait'",
            "hung-server",
            "no response to initialize within 5000 ms",
        ),
    ] {
        let start = Instant::now();
        let (reports, paths) = other_reports(tag);
        let args: Vec<&str> = reports.iter().map(String::as_str).collect();
        let (code, out, doc) = run(receiver, &args, tag);
        let took = start.elapsed();
        assert!(took < Duration::from_secs(10), "{tag}: took {took:?}");
        assert_eq!(code, 3, "{out}");
        assert!(out.contains(cause), "{tag}: {cause:?} not named:\n{out}");
        let said: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("no session with the server opens"))
            .collect();
        assert_eq!(said.len(), 1, "{tag}: one cause line:\n{out}");
        assert!(!out.contains("speaks the"), "{tag}: {out}");
        assert!(!out.contains("ERROR"), "{tag}: no scenario ran:\n{out}");
        assert!(out.lines().count() <= 4, "{tag}: {out}");
        assert_eq!(doc["exitCode"], 3, "{tag}: the report was written");
        assert_eq!(unwritten(&paths), Vec::<String>::new(), "{tag}");
    }
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        no_process_matches("sleep 987659"),
        "the silent server survived"
    );
}

#[test]
fn cannot_be_started() {
    let (code, out, _) = run(
        "/nonexistent/receiver-binary",
        &["--timeout-ms", "500"],
        "missing",
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("initialize failed") || out.contains("cannot start"),
        "{out}"
    );
}

#[test]
fn ctrl_c_kills_every_spawned_receiver() {
    let mut child = std::process::Command::new(BIN)
        .args([
            "run",
            "--stdio",
            "sh -c 'sleep 987654 & wait'",
            "--timeout-ms",
            "60000",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        !no_process_matches("sleep 987654"),
        "the receivers were started"
    );
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "taskcheck did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        no_process_matches("sleep 987654"),
        "a receiver survived Ctrl-C"
    );
}

/// The cause taskcheck must name for each `reference --hostile` mode, and the exit code.
const HOSTILE_CAUSES: [(&str, (&str, i32)); 13] = [
    ("garbage", ("FAIL        transport.stdio.stdout-only-mcp  the receiver sent invalid output (trace #4): not JSON", 1)),
    (
        "huge-line",
        ("message of 67108864 bytes exceeds the 8388608-byte limit", 3),
    ),
    ("invalid-utf8", ("FAIL        transport.stdio.stdout-only-mcp  the receiver sent invalid output (trace #4): message is not valid UTF-8", 1)),
    ("not-jsonrpc", ("FAIL        transport.stdio.stdout-only-mcp  the receiver sent invalid output (trace #4): not a JSON-RPC 2.0 message", 1)),
    (
        "wrong-ids",
        // before initialize has completed, as every broken start: a harness error
        ("initialize failed: connection lost: the receiver sent a response to id 1000, which taskcheck never used", 3),
    ),
    (
        "silent-after-init",
        ("FAIL        wire.survives  the receiver stopped answering: no response to tools/list within 500 ms, nor to a ping", 1),
    ),
    (
        "one-byte-per-second",
        ("no response to initialize within 500 ms", 3),
    ),
    (
        "exit-mid-run",
        ("FAIL        wire.survives  step 2: the receiver exited (exit status: 0)", 1),
    ),
    ("exit-before-init", ("initialize failed: connection lost", 3)),
    ("close-stdout", ("FAIL        wire.survives  the receiver stopped answering", 1)),
    ("duplicate-ids", ("initialize failed: connection lost: the receiver answered request 0 twice", 3)),
    (
        "answers-notifications",
        ("FAIL        wire.one-response  the receiver sent a response to id \"notifications/initialized\", which taskcheck never used", 1),
    ),
    // 100,000 messages queue the answers behind them: the request and the ping after it
    // time out, so the receiver no longer answers within the run's timeouts
    ("request-flood", ("FAIL        wire.survives  the receiver stopped answering: no response to tools/list within 500 ms", 1)),
];

#[test]
fn every_hostile_mode_ends_in_time_with_the_cause_named_and_no_process_left() {
    let modes: Vec<&str> = HOSTILE.iter().map(|h| h.name).collect();
    assert_eq!(
        modes,
        HOSTILE_CAUSES.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
        "every hostile mode needs its expected cause here"
    );
    let problems = in_parallel(&HOSTILE_CAUSES, 4, |(mode, cause)| {
        let result = std::panic::catch_unwind(|| {
            // one scenario: 64 MiB or 100,000 messages into every parallel session would only
            // measure the machine against the 500 ms timeout; reading 64 MiB on a busy
            // machine may take longer than that, so its timeouts are stretched
            let extra: &[&str] = match *mode {
                "request-flood" => &["--scenario", "create-poll-result"],
                "huge-line" => &["--scenario", "create-poll-result", "--timeout-scale", "4"],
                _ => &[],
            };
            assert_ends(
                &format!("{BIN} reference --hostile {mode}"),
                extra,
                &format!("hostile-{mode}"),
                *cause,
                &format!("reference --hostile {mode}"),
            )
        });
        match result {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!(
                "{mode}: {}",
                e.downcast_ref::<String>().cloned().unwrap_or_default()
            )],
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The cause taskcheck must name for each `reference --http --hostile` mode, and the exit code.
const HTTP_HOSTILE_CAUSES: [(&str, (&str, i32)); 5] = [
    (
        "wrong-content-type",
        ("the answer to initialize has Content-Type \"text/plain\"", 3),
    ),
    (
        "server-error",
        ("notifications/initialized was answered HTTP 500 Internal Server Error", 3),
    ),
    ("redirect-loop", ("too many redirects", 3)),
    (
        "truncated-sse",
        ("the SSE stream answering tools/list ended before its response, and could not be resumed", 3),
    ),
    // no request is ever answered: the receiver stopped answering
    ("endless-stream", ("FAIL        wire.survives  the receiver stopped answering: no response to tools/list within 500 ms", 1)),
];

#[test]
fn every_http_hostile_mode_ends_in_time_with_the_cause_named_and_the_report_written() {
    let modes: Vec<&str> = mcp_taskcheck::reference::http_hostile::HTTP_HOSTILE
        .iter()
        .map(|(_, name, _)| *name)
        .collect();
    assert_eq!(
        modes,
        HTTP_HOSTILE_CAUSES
            .iter()
            .map(|(m, _)| *m)
            .collect::<Vec<_>>(),
        "every HTTP hostile mode needs its expected cause here"
    );
    let problems = in_parallel(&HTTP_HOSTILE_CAUSES, 3, |(mode, (cause, want))| {
        let server = HttpReference::start(&["--hostile", mode]);
        let start = Instant::now();
        let tag = format!("http-hostile-{mode}");
        let (reports, paths) = other_reports(&tag);
        let mut args = vec!["--timeout-ms", "500", "--scenario-timeout-ms", "3000"];
        args.extend(reports.iter().map(String::as_str));
        let (code, out, doc) = run_against(&["--url", &server.url], &args, &tag);
        let mut problems: Vec<String> = unwritten(&paths)
            .into_iter()
            .map(|p| format!("{mode}: {p} not written"))
            .collect();
        if start.elapsed() > Duration::from_secs(20) {
            problems.push(format!("{mode}: took {:?}", start.elapsed()));
        }
        if code != *want || !one_line(&out).contains(&one_line(cause)) || doc["exitCode"] != *want {
            problems.push(format!(
                "{mode}: exit {code}, report exit {}, cause {cause:?}\n{out}",
                doc["exitCode"]
            ));
        }
        problems
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_receivers_traceback_prints_a_line_at_a_time_within_the_width() {
    // stdout is no terminal here, so the report fits 100 columns; a word longer (a link)
    // stays whole
    let frame = "File /srv/app/handlers/tasks.py, line 120, in store_result: RuntimeError: \
                 cannot store a result for a task in a terminal status, as results are stored once";
    let script = format!(
        "sh -c 'read l; echo '\"'\"'{INIT_REPLY}'\"'\"'; read l; read l; \
         for i in 1 2 3; do echo \"frame $i: {frame}\" >&2; done; exit 1'"
    );
    let (code, out, _) = run(
        &script,
        &["--timeout-ms", "500", "--scenario", "create-prompt"],
        "traceback-width",
    );
    assert_eq!(code, 1, "{out}");
    for line in out.lines() {
        let one_word = !line.trim().contains(' ');
        assert!(
            line.chars().count() <= 100 || one_word,
            "{line:?} is wider than 100 columns:\n{out}"
        );
    }
    for i in 1..=3 {
        assert!(
            out.lines()
                .any(|l| l.starts_with("  ")
                    && l.trim_start().starts_with(&format!("frame {i}: File"))),
            "stderr line {i} is not on a line of its own, indented:\n{out}"
        );
    }
}
