//! `reports/index.html` (interop/index_page.py) in a real headless browser: the committed page
//! loads with no console message, its filters change which rules and runs are shown, and every
//! cell's link reaches a committed report and the scenario it names there.
//!
//! Chromium (Debian package `chromium`) must be on PATH; where it is not, the test says it
//! skipped, unless TASKCHECK_REQUIRE_BROWSER is set (CI), which makes its absence a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn reports() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports")
}

/// The browser's path, if one is installed.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|p| p.is_file())
}

/// The page's DOM after its scripts ran, and every console message the browser logged.
fn load(browser: &Path, url: &str) -> (String, Vec<String>) {
    let profile = std::env::temp_dir().join(format!("taskcheck-chromium-{}", std::process::id()));
    let child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    // the pipes are read while it runs (the DOM alone outgrows a pipe's buffer)
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let Ok(out) = rx.recv_timeout(Duration::from_secs(90)) else {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        panic!("chromium did not finish loading {url} within 90 s");
    };
    let out = out.expect("chromium output");
    let _ = std::fs::remove_dir_all(profile);
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

/// `name rules runs` lines the page's self-test wrote: what each filter left shown.
fn shown(dom: &str) -> Vec<(String, usize, usize)> {
    let text = dom
        .split("<pre id=\"selftest\">")
        .nth(1)
        .and_then(|t| t.split("</pre>").next())
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?.to_string();
            Some((
                name,
                words.next()?.parse().ok()?,
                words.next()?.parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn the_sdk_index_page_loads_cleanly_and_its_filters_change_what_is_shown() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("TASKCHECK_REQUIRE_BROWSER").is_none(),
            "TASKCHECK_REQUIRE_BROWSER is set but chromium is not on PATH"
        );
        eprintln!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let page = reports().join("index.html").canonicalize().unwrap();
    let (dom, console) = load(&browser, &format!("file://{}#selftest", page.display()));
    assert!(
        console.is_empty(),
        "console messages:\n{}",
        console.join("\n")
    );
    let shown = shown(&dom);
    let names: Vec<&str> = shown.iter().map(|(n, ..)| n.as_str()).collect();
    assert_eq!(
        names,
        ["all", "fail", "should", "sdk", "http", "ext"],
        "{dom}"
    );
    // it opens on the 2025-11-25 runs and their rules: no column of the other design's
    let (_, rules, runs) = shown[0];
    assert!(
        rules > 50 && runs > 5,
        "unfiltered: {rules} rules, {runs} runs"
    );
    let ext = shown.iter().find(|(n, ..)| n == "ext").unwrap();
    let every_run = dom.matches("<th class=\"run\"").count();
    assert!(ext.1 > 0 && ext.2 > 0, "{shown:?}");
    assert_eq!(runs + ext.2, every_run, "{shown:?}");
    let by = |name: &str| shown.iter().find(|(n, ..)| n == name).unwrap();
    assert!(by("fail").1 > 0 && by("fail").1 < rules, "{shown:?}");
    assert!(by("should").1 > 0 && by("should").1 < rules, "{shown:?}");
    assert!(by("sdk").2 > 0 && by("sdk").2 < runs, "{shown:?}");
    assert!(by("http").2 > 0 && by("http").2 < runs, "{shown:?}");
}

#[test]
fn every_cell_of_the_index_page_links_to_a_scenario_of_a_committed_report() {
    let page = std::fs::read_to_string(reports().join("index.html")).unwrap();
    let links: Vec<&str> = page
        .split("href=\"")
        .skip(1)
        .filter_map(|t| t.split('"').next())
        .filter(|l| l.contains("/report.html"))
        .collect();
    assert!(links.len() > 100, "{} links", links.len());
    let mut missing = Vec::new();
    for link in links {
        let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
        let Ok(report) = std::fs::read_to_string(reports().join(file)) else {
            missing.push(format!("{link}: no such report"));
            continue;
        };
        if !anchor.is_empty() && !report.contains(&format!("id=\"{anchor}\"")) {
            missing.push(format!("{link}: no such scenario in it"));
        }
    }
    missing.dedup();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
