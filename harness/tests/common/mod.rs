//! Helpers shared by the integration tests: run the taskcheck binary and read its JSON report.

#![allow(dead_code)]

use mcp_taskcheck::reference::faults::FaultInfo;
use mcp_taskcheck::spec;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_taskcheck");

/// The official 2025-11-25 schema.json, where the build found the spec texts (`build.rs`);
/// tests that read it are ignored, saying why, where it did not.
pub const OFFICIAL_SCHEMA: &str = concat!(env!("TASKCHECK_SPEC_DIR"), "/2025-11-25/schema.json");
/// The schemas of 2026-07-28 and of the extension, given together.
pub const EXT_SCHEMAS: [&str; 4] = [
    "--schema",
    concat!(env!("TASKCHECK_SPEC_DIR"), "/2026-07-28/schema.json"),
    "--schema",
    concat!(env!("TASKCHECK_SPEC_DIR"), "/ext-tasks/schema.json"),
];
/// Two credentials, so the auth-binding scenarios run over HTTP.
pub const AUTH: [&str; 4] = [
    "--auth-a",
    "Authorization: Bearer alice-secret",
    "--auth-b",
    "Authorization: Bearer bob-secret",
];
/// The rules judged only with `--schema`.
pub const OFFICIAL_SCHEMA_RULES: [&str; 2] = ["tasks.schema.official", "ext-tasks.schema.official"];

/// The command line of the reference receiver with some faults.
pub fn reference(faults: &[&str]) -> String {
    with_faults("reference", faults)
}

/// The command line of the Tasks extension's reference receiver with some faults.
pub fn ext_reference(faults: &[&str]) -> String {
    with_faults("reference --profile ext-tasks", faults)
}

/// The reference client command, with faults.
pub fn reference_client(faults: &[&str]) -> String {
    with_faults("reference-client", faults)
}

fn with_faults(subcommand: &str, faults: &[&str]) -> String {
    let mut cmd = format!("{BIN} {subcommand}");
    for f in faults {
        cmd.push_str(&format!(" --fault {f}"));
    }
    cmd
}

/// The options a legal variant of either reference is judged with: the `renamed-tools`
/// variant's own tools play the fixture roles through the map written for it.
pub fn variant_options(variant: &str) -> Vec<String> {
    match variant {
        "renamed-tools" => {
            let map = temp_path("renamed-tools.yaml");
            if !map.exists() {
                let text = mcp_taskcheck::reference::renamed::FIXTURES_MAP;
                let part = map.with_extension(format!("{:?}", std::thread::current().id()));
                std::fs::write(&part, text).unwrap();
                std::fs::rename(&part, &map).unwrap();
            }
            vec!["--fixtures".into(), map.to_string_lossy().into_owned()]
        }
        _ => Vec::new(),
    }
}

