//! `taskcheck requestor` (a client judged as a requestor of tasks, taskcheck's reference
//! receiver playing its server) and `reference-requestor`, the requestor that passes.

use super::args::ReportArgs;
use super::output::emit;
use super::usage_error;
use mcp_taskcheck::design::NotServed;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::exit;
use mcp_taskcheck::reference::faults::list_of;
use mcp_taskcheck::requestor::{self, Settings};
use mcp_taskcheck::transport::client::shell_quote;

/// What `requestor` takes.
#[derive(clap::Args, Clone)]
pub struct RequestorArgs {
    /// The client, run by /bin/sh with the stdio server command appended (the command and its
    /// arguments, as words). `TASKCHECK_REQUEST` holds what it is asked to do (JSON),
    /// `TASKCHECK_SCENARIO` the scenario id.
    #[arg(long, value_name = "COMMAND")]
    pub command: String,
    /// The design of Tasks: `2025-11-25` or `ext-tasks`.
    #[arg(long, value_name = "NAME", value_parser = super::parse_profile, default_value = "2025-11-25")]
    pub profile: Profile,
    /// Only these scenario ids (repeatable).
    #[arg(long = "scenario", value_name = "ID")]
    pub scenarios: Vec<String>,
    /// Multiply every scenario's deadline by this factor (slow machines, slow clients).
    #[arg(long, default_value_t = 1.0)]
    pub timeout_scale: f64,
    /// Scenarios run at once, each with its own client and server.
    #[arg(long, default_value_t = 4)]
    pub jobs: usize,
    /// Serve the client over Streamable HTTP: its command gets the endpoint URL instead of a
    /// server command.
    #[arg(long)]
    pub http: bool,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Write every message between the client and taskcheck's server here, as JSON lines
    /// (each tagged with its scenario), to see what was judged.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
}

/// Runs the requestor scenarios against a client.
pub async fn run(args: RequestorArgs) -> i32 {
    let scenarios: Vec<_> = requestor::builtin()
        .into_iter()
        .filter(|s| s.profile == args.profile)
        .filter(|s| args.scenarios.is_empty() || args.scenarios.contains(&s.id))
        .collect();
    if scenarios.is_empty() {
        usage_error(format!(
            "no requestor scenario of the {} profile is selected",
            args.profile
        ));
    }
    let settings = Settings {
        command: args.command,
        timeout_scale: args.timeout_scale,
        jobs: args.jobs,
        http: args.http,
    };
    let report = requestor::run_all(&settings, scenarios).await;
    let ids: Vec<String> = requestor::builtin().into_iter().map(|s| s.id).collect();
    let baseline = super::expected_failures(&args.reports, &ids);
    let code = emit(&report, &args.reports, baseline.as_ref());
    if let Some(path) = &args.trace {
        if let Err(e) = mcp_taskcheck::suite::write_trace(path, &report) {
            eprintln!("taskcheck: cannot write {}: {e}", path.display());
            return exit::HARNESS;
        }
    }
    code
}

/// What `reference-requestor` takes.
#[derive(clap::Args, Clone)]
pub struct ReferenceRequestorArgs {
    /// Break one rule (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// List the faults and the rule each breaks.
    #[arg(long)]
    pub list_faults: bool,
    /// Behave in a legal way that differs from the defaults (repeatable); see --list-variants.
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// List the legal variants.
    #[arg(long)]
    pub list_variants: bool,
    /// The design of Tasks it speaks.
    #[arg(long, value_name = "NAME", value_parser = super::parse_profile, default_value = "2025-11-25")]
    pub profile: Profile,
    /// The server: a Streamable HTTP endpoint URL, or a stdio command and its arguments.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "SERVER"
    )]
    pub server: Vec<String>,
}

/// Does what `TASKCHECK_REQUEST` asks of the server, as a requestor should.
pub async fn reference_requestor(args: ReferenceRequestorArgs) -> i32 {
    let Some(requestor) = args.profile.reference_requestor() else {
        usage_error(format!(
            "the {} design has no reference requestor",
            args.profile
        ))
    };
    if args.list_faults {
        print!("{}", list_of(requestor.faults().iter()));
        return exit::CONFORMANT;
    }
    if args.list_variants {
        print!("{}", requestor.variant_list());
        return exit::CONFORMANT;
    }
    if args.server.is_empty() {
        usage_error("give the stdio server command after the options");
    }
    let ask = std::env::var("TASKCHECK_REQUEST").unwrap_or_else(|_| "{}".into());
    let ask = mcp_taskcheck::scenario::Ask::from_json(&ask)
        .unwrap_or_else(|e| usage_error(format!("TASKCHECK_REQUEST is {e}")));
    // one URL word is a Streamable HTTP endpoint; anything else a stdio command
    let command = match args.server.as_slice() {
        [url] if url.starts_with("http://") => url.clone(),
        words => words
            .iter()
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" "),
    };
    match requestor
        .run(command, ask, args.faults, args.variants)
        .await
    {
        Ok(()) => exit::CONFORMANT,
        Err(NotServed::Usage(e)) => usage_error(e),
        Err(NotServed::Failed(e)) => {
            eprintln!("taskcheck reference-requestor: {e}");
            exit::HARNESS
        }
    }
}
