//! Helpers shared by the integration tests: run the taskcheck binary and read its JSON report.

#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_taskcheck");

/// The command line of the reference receiver with some faults.
pub fn reference(faults: &[&str]) -> String {
    let mut cmd = format!("{BIN} reference");
    for f in faults {
        cmd.push_str(&format!(" --fault {f}"));
    }
    cmd
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

/// Runs `taskcheck` with arguments.
pub fn taskcheck(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("taskcheck runs")
}

/// Runs `taskcheck run --stdio CMD` with extra arguments; returns exit code, stdout and the JSON report.
pub fn run(receiver: &str, extra: &[&str], tag: &str) -> (i32, String, Value) {
    let report = temp_path(&format!("{tag}.json"));
    let mut args = vec![
        "run",
        "--stdio",
        receiver,
        "--report-json",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = taskcheck(&args);
    let stdout =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let doc = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), stdout, doc)
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
