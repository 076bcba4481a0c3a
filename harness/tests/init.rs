//! `taskcheck init` and `taskcheck.yaml`: init looks at a server and writes the settings and a
//! CI workflow; `taskcheck run` in that folder then tests the server with no flags. Against the
//! reference every role plays itself; against the same tools under other names (the fixture
//! tests/fixtures/renamed_tools.py) init maps every role, and the mapped run is as clean as the
//! reference's while the unmapped one leaves scenarios untestable.

mod common;

use common::{one_line, temp_path, BIN};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs taskcheck in `dir` with `args`, `input` on its stdin.
fn taskcheck_in(dir: &Path, args: &[&str], input: &str) -> Output {
    taskcheck_at(dir, args, input, "1000")
}

/// As [`taskcheck_in`], printing in `columns` columns (1000 keeps each sentence on one line,
/// where these tests look for it).
fn taskcheck_at(dir: &Path, args: &[&str], input: &str, columns: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env("COLUMNS", columns)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// A fresh empty folder.
fn folder(name: &str) -> PathBuf {
    let dir = temp_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The reference's tools under other names.
fn renamed() -> String {
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/renamed_tools.py");
    format!("python3 {} {BIN} reference", proxy.display())
}

/// The JSON report `taskcheck run` wrote in `dir` (taskcheck.yaml names it).
fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("taskcheck-report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn init_writes_settings_that_run_reads_and_a_workflow() {
    let dir = folder("init-reference");
    let reference = format!("{BIN} reference");
    // asked, and told no: nothing is written
    let out = taskcheck_at(&dir, &["init", "--stdio", &reference], "n\n", "100");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("nothing written"), "{}", text(&out));
    // in 100 columns, a line is broken between words: none is longer unless it is one word
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.lines().any(|l| l.starts_with("    ")), "{said}");
    for line in said.lines() {
        let words = line.split_whitespace().count();
        assert!(line.chars().count() <= 100 || words <= 1, "{line}");
    }
    assert!(!dir.join("taskcheck.yaml").exists());
    // not asked at all (no terminal, nothing on stdin): a usage error, not a quiet success
    let out = taskcheck_in(&dir, &["init", "--stdio", &reference], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("`--yes` writes without asking"),
        "{}",
        text(&out)
    );
    assert!(!dir.join("taskcheck.yaml").exists());
    // the command names taskcheck's own binary by its absolute path, outside this folder
    assert!(
        text(&out).contains(&format!(
            "note: the server command names {BIN}, outside this folder"
        )),
        "{}",
        text(&out)
    );
    // told yes
    let action = "someone/taskcheck@v0.1.0";
    let out = taskcheck_in(
        &dir,
        &["init", "--stdio", &reference, "--action", action],
        "y\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("optional_sleep   played by the tool of that name"),
        "{said}"
    );
    assert!(
        said.contains(
            "every rule of the 2025-11-25 profile that applies over stdio has a scenario"
        ),
        "{said}"
    );
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/taskcheck.yml")).unwrap();
    let workflow: Value = serde_saphyr::from_str(&workflow).unwrap();
    // the workflow runs the action (action.yml, tested in tests/action.rs) on taskcheck.yaml
    let steps = &workflow["jobs"]["taskcheck"]["steps"];
    // the action's build is cached between runs, keyed by the action's ref
    assert_eq!(steps[1]["uses"], "actions/cache@v4");
    assert_eq!(steps[1]["with"]["path"], "~/.cache/taskcheck-action");
    assert!(
        steps[1]["with"]["key"].as_str().unwrap().ends_with(action),
        "{}",
        steps[1]
    );
    let step = &steps[2];
    assert_eq!(step["uses"], action);
    assert_eq!(step["with"]["config"], "taskcheck.yaml");
    // written files are not overwritten without --force
    let out = taskcheck_in(&dir, &["init", "--stdio", &reference, "--yes"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("taskcheck.yaml exists: --force overwrites it"),
        "{}",
        text(&out)
    );
    // `taskcheck run` alone: the receiver, profile and reports come from taskcheck.yaml
    let out = taskcheck_in(&dir, &["run", "-q"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = report(&dir);
    assert_eq!(doc["totals"]["failed"], 0, "{}", doc["totals"]);
    assert!(dir.join("taskcheck-junit.xml").is_file());
    // a flag wins over the file: one scenario, a report elsewhere
    let elsewhere = dir.join("one.json");
    let args = [
        "run",
        "-q",
        "--scenario",
        "create-poll-result",
        "--report-json",
        elsewhere.to_str().unwrap(),
    ];
    let out = taskcheck_in(&dir, &args, "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let one: Value = serde_json::from_str(&std::fs::read_to_string(&elsewhere).unwrap()).unwrap();
    assert_eq!(one["scenarios"].as_array().map(Vec::len), Some(1));
}

#[test]
fn init_maps_renamed_tools_to_their_roles_and_the_mapped_run_judges_every_rule() {
    let dir = folder("init-renamed");
    let out = taskcheck_in(&dir, &["init", "--stdio", &renamed(), "--yes"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    // this build knows no repository holding its action: no workflow that could not run
    assert!(!dir.join(".github/workflows/taskcheck.yml").exists());
    assert!(
        one_line(&said).contains("no CI workflow written: this build of taskcheck does not know"),
        "{said}"
    );
    for (role, tool) in [
        ("sync_echo", "say"),
        ("forbidden_echo", "shout"),
        ("optional_sleep", "wait_a_while"),
        ("required_sleep", "long_job"),
        ("tool_error", "flaky_check"),
        ("protocol_error", "explode"),
        ("elicit_input", "ask_user"),
        ("progress_sleep", "build"),
    ] {
        assert!(
            said.contains(&format!("{role:<16} played by {tool:?}")),
            "{role}: {said}"
        );
    }
    let out = taskcheck_in(&dir, &["run", "-q"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mapped = report(&dir);
    assert_eq!(mapped["totals"]["failed"], 0, "{}", mapped["totals"]);
    assert_eq!(mapped["totals"]["untestable"], 0, "{}", mapped["totals"]);
    // the same server without the mapping: its scenarios find no fixture tools
    let bare = folder("init-renamed-bare");
    let json = bare.join("report.json");
    let args = [
        "run",
        "-q",
        "--stdio",
        &renamed(),
        "--report-json",
        json.to_str().unwrap(),
    ];
    let out = taskcheck_in(&bare, &args, "");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        doc["totals"]["untestable"].as_u64() > Some(0),
        "{}",
        text(&out)
    );
}

#[test]
fn a_broken_taskcheck_yaml_is_a_usage_error_naming_its_line() {
    let dir = folder("init-broken");
    std::fs::write(
        dir.join("taskcheck.yaml"),
        "stdio: x\nprofile: 2024-01-01\n",
    )
    .unwrap();
    let out = taskcheck_in(&dir, &["run"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("taskcheck.yaml:2:1: no profile \"2024-01-01\""),
        "{}",
        text(&out)
    );
    // --config names another file, which must exist
    let out = taskcheck_in(&dir, &["run", "--config", "missing.yaml"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("missing.yaml: cannot read"),
        "{}",
        text(&out)
    );
    // no receiver anywhere
    std::fs::remove_file(dir.join("taskcheck.yaml")).unwrap();
    let out = taskcheck_in(&dir, &["run"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("taskcheck init"), "{}", text(&out));
}

/// A server written as real ones are (the reference's `own-tools` variant): its only task
/// tool is `required`, works 1500 ms whatever it is given and takes no duration; its plain
/// tool is `forbidden`; a third's words say it reports errors, which it does not do for what
/// taskcheck sends; a fourth may destroy something. `init --yes` alone maps the first to the
/// sleep roles (timing it once), refuses the third what it does not do, never proposes the
/// destructive one, and the run judges
/// every rule those tools allow with no failure: the rules left untestable are exactly those
/// of roles no tool plays and of plain calls of the `required` tool.
#[test]
fn a_server_with_only_a_required_fixed_duration_tool_is_judged_on_what_its_tools_allow() {
    let dir = folder("init-own-tools");
    let server = format!("{BIN} reference --variant own-tools");
    let out = taskcheck_in(&dir, &["init", "--stdio", &server, "--yes"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    for role in ["optional_sleep", "required_sleep"] {
        assert!(
            said.contains(&format!("{role:<16} played by \"generate_report\"")),
            "{role}: {said}"
        );
    }
    assert!(said.contains("whatever it is given (measured)"), "{said}");
    // a tool whose words say it waits and reports progress but never runs as a task plays
    // no task role; it and any other plain tool play the plain-call roles, words or none
    for role in ["sync_echo", "forbidden_echo"] {
        assert!(
            said.contains(&format!("{role:<16} played by \"wait_for_sync\"")),
            "{role}: {said}"
        );
    }
    assert!(
        said.contains(
            "progress_sleep   unplayed: \"generate_report\" does not do what progress_sleep does"
        ),
        "{said}"
    );
    // its words say it reports errors, but called once as a task it completes: mapped to
    // tool_error, the run would accuse a correct server of breaking tasks.failed.tool-error
    assert!(
        said.contains("tool_error       unplayed: \"check_quarter\" does not do what tool_error does: called once as a task it completed after"),
        "{said}"
    );
    // what is left untestable is named with the role that would judge it
    assert!(
        said.contains("left untestable until a tool plays what they need: progress_sleep (tasks.cancel.stop-execution,"),
        "{said}"
    );
    // and with the calls the run leaves out: plain calls of a role whose tool is `required`
    assert!(
        said.contains("optional_sleep's plain calls (tasks.capability.extension-not-enabling"),
        "{said}"
    );
    // the steps that make a hundred tasks and more need only that each is made: they call
    // the quickest tool that completes as a task, measured (check_quarter, ~100 ms)
    assert!(
        said.contains(
            "the steps that make many tasks call \"check_quarter\", which completed sooner"
        ),
        "{said}"
    );
    let written = std::fs::read_to_string(dir.join("taskcheck.yaml")).unwrap();
    assert!(written.contains("duration-ms:"), "{written}");
    assert!(!written.contains("purge_reports"), "{written}");
    assert!(
        written.contains("many-tasks: {tool: \"check_quarter\""),
        "{written}"
    );
    let out = taskcheck_in(&dir, &["run", "-q", "--trace", "trace.jsonl"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // -q is the summary alone: no settings banner, no fixture plan, no design line on stderr,
    // no untestable list on stdout (the rules line counts them; the reports list them)
    let (said, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(err.trim().is_empty(), "stderr: {err}");
    assert!(said.starts_with("rules: 14 untestable"), "{said}");
    assert!(said.lines().count() <= 4, "{said}");
    let doc = report(&dir);
    assert_eq!(doc["totals"]["failed"], 0, "{}", doc["totals"]);
    assert_eq!(doc["totals"]["warnings"], 0, "{}", doc["totals"]);
    assert_eq!(doc["judged"]["rules"], 43, "{}", doc["judged"]);
    let untestable: Vec<&str> = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "untestable")
        .filter_map(|r| r["id"].as_str())
        .collect();
    // no tool asks for input, reports progress or fails, and none runs either way (optional)
    let allowed = [
        "tasks.cancel.stop-execution",
        "tasks.capability.extension-not-enabling",
        "tasks.failed.protocol-error",
        "tasks.failed.status-message",
        "tasks.failed.tool-error",
        "tasks.input.leave-after-input",
        "tasks.input.move-to-input-required",
        "tasks.input.request-related-task",
        "tasks.input.requests-delivered",
        "tasks.meta.related-messages",
        "tasks.progress.stops-when-terminal",
        "tasks.progress.token-valid",
        "tasks.result.exact",
        "tasks.tool.optional-either-way",
    ];
    assert_eq!(untestable, allowed, "{}", text(&out));
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    let calls: Vec<Value> = trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.pointer("/message/method") == Some(&Value::from("tools/call")))
        .collect();
    assert!(!calls.is_empty(), "{trace}");
    let called = |tool: &str| {
        calls
            .iter()
            .any(|e| e.pointer("/message/params/name") == Some(&Value::from(tool)))
    };
    assert!(called("generate_report") && !called("purge_reports"));
    // the report lists what was called
    let listed: Vec<&str> = doc["toolsCalled"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        listed,
        ["check_quarter", "generate_report", "wait_for_sync"],
        "{}",
        doc["toolsCalled"]
    );
    // what the run cost: the many-task steps' 300 tasks cost check_quarter's ~100 ms each,
    // not generate_report's 1500 (8 min of work before)
    let called = |tool: &str, key: &str| {
        doc["toolsCalled"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .and_then(|t| t[key].as_u64())
    };
    assert!(
        called("check_quarter", "calls") >= Some(300),
        "{}",
        doc["toolsCalled"]
    );
    let work = |tool: &str| called(tool, "workMs").unwrap_or(u64::MAX);
    assert!(
        work("check_quarter") + work("generate_report") < 120_000,
        "{}",
        doc["toolsCalled"]
    );
}

/// The extension's reference minting its own input-request keys (`<taskId>:<hex>`, as an
/// independent implementation does): `init --yes` alone proposes the extension's own roles,
/// and the run judges every applicable rule with no failure, answering the keys the server
/// issued.
#[test]
fn an_extension_server_with_its_own_input_keys_is_judged_from_init_alone() {
    let dir = folder("init-ext-own-keys");
    let server = format!("{BIN} reference --profile ext-tasks --variant own-input-keys");
    let out = taskcheck_in(&dir, &["init", "--stdio", &server, "--yes"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    for role in ["elicit_pair", "elicit_twice", "confirm_first"] {
        assert!(said.contains(&format!("{role:<16} played by")), "{said}");
    }
    let written = std::fs::read_to_string(dir.join("taskcheck.yaml")).unwrap();
    assert!(written.contains("profile: ext-tasks"), "{written}");
    let out = taskcheck_in(&dir, &["run", "-q", "--require-judged", "all"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = report(&dir);
    assert_eq!(doc["totals"]["failed"], 0, "{}", doc["totals"]);
    assert_eq!(doc["judged"]["rules"], 49, "{}", doc["judged"]);
    assert_eq!(doc["judged"]["untestable"], 0, "{}", doc["judged"]);
}

/// A server without Tasks (the reference's `no-tasks` variant, its tools under names of their
/// own): `init` says so first, proposes no tool for a task role, and the run judges it
/// conformant, as the text makes every server without Tasks.
#[test]
fn a_server_without_tasks_gets_no_task_role_and_no_failure() {
    let dir = folder("init-no-tasks");
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/renamed_tools.py");
    let server = format!(
        "python3 {} {BIN} reference --variant no-tasks",
        proxy.display()
    );
    let out = taskcheck_in(&dir, &["init", "--stdio", &server, "--yes"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("the server declares no Tasks under the 2025-11-25 design"),
        "{said}"
    );
    // every task role: the ones a call as a task can show
    for role in mcp_taskcheck::calibration::CALIBRATED {
        assert!(
            said.contains(&format!(
                "{role:<16} unplayed: the server declares no Tasks"
            )),
            "{role}: {said}"
        );
    }
    assert!(
        !said.contains("watching"),
        "no tool is called as a task: {said}"
    );
    let out = taskcheck_in(&dir, &["run", "-q"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = report(&dir);
    assert_eq!(doc["totals"]["failed"], 0, "{}", doc["totals"]);
    assert_eq!(doc["totals"]["warnings"], 0, "{}", doc["totals"]);
    // the same under the extension: a 2026-07-28 server without it plays no task role
    let dir = folder("init-no-tasks-ext");
    let server =
        format!("{BIN} reference --profile ext-tasks --variant no-tasks --variant renamed-tools");
    let out = taskcheck_in(
        &dir,
        &[
            "init",
            "--profile",
            "ext-tasks",
            "--stdio",
            &server,
            "--yes",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("the server declares no Tasks under the ext-tasks design"),
        "{said}"
    );
    assert!(!said.contains("played by"), "{said}");
    let out = taskcheck_in(&dir, &["run", "-q"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = report(&dir);
    assert_eq!(doc["totals"]["failed"], 0, "{}", doc["totals"]);
    assert_eq!(doc["totals"]["warnings"], 0, "{}", doc["totals"]);
}

/// A server whose flaky tool is listed ahead of its long one, with names and descriptions that
/// say the same of both (as a framework's examples may): the flaky one, called first, ends in
/// a tool error, and init tries the next candidate, which plays the long-work role; the run
/// then judges what a hand map would, with no failure.
#[test]
fn a_candidate_that_does_something_else_leaves_the_role_to_the_next() {
    let dir = folder("init-next-candidate");
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/renamed_tools.py");
    let server = format!("python3 {} {BIN} reference", proxy.display());
    let renamed = r#"{"optional_sleep": ["long_run", "A long run.", {"ms": "delay_ms"}],
        "tool_error": ["long_run_flaky", "A long run that may fail.", {"ms": "after_ms"}]}"#;
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args(["init", "--stdio", &server, "--yes"])
        .env("RENAMED_OVERRIDE", renamed)
        .env("RENAMED_REVERSED", "1")
        .env("COLUMNS", "1000")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let flaky = said.find("watching \"long_run_flaky\"").expect(&said);
    let long = said.find("watching \"long_run\":").expect(&said);
    assert!(
        flaky < long,
        "the flaky one, listed first, was tried first: {said}"
    );
    assert!(
        said.contains("optional_sleep   played by \"long_run\""),
        "{said}"
    );
    assert!(
        said.contains("tool_error       played by \"long_run_flaky\""),
        "{said}"
    );
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args(["run", "-q"])
        .env("RENAMED_OVERRIDE", renamed)
        .env("RENAMED_REVERSED", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = report(&dir);
    assert_eq!(doc["totals"]["failed"], 0, "{}", doc["totals"]);
    assert_eq!(doc["totals"]["untestable"], 0, "{}", text(&out));
}

/// A server that sends its elicitation while its task still reads `working` (the reference's
/// `no-input-required` fault, its tools under names of their own, as some frameworks do):
/// `init` answers the elicitation as it answers any (`cancel`), says what it saw, and lets the
/// tool play the elicitation role, so the run can judge what that deviation breaks.
#[test]
fn a_tool_that_asks_while_its_task_reads_working_plays_the_elicitation_role() {
    let dir = folder("init-asks-while-working");
    let proxy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/renamed_tools.py");
    let server = format!(
        "python3 {} {BIN} reference --fault no-input-required",
        proxy.display()
    );
    let out = taskcheck_in(
        &dir,
        &["init", "--stdio", &server, "--yes", "--timeout-ms", "3000"],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("asked for input with elicitation/create after")
            && said.contains("while its task still read working"),
        "{said}"
    );
    assert!(
        said.contains("elicit_input     played by \"ask_user\""),
        "{said}"
    );
    // the deviation is a SHOULD: judged, warned, and the only rule not met
    let out = taskcheck_in(&dir, &["run", "-q"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = report(&dir);
    let not_met: Vec<(&str, &str)> = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| matches!(r["verdict"].as_str(), Some("fail" | "warn" | "error")))
        .filter_map(|r| Some((r["id"].as_str()?, r["verdict"].as_str()?)))
        .collect();
    assert_eq!(
        not_met,
        [("tasks.input.move-to-input-required", "warn")],
        "{}",
        text(&out)
    );
}
