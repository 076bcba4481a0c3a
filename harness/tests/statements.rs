//! docs/ext-tasks.md's statement table stays true: every rule it names exists and judges the
//! side the statement is asked of, every rule from the extension's own text is named, and
//! (with the spec texts beside the checkout) every line of the text with a requirement
//! keyword has a row.

use std::collections::BTreeSet;
use std::path::Path;

use mcp_taskcheck::spec::{self, Actor};

/// One row of the table: where the statement is, whether it is prose, who it asks, what judges it.
struct Row {
    file: String,
    line: usize,
    prose: bool,
    of: String,
    rules: Vec<String>,
    judged_by: String,
}

/// One row of a statement table: where the statement is, the mark after the place
/// (`*(prose)*`), and the row's four cells.
struct TableRow {
    file: String,
    line: usize,
    mark: Option<String>,
    cells: Vec<String>,
}

/// The rows of the statement table between `<!-- marker -->` and `<!-- /marker -->` in
/// `docs/<doc>`.
fn table(doc: &str, marker: &str) -> Vec<TableRow> {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs")
            .join(doc),
    )
    .unwrap();
    let table = page
        .split(&format!("<!-- {marker} -->"))
        .nth(1)
        .and_then(|rest| rest.split(&format!("<!-- /{marker} -->")).next())
        .unwrap_or_else(|| panic!("docs/{doc} holds the table between its {marker} markers"));
    table
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| text "))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect();
            assert_eq!(cells.len(), 4, "a row has four cells: {l}");
            let (place, mark) = match cells[0].split_once(" *(") {
                Some((place, mark)) => (place, Some(mark.trim_end_matches(")*").to_string())),
                None => (cells[0].as_str(), None),
            };
            let (file, line) = place
                .split_once(':')
                .unwrap_or_else(|| panic!("`{place}` is FILE:LINE"));
            TableRow {
                file: file.to_string(),
                line: line.parse().unwrap_or_else(|_| panic!("line of {l}")),
                mark,
                cells,
            }
        })
        .collect()
}

/// The words a cell puts in backticks.
fn backticked(cell: &str) -> impl Iterator<Item = String> + '_ {
    cell.split('`').skip(1).step_by(2).map(String::from)
}

fn rows() -> Vec<Row> {
    table("ext-tasks.md", "statements")
        .into_iter()
        .map(|r| {
            assert!(
                r.file == "tasks.md" || r.file == "SEP",
                "unknown text {} in {:?}",
                r.file,
                r.cells
            );
            Row {
                prose: r.mark.as_deref() == Some("prose"),
                of: r.cells[2].clone(),
                rules: backticked(&r.cells[3]).collect(),
                judged_by: r.cells[3].clone(),
                file: r.file,
                line: r.line,
            }
        })
        .collect()
}

#[test]
fn every_named_rule_exists_and_judges_the_side_asked() {
    let rows = rows();
    assert!(rows.len() > 90, "the table lost rows: {}", rows.len());
    for row in &rows {
        assert!(
            !row.rules.is_empty() || row.judged_by.starts_with("none"),
            "{}:{} names no rule and does not say why: {}",
            row.file,
            row.line,
            row.judged_by
        );
        for id in &row.rules {
            let rule = spec::catalogue()
                .iter()
                .find(|r| &r.id == id)
                .unwrap_or_else(|| panic!("{}:{} names unknown rule {id}", row.file, row.line));
            let asked = match row.of.as_str() {
                "server" => Actor::Receiver,
                "client" => Actor::Requestor,
                "both" => rule.actor,
                other => panic!("{}:{} names {id} for `{other}`", row.file, row.line),
            };
            assert_eq!(
                rule.actor, asked,
                "{}:{}: {id} judges the other side",
                row.file, row.line
            );
        }
    }
}

#[test]
fn every_rule_from_the_extension_text_has_a_row() {
    let named: BTreeSet<String> = rows().into_iter().flat_map(|r| r.rules).collect();
    let missing: Vec<&str> = spec::catalogue()
        .iter()
        .filter(|r| r.id.starts_with("ext-tasks.") && r.url.is_none())
        .map(|r| r.id.as_str())
        .filter(|id| !named.contains(*id))
        .collect();
    assert!(missing.is_empty(), "rules with no row: {missing:?}");
}

