//! The `taskcheck` command line: parses it and dispatches to the command's module in `cli/`.

mod cli;

use clap::{CommandFactory, Parser, Subcommand};
use mcp_taskcheck::exit;
use mcp_taskcheck::transport::stdio::kill_all_groups;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "taskcheck",
    version,
    about = "Conformance harness for the Tasks of the Model Context Protocol (2025-11-25 and the Tasks extension)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the scenarios against a receiver and report, rule by rule (settings from
    /// taskcheck.yaml when present).
    Run(Box<cli::run::RunArgs>),
    /// Look at a server: list its tools, propose which play the fixture roles, and write
    /// taskcheck.yaml (and, with --action, a GitHub Actions workflow that runs taskcheck).
    Init(Box<cli::init::InitArgs>),
    /// Test an MCP client as a task receiver: taskcheck plays its server, starts the client
    /// for every scenario and judges its answers to sampling and elicitation tasks.
    Client(Box<cli::client::ClientArgs>),
    /// The reference client: a correct client-side task receiver (and its faults). Give the
    /// server as a URL (Streamable HTTP) or as the command that starts it (stdio).
    #[command(hide = true)]
    ReferenceClient(cli::client::ReferenceClientArgs),
    /// Test an MCP client as a requestor of tasks: taskcheck's reference receiver is its stdio
    /// server, and every message it sends is judged by the requestor rules.
    Requestor(Box<cli::requestor::RequestorArgs>),
    /// The reference requestor: does what TASKCHECK_REQUEST asks of the stdio server given
    /// after the options, as a requestor should (and its faults).
    #[command(hide = true)]
    ReferenceRequestor(cli::requestor::ReferenceRequestorArgs),
    /// The stdio server command `taskcheck client --stdio` gives a client: relays stdin and
    /// stdout to the running taskcheck.
    #[command(hide = true)]
    Serve(cli::client::ServeArgs),
    /// Serve the reference receiver on stdio, or over Streamable HTTP with --http.
    Reference(Box<cli::reference::ReferenceArgs>),
    /// List the scenarios a selection picks, and every rule (or the fixture contract).
    List(cli::inspect::ListArgs),
    /// Put many task-augmented calls in flight on one session: checks ids, results and
    /// transitions under load and measures throughput and latency.
    Load(Box<cli::load::LoadArgs>),
    /// Random operation sequences against a receiver, judged like scenarios; a failure is
    /// shrunk to a minimal sequence and saved as a replayable scenario.
    Explore(Box<cli::explore::ExploreArgs>),
    /// Malformed and edge-case messages, each in a fresh session: the answers are judged
    /// against JSON-RPC 2.0 and the Tasks error rules, and the receiver must still answer ping.
    FuzzWire(Box<cli::fuzz_wire::FuzzWireArgs>),
    /// Judge a recorded trace (the JSON lines `run --trace` writes) offline, with the monitors.
    Check(Box<cli::check::CheckArgs>),
    /// Stand between a client and its server, as its stdio server command (`-- COMMAND
    /// ARGS...`) or as an HTTP proxy (`--listen ADDR --upstream URL`): every message relayed
    /// unchanged, the server (and over stdio the client) judged in their own traffic, the
    /// report on stderr.
    Watch(Box<cli::watch::WatchArgs>),
    /// Which verdicts changed between two JSON reports (per scenario and rule); exit 1 if any.
    Diff(cli::diff::DiffArgs),
    /// Every rule with its checks and faults, and a coverage summary (exit 1 if a checked
    /// rule lacks a check or a fault).
    #[command(hide = true)]
    Coverage(cli::inspect::CoverageArgs),
    /// Explain a rule: level, spec section, checks and faults.
    Explain(cli::inspect::ExplainArgs),
    /// Print a JSON Schema: `scenario` (the scenario file format), `ask` (what a requestor
    /// driver reads from TASKCHECK_REQUEST), `tasks` (the built-in schema every Tasks message
    /// is validated against) or `report` (the JSON report).
    Schema(cli::inspect::SchemaArgs),
}

/// `unknown command "rn"; did you mean "run"?` for a mistyped command a typo or two away from
/// one, by edit distance (clap suggests by shared letters: `reference-client` for `rn`, and
/// nothing for `rnu`).
fn nearest_command(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let command = Cli::command();
    let names = command.get_subcommands().map(|c| c.get_name());
    let near = mcp_taskcheck::scenario::did_you_mean(typed, names);
    (!near.is_empty()).then(|| format!("unknown command {typed:?}{near} (see `taskcheck --help`)"))
}

fn main() {
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        let code = if e.use_stderr() {
            exit::USAGE
        } else {
            exit::CONFORMANT
        };
        match nearest_command(&e) {
            Some(near) => eprintln!("taskcheck: {near}"),
            None => {
                let _ = e.print();
            }
        }
        std::process::exit(code);
    });
    // a relay does little work per message, and hopping between worker threads costs it more
    // than the work itself: watch runs on one thread
    let runtime = match &cli.command {
        Command::Watch(_) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        _ => tokio::runtime::Runtime::new(),
    };
    let runtime = runtime.unwrap_or_else(|e| {
        eprintln!("taskcheck: cannot start the async runtime: {e}");
        std::process::exit(exit::HARNESS);
    });
    // watch stops on Ctrl-C (and SIGTERM) itself, to write its reports
    let stops_itself = matches!(&cli.command, Command::Watch(_));
    let code = runtime.block_on(async {
        if stops_itself {
            return dispatch(cli).await;
        }
        tokio::select! {
            // polled first, so the handler is in place before a command announces itself (a
            // server printing its URL may be interrupted at once)
            biased;
            _ = tokio::signal::ctrl_c() => {
                kill_all_groups();
                eprintln!("taskcheck: interrupted; every spawned receiver was killed");
                130
            }
            code = dispatch(cli) => code,
        }
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    std::process::exit(code);
}

/// Runs the command; returns its exit code.
async fn dispatch(cli: Cli) -> i32 {
    match cli.command {
        Command::Run(args) => cli::run::run(*args).await,
        Command::Init(args) => cli::init::run(*args).await,
        Command::Client(args) => cli::client::run(*args).await,
        Command::ReferenceClient(args) => cli::client::reference_client(args).await,
        Command::Serve(args) => cli::client::serve(args).await,
        Command::Requestor(args) => cli::requestor::run(*args).await,
        Command::ReferenceRequestor(args) => cli::requestor::reference_requestor(args).await,
        Command::Reference(args) => cli::reference::run(*args).await,
        Command::Load(args) => cli::load::run(*args).await,
        Command::Explore(args) => cli::explore::run(*args).await,
        Command::FuzzWire(args) => cli::fuzz_wire::run(*args).await,
        Command::Check(args) => cli::check::run(*args),
        Command::Watch(args) => cli::watch::run(*args).await,
        Command::Diff(args) => cli::diff::run(args),
        Command::List(args) => cli::inspect::list(args),
        Command::Explain(args) => cli::inspect::explain(args),
        Command::Coverage(args) => cli::inspect::coverage(args),
        Command::Schema(args) => cli::inspect::schema(args),
    }
}
