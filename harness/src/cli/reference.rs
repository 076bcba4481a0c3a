//! `taskcheck reference`: the reference receiver of either profile, with its faults, legal
//! variants and hostile modes, over stdio or Streamable HTTP.

use super::usage_error;
use mcp_taskcheck::design::{NotServed, ServeOptions};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::exit;

/// What `reference` takes.
#[derive(clap::Args, Clone)]
pub struct ReferenceArgs {
    /// Break one rule (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// The design of Tasks to serve: `2025-11-25` (default) or `ext-tasks`.
    #[arg(long, value_name = "NAME", value_parser = super::parse_profile, default_value = "2025-11-25")]
    pub profile: Profile,
    /// Serve Streamable HTTP on this address (default 127.0.0.1:0, a free loopback port);
    /// the endpoint URL is the first line of stdout.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub http: Option<std::net::SocketAddr>,
    /// Over HTTP, answer every request with one JSON body (no SSE streams on POST).
    #[arg(long, requires = "http")]
    pub json_response: bool,
    /// List the faults and the rule each breaks.
    #[arg(long)]
    pub list_faults: bool,
    /// Refuse a new task while this many are unfinished (a limit the spec recommends, not
    /// a fault).
    #[arg(long, value_name = "N")]
    pub max_tasks: Option<usize>,
    /// Break the transport instead of a rule (garbage, hangs, exits, HTTP errors); see
    /// --list-hostile.
    #[arg(long, value_name = "MODE")]
    pub hostile: Option<String>,
    /// List the hostile modes.
    #[arg(long)]
    pub list_hostile: bool,
    /// Behave in a legal way that differs from the defaults (repeatable); see
    /// --list-variants. Every variant passes the whole suite.
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// List the legal variants.
    #[arg(long)]
    pub list_variants: bool,
    /// Write the conversation to this file as a trace (JSON lines, the requestor's messages
    /// `out`), a line at a time: what `taskcheck requestor` judges a client by (stdio, and
    /// HTTP for the extension).
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
}

/// Serves the reference receiver until its input ends (stdio) or Ctrl-C (HTTP).
pub async fn run(args: ReferenceArgs) -> i32 {
    let reference = args.profile.reference();
    if args.list_faults {
        print!("{}", reference.fault_list());
        return exit::CONFORMANT;
    }
    if args.list_variants {
        print!("{}", reference.variant_list());
        return exit::CONFORMANT;
    }
    if let Some(list) = reference.hostile_list().filter(|_| args.list_hostile) {
        print!("{list}");
        return exit::CONFORMANT;
    }
    let options = ServeOptions {
        faults: args.faults,
        variants: args.variants,
        max_tasks: args.max_tasks,
        http: args.http,
        json_response: args.json_response,
        hostile: args.hostile,
        record: args.record,
    };
    match reference.serve(options).await {
        Ok(()) => exit::CONFORMANT,
        Err(NotServed::Usage(e)) => usage_error(e),
        Err(NotServed::Failed(e)) => {
            eprintln!("taskcheck reference: {e}");
            exit::HARNESS
        }
    }
}
