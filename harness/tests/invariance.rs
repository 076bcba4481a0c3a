//! Verdicts that hold whatever taskcheck's own knobs are: every reference fault of both
//! designs, over stdio and over HTTP, fails exactly its rules at `--timeout-scale 3` and
//! `--jobs 8`, as it does at scale 1 with `--jobs 4` over stdio (tests/reference.rs,
//! tests/ext_tasks.rs) and with `--jobs 1` over HTTP, where one server keeps every scenario's
//! tasks (tests/http.rs, tests/ext_tasks.rs).

mod common;

use common::*;
use mcp_taskcheck::designs::ext_tasks::reference::faults as ext;
use mcp_taskcheck::designs::tasks_2025::reference::faults as tasks_2025;

/// The knobs a run is given besides its receiver.
const STRETCHED: [&str; 4] = ["--timeout-scale", "3", "--jobs", "8"];

/// Runs of faults are mostly waits: eight at once keep two cores busy enough.
const WORKERS: usize = 8;

#[test]
fn over_stdio_every_fault_fails_its_rules_at_scale_3_and_eight_jobs() {
    let mut problems = tasks_2025_faults_over_stdio(&STRETCHED, WORKERS);
    problems.extend(ext_faults_over_stdio(&STRETCHED, WORKERS));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn over_http_every_fault_fails_its_rules_at_scale_3_and_eight_jobs() {
    let mut problems = tasks_2025_faults_over_http(&STRETCHED, WORKERS);
    problems.extend(ext_faults_over_http(&STRETCHED, WORKERS));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The faults of each design that the renamed tools play a part in, tried through the map.
const RENAMED_2025: [&str; 11] = [
    "forbidden-accepts-task",
    "required-accepts-plain",
    "create-returns-result",
    "stuck-input-required",
    "elicit-without-related-task",
    "tool-error-completes",
    "result-error-as-success",
    "progress-token-changed",
    "ttl-uncapped",
    "cancel-keeps-working",
    "protocol-error-completes",
];
const RENAMED_EXT: [&str; 10] = [
    "one-input-request",
    "update-ignored",
    "partial-completes",
    "mrtr-inside-task",
    "elicits-undeclared",
    "result-loses-is-error",
    "error-differs",
    "tool-error-fails",
    "completed-without-result",
    "task-param-honoured",
];

/// Tools under names of their own, taking arguments under keys of their own and answering in
/// words of their own (the `renamed-tools` variant), played through a `--fixtures` map: the
/// verdicts are the fixture tools' own, clean and for faults, over stdio and HTTP.
#[test]
fn tools_renamed_with_their_keys_and_words_give_the_same_verdicts() {
    let options = variant_options("renamed-tools");
    let map = options[1].as_str();
    let mut problems = Vec::new();
    for profile in ["2025-11-25", "ext-tasks"] {
        let subcommand = format!("{BIN} reference --profile {profile}");
        let knobs = ["--profile", profile];
        let (_, out, fixture) = run(&subcommand, &knobs, &format!("fixture-{profile}"));
        let renamed = format!("{subcommand} --variant renamed-tools");
        let mapped = ["--profile", profile, "--fixtures", map];
        let (_, own, theirs) = run(&renamed, &mapped, &format!("renamed-{profile}"));
        if verdicts(&fixture) != verdicts(&theirs) || rules_with(&theirs, &["pass"]).len() < 25 {
            problems.push(format!(
                "{profile}: fixture tools\n{out}\nrenamed tools\n{own}"
            ));
        }
        let server = HttpReference::start(&["--profile", profile, "--variant", "renamed-tools"]);
        let mut extra = mapped.to_vec();
        extra.extend_from_slice(&AUTH);
        let (code, out, doc) = run_against(&["--url", &server.url], &extra, "renamed-http");
        if code != 0 || !rules_with(&doc, &["fail", "warn", "error", "untestable"]).is_empty() {
            problems.push(format!("{profile} over HTTP: renamed tools\n{out}"));
        }
    }
    problems.extend(in_parallel(&RENAMED_2025, WORKERS, |name| {
        let fault = tasks_2025::FAULTS.iter().find(|f| f.name == *name).unwrap();
        let receiver = format!("{} --variant renamed-tools", reference(&[name]));
        let (code, out, doc) = run(&receiver, &["--fixtures", map], &format!("renamed-{name}"));
        fault_problems(fault, code, &out, &doc)
    }));
    problems.extend(in_parallel(&RENAMED_EXT, WORKERS, |name| {
        let fault = ext::FAULTS.iter().find(|f| f.name == *name).unwrap();
        let receiver = format!("{} --variant renamed-tools", ext_reference(&[name]));
        let extra = ["--profile", "ext-tasks", "--fixtures", map];
        let (code, out, doc) = run(&receiver, &extra, &format!("renamed-ext-{name}"));
        fault_problems(fault, code, &out, &doc)
    }));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
