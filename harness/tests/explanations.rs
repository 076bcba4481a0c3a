//! Every non-pass verdict of the committed SDK reports is explained as data
//! (`reports/explanations.toml`), and every explanation is met by a verdict: the checker
//! (`interop/explanations.py`, also run by CI through `interop/matrix.py`) passes on the
//! committed reports, and fails a report whose verdict lost its entry, an entry whose verdict is
//! gone, and a bold claim of `reports/README.md` that no entry states.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs the checker on a reports folder: whether it passed, and what it said.
fn check(reports: &Path) -> (bool, String) {
    let out = Command::new("python3")
        .arg(repository().join("interop/explanations.py"))
        .arg(reports)
        .current_dir(repository().join("interop"))
        .output()
        .expect("python3 runs the checker");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// A copy of the committed reports (what the checker reads) in a fresh folder.
fn copy_of_reports(name: &str) -> PathBuf {
    let to = common::temp_path(name);
    let from = repository().join("reports");
    let mut dirs = vec![from.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(&from).unwrap();
            if path.is_dir() {
                std::fs::create_dir_all(to.join(rel)).unwrap();
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "json" || e == "toml" || e == "md")
            {
                std::fs::copy(&path, to.join(rel)).unwrap();
            }
        }
    }
    to
}

#[test]
fn every_committed_non_pass_verdict_is_explained_and_every_explanation_is_met() {
    let (ok, said) = check(&repository().join("reports"));
    assert!(ok, "{said}");
}

#[test]
fn the_checker_fails_a_verdict_without_its_entry_and_an_entry_without_its_verdict() {
    let reports = copy_of_reports("explanations-both-ways");
    let data = reports.join("explanations.toml");
    let text = std::fs::read_to_string(&data).unwrap();
    // the first entry taken out: its verdicts have no explanation
    let mut entries = text.split("[[explanation]]");
    let head = entries.next().unwrap();
    let first = entries.next().unwrap();
    let rest: Vec<&str> = entries.collect();
    let without_first = format!("{head}[[explanation]]{}", rest.join("[[explanation]]"));
    std::fs::write(&data, &without_first).unwrap();
    let (ok, said) = check(&reports);
    assert!(!ok && said.contains("no explanation:"), "{said}");
    // an entry for a verdict no report shows
    let invented = format!(
        "{text}\n[[explanation]]\nsdk = \"python-mcp-1.30.0\"\nrule = \"tasks.id.unique\"\nverdict = \"fail\"\n\
         configurations = [\"python-mcp-1.30.0-stdio\"]\nscenarios = [\"create-poll-result\"]\n\
         origin = \"sdk\"\nspec = \"invented\"\nwhy = \"invented\"\n"
    );
    std::fs::write(&data, invented).unwrap();
    let (ok, said) = check(&reports);
    assert!(!ok && said.contains("shows no such verdict"), "{said}");
    // a bold claim of the prose that no entry states
    std::fs::write(&data, &text).unwrap();
    let readme = reports.join("README.md");
    let prose = std::fs::read_to_string(&readme).unwrap();
    let claimed = prose.replacen(
        "<!-- sdk: python-mcp-1.30.0 -->",
        "<!-- sdk: python-mcp-1.30.0 -->\n\n- **`tasks.id.unique` FAIL**: invented.",
        1,
    );
    std::fs::write(&readme, claimed).unwrap();
    let (ok, said) = check(&reports);
    assert!(
        !ok && said.contains("claims tasks.id.unique fail"),
        "{said}"
    );
    assert!(first.contains("sdk = "), "{first}");
}
