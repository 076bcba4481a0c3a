//! `taskcheck explore` against the reference receivers: clean without a fault (and, for the
//! Tasks extension, under every legal variant), and for the faults the fixed scenarios miss
//! by design (and one of the extension's) it finds, shrinks and saves a scenario that
//! `taskcheck run` replays (failing the faulty receiver, passing the correct one).

mod common;

use common::*;
use mcp_taskcheck::designs::ext_tasks;
use mcp_taskcheck::designs::tasks_2025::reference::faults::FAULTS;

fn explore(receiver: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["explore", "--stdio", receiver];
    args.extend_from_slice(extra);
    let out = taskcheck(&args);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn explore_finds_nothing_wrong_with_the_reference_receiver() {
    let (code, out) = explore(&reference(&[]), &["--seed", "1", "--cases", "40"]);
    assert_eq!(code, 0, "{out}");
    let cases: usize = out
        .strip_prefix("explore: ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(cases >= 30, "only {cases} cases ran\n{out}");
    assert!(out.contains("no failure found"), "{out}");
}

#[test]
fn explore_reports_like_run_and_fails_on_a_should_only_under_fail_on_should() {
    // a clean exploration's report: a check per rule its cases judged, all held
    let clean = temp_path("explore-clean.json");
    let args = [
        "--seed",
        "1",
        "--cases",
        "4",
        "--report-json",
        clean.to_str().unwrap(),
    ];
    let (code, out) = explore(&reference(&[]), &args);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\nexit 0: conformant: every judged MUST held, on "),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&clean).unwrap()).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(mcp_taskcheck::report::REPORT_SCHEMA).unwrap();
    assert!(jsonschema::is_valid(&schema, &doc), "{doc:#}");
    assert_eq!(doc["scenarios"][0]["id"], "explore/held");
    assert!(
        doc["totals"]["passed"].as_u64() > Some(5),
        "{}",
        doc["totals"]
    );
    // a SHOULD broken: reported as a warning, a failure of the run only under --fail-on should
    let faulty = reference(&["timestamps-without-offset"]);
    let found = temp_path("explore-should.json");
    let few = ["--seed", "1", "--cases", "5", "--shrink-runs", "5"];
    let (code, out) = explore(
        &faulty,
        &[&few[..], &["--report-json", found.to_str().unwrap()]].concat(),
    );
    assert_eq!(code, 0, "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&found).unwrap()).unwrap();
    assert_eq!(
        rules_with(&doc, &["warn"]),
        ["tasks.ttl.timestamps-rfc3339"],
        "{out}"
    );
    let (code, out) = explore(&faulty, &[&few[..], &["--fail-on", "should"]].concat());
    assert_eq!(code, 1, "{out}");
}

#[test]
fn explore_over_http_is_clean_too() {
    let server = HttpReference::start(&[]);
    let out = taskcheck(&[
        "explore",
        "--url",
        &server.url,
        "--seed",
        "3",
        "--cases",
        "10",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
}

#[test]
fn explore_of_the_extension_is_clean_under_every_legal_variant_over_stdio_and_http() {
    let (code, out) = explore(&ext_reference(&[]), &["--seed", "1", "--cases", "30"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("speaks the ext-tasks design"), "{out}");
    assert!(out.contains("no failure found"), "{out}");
    // a server without Tasks leaves nothing to explore, and explore says so (exit 3)
    let (code, out) = explore(
        &format!("{} --variant no-tasks", ext_reference(&[])),
        &["--seed", "5", "--cases", "3"],
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("declares no extensions.io.modelcontextprotocol/tasks"),
        "{out}"
    );
    let variants: Vec<_> = ext_tasks::reference::variants::VARIANTS
        .iter()
        .filter(|v| v.name != "no-tasks")
        .collect();
    let problems = in_parallel(&variants, 4, |v| {
        let receiver = format!("{} --variant {}", ext_reference(&[]), v.name);
        let options = variant_options(v.name);
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let (code, out) = explore(
            &receiver,
            &[&["--seed", "5", "--cases", "10"], &options[..]].concat(),
        );
        let server = HttpReference::start(&["--profile", "ext-tasks", "--variant", v.name]);
        let mut args = vec!["explore", "--url", &server.url, "--profile", "ext-tasks"];
        args.extend(["--seed", "9", "--cases", "5"]);
        args.extend(&options);
        let http = taskcheck(&args);
        let http_out = String::from_utf8_lossy(&http.stdout).into_owned();
        [
            (code != 0).then(|| format!("variant {} over stdio: exit {code}\n{out}", v.name)),
            (http.status.code() != Some(0))
                .then(|| format!("variant {} over HTTP: {http_out}", v.name)),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Each explore-only fault, with a seed whose cases reach it.
const FOUND: [(&str, &str, &str); 2] = [
    ("third-task-reopens", "7", "tasks.lifecycle.terminal-final"),
    (
        "overlapping-results-lose-meta",
        "11",
        "tasks.meta.result-related-task",
    ),
];

/// A fault of the extension's reference explore reaches with this seed, and the rule it breaks.
const EXT_FOUND: (&str, &str, &str) = ("cancelled-reopens", "1", "ext-tasks.lifecycle.transitions");

#[test]
fn every_explore_only_fault_is_listed_here() {
    let explore_only: Vec<&str> = FAULTS
        .iter()
        .filter(|f| f.explore_only())
        .map(|f| f.name)
        .collect();
    assert_eq!(
        explore_only,
        FOUND.iter().map(|(f, _, _)| *f).collect::<Vec<_>>()
    );
}

#[test]
fn explore_finds_shrinks_and_saves_a_replayable_failure_for_each_explore_only_fault() {
    let found: Vec<_> = FOUND
        .iter()
        .map(|f| (f, false))
        .chain([(&EXT_FOUND, true)])
        .collect();
    let problems = in_parallel(&found, 3, |((fault, seed, rule), ext)| {
        let dir = temp_path(&format!("explore-{fault}"));
        let with = |faults: &[&str]| match ext {
            true => ext_reference(faults),
            false => reference(faults),
        };
        let faulty = with(&[fault]);
        let (code, out) = explore(
            &faulty,
            &[
                "--seed",
                seed,
                "--cases",
                "30",
                "--save-failures",
                dir.to_str().unwrap(),
            ],
        );
        let mut problems = Vec::new();
        if code != 1 || !out.contains(rule) || !out.contains("the minimal sequence fails again") {
            problems.push(format!("{fault}: explore exit {code}\n{out}"));
            return problems;
        }
        let saved: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        let [file] = saved.as_slice() else {
            problems.push(format!("{fault}: saved {} files", saved.len()));
            return problems;
        };
        let id = file
            .path()
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(file.path()).unwrap();
        let steps = text.matches("\n- ").count();
        if !(1..=12).contains(&steps) {
            problems.push(format!(
                "{fault}: the minimal scenario has {steps} steps\n{text}"
            ));
        }
        let replay = |receiver: &str, tag: &str| {
            run(
                receiver,
                &["--scenarios", dir.to_str().unwrap(), "--scenario", &id],
                &format!("{tag}-{fault}"),
            )
        };
        let (code, out, doc) = replay(&faulty, "replay");
        if code != 1 || !rules_with(&doc, &["fail"]).contains(&rule.to_string()) {
            problems.push(format!("{fault}: replaying {id} gave exit {code}\n{out}"));
        }
        let (code, out, _) = replay(&with(&[]), "replay-clean");
        if code != 0 {
            problems.push(format!("{fault}: {id} accuses the correct receiver\n{out}"));
        }
        problems
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
