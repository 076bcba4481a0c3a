//! Streamable HTTP: the whole suite against the reference receiver served over HTTP, every
//! fault over HTTP, session isolation, and a receiver that dies or cannot be reached.

mod common;

use common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

#[test]
fn the_suite_passes_over_http_with_the_verdicts_of_stdio() {
    let server = HttpReference::start(&[]);
    let (code, out, http) = run_against(&["--url", &server.url], &AUTH, "http-clean");
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(&http, &["fail", "warn", "error", "untestable"]),
        Vec::<String>::new(),
        "{out}"
    );
    assert_eq!(http["transport"], "http");
    let (code, out, stdio) = run(&reference(&[]), &[], "http-vs-stdio");
    assert_eq!(code, 0, "{out}");
    // the HTTP-only rules are judged over HTTP and not applicable on stdio; all else is equal
    let http_only = ["tasks.http.", "tasks.security.bind-context"];
    // with two credentials the receiver can bind tasks, so unguessable ids are not required
    let secure_ids = (
        "tasks.security.secure-ids".to_string(),
        "not-applicable".to_string(),
    );
    assert!(verdicts(&http).contains(&secure_ids), "{out}");
    let keep = |v: Vec<(String, String)>| -> Vec<(String, String)> {
        v.into_iter()
            .filter(|(r, _)| !http_only.iter().any(|h| r.starts_with(h)))
            .filter(|(r, _)| r != &secure_ids.0)
            .collect()
    };
    assert_eq!(keep(verdicts(&http)), keep(verdicts(&stdio)));
    for rule in http_only {
        assert!(
            verdicts(&http)
                .iter()
                .any(|(r, v)| r.starts_with(rule) && v == "pass"),
            "{rule} is judged over HTTP:\n{out}"
        );
    }
}

#[test]
fn json_response_mode_passes_too() {
    let server = HttpReference::start(&["--json-response"]);
    let trace = temp_path("http-json-trace.jsonl");
    let (code, out, _) = run_against(
        &["--url", &server.url],
        &["--trace", trace.to_str().unwrap()],
        "http-json",
    );
    assert_eq!(code, 0, "{out}");
    let trace = std::fs::read_to_string(trace).unwrap();
    assert!(
        !trace.contains(r#""via":"POST text/event-stream""#),
        "no POST was answered by SSE"
    );
    assert!(
        trace.contains(r#""via":"GET text/event-stream""#),
        "the elicitations came on the GET stream"
    );
}

#[test]
fn every_fault_fails_exactly_its_rules_over_http() {
    // one scenario at a time, where the stdio run has four at once and tests/invariance.rs
    // eight: one server keeps every scenario's tasks, and no verdict may follow `--jobs`
    let problems = tasks_2025_faults_over_http(&["--jobs", "1"], 8);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn header_values_never_reach_reports_or_traces() {
    let server = HttpReference::start(&[]);
    let trace = temp_path("http-secret-trace.jsonl");
    let (code, out, doc) = run_against(
        &["--url", &server.url],
        &[
            "--header",
            "X-Api-Key: top-secret-value",
            "--scenario",
            "create-prompt",
            "--trace",
            trace.to_str().unwrap(),
        ],
        "http-secret",
    );
    assert_eq!(code, 0, "{out}");
    for text in [
        out,
        doc.to_string(),
        std::fs::read_to_string(trace).unwrap(),
    ] {
        assert!(!text.contains("top-secret-value"));
    }
}

#[test]
fn a_receiver_killed_mid_run_ends_in_exit_3_without_hanging() {
    let mut server = HttpReference::start(&[]);
    let url = server.url.clone();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(700));
        server.kill();
    });
    let start = Instant::now();
    let (code, out, doc) = run_against(
        &["--url", &url],
        &["--timeout-ms", "2000", "--scenario-timeout-ms", "5000"],
        "http-killed",
    );
    killer.join().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("cannot POST") || out.contains("stream"),
        "{out}"
    );
    assert_eq!(doc["exitCode"], 3, "the report was written");
}

#[test]
fn an_unreachable_url_is_a_transport_error_naming_the_cause() {
    // a port nothing listens on: bind one, then free it
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, out, _) = run_against(
        &["--url", &url],
        &["--scenario", "create-prompt"],
        "http-refused",
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("cannot POST initialize") && out.contains(&url),
        "{out}"
    );
}

