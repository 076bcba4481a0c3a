//! The `taskcheck` command line.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_taskcheck::baseline::Baseline;
use mcp_taskcheck::explore::{self as exploring};
use mcp_taskcheck::fixtures::FixtureMap;
use mcp_taskcheck::profile::{ext_tasks, Profile};
use mcp_taskcheck::report::{Detail, FailOn, RunReport};
use mcp_taskcheck::runner::{Config, Limits};
use mcp_taskcheck::scenario::ReceiverKind;
use mcp_taskcheck::scenario::{self, Scenario};
use mcp_taskcheck::schema::SchemaSet;
use mcp_taskcheck::transport::client::{
    self as client_transport, ClientConnector, ClientTransport,
};
use mcp_taskcheck::transport::http::{parse_header, HttpConnector};
use mcp_taskcheck::transport::served::ServedConnector;
use mcp_taskcheck::transport::stdio::{kill_all_groups, StdioConnector};
use mcp_taskcheck::transport::Connect;
use mcp_taskcheck::{
    exit, fuzzwire, inspect, load, monitor, offline, reference, spec, suite, verdict,
};
use reqwest::header::HeaderMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "taskcheck",
    version,
    about = "Conformance harness for the MCP 2025-11-25 Tasks utility"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the scenarios against a receiver and report, rule by rule.
    Run(Box<RunArgs>),
    /// Test an MCP client as a task receiver: taskcheck plays its server, starts the client
    /// for every scenario and judges its answers to sampling and elicitation tasks.
    Client(Box<ClientArgs>),
    /// The reference client: a correct client-side task receiver (and its faults). Give the
    /// server as a URL (Streamable HTTP) or as the command that starts it (stdio).
    ReferenceClient {
        /// Break one rule (repeatable); see --list-faults.
        #[arg(long = "fault", value_name = "NAME")]
        faults: Vec<String>,
        /// List the faults the reference client can have and the rule each breaks.
        #[arg(long)]
        list_faults: bool,
        /// The server's Streamable HTTP endpoint.
        #[arg(long, value_name = "URL", conflicts_with = "server")]
        url: Option<String>,
        /// The server: a URL, or a command (and its arguments) to spawn for stdio.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "SERVER"
        )]
        server: Vec<String>,
    },
    /// The stdio server command `taskcheck client --stdio` gives a client: relays stdin and
    /// stdout to the running taskcheck.
    Serve {
        /// The Unix socket taskcheck listens on.
        #[arg(long, value_name = "SOCKET")]
        connect: PathBuf,
    },
    /// Serve the reference receiver on stdio, or over Streamable HTTP with --http.
    Reference {
        /// Break one rule (repeatable); see --list-faults.
        #[arg(long = "fault", value_name = "NAME")]
        faults: Vec<String>,
        /// The design of Tasks to serve: `2025-11-25` (default) or `ext-tasks`.
        #[arg(long, value_name = "NAME", value_parser = parse_profile, default_value = "2025-11-25")]
        profile: Profile,
        /// Serve Streamable HTTP on this address (default 127.0.0.1:0, a free loopback port);
        /// the endpoint URL is the first line of stdout.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
        http: Option<std::net::SocketAddr>,
        /// Over HTTP, answer every request with one JSON body (no SSE streams on POST).
        #[arg(long, requires = "http")]
        json_response: bool,
        /// List the faults and the rule each breaks.
        #[arg(long)]
        list_faults: bool,
        /// Refuse a new task while this many are unfinished (a limit the spec recommends, not
        /// a fault).
        #[arg(long, value_name = "N")]
        max_tasks: Option<usize>,
        /// Break the transport instead of a rule (garbage, hangs, exits, HTTP errors); see
        /// --list-hostile.
        #[arg(long, value_name = "MODE")]
        hostile: Option<String>,
        /// List the hostile modes.
        #[arg(long)]
        list_hostile: bool,
        /// Behave in a legal way that differs from the defaults (repeatable); see
        /// --list-variants. Every variant passes the whole suite.
        #[arg(long = "variant", value_name = "NAME")]
        variants: Vec<String>,
        /// List the legal variants.
        #[arg(long)]
        list_variants: bool,
    },
    /// List the scenarios a selection picks, and every rule (or the fixture contract).
    List {
        #[command(flatten)]
        library: LibraryArgs,
        #[command(flatten)]
        select: SelectArgs,
        /// Print the fixture contract instead.
        #[arg(long)]
        fixtures: bool,
    },
    /// Put many task-augmented calls in flight on one session: checks ids, results and
    /// transitions under load and measures throughput and latency.
    Load(Box<LoadArgs>),
    /// Random operation sequences against a receiver, judged like scenarios; a failure is
    /// shrunk to a minimal sequence and saved as a replayable scenario.
    Explore(Box<ExploreArgs>),
    /// Malformed and edge-case messages, each in a fresh session: the answers are judged
    /// against JSON-RPC 2.0 and the Tasks error rules, and the receiver must still answer ping.
    FuzzWire(Box<FuzzWireArgs>),
    /// Judge a recorded trace (the JSON lines `run --trace` writes) offline, with the monitors.
    Check {
        /// The trace file.
        trace: PathBuf,
        /// Also validate every message against this official MCP schema.json (repeatable:
        /// the extension's schema.json beside the 2026-07-28 one).
        #[arg(long, value_name = "FILE")]
        schema: Vec<PathBuf>,
        /// List the first N sessions to end; after them only the first three to show each rule
        /// not met, and count the rest in the totals and rules (`folded`), so the report of a
        /// trace of any size stays small.
        #[arg(long, value_name = "N", default_value_t = 500)]
        fold_after: usize,
        #[command(flatten)]
        reports: ReportArgs,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Which verdicts changed between two JSON reports (per scenario and rule); exit 1 if any.
    Diff {
        /// The earlier report (`--report-json`).
        old: PathBuf,
        /// The later report.
        new: PathBuf,
        /// A `scenario:rule` whose verdict is not compared (one the receiver's timing decides;
        /// repeatable).
        #[arg(long = "ignore", value_name = "SCENARIO:RULE")]
        ignore: Vec<String>,
    },
    /// Every rule with its checks and faults, and a coverage summary (exit 1 if a checked
    /// rule lacks a check or a fault).
    Coverage {
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Explain a rule: level, spec section, checks and faults.
    Explain {
        rule: String,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Print a JSON Schema: `scenario` (the scenario file format), `tasks` (the built-in
    /// schema every Tasks message is validated against) or `report` (the JSON report).
    Schema {
        #[arg(value_parser = ["scenario", "tasks", "report"])]
        what: String,
    },
}

/// The receiver under test and how to reach it (`run` and `load`).
#[derive(clap::Args, Clone)]
#[command(group(clap::ArgGroup::new("receiver").required(true).args(["stdio", "url", "url_from"])))]
struct TargetArgs {
    /// The receiver: a command spoken to over stdio (run by /bin/sh).
    #[arg(long, value_name = "COMMAND")]
    stdio: Option<String>,
    /// The receiver: a Streamable HTTP endpoint.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The receiver: a command that serves Streamable HTTP and prints its endpoint URL as its
    /// first line of stdout; started afresh for every scenario, scenarios one at a time.
    #[arg(long, value_name = "COMMAND")]
    url_from: Option<String>,
    /// An HTTP header sent on every request, `Name: value` (repeatable; values never reach
    /// reports or traces).
    #[arg(long = "header", value_name = "HEADER")]
    headers: Vec<String>,
    /// An HTTP header of the first requestor only (e.g. its credentials); with --auth-b,
    /// tasks of one authorization context must be invisible to the other.
    #[arg(long, value_name = "HEADER")]
    auth_a: Option<String>,
    /// An HTTP header of the second requestor only.
    #[arg(long, value_name = "HEADER")]
    auth_b: Option<String>,
    /// Longest wait to connect to an HTTP receiver, in ms.
    #[arg(long, default_value_t = 5000)]
    connect_timeout_ms: u64,
    /// Longest line (or HTTP message) accepted from the receiver, in bytes.
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    max_line_bytes: usize,
}

/// What a run's outcome is judged by, and where its reports go (`run` and `check`).
#[derive(clap::Args, Clone)]
struct ReportArgs {
    /// Show every check of every scenario (default: a line per scenario, and the checks that
    /// did not pass under the scenarios that did not).
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
    /// Show only the summary: the rules not met, the counts and the exit line.
    #[arg(short, long)]
    quiet: bool,
    /// What makes the run non-conformant (exit 1).
    #[arg(long, value_enum, default_value = "must")]
    fail_on: FailOn,
    /// Write the JSON report here (its schema: harness/schema/report.schema.json).
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Write a JUnit XML report here (a test case per check).
    #[arg(long, value_name = "FILE")]
    report_junit: Option<PathBuf>,
    /// Write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    report_md: Option<PathBuf>,
    /// Write a self-contained HTML report here.
    #[arg(long, value_name = "FILE")]
    report_html: Option<PathBuf>,
    /// Write the official conformance suite's checks.json shape here.
    #[arg(long, value_name = "FILE")]
    checks_json: Option<PathBuf>,
    /// Failures to expect (YAML `server:` list of `scenario` or `scenario:rule`); a listed
    /// failure does not fail the run, a listed entry that passes does.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
}

#[derive(clap::Args, Clone)]
struct SelectArgs {
    /// Only these scenario ids (repeatable).
    #[arg(long = "scenario", value_name = "ID")]
    only: Vec<String>,
    /// Only scenarios that judge this rule (repeatable).
    #[arg(long = "rule", value_name = "RULE")]
    rules: Vec<String>,
    /// Only scenarios with this tag (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
}

#[derive(clap::Args, Clone)]
struct LibraryArgs {
    /// A directory of scenario files that adds to (or overrides by id) the built-in library.
    #[arg(long, value_name = "DIR")]
    scenarios: Option<PathBuf>,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (the extension on 2026-07-28). `run`
    /// asks the receiver when it is not given; the other commands default to 2025-11-25.
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<Profile>,
}

fn parse_profile(name: &str) -> Result<Profile, String> {
    Profile::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        format!("no profile {name:?} (one of {})", names.join(", "))
    })
}

#[derive(clap::Args, Clone)]
struct LoadArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (default: what the receiver speaks).
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<Profile>,
    /// How many tasks to create.
    #[arg(long, default_value_t = 1000)]
    tasks: usize,
    /// How many are in flight at once.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Start no new task after this many seconds.
    #[arg(long)]
    duration_s: Option<u64>,
    /// Per-request timeout in ms.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Seeds the tools' random durations (0-20 ms).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the JSON summary here.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
}