/// A fresh temporary path for a report.
pub fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("taskcheck-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A fresh directory holding one scenario file; returns the directory.
pub fn scenario_dir(name: &str, file: &str, text: &str) -> PathBuf {
    let dir = temp_path(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
    dir
}

/// Printed text with its line breaks and indentation as single spaces: what a sentence says,
/// wherever the width broke it.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs `taskcheck` with arguments (its stdout no terminal and no `COLUMNS`: 100 columns).
pub fn taskcheck(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .expect("taskcheck runs")
}

/// Runs `taskcheck run --stdio CMD` with extra arguments; returns exit code, stdout and the JSON report.
pub fn run(receiver: &str, extra: &[&str], tag: &str) -> (i32, String, Value) {
    run_against(&["--stdio", receiver], extra, tag)
}

/// Runs `taskcheck run` against a receiver (`--stdio CMD` or `--url URL`) with extra arguments.
pub fn run_against(target: &[&str], extra: &[&str], tag: &str) -> (i32, String, Value) {
    let mut args = vec!["run"];
    args.extend_from_slice(target);
    judge(&args, extra, tag)
}

/// Runs `taskcheck client --command CMD` (with `--stdio` when `stdio`) with extra arguments.
pub fn run_client(command: &str, stdio: bool, extra: &[&str], tag: &str) -> (i32, String, Value) {
    let mut args = vec!["client", "--command", command];
    if stdio {
        args.push("--stdio");
    }
    judge(&args, extra, tag)
}

/// Runs a judging command (`args`, then a JSON report, then `extra`): exit code, output, report.
pub fn judge(command: &[&str], extra: &[&str], tag: &str) -> (i32, String, Value) {
    let report = temp_path(&format!("{tag}.json"));
    let mut args = command.to_vec();
    args.extend_from_slice(&["--report-json", report.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let out = taskcheck(&args);
    let stdout =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let doc = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), stdout, doc)
}

/// The reference receiver served over Streamable HTTP; killed when dropped.
pub struct HttpReference {
    child: std::process::Child,
    pub url: String,
}

impl HttpReference {
    /// Starts `taskcheck reference --http` with extra arguments and reads its URL.
    pub fn start(extra: &[&str]) -> HttpReference {
        use std::io::BufRead;
        let mut child = Command::new(BIN)
            .args(["reference", "--http"])
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the HTTP reference starts");
        let stdout = child.stdout.take().unwrap();
        let mut url = String::new();
        std::io::BufReader::new(stdout).read_line(&mut url).unwrap();
        let url = url.trim().to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "first line {url:?}");
        HttpReference { child, url }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's exit status, if it has exited.
    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
    }

    /// Kills the server now.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpReference {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Where a design's fault shows.
pub trait Where: Copy {
    /// Whether only explore or fuzz-wire is expected to find it, not the fixed scenarios.
    fn elsewhere(self) -> bool;
}

impl Where for mcp_taskcheck::designs::tasks_2025::reference::faults::Fault {
    fn elsewhere(self) -> bool {
        use mcp_taskcheck::designs::tasks_2025::reference::faults::{EXPLORE_ONLY, FUZZ_WIRE_ONLY};
        EXPLORE_ONLY.contains(&self) || FUZZ_WIRE_ONLY.contains(&self)
    }
}

impl Where for mcp_taskcheck::designs::tasks_2025::reference::requestor::Fault {
    fn elsewhere(self) -> bool {
        false
    }
}

impl Where for mcp_taskcheck::designs::ext_tasks::reference::requestor::Fault {
    fn elsewhere(self) -> bool {
        false
    }
}

impl Where for mcp_taskcheck::designs::ext_tasks::reference::faults::Fault {
    fn elsewhere(self) -> bool {
        false
    }
}

/// What is wrong with one fault's run: its rules must fail, nothing else may (but its
/// documented timing-dependent consequences), the exit code follows their level, and the
/// terminal report names them. The official-schema rules need --schema, so they are left out.
pub fn fault_problems<F: Where>(
    fault: &FaultInfo<F>,
    code: i32,
    out: &str,
    doc: &Value,
) -> Vec<String> {
    let got = rules_with(doc, &["fail", "warn", "error"]);
    if fault.fault.elsewhere() {
        // the fixed scenarios miss it by design; tests/explore.rs and tests/fuzz_wire.rs
        // prove explore and fuzz-wire find it
        return match (code, got.is_empty()) {
            (0, true) => Vec::new(),
            _ => vec![format!(
                "explore-only fault {}: the fixed suite failed {got:?} (exit {code})\n{out}",
                fault.name
            )],
        };
    }
    let mut problems = Vec::new();
    let mut expected: Vec<String> = fault
        .rules
        .iter()
        .filter(|r| !OFFICIAL_SCHEMA_RULES.contains(r))
        .map(|r| r.to_string())
        .collect();
    expected.sort();
    let must = expected
        .iter()
        .any(|r| spec::rule(r).unwrap().level.is_mandatory());
    let want_code = if must { 1 } else { 0 };
    let allowed = |r: &String| expected.contains(r) || fault.may_also.contains(&r.as_str());
    if !expected.iter().all(|r| got.contains(r)) || !got.iter().all(allowed) || code != want_code {
        problems.push(format!(
            "fault {}: exit {code} (want {want_code}), failed {got:?}, want {expected:?}\n{out}",
            fault.name
        ));
    }
    for rule in &expected {
        if !out.contains(rule.as_str()) {
            problems.push(format!(
                "fault {}: the terminal report does not name {rule}",
                fault.name
            ));
        }
    }
    // one defect, one failure: what follows from it shows as its consequence
    let consequences = rules_with(doc, &["consequence"]);
    for rule in fault.follows {
        if !consequences.iter().any(|c| c == rule) {
            problems.push(format!(
                "fault {}: {rule} is not shown as a consequence (consequences: {consequences:?})\n{out}",
                fault.name
            ));
        }
    }
    problems
}

/// Faults whose only sign is one a scenario knows from the role of the tool it called, which
/// no message of the trace shows: `check` cannot flag them (each with why).
pub const SCENARIO_FORMS: [(&str, &str); 3] = [
    (
        "input-task-fails",
        "the task fails at once without asking anything: that its tool needed input is the fixture role's (elicit_input), not the trace's",
    ),
    (
        "mrtr-inside-task",
        "the task asks through its inputRequests, as any task may: that the tool needed the answer before its task existed is the fixture role's (confirm_first)",
    ),
    (
        "one-input-request",
        "the task asks one request at a time, as any task may: that it had two outstanding at once is the fixture role's (elicit_pair)",
    ),
];

/// A rule's verdict as one judge reads it: broken, judged and not broken (held, or broken
/// only as the consequence of another failure), not applicable to the run (its transport,
/// its settings, a capability the receiver lacks), or not judged.
fn judged_as(verdict: &str) -> &'static str {
    match verdict {
        // a consequence is no failure of its own: what it explains is judged elsewhere
        "pass" | "info" | "consequence" => "not broken",
        "fail" | "warn" => "broken",
        "not-applicable" => "not applicable",
        _ => "not judged",
    }
}

/// Where `check --judge both` of a run's own trace (`trace`, recorded with `--trace`) judges a
/// receiver rule otherwise than the run did (`live`, its JSON report): one judge gives the same
/// messages the same verdict, whoever produced them. The rules only a scenario can judge
/// (the catalogue's `scenario_only`) are left out, and so are a fault's own rules where only
/// the scenario sees it (`SCENARIO_FORMS`), the rules it breaks only depending on timing, and
/// what the run found not applicable.
pub fn one_judge_problems(
    tag: &str,
    profile: &str,
    trace: &std::path::Path,
    live: &Value,
    fault: Option<&FaultInfo<impl Copy>>,
) -> Vec<String> {
    let report = temp_path(&format!("{tag}-offline.json"));
    let out = taskcheck(&[
        "check",
        trace.to_str().unwrap(),
        "--profile",
        profile,
        "--judge",
        "both",
        "--report-json",
        report.to_str().unwrap(),
    ]);
    let Ok(text) = std::fs::read_to_string(&report) else {
        return vec![format!(
            "{tag}: check wrote no report: {}",
            String::from_utf8_lossy(&out.stderr)
        )];
    };
    let offline: Value = serde_json::from_str(&text).unwrap();
    // a fault only a fixture's role shows leaves its rules to the scenario; the rules a fault
    // may break depending on timing (its `may_also`: a walk whose pages shift as tasks go) are
    // what a scenario's own retries and waits decide, so they are not compared either
    let mut exempt: Vec<&str> = fault
        .filter(|f| SCENARIO_FORMS.iter().any(|(name, _)| *name == f.name))
        .map(|f| f.rules.iter().chain(f.follows).copied().collect())
        .unwrap_or_default();
    exempt.extend(fault.into_iter().flat_map(|f| f.may_also.iter().copied()));
    let of = |doc: &Value| -> std::collections::BTreeMap<String, &'static str> {
        verdicts(doc)
            .into_iter()
            .map(|(rule, verdict)| (rule, judged_as(&verdict)))
            .collect()
    };
    let (live, offline) = (of(live), of(&offline));
    let mut rules: Vec<&String> = live.keys().chain(offline.keys()).collect();
    rules.sort();
    rules.dedup();
    rules
        .into_iter()
        .filter(|r| {
            spec::rule(r).is_some_and(|rule| {
                rule.actor == spec::Actor::Receiver && rule.scenario_only.is_none()
            }) && !exempt.contains(&r.as_str())
        })
        .filter_map(|r| {
            let (a, b) = (
                live.get(r).copied().unwrap_or("not judged"),
                offline.get(r).copied().unwrap_or("not judged"),
            );
            // what the run's settings made not applicable, a trace does not say
            (a != b && a != "not applicable")
                .then(|| format!("{tag}: {r} is {a} in the run, {b} by check of its trace"))
        })
        .collect()
}