#[test]
fn bad_urls_are_usage_errors() {
    for url in ["not a url", "ftp://127.0.0.1/mcp"] {
        let out = taskcheck(&["run", "--url", url]);
        assert_eq!(out.status.code(), Some(2), "{url}");
    }
    let out = taskcheck(&[
        "run",
        "--url",
        "http://127.0.0.1:1/mcp",
        "--header",
        "no colon",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = taskcheck(&["run", "--stdio", "x", "--url", "http://127.0.0.1:1/mcp"]);
    assert_eq!(out.status.code(), Some(2), "one receiver at a time");
}

#[test]
fn the_http_reference_stops_cleanly_on_ctrl_c() {
    let mut server = HttpReference::start(&[]);
    let pid = server.pid().to_string();
    std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = server.try_wait() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "no exit on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        status.code(),
        Some(130),
        "the conventional exit after SIGINT"
    );
}

/// A broken HTTP endpoint (a Python script of tests/fixtures), killed when dropped.
struct BadServer(std::process::Child, String);

impl BadServer {
    /// tests/fixtures/bad_http_server.py, breaking the transport the way `mode` says.
    fn start(mode: &str) -> BadServer {
        BadServer::script("bad_http_server.py", mode)
    }

    /// tests/fixtures/`script` with one argument; its URL is the first line it prints.
    fn script(script: &str, argument: &str) -> BadServer {
        use std::io::BufRead;
        let script = format!("{}/tests/fixtures/{script}", env!("CARGO_MANIFEST_DIR"));
        let mut child = std::process::Command::new("python3")
            .args([script.as_str(), argument])
            .stdout(std::process::Stdio::piped())
            // it complains when taskcheck hangs up mid-request; that is expected here
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 runs");
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        BadServer(child, url.trim().to_string())
    }
}

impl Drop for BadServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn broken_http_answers_are_transport_errors_and_an_ended_session_no_verdict() {
    // a server may end a session at any time (it answers 404 after): the rest of the scenario
    // is untestable, which is neither a failure nor taskcheck's error
    for (mode, cause, want) in [
        ("content-type", "has Content-Type \"text/html\"", 3),
        ("invalid-json", "not JSON", 3),
        (
            "expire",
            "the session expired: tasks/get was answered HTTP 404: the server ended the session",
            0,
        ),
    ] {
        let server = BadServer::start(mode);
        let start = Instant::now();
        let (code, out, doc) = run_against(
            &["--url", &server.1],
            &["--scenario", "unknown-task-id", "--timeout-ms", "2000"],
            &format!("http-bad-{mode}"),
        );
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{mode}: {:?}",
            start.elapsed()
        );
        assert_eq!(code, want, "{mode}: {out}");
        assert!(
            one_line(&out).contains(&one_line(cause)),
            "{mode}: cause {cause:?} not named:\n{out}"
        );
        assert_eq!(doc["exitCode"], want, "{mode}: the report was written");
    }
}

#[test]
fn a_connection_the_server_closes_as_it_is_reused_is_retried_on_a_fresh_one() {
    // every kept-alive connection is closed as its second request comes in, unanswered (a
    // keep-alive that expires as the request goes out): each such request is sent again once
    let server = HttpReference::start(&["--json-response"]);
    let proxy = BadServer::script("closing_proxy.py", &server.url);
    let trace = temp_path("http-keepalive-trace.jsonl");
    let (code, out, doc) = run_against(
        &["--url", &proxy.1],
        &[
            "--scenario",
            "create-poll-result",
            "--scenario",
            "cancel-working",
            "--scenario",
            "unknown-task-id",
            "--trace",
            trace.to_str().unwrap(),
        ],
        "http-keepalive",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(&doc, &["fail", "warn", "error", "untestable"]),
        Vec::<String>::new(),
        "{out}"
    );
    let trace = std::fs::read_to_string(trace).unwrap();
    assert!(
        trace.contains("sent again on a fresh connection"),
        "the trace says what was sent again"
    );
}

#[test]
fn a_shared_server_with_few_workers_is_judged_as_a_fresh_one_per_scenario() {
    // one server for the whole run, working on two tasks at once across its sessions: the
    // tasks each scenario left unfinished are cancelled as it ends, so no later scenario waits
    // behind the run's own backlog (without that, three MUST rules failed here)
    let server = HttpReference::start(&["--variant", "few-workers"]);
    let (code, out, shared) = run_against(&["--url", &server.url], &[], "http-few-workers");
    assert_eq!(code, 0, "{out}");
    let fresh = format!("{BIN} reference --http --variant few-workers");
    let (code, out, per_scenario) =
        run_against(&["--url-from", &fresh], &[], "http-few-workers-fresh");
    assert_eq!(code, 0, "{out}");
    assert_eq!(verdicts(&shared), verdicts(&per_scenario), "{out}");
}

#[test]
fn a_server_that_listens_a_moment_after_printing_its_url_is_waited_for() {
    // whatever the design opens with (initialize; server/discover and stateless requests)
    for (design, scenario, spoken) in [
        (
            "2025-11-25",
            "create-poll-result",
            "speaks the 2025-11-25 design",
        ),
        (
            "ext-tasks",
            "ext-create-poll-complete",
            "speaks the ext-tasks design",
        ),
    ] {
        waits_for_a_late_server(design, scenario, spoken);
    }
}

