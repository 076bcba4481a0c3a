//! action.yml, the GitHub Action: its step's script run as Actions runs it (a fake `GITHUB_*`
//! environment, `INPUT_*` from the inputs) against the reference receiver.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs scripts/action.sh with these inputs; returns its exit code, the job summary, the
/// step's outputs and the reports folder.
fn step(tag: &str, inputs: &[(&str, &str)]) -> (i32, String, String, std::path::PathBuf) {
    // the taskcheck under test is the one on PATH, so the script installs nothing
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let (code, summary, outputs, reports, _) = step_on(tag, inputs, &path);
    (code, summary, outputs, reports)
}

/// Runs scripts/action.sh with these inputs and this PATH; also returns its stderr.
fn step_on(
    tag: &str,
    inputs: &[(&str, &str)],
    path: &str,
) -> (i32, String, String, std::path::PathBuf, String) {
    let dir = temp_path(&format!("action-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (summary, output) = (dir.join("summary.md"), dir.join("output"));
    let mut cmd = Command::new("bash");
    cmd.arg(Path::new(ROOT).join("scripts/action.sh"))
        .current_dir(&dir)
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_ACTION_PATH", ROOT)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .env("RUNNER_TEMP", &dir);
    for (name, value) in inputs {
        cmd.env(
            format!("INPUT_{}", name.replace('-', "_").to_uppercase()),
            value,
        );
    }
    let out = cmd.output().unwrap();
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        read(&summary),
        read(&output),
        dir.join("taskcheck-reports"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Without taskcheck on PATH and without cargo, the action runs a prebuilt binary it is
/// given, reuses one an earlier run built into its install folder (a cache restores it), and
/// otherwise stops with exit 3 saying what it needs; it builds nothing in any of these.
#[test]
fn the_action_runs_a_given_or_cached_taskcheck_and_says_what_it_needs_without_one() {
    let bare = "/usr/bin:/bin";
    let server = reference(&[]);
    let given = [("stdio", server.as_str()), ("taskcheck-bin", BIN)];
    let (code, summary, _, _, err) = step_on("prebuilt", &given, bare);
    assert_eq!(code, 0, "{err}\n{summary}");
    // a step that has no taskcheck to run: exit 3, as its output says too; what it said
    let gave_up = |tag: &str, inputs: &[(&str, &str)]| {
        let (code, _, outputs, _, err) = step_on(tag, inputs, bare);
        assert_eq!(code, 3, "{err}");
        assert!(outputs.contains("exit-code=3"), "{outputs}");
        err
    };
    let missing = [
        ("stdio", server.as_str()),
        ("taskcheck-bin", "/nonexistent/taskcheck"),
    ];
    let err = gave_up("prebuilt-missing", &missing);
    assert!(
        err.contains("/nonexistent/taskcheck is not an executable file"),
        "{err}"
    );
    // an install folder holding this version's build, as actions/cache restores it
    let cached = temp_path("action-install-dir");
    std::fs::create_dir_all(cached.join("bin")).unwrap();
    let _ = std::fs::remove_file(cached.join("bin/taskcheck"));
    std::os::unix::fs::symlink(BIN, cached.join("bin/taskcheck")).unwrap();
    let reuse = [
        ("stdio", server.as_str()),
        ("install-dir", cached.to_str().unwrap()),
    ];
    let (code, _, _, _, err) = step_on("cached", &reuse, bare);
    assert_eq!(code, 0, "{err}");
    let reusing = format!("reusing taskcheck {} built in", env!("CARGO_PKG_VERSION"));
    assert!(err.contains(&reusing), "{err}");
    // nothing to run and nothing to build with
    let empty = temp_path("action-empty-install-dir");
    let nothing = [
        ("stdio", server.as_str()),
        ("install-dir", empty.to_str().unwrap()),
    ];
    let err = gave_up("nothing", &nothing);
    assert!(
        err.contains("no taskcheck to run: give taskcheck-bin (a prebuilt binary), or install Rust 1.89 or later"),
        "{err}"
    );
}

#[test]
fn the_action_runs_taskcheck_and_writes_the_summary_the_reports_and_its_outputs() {
    let (code, summary, outputs, reports) = step("clean", &[("stdio", &reference(&[]))]);
    assert_eq!(code, 0, "{summary}\n{outputs}");
    assert!(
        summary.starts_with("## taskcheck: MCP 2025-11-25 Tasks conformance"),
        "{summary}"
    );
    assert!(outputs.contains("exit-code=0\n"), "{outputs}");
    assert!(
        outputs.contains("report-json=taskcheck-reports/report.json\n"),
        "{outputs}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(doc["exitCode"], 0);
    assert!(reports.join("report.html").is_file());
}

#[test]
fn the_actions_inputs_reach_taskcheck_and_its_exit_code_is_the_steps() {
    let faulty = reference(&["get-with-related-task"]);
    let inputs = [("stdio", faulty.as_str()), ("fail-on", "should")];
    let (code, summary, outputs, _) = step("should", &inputs);
    assert_eq!(code, 1, "{summary}");
    assert!(outputs.contains("exit-code=1\n"), "{outputs}");
    // a bad input is taskcheck's usage error, exit 2, and the step says so
    let (code, _, outputs, _) = step("bad", &[("stdio", "x"), ("fail-on", "sometimes")]);
    assert_eq!(code, 2);
    assert!(outputs.contains("exit-code=2\n"), "{outputs}");
}

#[test]
fn every_input_of_action_yml_is_handed_to_the_script() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let script = std::fs::read_to_string(Path::new(ROOT).join("scripts/action.sh")).unwrap();
    let env = &doc["runs"]["steps"][0]["env"];
    for name in doc["inputs"].as_object().unwrap().keys() {
        let var = format!("INPUT_{}", name.replace('-', "_").to_uppercase());
        assert_eq!(env[&var], format!("${{{{ inputs.{name} }}}}"), "{name}");
        let flag = name.replace('-', "_").to_uppercase();
        assert!(
            script.contains(&var)
                || script.contains(&format!(":{flag} "))
                || script.contains(&format!(":{flag};")),
            "scripts/action.sh never reads {var}"
        );
    }
}
