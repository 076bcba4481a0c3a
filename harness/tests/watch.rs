//! `taskcheck watch` over stdio: a client that starts its own server (tests/fixtures/
//! task_client.py, as an agent host does) is given `taskcheck watch -- SERVER` instead; the
//! conversation is relayed unchanged and the server is judged in it.

mod common;

use common::*;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/task_client.py");

/// The client's run through `watch` in front of the reference (with these flags): its exit
/// code, what it received, watch's JSON report.
fn watched(reference_flags: &[&str], tag: &str) -> (i32, Vec<u8>, Value) {
    watched_polling(50, reference_flags, tag)
}

/// As [`watched`], the client waiting `poll_ms` between its polls.
fn watched_polling(poll_ms: u64, reference_flags: &[&str], tag: &str) -> (i32, Vec<u8>, Value) {
    let report = temp_path(&format!("watch-{tag}.json"));
    let _ = std::fs::remove_file(&report);
    let mut args = vec![
        CLIENT,
        BIN,
        "watch",
        "--report-json",
        report.to_str().unwrap(),
        "--",
        BIN,
        "reference",
    ];
    args.extend(reference_flags);
    let out = Command::new("python3")
        .args(&args)
        .env("TASK_CLIENT_POLL_MS", poll_ms.to_string())
        .output()
        .unwrap();
    let doc = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), out.stdout, doc)
}

#[test]
fn a_conformant_server_is_judged_clean_in_its_clients_traffic_and_the_client_sees_it_unchanged() {
    let (code, through_watch, doc) = watched(&[], "clean");
    assert_eq!(code, 0, "the client ran to its end through watch");
    assert_eq!(doc["exitCode"], 0, "{doc}");
    assert!(
        doc["judged"]["rules"].as_u64().unwrap() >= 10,
        "{}",
        doc["judged"]
    );
    assert_eq!(rules_with(&doc, &["fail"]), Vec::<String>::new());
    // the same client straight against the server receives the same kinds of lines
    let direct = Command::new("python3")
        .args([CLIENT, BIN, "reference"])
        .output()
        .unwrap();
    let ids = |bytes: &[u8]| -> Vec<Value> {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|m| m["id"].clone())
            .collect()
    };
    assert_eq!(ids(&through_watch)[..3], ids(&direct.stdout)[..3]);
}

#[test]
fn the_client_is_judged_too_and_a_fault_of_either_side_by_its_own_rule() {
    // the clean pair: the client's requestor rules judged, and held
    let (_, _, doc) = watched(&[], "clean-client");
    let verdict = |doc: &Value, rule: &str| {
        doc["rules"]
            .as_array()
            .and_then(|rules| rules.iter().find(|r| r["id"] == rule))
            .map(|r| r["verdict"].clone())
    };
    let poll = "tasks.poll.requestor-respects-poll-interval";
    assert_eq!(verdict(&doc, poll), Some("pass".into()), "{doc}");
    // a client that polls without waiting: its SHOULD warns, the server's rules still hold
    let (code, _, doc) = watched_polling(0, &[], "fast-client");
    assert_eq!(code, 0);
    assert_eq!(verdict(&doc, poll), Some("warn".into()), "{doc}");
    assert_eq!(rules_with(&doc, &["fail", "warn"]), [poll]);
}

#[test]
fn a_fault_of_the_server_is_judged_by_its_rule() {
    let (code, _, doc) = watched(&["--fault", "numeric-task-id"], "numeric-id");
    assert_eq!(code, 0, "the client itself does not care");
    assert_eq!(doc["exitCode"], 1, "{doc}");
    assert_eq!(rules_with(&doc, &["fail"]), ["tasks.id.string"]);
    // the client is judged whatever its server did: echoing the numeric id it was given
    // breaks no rule of its own, and its polling holds
    let verdict_of = |rule: &str| {
        doc["scenarios"][0]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["rule"] == rule)
            .map(|c| c["verdict"].clone())
    };
    for rule in [
        "tasks.poll.requestor-respects-poll-interval",
        "tasks.schema.requestor-messages",
    ] {
        assert_eq!(verdict_of(rule), Some("pass".into()), "{rule}: {doc}");
    }
}