/// The lines of a text holding a requirement keyword (RFC 2119, upper case).
fn keyword_lines(text: &str) -> Vec<(usize, &str)> {
    const KEYWORDS: [&str; 6] = ["MUST", "SHOULD", "MAY", "REQUIRED", "RECOMMENDED", "SHALL"];
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.split(|c: char| !c.is_ascii_alphabetic() && c != '_')
                .any(|w| KEYWORDS.contains(&w))
        })
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// The opening of a line, to tell the SEP's repetitions of tasks.md from its own statements.
fn opening(line: &str) -> String {
    line.trim()
        .trim_start_matches('>')
        .trim()
        .chars()
        .take(60)
        .collect()
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn every_keyword_line_of_the_extension_text_has_a_row() {
    let dir = Path::new(env!("TASKCHECK_SPEC_DIR")).join("ext-tasks");
    let tasks = std::fs::read_to_string(dir.join("tasks.md")).unwrap();
    let sep = std::fs::read_to_string(dir.join("2663-tasks-extension.md")).unwrap();
    let repeated: BTreeSet<String> = tasks.lines().map(opening).collect();
    let wanted = |file: &str| -> BTreeSet<usize> {
        match file {
            "tasks.md" => keyword_lines(&tasks).into_iter().map(|(n, _)| n).collect(),
            _ => keyword_lines(&sep)
                .into_iter()
                .filter(|(_, l)| !repeated.contains(&opening(l)))
                .map(|(n, _)| n)
                .collect(),
        }
    };
    let rows = rows();
    for file in ["tasks.md", "SEP"] {
        let wanted = wanted(file);
        let listed: BTreeSet<usize> = rows
            .iter()
            .filter(|r| r.file == file && !r.prose)
            .map(|r| r.line)
            .collect();
        let unlisted: Vec<_> = wanted.difference(&listed).collect();
        let stale: Vec<_> = listed.difference(&wanted).collect();
        assert!(
            unlisted.is_empty() && stale.is_empty(),
            "{file}: keyword lines with no row {unlisted:?}; rows on no keyword line {stale:?}"
        );
    }
    assert_eq!(
        wanted("tasks.md").len(),
        51,
        "tasks.md changed: read it again"
    );
    assert_eq!(wanted("SEP").len(), 8, "the SEP changed: read it again");
}

/// One row of docs/testing-clients.md's table of 2025-11-25 requestor statements.
struct RequestorRow {
    file: String,
    line: usize,
    /// A rule from the schema, its row under the heading of its section.
    schema: bool,
    levels: Vec<String>,
    rules: Vec<String>,
    judged_by: String,
}

fn requestor_rows() -> Vec<RequestorRow> {
    table("testing-clients.md", "requestor-statements")
        .into_iter()
        .map(|r| RequestorRow {
            schema: r.mark.as_deref() == Some("schema"),
            levels: r.cells[2].split(", ").map(String::from).collect(),
            rules: backticked(&r.cells[3])
                .filter(|t| t.starts_with("tasks."))
                .collect(),
            judged_by: r.cells[3].clone(),
            file: r.file,
            line: r.line,
        })
        .collect()
}

/// How binding a level is: MUST and MUST NOT alike, SHOULD and SHOULD NOT alike.
fn strength(level: &str) -> &'static str {
    match level.trim_end_matches(" NOT") {
        "MUST" | "REQUIRED" | "SHALL" => "must",
        "SHOULD" | "RECOMMENDED" => "should",
        "MAY" | "OPTIONAL" => "may",
        other => panic!("no level {other}"),
    }
}

#[test]
fn every_requestor_rule_of_2025_11_25_has_a_row_at_its_level() {
    let rows = requestor_rows();
    assert!(rows.len() > 35, "the table lost rows: {}", rows.len());
    for row in &rows {
        let place = format!("{}:{}", row.file, row.line);
        assert!(
            !row.rules.is_empty() || row.judged_by.starts_with("none"),
            "{place} names no rule and does not say why: {}",
            row.judged_by
        );
        let levels: BTreeSet<&str> = row.levels.iter().map(|l| strength(l)).collect();
        for id in &row.rules {
            let rule = spec::rule(id).unwrap_or_else(|| panic!("{place} names unknown rule {id}"));
            assert_eq!(
                rule.actor,
                Actor::Requestor,
                "{place}: {id} judges receivers"
            );
            assert_eq!(
                rule.catalogue, "2025-11-25",
                "{place}: {id} is not 2025-11-25's"
            );
            assert!(
                levels.contains(strength(rule.level.as_str())),
                "{place}: {id} is a {} rule, the statement is {:?}",
                rule.level.as_str(),
                row.levels
            );
        }
    }
    let named: BTreeSet<String> = rows.into_iter().flat_map(|r| r.rules).collect();
    let missing: Vec<&str> = spec::catalogue()
        .iter()
        .filter(|r| r.catalogue == "2025-11-25" && r.actor == Actor::Requestor)
        .map(|r| r.id.as_str())
        .filter(|id| !named.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "requestor rules with no row: {missing:?}"
    );
}

/// Whether a keyword line of tasks.mdx speaks of requestors: of requestors, clients, the peer,
/// every implementation, or every message of a task.
fn speaks_of_requestors(line: &str) -> bool {
    let line = line.to_lowercase();
    [
        "requestor",
        "client",
        "peer",
        "implementations",
        "all requests",
    ]
    .iter()
    .any(|w| line.contains(w))
}

#[test]
#[cfg_attr(
    not(spec_texts),
    ignore = "needs the MCP spec texts: put shared/ beside the checkout or set TASKCHECK_SPEC_DIR"
)]
fn every_requestor_line_of_the_2025_11_25_texts_has_a_row() {
    let dir = Path::new(env!("TASKCHECK_SPEC_DIR")).join("2025-11-25");
    let text = |file: &str| std::fs::read_to_string(dir.join(file)).unwrap();
    let rows = requestor_rows();
    for row in &rows {
        let file = text(&row.file);
        if row.schema {
            let heading = file.lines().nth(row.line - 1).unwrap_or_default();
            assert!(
                heading.starts_with("## "),
                "{}:{} is no heading",
                row.file,
                row.line
            );
            continue;
        }
        let keyword_lines: BTreeSet<usize> =
            keyword_lines(&file).into_iter().map(|(n, _)| n).collect();
        assert!(
            keyword_lines.contains(&row.line),
            "{}:{} holds no requirement keyword: read it again",
            row.file,
            row.line
        );
    }
    let tasks = text("tasks.mdx");
    let wanted: BTreeSet<usize> = keyword_lines(&tasks)
        .into_iter()
        .filter(|(_, l)| speaks_of_requestors(l))
        .map(|(n, _)| n)
        .collect();
    let listed: BTreeSet<usize> = rows
        .iter()
        .filter(|r| r.file == "tasks.mdx" && !r.schema)
        .map(|r| r.line)
        .collect();
    let unlisted: Vec<_> = wanted.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&wanted).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "tasks.mdx: requestor lines with no row {unlisted:?}; rows on no such line {stale:?}"
    );
}