#[derive(clap::Args, Clone)]
struct ClientArgs {
    /// The client, run by /bin/sh with the server appended: the endpoint URL, or with --stdio
    /// the server command to spawn. `TASKCHECK_SCENARIO` holds the scenario id.
    #[arg(long, value_name = "COMMAND")]
    command: String,
    /// Give the client a stdio server command instead of an HTTP URL.
    #[arg(long)]
    stdio: bool,
    /// Longest wait for a started client to initialize, in ms.
    #[arg(long, default_value_t = 10_000)]
    connect_timeout_ms: u64,
    /// Longest line (or HTTP message) accepted from the client, in bytes.
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    max_line_bytes: usize,
    #[command(flatten)]
    suite: SuiteArgs,
}

/// Which scenarios run, how they are judged and reported (`run` and `client`).
#[derive(clap::Args, Clone)]
struct SuiteArgs {
    #[command(flatten)]
    library: LibraryArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    judge: JudgeArgs,
    /// Scenarios run at once, each in its own session (default: 8, since scenarios wait on
    /// the receiver, not on the CPU).
    #[arg(long)]
    jobs: Option<usize>,
    #[command(flatten)]
    reports: ReportArgs,
    /// Write every message of every session here, as JSON lines.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
}

#[derive(clap::Args, Clone)]
struct RunArgs {
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    suite: SuiteArgs,
}