/// A run of `scenario` against a `design` reference that binds its port 1.5 s after printing
/// its URL (`--url-from`), then one given `--url` before its server is up: both pass, the
/// design detected from what the server speaks.
fn waits_for_a_late_server(design: &str, scenario: &str, spoken: &str) {
    // the URL of a port nothing listens on yet
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let late = format!(
        "echo http://127.0.0.1:{port}/mcp; sleep 1.5; exec {BIN} reference --profile {design} --http 127.0.0.1:{port}"
    );
    // the waits for a connection and an answer are stretched so that a machine busy with
    // other tests still starts the server within them (at the default 5 s, a run at a load
    // average of 16 on two cores did not)
    let waits = [
        "--scenario",
        scenario,
        "--connect-timeout-ms",
        "20000",
        "--timeout-ms",
        "20000",
    ];
    let tag = format!("url-from-late-{design}");
    let (code, out, _) = run_against(&["--url-from", &late], &waits, &tag);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(spoken), "{out}");
    // and a --url given before its server is up
    let design_owned = design.to_string();
    let late_url = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        std::process::Command::new(BIN)
            .args(["reference", "--profile", &design_owned, "--http"])
            .arg(format!("127.0.0.1:{port}"))
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, out, _) = run_against(&["--url", &url], &waits, &format!("url-late-{design}"));
    late_url.join().unwrap().kill().unwrap();
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(spoken), "{out}");
}

#[test]
fn url_from_starts_a_server_per_scenario_and_leaves_none_behind() {
    // an unusual --max-tasks marks these servers for pgrep
    let command = format!("{BIN} reference --http --max-tasks 987655");
    let (code, out, doc) = run_against(&["--url-from", &command], &[], "url-from");
    assert_eq!(code, 0, "{out}");
    assert_eq!(doc["transport"], "http");
    let left = std::process::Command::new("pgrep")
        .args(["-f", "max-tasks 987655"])
        .output()
        .unwrap();
    assert!(left.stdout.is_empty(), "a server survived the run");
    let (code, out, _) = run_against(
        &["--url-from", "echo not-a-url"],
        &["--scenario", "create-poll-result"],
        "url-from-bad",
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("`echo not-a-url` printed \"not-a-url\" first, not a URL"),
        "{out}"
    );
    // the wait for the URL stretches (here shrinks) with every other wait
    let (code, out, _) = run_against(
        &["--url-from", "sleep 30", "--timeout-scale", "0.1"],
        &["--scenario", "create-poll-result"],
        "url-from-slow",
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("`sleep 30` printed no URL within 1000 ms"),
        "{out}"
    );
}

/// POSTs one JSON-RPC message the way a 2025-11-25 client does; the answer's headers and body.
async fn post(
    client: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: Value,
) -> (reqwest::header::HeaderMap, String) {
    let mut req = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let answer = req.send().await.unwrap();
    let headers = answer.headers().clone();
    (headers, answer.text().await.unwrap())
}

/// Resumes a POST stream: a GET with the event id as Last-Event-ID; the whole answer.
async fn resume(client: &reqwest::Client, url: &str, session: &str, last: &str) -> String {
    client
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test]
async fn post_streams_are_primed_and_a_lost_one_is_resumed_with_last_event_id() {
    let server = HttpReference::start(&[]);
    let client = reqwest::Client::new();
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (headers, _) = post(&client, &server.url, None, init).await;
    let session = headers["mcp-session-id"].to_str().unwrap().to_string();
    // a tools/call stream opens with a priming event: an id, a retry, empty data
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "optional_sleep", "arguments": {"ms": 10}}});
    let (_, body) = post(&client, &server.url, Some(&session), call).await;
    let priming = body.split("\n\n").next().unwrap();
    assert!(
        priming.starts_with("id: ")
            && priming.contains("\nretry: ")
            && priming.ends_with("\ndata: "),
        "{body}"
    );
    assert!(body.contains("slept 10"), "{body}");
    // test_reconnection: the server ends the stream after priming; the result comes on resuming
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_reconnection", "arguments": {}}});
    let (_, body) = post(&client, &server.url, Some(&session), call).await;
    assert!(!body.contains("\"result\""), "{body}");
    let last = body
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .to_string();
    let resumed = resume(&client, &server.url, &session, &last).await;
    assert!(
        resumed.contains("\"id\":3") && resumed.contains("reconnected"),
        "{resumed}"
    );
    // a client that leaves a stream after its priming event gets the response on resuming
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "optional_sleep", "arguments": {"ms": 300}}});
    let mut answer = client
        .post(&server.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &session)
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    let first = String::from_utf8(answer.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    let last = first
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .to_string();
    drop(answer);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let resumed = resume(&client, &server.url, &session, &last).await;
    assert!(
        resumed.contains("\"id\":4") && resumed.contains("slept 300"),
        "{resumed}"
    );
}
