//! The README and docs/: the README stays one screen to the first result (under 12 KB), every
//! page of docs/ is one click from it, and every relative link resolves, anchors included.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The relative link targets of a Markdown text (`[text](target)`), outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let end = tail.find(')').unwrap_or(tail.len());
            let target = &tail[..end];
            if !target.starts_with("http") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
            rest = &tail[end..];
        }
    }
    out
}

fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn the_readme_is_short_and_reaches_every_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.len() < 12 * 1024,
        "README.md is {} bytes",
        readme.len()
    );
    let linked = links(&readme);
    for page in pages() {
        let name = format!("docs/{}", page.file_name().unwrap().to_string_lossy());
        assert!(
            linked
                .iter()
                .any(|l| l.split('#').next() == Some(name.as_str())),
            "README.md does not link {name}"
        );
    }
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for file in std::iter::once(root().join("README.md")).chain(pages()) {
        let text = std::fs::read_to_string(&file).unwrap();
        for link in links(&text) {
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = match path {
                "" => file.clone(),
                p => file.parent().unwrap().join(p),
            };
            if !target.exists() {
                broken.push(format!("{}: {link}", file.display()));
                continue;
            }
            if !fragment.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let headings: Vec<String> = std::fs::read_to_string(&target)
                    .unwrap()
                    .lines()
                    .filter(|l| l.starts_with('#'))
                    .map(|l| anchor(l.trim_start_matches('#').trim()))
                    .collect();
                if !headings.iter().any(|h| h == fragment) {
                    broken.push(format!("{}: {link} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

/// docs/scenarios.md speaks of every kind of step the parser knows, and of every field each
/// kind takes: both come from one table (`scenario::STEP_KINDS`).
#[test]
fn the_scenario_format_page_names_every_step_kind_and_field() {
    let page = std::fs::read_to_string(root().join("docs/scenarios.md")).unwrap();
    // a key is named alone (`poll`) or with its value (`peer: b`)
    let named =
        |key: &str| page.contains(&format!("`{key}`")) || page.contains(&format!("`{key}:"));
    for kind in mcp_taskcheck::scenario::STEP_KINDS {
        assert!(named(kind.key), "step kind {} missing", kind.key);
        for field in kind.fields {
            assert!(
                named(field),
                "field {field} of `{}` steps missing",
                kind.key
            );
        }
    }
}
