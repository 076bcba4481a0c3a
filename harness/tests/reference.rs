//! The reference receiver passes every scenario, and every fault fails exactly its rules.

mod common;

use common::*;

#[test]
fn the_reference_receiver_passes_every_check() {
    let (code, out, doc) = run(&reference(&[]), &[], "clean");
    assert_all_pass(code, &out, &doc);
    assert!(out.contains("exit 0: conformant"), "{out}");
}

#[test]
fn every_fault_fails_exactly_its_rules() {
    // the HTTP-only faults are proven over HTTP (tests/http.rs)
    let problems = tasks_2025_faults_over_stdio(&["--jobs", "4"], 4);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn should_level_faults_fail_the_run_under_fail_on_should() {
    let (code, out, doc) = run(
        &reference(&["get-with-related-task"]),
        &["--fail-on", "should"],
        "fail-on-should",
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        rules_with(&doc, &["warn"]),
        vec!["tasks.meta.no-related-task-in-results".to_string()]
    );
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn official_schema_accepts_every_message_of_a_clean_run() {
    let schema = OFFICIAL_SCHEMA;
    let (code, out, doc) = run(&reference(&[]), &["--schema", schema], "official-clean");
    assert_eq!(code, 0, "{out}");
    let official = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "tasks.schema.official")
        .unwrap_or_else(|| panic!("tasks.schema.official was not judged:\n{out}"));
    assert_eq!(official["verdict"], "pass", "{out}");
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn official_schema_catches_an_invalid_task_field() {
    let schema = OFFICIAL_SCHEMA;
    let (code, out, doc) = run(
        &reference(&["poll-interval-string"]),
        &["--schema", schema, "--scenario", "create-poll-result"],
        "official-fault",
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        rules_with(&doc, &["fail", "warn", "error"]),
        vec!["tasks.schema.official", "tasks.schema.receiver-messages"],
        "{out}"
    );
    assert!(
        out.contains("/pollInterval"),
        "the pointer is named:\n{out}"
    );
}

#[test]
fn twenty_runs_give_identical_verdicts_and_counts() {
    // Timing-dependent checks keep wide margins (see the catalogue notes); any flake shows here.
    // The counts too: a report whose totals moved between identical runs would read as flaky.
    // Four runs at a time at the default concurrency load the machine well past its cores;
    // one scenario at a time must judge the same.
    let alone = run(&reference(&[]), &["--jobs", "1"], "det-jobs-1");
    let runs: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|worker| {
                scope.spawn(move || {
                    (0..5)
                        .map(|i| {
                            let (code, out, doc) =
                                run(&reference(&[]), &[], &format!("det-{worker}-{i}"));
                            (code, out, (doc["rules"].clone(), doc["totals"].clone()))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(runs.len(), 20);
    let (_, _, first) = &runs[0];
    assert_eq!(alone.0, 0, "{}", alone.1);
    assert_eq!(
        (&alone.2["rules"], &alone.2["totals"]),
        (&first.0, &first.1),
        "--jobs 1 judges otherwise:\n{}",
        alone.1
    );
    for (code, out, (rules, totals)) in &runs {
        assert_eq!(*code, 0, "{out}");
        assert_eq!(rules, &first.0, "verdicts differ between runs:\n{out}");
        assert_eq!(totals, &first.1, "counts differ between runs:\n{out}");
    }
}

#[test]
fn sessions_start_one_per_cpu_at_a_time_while_eight_run() {
    // each receiver notes its start, takes 300 ms to come up, then notes it is up: a start
    // storm (eight interpreters loading at once on two cores) is what the opening gate prevents
    let log = temp_path("opening.log");
    let log = log.to_str().unwrap();
    let receiver = format!(
        "sh -c 'echo start >> {log}; sleep 0.3; echo up >> {log}; exec {} reference'",
        reference(&[])
            .split_once(' ')
            .map(|(bin, _)| bin.to_string())
            .unwrap()
    );
    let (code, out, _) = run(&receiver, &["--jobs", "8"], "opening");
    assert_eq!(code, 0, "{out}");
    let (mut starting, mut most) = (0i32, 0i32);
    for line in std::fs::read_to_string(log).unwrap().lines() {
        starting += if line == "start" { 1 } else { -1 };
        most = most.max(starting);
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as i32;
    assert!(
        most >= 1 && most <= cpus,
        "{most} receivers started at once on {cpus} CPUs"
    );
}

#[test]
fn a_soak_runs_only_when_named_and_shows_a_task_gone_before_its_ttl() {
    let listed = String::from_utf8_lossy(&taskcheck(&["list"]).stdout).to_string();
    assert!(!listed.contains("soak-ttl-kept"), "{listed}");
    assert!(one_line(&listed).contains("1 soak scenario(s)"), "{listed}");
    let (_, out, doc) = run(&reference(&[]), &[], "soak-not-by-default");
    assert!(!out.contains("soak-ttl-kept"), "{out}");
    assert!(!doc.to_string().contains("soak-ttl-kept"));
    // at a hundredth of the scale its five minutes take three seconds; each answer may still
    // take 2 s (a busy machine starts the receiver slowly)
    let soak = [
        "--tag",
        "soak",
        "--timeout-scale",
        "0.01",
        "--timeout-ms",
        "200000",
    ];
    let (code, out, _) = run(&reference(&[]), &soak, "soak-clean");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("soak-ttl-kept"), "{out}");
    // reports every ttl as null, yet deletes the task once it ends
    let (code, out, doc) = run(&reference(&["unlimited-ttl-vanishes"]), &soak, "soak-fault");
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        rules_with(&doc, &["fail"]),
        vec!["tasks.ttl.no-early-expiry".to_string()],
        "{out}"
    );
}
