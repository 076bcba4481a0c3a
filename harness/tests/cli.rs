//! Command-line behaviour: inspection commands, usage errors, and exit codes.

mod common;

use common::*;

fn text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn explain_names_level_section_checks_and_faults() {
    let out = taskcheck(&["explain", "tasks.cancel.terminal-rejected"]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    for want in [
        "MUST",
        "#task-cancellation",
        "cancel-terminal",
        "cancel-terminal-ok",
    ] {
        assert!(t.contains(want), "{want} missing from:\n{t}");
    }
    assert_eq!(taskcheck(&["explain", "tasks.nope"]).status.code(), Some(2));
    // words as `list` prints them, and each reference's faults once
    assert!(
        t.contains("actor:    receiver") && t.contains("status:   checked"),
        "{t}"
    );
    let t = text(&taskcheck(&[
        "explain",
        "tasks.result.terminal-returns-final",
    ]));
    assert_eq!(t.matches("result-once").count(), 1, "{t}");
    assert!(one_line(&t).contains("reference-client: the same"), "{t}");
}

#[test]
fn the_top_level_help_lists_the_users_commands_only() {
    let t = text(&taskcheck(&["--help"]));
    for user in ["run", "init", "client", "requestor", "explain"] {
        assert!(
            t.contains(&format!("  {user} ")),
            "{user} missing from:\n{t}"
        );
    }
    for internal in [
        "serve",
        "reference-client",
        "reference-requestor",
        "coverage",
    ] {
        assert!(
            !t.contains(&format!("  {internal} ")),
            "{internal} listed:\n{t}"
        );
        // hidden, not gone
        assert!(
            taskcheck(&[internal, "--help"]).status.success(),
            "{internal}"
        );
    }
    let t = text(&taskcheck(&["list"]));
    assert!(
        t.contains("of servers (`taskcheck run`)") && t.contains("requestor scenario(s)"),
        "list says which command runs which scenarios:\n{t}"
    );
}

#[test]
fn list_shows_scenarios_rules_and_fixtures() {
    let t = text(&taskcheck(&["list"]));
    assert!(
        t.contains("create-poll-result") && t.contains("tasks.result.exact"),
        "{t}"
    );
    let t = text(&taskcheck(&["list", "--fixtures"]));
    assert!(t.contains("`required_sleep` | \"required\""), "{t}");
    assert!(t.contains("`sampling/createMessage` | after"), "{t}");
    let t = text(&taskcheck(&["reference", "--list-faults"]));
    assert!(
        t.contains("cancel-terminal-ok") && t.contains("tasks.cancel.terminal-rejected"),
        "{t}"
    );
}

#[test]
fn scenario_schema_is_json_schema() {
    let out = taskcheck(&["schema", "scenario"]);
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema["title"], "Scenario");
    assert!(schema["properties"]["steps"].is_object());
    // what a requestor driver reads from TASKCHECK_REQUEST, every key a scenario may ask
    let out = taskcheck(&["schema", "ask"]);
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema["additionalProperties"], false, "{schema}");
    for key in [
        "tool",
        "arguments",
        "task",
        "cancel_after_ms",
        "times",
        "list",
        "list_tools",
    ] {
        assert!(schema["properties"][key].is_object(), "{key}: {schema}");
    }
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(taskcheck(&["run"]).status.code(), Some(2));
    assert_eq!(
        taskcheck(&["run", "--stdio", "x", "--bogus"]).status.code(),
        Some(2)
    );
    assert_eq!(
        taskcheck(&["reference", "--fault", "no-such-fault"])
            .status
            .code(),
        Some(2)
    );
    let out = taskcheck(&["run", "--stdio", "x", "--scenario", "no-such-scenario"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn a_mistyped_id_is_refused_before_any_receiver_starts_with_the_id_it_is_closest_to() {
    // a receiver that would never answer: asking it which design it speaks would take seconds
    let out = taskcheck(&["run", "--stdio", "sleep 30", "--scenario", "cancel-termnal"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(!said.contains("speaks"), "no receiver was asked: {said}");
    assert!(
        said.contains(r#"no scenario "cancel-termnal"; did you mean "cancel-terminal"?"#),
        "{said}"
    );
    let out = taskcheck(&["explain", "tasks.cancel.termnal-rejected"]);
    assert!(
        text(&out).contains(r#"did you mean "tasks.cancel.terminal-rejected"?"#),
        "{}",
        text(&out)
    );
    // nothing close: no guess
    let out = taskcheck(&["run", "--stdio", "sleep 30", "--scenario", "zzzz"]);
    assert!(!text(&out).contains("did you mean"), "{}", text(&out));
    // a mistyped command, even one whose letters are out of order, or a letter short (where
    // clap's own guess was `reference-client`)
    for typed in ["rnu", "rn"] {
        let out = taskcheck(&[typed]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains(&format!(
                r#"unknown command "{typed}"; did you mean "run"?"#
            )),
            "{}",
            text(&out)
        );
        assert!(!text(&out).contains("reference-"), "{}", text(&out));
    }
    // a mistyped tag
    let out = taskcheck(&["run", "--stdio", "sleep 30", "--tag", "erors"]);
    assert!(
        text(&out).contains(r#"no scenario has the tag "erors"; did you mean "errors"?"#),
        "{}",
        text(&out)
    );
}

#[test]
fn a_broken_scenario_file_is_named_with_line_and_column() {
    let dir = scenario_dir(
        "broken-scenarios",
        "bad.yaml",
        "id: bad\ntitle: t\nrules: []\nsteps:\n  - send: ping\n    wait: 3\n",
    );
    let out = taskcheck(&[
        "run",
        "--stdio",
        "true",
        "--scenarios",
        dir.to_str().unwrap(),
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("bad.yaml:5:") || t.contains("bad.yaml:6:"),
        "{t}"
    );
    assert!(t.contains("exactly one kind"), "{t}");
}

#[test]
fn a_run_that_judges_nothing_is_an_error() {
    let (code, out, _) = run(
        &reference(&[]),
        &["--scenario", "undeclared-task-processed-normally"],
        "nothing",
    );
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("no check was executed"), "{out}");
}

#[test]
fn user_scenarios_run_and_trace_is_written() {
    let dir = scenario_dir(
        "user-scenarios",
        "mine.yaml",
        "id: mine\ntitle: mine\nrules: [tasks.errors.unknown-task-id]\nrequires: {capabilities: [tasks]}\nsteps:\n  - send: tasks/get\n    params: {taskId: nope}\n    rule: tasks.errors.unknown-task-id\n    expect: {error: {code: -32602}}\n",
    );
    let trace = temp_path("trace.jsonl");
    let (code, out, _) = run(
        &reference(&[]),
        &[
            "--scenarios",
            dir.to_str().unwrap(),
            "--scenario",
            "mine",
            "--trace",
            trace.to_str().unwrap(),
        ],
        "mine",
    );
    assert_eq!(code, 0, "{out}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 4);
    assert!(lines
        .iter()
        .all(|l| l["scenario"] == "mine" && l["seq"].is_u64() && l["dir"].is_string()));
}

#[test]
fn taskcheck_reports_its_own_undeclared_break_of_a_requestor_rule() {
    let scenario = |breaks: &str| {
        format!(
            "id: sloppy\ntitle: t\nrules: [tasks.tool.forbidden-rejected]\n{breaks}requires: {{capabilities: [tasks.requests.tools.call], tools: [sync_echo]}}\nsteps:\n  - send: tools/call\n    params: {{name: sync_echo, arguments: {{text: x}}, task: {{ttl: 1000}}}}\n    rule: tasks.tool.forbidden-rejected\n    expect: {{error: {{code: -32601}}}}\n"
        )
    };
    let dir = scenario_dir("conduct-undeclared", "sloppy.yaml", &scenario(""));
    let args = ["--scenarios", dir.to_str().unwrap(), "--scenario", "sloppy"];
    let (code, out, _) = run(&reference(&[]), &args, "conduct-undeclared");
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("tasks.tool.requestor-respects-task-support") && out.contains("breaks"),
        "{out}"
    );
    let dir = scenario_dir(
        "conduct-declared",
        "sloppy.yaml",
        &scenario("breaks: [tasks.tool.requestor-respects-task-support]\n"),
    );
    let args = ["--scenarios", dir.to_str().unwrap(), "--scenario", "sloppy"];
    let (code, out, _) = run(&reference(&[]), &args, "conduct-declared");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn fixture_roles_map_to_the_receivers_own_tools() {
    // progress_sleep behaves like optional_sleep and has the same taskSupport
    let map = scenario_dir(
        "fixture-map",
        "map.yaml",
        "optional_sleep:\n  tool: progress_sleep\n  arguments: {ms: \"${ms}\", steps: 1}\n",
    );
    let trace = temp_path("fixture-map-trace.jsonl");
    let args = [
        "--fixtures".to_string(),
        map.join("map.yaml").to_str().unwrap().to_string(),
        "--scenario".into(),
        "create-poll-result".into(),
        "--trace".into(),
        trace.to_str().unwrap().to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, _) = run(&reference(&[]), &args, "fixture-map");
    assert_eq!(code, 0, "{out}");
    let trace = std::fs::read_to_string(trace).unwrap();
    assert!(
        trace.contains(r#""name":"progress_sleep","arguments":{"ms":200,"steps":1}"#),
        "{trace}"
    );
    assert!(!trace.contains(r#""method":"tools/call","params":{"name":"optional_sleep""#));

    // a required tool plays the role's task-augmented calls; its plain calls are left out
    let map = scenario_dir(
        "fixture-mismatch",
        "map.yaml",
        "optional_sleep:\n  tool: required_sleep\n",
    );
    let path = map.join("map.yaml");
    let args = [
        "--fixtures",
        path.to_str().unwrap(),
        "--scenario",
        "create-prompt",
        "--scenario",
        "tool-optional-both-ways",
    ];
    let (code, out, _) = run(&reference(&[]), &args, "fixture-mismatch");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("PASS        create-prompt"), "{out}");
    assert!(
        out.contains("UNTESTABLE  tool-optional-both-ways")
            && one_line(&out).contains("makes a plain call of the fixture role \"optional_sleep\"")
            && out.contains("declares taskSupport \"required\""),
        "{out}"
    );
}

#[test]
fn the_fixture_plan_names_the_roles_of_the_runs_design() {
    // the extension has no sync_echo, forbidden_echo or progress_sleep; its elicit_pair is its own
    let map = scenario_dir(
        "fixture-plan-ext",
        "map.yaml",
        "optional_sleep:\n  tool: optional_sleep\n",
    );
    let path = map.join("map.yaml");
    let args = [
        "--profile",
        "ext-tasks",
        "--fixtures",
        path.to_str().unwrap(),
        "--scenario",
        "ext-create-poll-complete",
    ];
    let (code, out, _) = run(&ext_reference(&[]), &args, "fixture-plan-ext");
    assert_eq!(code, 0, "{out}");
    let plan = out.split("fixture roles (as mapped):").nth(1).expect(&out);
    assert!(plan.contains("elicit_pair"), "{out}");
    for other in ["sync_echo", "forbidden_echo", "progress_sleep"] {
        assert!(
            !plan.contains(other),
            "{other} is no role of the extension: {out}"
        );
    }
    // the extension negotiates no taskSupport: no call of a role is left out for it
    assert!(!plan.contains("are left out"), "{out}");
}

#[test]
fn a_missing_fixture_role_leaves_out_only_the_steps_that_call_it() {
    // sync_echo played by a tool the receiver lacks: the forbidden_echo step is still judged
    let map = scenario_dir(
        "fixture-one-role",
        "map.yaml",
        "sync_echo:\n  tool: no_such_tool\n",
    );
    let path = map.join("map.yaml");
    let args = [
        "--fixtures",
        path.to_str().unwrap(),
        "--scenario",
        "tool-forbidden-task",
    ];
    let (code, out, doc) = run(
        &reference(&["forbidden-accepts-task"]),
        &args,
        "fixture-one-role",
    );
    assert_eq!(code, 0, "a SHOULD broke: {out}");
    let checks = doc["scenarios"][0]["checks"].as_array().unwrap();
    let verdict_of_step = |step: &str| {
        checks
            .iter()
            .find(|c| c["rule"] == "tasks.tool.forbidden-rejected" && c["step"] == step)
            .map(|c| c["verdict"].as_str().unwrap().to_string())
    };
    assert_eq!(verdict_of_step("1").as_deref(), Some("warn"), "{out}");
    assert_eq!(verdict_of_step("2").as_deref(), Some("untestable"), "{out}");
    assert!(out.contains("no tool \"no_such_tool\""), "{out}");
}

#[test]
fn a_broken_fixture_map_is_a_usage_error_with_its_position() {
    let map = scenario_dir(
        "fixture-broken",
        "map.yaml",
        "sync_echo:\n  tool: echo\nsleepy:\n  tool: x\n",
    );
    let path = map.join("map.yaml");
    let out = taskcheck(&[
        "run",
        "--stdio",
        "true",
        "--fixtures",
        path.to_str().unwrap(),
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("map.yaml:3:1: unknown fixture role \"sleepy\""),
        "{t}"
    );
}

#[test]
fn timeout_scale_must_be_positive() {
    let out = taskcheck(&["run", "--stdio", "true", "--timeout-scale", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn the_builtin_tasks_schema_is_printed() {
    let out = taskcheck(&["schema", "tasks"]);
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema["$defs"]["Task"]["required"].is_array());
}

#[test]
fn diff_lists_changed_verdicts_and_exits_1_only_when_some_changed() {
    let (_, _, _) = run(
        &reference(&[]),
        &["--scenario", "cancel-terminal"],
        "diff-a",
    );
    let (_, _, _) = run(
        &reference(&["cancel-terminal-ok"]),
        &["--scenario", "cancel-terminal"],
        "diff-b",
    );
    let (a, b) = (temp_path("diff-a.json"), temp_path("diff-b.json"));
    let same = taskcheck(&["diff", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("no verdict changed"));
    let changed = taskcheck(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&changed.stdout);
    assert_eq!(changed.status.code(), Some(1), "{text}");
    assert!(
        text.contains("cancel-terminal:tasks.cancel.terminal-rejected: pass -> fail"),
        "{text}"
    );
    let ignored = taskcheck(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--ignore",
        "cancel-terminal:tasks.cancel.terminal-rejected",
    ]);
    assert_eq!(ignored.status.code(), Some(0));
    let missing = taskcheck(&["diff", "/nonexistent/a.json", a.to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/a.json: cannot read"));
}

#[test]
fn a_clean_run_fits_on_one_screen_and_verbose_shows_every_check() {
    let lines = |extra: &[&str], tag: &str| {
        let (code, out, doc) = run(&reference(&[]), extra, tag);
        assert_eq!(code, 0, "{out}");
        let scenarios = doc["scenarios"].as_array().unwrap().len();
        (out.lines().count(), scenarios, out)
    };
    // a line per scenario (and why, for one that did not apply), then the tools called with
    // the work they asked (three lines at 100 columns), the counts and the exit line, and on
    // stderr the design and the report written
    let (default, scenarios, out) = lines(&[], "screen-default");
    let why = out.lines().filter(|l| l.starts_with("    why: ")).count();
    assert!(why > 0, "a scenario that does not apply says why:\n{out}");
    assert!(default <= scenarios + why + 9, "{default} lines:\n{out}");
    assert!(out.contains("rules: ") && out.contains(" passed"), "{out}");
    let (quiet, _, out) = lines(&["-q"], "screen-quiet");
    assert!(quiet <= 4, "{out}");
    assert!(out.starts_with("rules: "), "{out}");
    let (verbose, _, out) = lines(&["--verbose"], "screen-verbose");
    assert!(verbose > 4 * scenarios, "every check: {out}");
    let both = taskcheck(&["run", "--stdio", &reference(&[]), "-v", "-q"]);
    assert_eq!(both.status.code(), Some(2), "{}", text(&both));
}

#[test]
fn list_and_explain_fit_100_columns_when_stdout_is_no_terminal() {
    for args in [
        &["list"][..],
        &["list", "--profile", "ext-tasks"],
        &["explain", "wire.invalid-request"],
    ] {
        let out = taskcheck(args);
        let t = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{t}");
        for line in t.lines() {
            let one_word = !line.trim().contains(' ');
            assert!(
                line.chars().count() <= 100 || one_word,
                "{args:?}: {line:?} is wider than 100 columns"
            );
        }
    }
}
