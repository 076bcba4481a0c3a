//! `taskcheck diff`: the verdicts that changed between two JSON reports.

use super::usage_error;
use mcp_taskcheck::exit;
use std::path::PathBuf;

/// What `diff` takes.
#[derive(clap::Args, Clone)]
pub struct DiffArgs {
    /// The earlier report (`--report-json`).
    pub old: PathBuf,
    /// The later report.
    pub new: PathBuf,
    /// A `scenario:rule` whose verdict is not compared (one the receiver's timing decides;
    /// repeatable).
    #[arg(long = "ignore", value_name = "SCENARIO:RULE")]
    pub ignore: Vec<String>,
}

/// Prints every verdict that changed; exit 1 if any did.
pub fn run(args: DiffArgs) -> i32 {
    let DiffArgs { old, new, ignore } = args;
    let read = |path: &PathBuf| {
        let file = path.display().to_string();
        std::fs::read_to_string(path)
            .map_err(|e| mcp_taskcheck::bad_input::BadInput::unreadable(&file, &e))
            .and_then(|text| mcp_taskcheck::diff::verdicts(&text, &file))
            .unwrap_or_else(|e| usage_error(e))
    };
    let changed: Vec<String> = mcp_taskcheck::diff::changes(&read(&old), &read(&new))
        .into_iter()
        .filter(|line| {
            !ignore
                .iter()
                .any(|key| line.starts_with(&format!("{key}: ")))
        })
        .collect();
    for line in &changed {
        println!("{line}");
    }
    if changed.is_empty() {
        println!("no verdict changed");
        exit::CONFORMANT
    } else {
        exit::NONCONFORMANT
    }
}
