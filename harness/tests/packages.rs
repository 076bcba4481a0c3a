//! The packages people install without Rust: the wheel of scripts/package-wheel.sh installs into
//! a fresh venv, the npm tarball of scripts/package-npm.sh into a temporary prefix (and runs under
//! `npx`), and each installed `taskcheck` prints its version and passes a short suite against the
//! reference receiver it carries, with a usage error still exiting 2.
//!
//! The scripts build the packages into target/packages/ (CI runs them before the tests); where a
//! package is absent its test is ignored and says why (harness/build.rs), unless
//! TASKCHECK_REQUIRE_PACKAGES is set (CI), which makes its absence a build failure.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The built package whose file name starts with `prefix` and ends with `suffix`.
fn package(prefix: &str, suffix: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/packages");
    let found = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(suffix)
        });
    found.unwrap_or_else(|| {
        panic!("target/packages/ held {prefix}*{suffix} when this test was built, and no longer does: run scripts/package-*.sh again")
    })
}

/// Runs `program args`; its exit code and what it printed.
fn run(program: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// What every installed `taskcheck` must do: say its version, pass a short suite against its
/// own reference receiver (spawned through the same installed command) with a report written,
/// and exit 2 on a bad flag.
fn exercise(taskcheck: &Path, work: &Path) {
    let (code, out) = run(taskcheck, &["--version"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.trim(),
        format!("taskcheck {}", env!("CARGO_PKG_VERSION")),
        "{}",
        taskcheck.display()
    );
    let report = work.join("report.json");
    let reference = format!("{} reference", taskcheck.display());
    let (code, out) = run(
        taskcheck,
        &[
            "run",
            "--stdio",
            &reference,
            "--scenario",
            "create-poll-result",
            "--scenario",
            "cancel-working",
            "--report-json",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(doc["scenarios"].as_array().map(Vec::len), Some(2), "{doc}");
    let (code, out) = run(taskcheck, &["run", "--no-such-flag"]);
    assert_eq!(code, 2, "{out}");
}

/// A fresh temporary folder for one test.
fn workdir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("taskcheck-packages-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
#[cfg_attr(
    not(wheel_built),
    ignore = "no wheel in target/packages/: run scripts/package-wheel.sh, then touch harness/build.rs"
)]
fn the_wheel_installs_into_a_fresh_venv_and_runs() {
    let wheel = package("mcp_taskcheck-", ".whl");
    let work = workdir("wheel");
    let venv = work.join("venv");
    let (code, out) = run(
        Path::new("python3"),
        &["-m", "venv", venv.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{out}");
    // from the file alone: nothing is fetched
    let (code, out) = run(
        &venv.join("bin/pip"),
        &[
            "install",
            "--quiet",
            "--no-index",
            "--disable-pip-version-check",
            wheel.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}");
    exercise(&venv.join("bin/taskcheck"), &work);
    std::fs::remove_dir_all(&work).unwrap();
}

#[test]
#[cfg_attr(
    not(npm_built),
    ignore = "no npm tarball in target/packages/: run scripts/package-npm.sh, then touch harness/build.rs"
)]
fn the_npm_tarball_installs_into_a_prefix_and_runs_under_npx() {
    let tarball = package("mcp-taskcheck-", ".tgz");
    let work = workdir("npm");
    let prefix = work.join("prefix");
    let cache = work.join("npm-cache");
    let npm_offline = [
        "--offline",
        "--no-audit",
        "--no-fund",
        "--cache",
        cache.to_str().unwrap(),
    ];
    let mut install = vec!["install", "--global", "--prefix", prefix.to_str().unwrap()];
    install.extend(npm_offline);
    install.push(tarball.to_str().unwrap());
    let (code, out) = run(Path::new("npm"), &install);
    assert_eq!(code, 0, "{out}");
    exercise(&prefix.join("bin/taskcheck"), &work);
    // `npx mcp-taskcheck …` runs the package's command of the same name
    let mut npx = vec!["--yes", "--package", tarball.to_str().unwrap()];
    npx.extend(npm_offline);
    npx.extend(["--", "mcp-taskcheck", "--version"]);
    let (code, out) = run(Path::new("npx"), &npx);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
    std::fs::remove_dir_all(&work).unwrap();
}