/// How scenarios are run and judged (`run` and `explore`).
#[derive(clap::Args, Clone)]
struct JudgeArgs {
    /// Per-request timeout in ms.
    #[arg(long, default_value_t = 5000)]
    timeout_ms: u64,
    /// Per-scenario deadline in ms.
    #[arg(long, default_value_t = 30000)]
    scenario_timeout_ms: u64,
    /// Also validate every message against this official MCP schema.json (repeatable: the
    /// extension's schema.json beside the 2026-07-28 one).
    #[arg(long, value_name = "FILE")]
    schema: Vec<PathBuf>,
    /// Map fixture roles to the receiver's own tools (YAML; see docs/testing-servers.md).
    #[arg(long, value_name = "FILE")]
    fixtures: Option<PathBuf>,
    /// Multiply every timeout by this factor (slow machines, slow receivers).
    #[arg(long, default_value_t = 1.0)]
    timeout_scale: f64,
}

#[derive(clap::Args, Clone)]
struct ExploreArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (default: what the receiver speaks).
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<Profile>,
    #[command(flatten)]
    judge: JudgeArgs,
    /// Case k draws its operations from seed N+k (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// How many random sequences to run.
    #[arg(long, default_value_t = 50)]
    cases: usize,
    /// Longest sequence of operations.
    #[arg(long, default_value_t = 24)]
    max_ops: usize,
    /// Most runs spent shrinking a failing sequence.
    #[arg(long, default_value_t = 200)]
    shrink_runs: usize,
    /// Write the minimal failing sequence here as a scenario `taskcheck run --scenarios` replays.
    #[arg(long, value_name = "DIR")]
    save_failures: Option<PathBuf>,
}

#[derive(clap::Args, Clone)]
struct FuzzWireArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (default: what the receiver speaks).
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    profile: Option<Profile>,
    #[command(flatten)]
    judge: JudgeArgs,
    /// Case k draws its input from seed N+k (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// How many inputs to send.
    #[arg(long, default_value_t = 200)]
    cases: usize,
    /// Start no case after this many seconds.
    #[arg(long, default_value_t = 300)]
    time_s: u64,
    /// Write the first case that breaks each rule here, as a file --replay sends again.
    #[arg(long, value_name = "DIR")]
    save_failures: Option<PathBuf>,
    /// Send one saved case again and judge it (instead of random cases).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "cases", "save_failures"])]
    replay: Option<PathBuf>,
    /// Reports: a scenario per input class (`fuzz-wire/<class>`), a check per rule.
    #[command(flatten)]
    reports: ReportArgs,
}

