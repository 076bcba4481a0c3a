//! The commands that describe taskcheck itself: `list`, `explain`, `coverage` and `schema`.

use super::args::{LibraryArgs, SelectArgs};
use super::{library, selected, usage_error};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::report::width;
use mcp_taskcheck::scenario::{is_soak, Scenario};
use mcp_taskcheck::{exit, inspect, spec};

/// What `list` takes.
#[derive(clap::Args, Clone)]
pub struct ListArgs {
    #[command(flatten)]
    pub library: LibraryArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the fixture contract instead.
    #[arg(long)]
    pub fixtures: bool,
}

/// Lists the scenarios a selection picks and every rule (or the fixture contract).
pub fn list(args: ListArgs) -> i32 {
    let ListArgs {
        library: mut lib,
        select,
        fixtures,
    } = args;
    // the scenarios and rules of one profile (2025-11-25 unless --profile says)
    let profile = *lib.profile.get_or_insert_with(Profile::default);
    if fixtures {
        print!("{}", profile.fixture_contract());
    } else {
        // requestor scenarios have no tags: a tag leaves them out
        let requestors: Vec<_> = mcp_taskcheck::requestor::builtin()
            .into_iter()
            .filter(|s| s.profile == profile && select.tags.is_empty())
            .filter(|s| select.only.is_empty() || select.only.contains(&s.id))
            .filter(|s| select.rules.is_empty() || select.rules.iter().any(|r| s.rules.contains(r)))
            .collect();
        // the soaks a listing of everything leaves out, said in one line
        let everything =
            select.only.is_empty() && select.rules.is_empty() && select.tags.is_empty();
        let soaks = match everything {
            true => library(&lib)
                .iter()
                .filter(|s| s.profile == profile && is_soak(s))
                .count(),
            false => 0,
        };
        let text = inspect::list(&selected(&lib, &select), &requestors, soaks, profile);
        print!("{}", width::fit(&text, width::stdout_width()));
    }
    exit::CONFORMANT
}

/// What `explain` takes.
#[derive(clap::Args, Clone)]
pub struct ExplainArgs {
    pub rule: String,
    #[command(flatten)]
    pub library: LibraryArgs,
}

/// Explains a rule: level, spec section, checks and faults.
pub fn explain(args: ExplainArgs) -> i32 {
    let ExplainArgs { rule, library: lib } = args;
    match spec::rule(&rule) {
        Some(r) => {
            let text = inspect::explain(r, &library(&lib));
            print!("{}", width::fit(&text, width::stdout_width()));
            exit::CONFORMANT
        }
        None => {
            let known = mcp_taskcheck::spec::catalogue()
                .iter()
                .map(|r| r.id.as_str());
            let near = mcp_taskcheck::scenario::did_you_mean(&rule, known);
            usage_error(format!(
                "unknown rule {rule:?}{near} (see `taskcheck list`)"
            ))
        }
    }
}

/// What `coverage` takes.
#[derive(clap::Args, Clone)]
pub struct CoverageArgs {
    #[command(flatten)]
    pub library: LibraryArgs,
}

/// Every rule with its checks and faults; exit 1 if a checked rule lacks either.
pub fn coverage(args: CoverageArgs) -> i32 {
    let mut lib = args.library;
    let profile = *lib.profile.get_or_insert_with(Profile::default);
    let (text, complete) = inspect::coverage(&library(&lib), profile);
    print!("{}", width::fit(&text, width::stdout_width()));
    if complete {
        exit::CONFORMANT
    } else {
        exit::NONCONFORMANT
    }
}

/// What `schema` takes.
#[derive(clap::Args, Clone)]
pub struct SchemaArgs {
    #[arg(value_parser = ["scenario", "ask", "tasks", "report"])]
    pub what: String,
}

/// Prints a JSON Schema: the scenario format, a requestor scenario's ask (what a driver reads
/// from `TASKCHECK_REQUEST`), the built-in Tasks schema or the JSON report's.
pub fn schema(args: SchemaArgs) -> i32 {
    let what = args.what;
    if what == "tasks" {
        print!("{}", mcp_taskcheck::schema::builtin_text());
    } else if what == "report" {
        print!("{}", mcp_taskcheck::report::REPORT_SCHEMA);
    } else if what == "ask" {
        let schema = schemars::schema_for!(mcp_taskcheck::scenario::Ask);
        println!(
            "{}",
            serde_json::to_string_pretty(&schema).unwrap_or_default()
        );
    } else {
        let schema = schemars::schema_for!(Scenario);
        println!(
            "{}",
            serde_json::to_string_pretty(&schema).unwrap_or_default()
        );
    }
    exit::CONFORMANT
}