#[test]
fn every_byte_is_relayed_unchanged_garbage_and_an_unended_line_included() {
    let sent = b"x\n{\"a\":1}\r\nnot json\n\n{\"jsonrpc\":\"2.0\"".to_vec();
    let mut child = Command::new(BIN)
        .args(["watch", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&sent).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.stdout, sent);
    // nothing in it is a session to judge: said so, and the run is no pass
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(said.contains("nothing was judged"), "{said}");
    // a server that cannot start is one line and the harness's exit code
    let out = taskcheck(&["watch", "--", "/nonexistent/server"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(
        said.contains("taskcheck watch: cannot start /nonexistent/server"),
        "{said}"
    );
}

/// The first line a spawned server or proxy prints on stdout (its URL).
fn first_line(child: &mut std::process::Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.trim().to_string()
}

/// `watch --listen` in front of an HTTP reference with these flags, stopping after 2 s
/// without a request: `taskcheck run` through it (its exit code), then watch's exit code and
/// JSON report.
fn proxied(reference_flags: &[&str], tag: &str) -> (i32, i32, Value) {
    let upstream = HttpReference::start(reference_flags);
    let report = temp_path(&format!("watch-proxy-{tag}.json"));
    let _ = std::fs::remove_file(&report);
    let (proxy, url) = watch_proxy(&upstream.url, &["--idle-exit", "2"], &report);
    let scenarios = ["create-poll-result", "cancel-terminal", "progress-token"];
    let mut args = vec!["run", "-q", "--url", &url];
    for s in &scenarios {
        args.extend(["--scenario", s]);
    }
    let run = taskcheck(&args).status.code().unwrap_or(-1);
    let watched = proxy.wait_with_output().unwrap();
    let doc = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (run, watched.status.code().unwrap_or(-1), doc)
}

#[test]
fn through_the_http_proxy_a_server_is_judged_in_its_clients_traffic() {
    let (run, watched, doc) = proxied(&[], "clean");
    assert_eq!(run, 0, "the client's own run is unchanged by the proxy");
    assert_eq!(watched, 0, "{doc}");
    assert!(
        doc["judged"]["rules"].as_u64().unwrap() >= 10,
        "{}",
        doc["judged"]
    );
    // a session per Mcp-Session-Id: the three scenarios' at least
    assert!(doc["scenarios"].as_array().unwrap().len() >= 3, "{doc}");
    let (run, watched, doc) = proxied(&["--fault", "numeric-task-id"], "numeric-id");
    assert_eq!((run, watched), (1, 1), "{doc}");
    // a counter each HTTP session restarts repeats its ids across the sessions, as `run` says
    assert_eq!(
        rules_with(&doc, &["fail"]),
        ["tasks.id.string", "tasks.id.unique"]
    );
}

#[test]
fn a_bad_upstream_or_a_port_in_use_is_one_clear_error() {
    let out = taskcheck(&["watch", "--listen", "127.0.0.1:0", "--upstream", "ftp://x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an http(s) URL"));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = taskcheck(&[
        "watch",
        "--listen",
        &addr,
        "--upstream",
        "http://127.0.0.1:9/mcp",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(said.contains(&format!("cannot listen on {addr}")), "{said}");
}

/// An upstream's redirect reaches the client as it came, status and Location: the proxy does
/// not follow it.
#[test]
fn a_redirect_of_the_upstream_is_passed_back_not_followed() {
    use std::io::Read;
    let upstream = r#"
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(307)
        self.send_header("Location", "http://127.0.0.1:9/elsewhere")
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(f"http://127.0.0.1:{s.server_port}/mcp", flush=True)
s.serve_forever()
"#;
    let mut server = Command::new("python3")
        .args(["-c", upstream])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let url = first_line(&mut server);
    let mut proxy = Command::new(BIN)
        .args(["watch", "--listen", "127.0.0.1:0", "--upstream", &url])
        .args(["--idle-exit", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let at = first_line(&mut proxy);
    let address = at
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    let mut tcp = std::net::TcpStream::connect(address).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write!(
        tcp,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let _ = proxy.wait();
    assert!(answer.starts_with("HTTP/1.1 307"), "{answer}");
    assert!(
        answer
            .to_lowercase()
            .contains("location: http://127.0.0.1:9/elsewhere"),
        "{answer}"
    );
}

/// A client that stops its server with SIGTERM (the MCP stdio shutdown's second step) still
/// gets watch's reports, and the server is stopped with it.
#[test]
fn a_sigterm_ends_the_relay_and_the_reports_are_still_written() {
    use std::io::BufRead;
    let report = temp_path("watch-sigterm.json");
    let _ = std::fs::remove_file(&report);
    let mut child = Command::new(BIN)
        .args(["watch", "--report-json", report.to_str().unwrap()])
        .args(["--", BIN, "reference"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    writeln!(stdin, "{init}").unwrap();
    let mut answer = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut answer)
        .unwrap();
    assert!(answer.contains("\"id\":1"), "{answer}");
    // SAFETY: kill has no memory effects
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("taskcheck watch was stopped by a signal"),
        "{said}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // the initialize was judged, and what the client sent; what it left undone, cut short,
    // is not held against it
    assert!(doc["judged"]["rules"].as_u64().unwrap() >= 1, "{doc}");
    assert_eq!(
        rules_with(&doc, &["fail", "warn"]),
        Vec::<String>::new(),
        "{doc}"
    );
    let messages = doc["scenarios"][0]["checks"].to_string();
    assert!(
        messages.contains("tasks.schema.requestor-messages"),
        "{messages}"
    );
    drop(stdin);
}

/// A hostile server behind watch: the client gets what the server sent (a 64 MiB line, a flood,
/// garbage, an early end) as it would without watch, and watch ends with its reports.
#[test]
fn a_hostile_server_is_relayed_and_watch_still_ends_with_its_reports() {
    use std::io::Read;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    for (mode, at_least) in [
        ("huge-line", 64 << 20),
        ("request-flood", 1 << 20),
        ("garbage", 1),
        ("exit-mid-run", 1),
        ("close-stdout", 1),
    ] {
        let report = temp_path(&format!("watch-hostile-{mode}.json"));
        let _ = std::fs::remove_file(&report);
        let mut child = Command::new(BIN)
            .args(["watch", "-q", "--report-json", report.to_str().unwrap()])
            .args(["--", BIN, "reference", "--hostile", mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = count.clone();
        let drained = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 20];
            while let Ok(k) = out.read(&mut buf) {
                if k == 0 {
                    break;
                }
                counted.fetch_add(k, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let mut stdin = child.stdin.take().unwrap();
        let _ = writeln!(stdin, "{init}");
        let _ = writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        );
        let _ = writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#);
        // the client reads what it was sent, then leaves
        let reading = std::time::Instant::now();
        while count.load(std::sync::atomic::Ordering::Relaxed) < at_least
            && reading.elapsed() < std::time::Duration::from_secs(60)
        {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(stdin);
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > std::time::Duration::from_secs(30) {
                let _ = child.kill();
                panic!("watch did not end 30 s after its client closed, with {mode}");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        drained.join().unwrap();
        let relayed = count.load(std::sync::atomic::Ordering::Relaxed);
        assert!(relayed >= at_least, "{mode}: {relayed} bytes relayed");
        assert!(matches!(status.code(), Some(0 | 1 | 3)), "{mode}: {status}");
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert!(doc["exitCode"].is_number(), "{mode}: {doc}");
    }
}

/// `watch --exec COMMAND` with `args` (a report written to `tag`'s file): its exit code and
/// JSON report.
fn exec_watch(args: &[&str], tag: &str) -> (i32, String, Value) {
    let report = temp_path(&format!("watch-exec-{tag}.json"));
    let _ = std::fs::remove_file(&report);
    let out = Command::new(BIN)
        .args(["watch", "--report-json", report.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let doc = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), said, doc)
}

#[test]
fn exec_runs_the_command_against_the_watched_stdio_server_and_fails_on_its_verdict() {
    // the command is a client of the server TASKCHECK_SERVER_COMMAND starts: taskcheck itself
    let client = format!(
        "{BIN} run -q --scenario create-poll-result --scenario cancel-terminal --stdio \"$TASKCHECK_SERVER_COMMAND\""
    );
    let (code, said, doc) = exec_watch(&["--exec", &client, "--", BIN, "reference"], "stdio");
    assert_eq!(code, 0, "{said}");
    assert!(doc["scenarios"].as_array().unwrap().len() >= 2, "{doc}");
    assert!(
        rules_with(&doc, &["pass"]).contains(&"tasks.result.exact".to_string()),
        "{said}"
    );
    // a fault the command's traffic shows fails the watch, whatever the command did
    let (code, said, doc) = exec_watch(
        &[
            "--exec",
            &format!("{client}; exit 0"),
            "--",
            BIN,
            "reference",
            "--fault",
            "cancel-terminal-ok",
        ],
        "stdio-fault",
    );
    assert_eq!(code, 1, "{said}");
    assert_eq!(
        rules_with(&doc, &["fail"]),
        vec!["tasks.cancel.terminal-rejected".to_string()],
        "{said}"
    );
}

#[test]
fn exec_through_the_proxy_stops_when_the_command_exits_and_says_its_failure() {
    let server = HttpReference::start(&["--profile", "ext-tasks"]);
    let client = format!(
        "{BIN} run -q --profile ext-tasks --scenario ext-create-poll-complete --url \"$TASKCHECK_URL\"; exit 7"
    );
    let start = std::time::Instant::now();
    let (code, said, doc) = exec_watch(
        &[
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &server.url,
            "--exec",
            &client,
        ],
        "http",
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "{said}"
    );
    // clean traffic: the command's own failure is the exit code, and said
    assert_eq!(code, 7, "{said}");
    assert!(said.contains("the command exited 7"), "{said}");
    assert_eq!(doc["exitCode"], 0, "{doc}");
    assert!(
        rules_with(&doc, &["pass"]).contains(&"ext-tasks.get.result-exact".to_string()),
        "{said}"
    );
}