/// Runs `check` over `items` on `workers` threads, each taking the next item when it is done
/// with one (a slow item holds up no other), and gathers the problems it reports.
pub fn in_parallel<T: Sync>(
    items: &[T],
    workers: usize,
    check: impl Fn(&T) -> Vec<String> + Sync,
) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (check, next) = (&check, &next);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.max(1))
            .map(|_| {
                scope.spawn(move || {
                    let mut problems = Vec::new();
                    while let Some(item) =
                        items.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        problems.extend(check(item));
                    }
                    problems
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

/// Rule id -> verdict of a run, for comparing runs.
pub fn verdicts(doc: &Value) -> Vec<(String, String)> {
    let rules = doc["rules"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    rules
        .iter()
        .map(|r| {
            let text = |key: &str| r[key].as_str().unwrap_or_default().to_string();
            (text("id"), text("verdict"))
        })
        .collect()
}

/// Rule ids whose aggregated verdict is one of `verdicts`.
pub fn rules_with(doc: &Value, verdicts: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = doc["rules"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|r| verdicts.contains(&r["verdict"].as_str().unwrap_or_default()))
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// A clean run: exit 0, more than 25 rules passed, and nothing failed, warned, errored or
/// untestable.
pub fn assert_all_pass(code: i32, out: &str, doc: &Value) {
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        rules_with(doc, &["fail", "warn", "error", "untestable"]),
        Vec::<String>::new(),
        "{out}"
    );
    assert!(rules_with(doc, &["pass"]).len() > 25, "{out}");
}

/// Every stdio fault of the 2025-11-25 reference, each run with `knobs`: what is wrong with
/// each run (`fault_problems`).
pub fn tasks_2025_faults_over_stdio(knobs: &[&str], workers: usize) -> Vec<String> {
    use mcp_taskcheck::designs::tasks_2025::reference::faults::FAULTS;
    let faults: Vec<_> = FAULTS.iter().filter(|f| !f.http_only()).collect();
    in_parallel(&faults, workers, |fault| {
        let tag = format!("stdio-{}-{}", knobs.join(""), fault.name);
        let trace = temp_path(&format!("{tag}.jsonl"));
        let mut extra = knobs.to_vec();
        extra.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
        let (code, out, doc) = run(&reference(&[fault.name]), &extra, &tag);
        let mut problems = fault_problems(fault, code, &out, &doc);
        problems.extend(one_judge_problems(
            &tag,
            "2025-11-25",
            &trace,
            &doc,
            Some(*fault),
        ));
        problems
    })
}

/// Every HTTP fault of the 2025-11-25 reference, each against a server of its own, with
/// `knobs` (and two credentials, but for the fault that needs one to show).
pub fn tasks_2025_faults_over_http(knobs: &[&str], workers: usize) -> Vec<String> {
    use mcp_taskcheck::designs::tasks_2025::reference::faults::FAULTS;
    let faults: Vec<_> = FAULTS.iter().filter(|f| !f.stdio_only()).collect();
    in_parallel(&faults, workers, |fault| {
        let server = HttpReference::start(&["--fault", fault.name]);
        let mut extra = knobs.to_vec();
        // with two credentials, guessable ids are allowed (the receiver can bind tasks)
        if !fault.rules.contains(&"tasks.security.secure-ids") {
            extra.extend_from_slice(&AUTH);
        }
        let tag = format!("http-{}-{}", knobs.join(""), fault.name);
        let trace = temp_path(&format!("{tag}.jsonl"));
        extra.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
        let (code, out, doc) = run_against(&["--url", &server.url], &extra, &tag);
        let mut problems = fault_problems(fault, code, &out, &doc);
        problems.extend(one_judge_problems(
            &tag,
            "2025-11-25",
            &trace,
            &doc,
            Some(*fault),
        ));
        problems
    })
}

/// Every stdio fault of the extension's reference, each run with `knobs`.
pub fn ext_faults_over_stdio(knobs: &[&str], workers: usize) -> Vec<String> {
    use mcp_taskcheck::designs::ext_tasks::reference::faults::{FAULTS, HTTP_ONLY};
    let faults: Vec<_> = FAULTS
        .iter()
        .filter(|f| !HTTP_ONLY.contains(&f.fault))
        .collect();
    in_parallel(&faults, workers, |fault| {
        let mut extra = vec!["--profile", "ext-tasks"];
        extra.extend_from_slice(knobs);
        let tag = format!("ext-stdio-{}-{}", knobs.join(""), fault.name);
        let trace = temp_path(&format!("{tag}.jsonl"));
        extra.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
        let (code, out, doc) = run(&ext_reference(&[fault.name]), &extra, &tag);
        let mut problems = fault_problems(fault, code, &out, &doc);
        problems.extend(one_judge_problems(
            &tag,
            "ext-tasks",
            &trace,
            &doc,
            Some(*fault),
        ));
        problems
    })
}

/// Every fault of the extension's reference over HTTP, each against a server of its own.
pub fn ext_faults_over_http(knobs: &[&str], workers: usize) -> Vec<String> {
    use mcp_taskcheck::designs::ext_tasks::reference::faults::FAULTS;
    let faults: Vec<_> = FAULTS.iter().collect();
    in_parallel(&faults, workers, |fault| {
        let server = HttpReference::start(&["--profile", "ext-tasks", "--fault", fault.name]);
        let mut extra = vec!["--profile", "ext-tasks"];
        extra.extend_from_slice(knobs);
        extra.extend_from_slice(&AUTH);
        let tag = format!("ext-http-{}-{}", knobs.join(""), fault.name);
        let trace = temp_path(&format!("{tag}.jsonl"));
        extra.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
        let (code, out, doc) = run_against(&["--url", &server.url], &extra, &tag);
        let mut problems = fault_problems(fault, code, &out, &doc);
        problems.extend(one_judge_problems(
            &tag,
            "ext-tasks",
            &trace,
            &doc,
            Some(*fault),
        ));
        problems
    })
}

/// `taskcheck watch --listen 127.0.0.1:0 --upstream UPSTREAM` with more options, its JSON
/// report to `report`: the running proxy and its URL (the first line it prints).
pub fn watch_proxy(
    upstream: &str,
    options: &[&str],
    report: &std::path::Path,
) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut proxy = Command::new(BIN)
        .args(["watch", "--listen", "127.0.0.1:0", "--upstream", upstream])
        .args(options)
        .arg("--report-json")
        .arg(report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("watch starts");
    let mut line = String::new();
    std::io::BufReader::new(proxy.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (proxy, line.trim().to_string())
}