fn usage_error(message: impl std::fmt::Display) -> ! {
    eprintln!("taskcheck: {message}");
    std::process::exit(exit::USAGE);
}

/// Every scenario of the profile given (of every profile when none is).
fn library(args: &LibraryArgs) -> Vec<Scenario> {
    let mut all = scenario::builtin();
    if let Some(dir) = &args.scenarios {
        for s in scenario::load_dir(dir).unwrap_or_else(|e| usage_error(e)) {
            all.retain(|b| b.id != s.id);
            all.push(s);
        }
    }
    all.retain(|s| args.profile.is_none_or(|p| s.profile == p));
    all
}

/// The library's scenarios a selection picks; an unknown id, rule or tag is a usage error.
fn selected(lib: &LibraryArgs, select: &SelectArgs) -> Vec<Scenario> {
    pick(library(lib), select)
}

/// The scenarios a selection picks among those for one kind of receiver.
fn selected_for(lib: &LibraryArgs, select: &SelectArgs, kind: ReceiverKind) -> Vec<Scenario> {
    let (all, other): (Vec<Scenario>, Vec<Scenario>) =
        library(lib).into_iter().partition(|s| s.receiver == kind);
    if let Some(s) = other.iter().find(|s| select.only.contains(&s.id)) {
        let (side, command) = match s.receiver {
            ReceiverKind::Server => ("server", "taskcheck run"),
            ReceiverKind::Client => ("client", "taskcheck client"),
        };
        usage_error(format!(
            "scenario {:?} is for {side} receivers: run it with `{command}`",
            s.id
        ));
    }
    pick(all, select)
}

fn pick(all: Vec<Scenario>, select: &SelectArgs) -> Vec<Scenario> {
    scenario::select(all, &select.only, &select.rules, &select.tags)
        .unwrap_or_else(|e| usage_error(e))
}

fn main() {
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        let code = if e.use_stderr() {
            exit::USAGE
        } else {
            exit::CONFORMANT
        };
        let _ = e.print();
        std::process::exit(code);
    });
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| {
        eprintln!("taskcheck: cannot start the async runtime: {e}");
        std::process::exit(exit::HARNESS);
    });
    let code = runtime.block_on(async {
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

async fn dispatch(cli: Cli) -> i32 {
    match cli.command {
        Command::Run(args) => run(*args).await,
        Command::Client(args) => client(*args).await,
        Command::ReferenceClient {
            faults,
            list_faults,
            url,
            server,
        } => {
            if list_faults {
                print!("{}", inspect::client_fault_list());
                return exit::CONFORMANT;
            }
            let faults = reference::faults::Faults::from_client_names(&faults)
                .unwrap_or_else(|e| usage_error(e));
            let ran = match server_of(url, server) {
                ServerOf::Url(url) => {
                    let http = HttpConnector::new(
                        reqwest::Url::parse(&url)
                            .unwrap_or_else(|e| usage_error(format!("{url:?} is not a URL: {e}"))),
                        HeaderMap::new(),
                        [HeaderMap::new(), HeaderMap::new()],
                        8 * 1024 * 1024,
                        Duration::from_secs(5),
                    )
                    .unwrap_or_else(|e| usage_error(e));
                    reference::run_client(&http, faults).await
                }
                ServerOf::Command(command) => {
                    let stdio = StdioConnector {
                        command,
                        max_line: 8 * 1024 * 1024,
                    };
                    reference::run_client(&stdio, faults).await
                }
            };
            match ran {
                Ok(()) => exit::CONFORMANT,
                Err(e) => {
                    eprintln!("taskcheck reference-client: {e}");
                    exit::HARNESS
                }
            }
        }
        Command::Serve { connect } => match client_transport::relay(&connect).await {
            Ok(()) => exit::CONFORMANT,
            Err(e) => {
                eprintln!("taskcheck serve: {}: {e}", connect.display());
                exit::HARNESS
            }
        },
        Command::Load(args) => load(*args).await,
        Command::Explore(args) => explore(*args).await,
        Command::FuzzWire(args) => fuzz_wire(*args).await,
        Command::Reference {
            faults,
            profile: Profile::ExtTasks,
            list_faults,
            http,
            variants,
            list_variants,
            ..
        } => {
            if list_faults {
                print!("{}", inspect::ext_fault_list());
                return exit::CONFORMANT;
            }
            if list_variants {
                print!(
                    "{}",
                    reference::variants::list_of(ext_tasks::variants::VARIANTS)
                );
                return exit::CONFORMANT;
            }
            let mut faults = reference::faults::Faults::from_ext_names(&faults)
                .unwrap_or_else(|e| usage_error(e));
            faults.variants = reference::variants::named(
                &variants,
                ext_tasks::variants::VARIANTS,
                "reference --profile ext-tasks",
            )
            .unwrap_or_else(|e| usage_error(e));
            let served = match http {
                Some(addr) => ext_tasks::http::serve_http(faults, addr).await,
                None => ext_tasks::reference::serve_stdio(faults).await,
            };
            match served {
                Ok(()) => exit::CONFORMANT,
                Err(e) => {
                    eprintln!("taskcheck reference: {e}");
                    exit::HARNESS
                }
            }
        }
        Command::Reference {
            faults,
            profile: _,
            list_faults,
            max_tasks,
            http,
            json_response,
            hostile,
            list_hostile,
            variants,
            list_variants,
        } => {
            if list_faults {
                print!("{}", inspect::fault_list());
                return exit::CONFORMANT;
            }
            if list_variants {
                print!(
                    "{}",
                    reference::variants::list_of(reference::variants::VARIANTS)
                );
                return exit::CONFORMANT;
            }
            if list_hostile {
                print!("{}", reference::hostile::list());
                print!("{}", reference::http_hostile::list());
                return exit::CONFORMANT;
            }
            let unknown = |name: &str| -> ! {
                let over = if http.is_some() { "HTTP" } else { "stdio" };
                usage_error(format!(
                    "unknown {over} hostile mode {name:?} (see `taskcheck reference --list-hostile`)"
                ))
            };
            let mut faults =
                reference::faults::Faults::from_names(&faults).unwrap_or_else(|e| usage_error(e));
            faults.max_live_tasks = max_tasks;
            faults.variants =
                reference::variants::named(&variants, reference::variants::VARIANTS, "reference")
                    .unwrap_or_else(|e| usage_error(e));
            let served = match http {
                Some(addr) => {
                    let options = reference::http::HttpOptions {
                        json_only: json_response,
                        hostile: hostile.map(|name| {
                            reference::http_hostile::by_name(&name)
                                .unwrap_or_else(|| unknown(&name))
                        }),
                    };
                    reference::http::serve_http(faults, addr, options).await
                }
                None => {
                    let hostile = hostile.map(|name| {
                        reference::hostile::by_name(&name).unwrap_or_else(|| unknown(&name))
                    });
                    reference::serve_stdio(faults, hostile).await
                }
            };
            match served {
                Ok(()) => exit::CONFORMANT,
                Err(e) => {
                    eprintln!("taskcheck reference: {e}");
                    exit::HARNESS
                }
            }
        }
        Command::List {
            library: mut lib,
            select,
            fixtures,
        } => {
            // the scenarios and rules of one profile (2025-11-25 unless --profile says)
            let profile = *lib.profile.get_or_insert_with(Profile::default);
            if fixtures {
                print!("{}", profile.fixture_contract());
            } else {
                print!("{}", inspect::list(&selected(&lib, &select), profile));
            }
            exit::CONFORMANT
        }
        Command::Explain { rule, library: lib } => match spec::rule(&rule) {
            Some(r) => {
                print!("{}", inspect::explain(r, &library(&lib)));
                exit::CONFORMANT
            }
            None => usage_error(format!("unknown rule {rule:?} (see `taskcheck list`)")),
        },
        Command::Check {
            trace,
            schema,
            fold_after,
            reports,
            library: lib,
        } => {
            let official = (!schema.is_empty())
                .then(|| SchemaSet::load_all(&schema).unwrap_or_else(|e| usage_error(e)));
            // only the HTML report draws whole sessions; the others need what checks name
            let keep_traces = reports.report_html.is_some();
            let report = offline::check_file(
                &trace,
                official.as_ref(),
                &library(&lib),
                keep_traces,
                fold_after,
            )
            .unwrap_or_else(|e| usage_error(e));
            let baseline = baseline(&reports, &lib);
            emit(&report, &reports, baseline.as_ref())
        }
        Command::Diff { old, new, ignore } => {
            let read = |path: &PathBuf| {
                let file = path.display().to_string();
                std::fs::read_to_string(path)
                    .map_err(|e| format!("{file}: cannot read: {e}"))
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
        Command::Coverage { library: mut lib } => {
            let profile = *lib.profile.get_or_insert_with(Profile::default);
            let (text, complete) = inspect::coverage(&library(&lib), profile);
            print!("{text}");
            if complete {
                exit::CONFORMANT
            } else {
                exit::NONCONFORMANT
            }
        }
        Command::Schema { what } => {
            if what == "tasks" {
                print!("{}", mcp_taskcheck::schema::builtin_text());
            } else if what == "report" {
                print!("{}", mcp_taskcheck::report::REPORT_SCHEMA);
            } else {
                let schema = schemars::schema_for!(Scenario);
                println!(
                    "{}",
                    serde_json::to_string_pretty(&schema).unwrap_or_default()
                );
            }
            exit::CONFORMANT
        }
    }
}

/// The run configuration the judging flags ask for; a bad one is a usage error.
fn config(args: &JudgeArgs) -> Config {
    if !(args.timeout_scale.is_finite() && args.timeout_scale > 0.0) {
        usage_error(format!(
            "--timeout-scale must be a positive number, not {}",
            args.timeout_scale
        ));
    }
    let scaled = |ms: u64| Duration::from_millis(ms).mul_f64(args.timeout_scale);
    let limits = Limits {
        request: scaled(args.timeout_ms),
        scenario: scaled(args.scenario_timeout_ms),
        poll: scaled(args.timeout_ms.max(2000)),
        scale: args.timeout_scale,
    };
    let official = (!args.schema.is_empty())
        .then(|| SchemaSet::load_all(&args.schema).unwrap_or_else(|e| usage_error(e)))
        .map(Arc::new);
    let fixtures = args
        .fixtures
        .as_deref()
        .map(|p| FixtureMap::load(p).unwrap_or_else(|e| usage_error(e)))
        .unwrap_or_default();
    Config::new(limits, official, fixtures)
}

/// Runs `$call` with the connector `$args` asks for (`--stdio`, `--url` or `--url-from`),
/// bound to `$c`, whichever transport it is.
macro_rules! with_target {
    ($args:expr, |$c:ident| $call:expr) => {
        match target($args) {
            Target::Stdio($c) => $call,
            Target::Http($c) => {
                let $c = *$c;
                $call
            }
            Target::Served($c) => {
                let $c = *$c;
                $call
            }
        }
    };
}

/// The profile given, or else the one the receiver speaks (said on stderr).
async fn profile_for<C: Connect>(
    connector: &C,
    given: Option<Profile>,
    limits: &Limits,
) -> Profile {
    if let Some(profile) = given {
        return profile;
    }
    let (profile, why) = mcp_taskcheck::runner::detect_profile(connector, limits).await;
    eprintln!("taskcheck: testing the {profile} profile ({why}); --profile picks one");
    profile
}

async fn explore(args: ExploreArgs) -> i32 {
    let config = config(&args.judge);
    let mut options = exploring::Options {
        profile: Profile::default(),
        seed: args.seed.unwrap_or_else(clock_seed),
        cases: args.cases,
        max_ops: args.max_ops,
        shrink_runs: args.shrink_runs,
        save_failures: args.save_failures,
    };
    let found = with_target!(&args.target, |c| {
        options.profile = profile_for(&c, args.profile, &config.limits).await;
        exploring::explore(&c, &config, &options).await
    });
    print!("{}", found.summary(&options));
    let violated = found.failure.is_some() || !found.unreproduced.is_empty();
    match (&found.error, violated) {
        (Some(_), _) => exit::HARNESS,
        (None, true) => exit::NONCONFORMANT,
        (None, false) => exit::CONFORMANT,
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

async fn fuzz_wire(args: FuzzWireArgs) -> i32 {
    let config = config(&args.judge);
    if let Some(file) = &args.replay {
        let saved = fuzzwire::SavedCase::load(file).unwrap_or_else(|e| usage_error(e));
        let judged = with_target!(&args.target, |c| fuzzwire::run_case(
            &c,
            &config,
            &saved.input
        )
        .await);
        let checks = match judged {
            Ok(checks) => checks,
            Err(e) => {
                println!("error: {e}");
                return exit::HARNESS;
            }
        };
        for c in &checks {
            println!("{} {}: {}", c.verdict.label(), c.rule, c.message);
        }
        return match checks.iter().map(|c| c.verdict).max() {
            Some(verdict::Verdict::Error) => exit::HARNESS,
            Some(verdict::Verdict::Fail) => exit::NONCONFORMANT,
            _ => exit::CONFORMANT,
        };
    }
    let mut options = fuzzwire::Options {
        profile: Profile::default(),
        seed: args.seed.unwrap_or_else(clock_seed),
        cases: args.cases,
        time_limit: Duration::from_secs(args.time_s),
        save_failures: args.save_failures,
    };
    let found = with_target!(&args.target, |c| {
        options.profile = profile_for(&c, args.profile, &config.limits).await;
        fuzzwire::fuzz(&c, &config, &options).await
    });
    print!("{}", found.summary(&options));
    let report = found.report(options.profile);
    let ids: Vec<String> = report.scenarios.iter().map(|s| s.id.clone()).collect();
    let baseline = expected_failures(&args.reports, &ids);
    let outcome = report.outcome(args.reports.fail_on, baseline.as_ref());
    let code = write_reports(&report, &outcome, &args.reports);
    match (&found.error, code) {
        (Some(_), exit::CONFORMANT) => exit::HARNESS,
        _ => code,
    }
}

async fn run(args: RunArgs) -> i32 {
    // a fresh server per scenario: one at a time, so none is killed under another
    let jobs = args.target.url_from.as_ref().map(|_| 1);
    with_target!(&args.target, |c| run_suite(
        c,
        &args.suite,
        jobs,
        ReceiverKind::Server
    )
    .await)
}

async fn client(args: ClientArgs) -> i32 {
    let transport = match args.stdio {
        true => ClientTransport::Stdio,
        false => ClientTransport::Http,
    };
    let connector = ClientConnector::new(
        args.command,
        transport,
        Duration::from_millis(args.connect_timeout_ms),
        args.max_line_bytes,
    );
    run_suite(connector, &args.suite, None, ReceiverKind::Client).await
}

/// Scenarios run at once without `--jobs`: they spend their time waiting on the receiver, so
/// more of them than there are CPUs shortens a run; list walks keep their own guard against
/// concurrent creations (`runner::steps`), so the count never changes a verdict.
const DEFAULT_JOBS: usize = 8;

/// Runs the scenarios for this kind of receiver that the selection picks and reports;
/// `jobs` overrides `--jobs`.
async fn run_suite<C: Connect + 'static>(
    connector: C,
    args: &SuiteArgs,
    jobs: Option<usize>,
    kind: ReceiverKind,
) -> i32 {
    let mut library = args.library.clone();
    let profile = match kind {
        ReceiverKind::Server => {
            let limits = config(&args.judge).limits;
            profile_for(&connector, library.profile, &limits).await
        }
        ReceiverKind::Client => library.profile.unwrap_or_default(),
    };
    library.profile = Some(profile);
    let args = &SuiteArgs {
        library,
        ..args.clone()
    };
    let scenarios = selected_for(&args.library, &args.select, kind);
    let baseline = baseline(&args.reports, &args.library);
    let config = config(&args.judge);
    if !config.fixtures.is_empty() && kind == ReceiverKind::Server {
        // say up front what the mapping leaves out
        if let Ok((info, tools)) =
            mcp_taskcheck::runner::probe(&connector, &config.limits, profile).await
        {
            let negotiates =
                monitor::has_capability(&info.capabilities, profile.task_tools_capability());
            eprint!(
                "{}",
                inspect::fixture_plan(&config.fixtures, &tools, negotiates, &scenarios)
            );
        }
    }
    let jobs = jobs.or(args.jobs).unwrap_or(DEFAULT_JOBS);
    let bar = progress(scenarios.len());
    let on_done: suite::OnDone = {
        let bar = bar.clone();
        Arc::new(move |run| {
            bar.set_message(run.id.clone());
            bar.inc(1);
        })
    };
    let report = suite::run_all(Arc::new(connector), scenarios, config, jobs, on_done).await;
    bar.finish_and_clear();
    let code = emit(&report, &args.reports, baseline.as_ref());
    if let Some(path) = &args.trace {
        if let Err(e) = suite::write_trace(path, &report) {
            eprintln!("taskcheck: cannot write {}: {e}", path.display());
            return exit::HARNESS;
        }
    }
    code
}

async fn load(args: LoadArgs) -> i32 {
    let mut opts = load::LoadOptions {
        tasks: args.tasks,
        concurrency: args.concurrency,
        duration: args.duration_s.map(Duration::from_secs),
        timeout: Duration::from_millis(args.timeout_ms),
        seed: args.seed,
        profile: Profile::default(),
    };
    // detection asks with the load's own request timeout
    let limits = Limits {
        request: opts.timeout,
        scenario: opts.timeout,
        poll: opts.timeout,
        scale: 1.0,
    };
    let report = with_target!(&args.target, |c| {
        opts.profile = profile_for(&c, args.profile, &limits).await;
        load::run_load(&c, &opts).await
    });
    print!("{}", report.table());
    if let Some(path) = &args.report_json {
        let doc = serde_json::to_string_pretty(&report.json()).unwrap_or_default();
        if let Err(e) = std::fs::write(path, doc) {
            eprintln!("taskcheck: cannot write {}: {e}", path.display());
            return exit::HARNESS;
        }
    }
    match (&report.error, report.failures.is_empty()) {
        (Some(_), _) => exit::HARNESS,
        (None, false) => exit::NONCONFORMANT,
        (None, true) => exit::CONFORMANT,
    }
}

/// The baseline of `--expected-failures`, checked against the scenario library.
fn baseline(reports: &ReportArgs, lib: &LibraryArgs) -> Option<Baseline> {
    let ids: Vec<String> = library(lib).into_iter().map(|s| s.id).collect();
    expected_failures(reports, &ids)
}

/// The baseline of `--expected-failures`, its scenarios one of `ids` (or official ones).
fn expected_failures(reports: &ReportArgs, ids: &[String]) -> Option<Baseline> {
    reports
        .expected_failures
        .as_deref()
        .map(|p| Baseline::load(p, ids).unwrap_or_else(|e| usage_error(e)))
}

/// Prints the terminal report and writes every requested one; returns the exit code.
fn emit(report: &RunReport, reports: &ReportArgs, baseline: Option<&Baseline>) -> i32 {
    let outcome = report.outcome(reports.fail_on, baseline);
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let detail = match (reports.verbose, reports.quiet) {
        (true, _) => Detail::Verbose,
        (_, true) => Detail::Quiet,
        _ => Detail::Normal,
    };
    print!("{}", report.terminal(&outcome, colour, detail));
    write_reports(report, &outcome, reports)
}

/// Writes every report file requested; returns the outcome's exit code, or the harness's if a
/// file could not be written.
fn write_reports(
    report: &RunReport,
    outcome: &mcp_taskcheck::report::Outcome,
    reports: &ReportArgs,
) -> i32 {
    let pretty = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap_or_default();
    let outputs: [(&Option<PathBuf>, &dyn Fn() -> String); 5] = [
        (&reports.report_json, &|| pretty(report.json(outcome))),
        (&reports.report_junit, &|| report.junit(outcome)),
        (&reports.report_md, &|| report.markdown(outcome)),
        (&reports.report_html, &|| report.html(outcome)),
        (&reports.checks_json, &|| {
            pretty(report.checks_json(outcome))
        }),
    ];
    for (path, render) in outputs {
        if let Some(path) = path {
            if let Err(e) = std::fs::write(path, render()) {
                eprintln!("taskcheck: cannot write {}: {e}", path.display());
                return exit::HARNESS;
            }
        }
    }
    outcome.code
}

/// A progress bar on stderr, drawn only when stderr is a terminal and the run passes a second.
fn progress(scenarios: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(scenarios as u64), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} scenarios  {msg}") {
        bar.set_style(style);
    }
    if std::io::stderr().is_terminal() {
        let later = bar.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if !later.is_finished() {
                later.set_draw_target(ProgressDrawTarget::stderr());
            }
        });
    }
    bar
}

/// The server the reference client connects to.
enum ServerOf {
    Url(String),
    Command(String),
}

/// `--url URL`, one URL word, or a command's words (quoted for /bin/sh).
fn server_of(url: Option<String>, words: Vec<String>) -> ServerOf {
    match (url, words.as_slice()) {
        (Some(url), _) => ServerOf::Url(url),
        (None, [one]) if one.starts_with("http://") || one.starts_with("https://") => {
            ServerOf::Url(one.clone())
        }
        (None, []) => usage_error("give the server as --url URL, a URL, or a command"),
        (None, words) => ServerOf::Command(
            words
                .iter()
                .map(|w| client_transport::shell_quote(w))
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

/// A receiver to connect to.
enum Target {
    Stdio(StdioConnector),
    Http(Box<HttpConnector>),
    Served(Box<ServedConnector>),
}

/// The connector `--stdio` or `--url` asks for; a bad URL or header is a usage error.
fn target(args: &TargetArgs) -> Target {
    match (&args.stdio, &args.url) {
        (Some(command), _) => Target::Stdio(StdioConnector {
            command: command.clone(),
            max_line: args.max_line_bytes,
        }),
        (None, Some(url)) => Target::Http(Box::new(
            http_connector(args, url).unwrap_or_else(|e| usage_error(e)),
        )),
        (None, None) => {
            let Some(command) = args.url_from.clone() else {
                usage_error(
                    "give the receiver with --stdio COMMAND, --url URL or --url-from COMMAND",
                )
            };
            // the headers are checked now, not when the first server has started
            let probe =
                http_connector(args, "http://127.0.0.1/").unwrap_or_else(|e| usage_error(e));
            let owned = TargetArgs {
                stdio: None,
                url: None,
                url_from: None,
                headers: args.headers.clone(),
                auth_a: args.auth_a.clone(),
                auth_b: args.auth_b.clone(),
                connect_timeout_ms: args.connect_timeout_ms,
                max_line_bytes: args.max_line_bytes,
            };
            let http = Box::new(move |url: reqwest::Url| http_connector(&owned, url.as_str()));
            let startup = Duration::from_millis(args.connect_timeout_ms.max(10_000));
            Target::Served(Box::new(ServedConnector::new(
                command,
                http,
                startup,
                probe.distinct_auth(),
            )))
        }
    }
}

/// The HTTP connector of `--url`.
fn http_connector(args: &TargetArgs, url: &str) -> Result<HttpConnector, String> {
    let url = reqwest::Url::parse(url).map_err(|e| format!("--url {url:?} is not a URL: {e}"))?;
    match url.scheme() {
        "http" => {}
        "https" if cfg!(feature = "tls") => {}
        "https" => return Err(
            "this taskcheck was built without TLS: rebuild with `--features tls` for https:// URLs"
                .into(),
        ),
        other => return Err(format!("--url needs http:// or https://, not {other}://")),
    }
    let headers = |lines: Vec<&String>| -> Result<HeaderMap, String> {
        let mut map = HeaderMap::new();
        for line in lines {
            let (name, value) = parse_header(line)?;
            map.append(name, value);
        }
        Ok(map)
    };
    let common = headers(args.headers.iter().collect())?;
    let auth_a = headers(args.auth_a.iter().collect())?;
    let auth_b = headers(args.auth_b.iter().collect())?;
    HttpConnector::new(
        url,
        common,
        [auth_a, auth_b],
        args.max_line_bytes,
        Duration::from_millis(args.connect_timeout_ms),
    )
}
