//! `taskcheck reference`: the reference receiver of either profile, with its faults, legal
//! variants and hostile modes, over stdio or Streamable HTTP.

use super::usage_error;
use mcp_taskcheck::profile::{ext_tasks, Profile};
use mcp_taskcheck::{exit, inspect, reference};

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
}

/// Serves the reference receiver until its input ends (stdio) or Ctrl-C (HTTP).
pub async fn run(args: ReferenceArgs) -> i32 {
    match args.profile {
        Profile::ExtTasks => extension(args).await,
        Profile::Tasks2025 => tasks_2025(args).await,
    }
}

/// The Tasks extension's reference.
async fn extension(args: ReferenceArgs) -> i32 {
    let ReferenceArgs {
        faults,
        list_faults,
        http,
        variants,
        list_variants,
        ..
    } = args;
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
    let mut faults =
        reference::faults::Faults::from_ext_names(&faults).unwrap_or_else(|e| usage_error(e));
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

/// The 2025-11-25 reference.
async fn tasks_2025(args: ReferenceArgs) -> i32 {
    let ReferenceArgs {
        faults,
        list_faults,
        max_tasks,
        http,
        json_response,
        hostile,
        list_hostile,
        variants,
        list_variants,
        ..
    } = args;
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
                    reference::http_hostile::by_name(&name).unwrap_or_else(|| unknown(&name))
                }),
            };
            reference::http::serve_http(faults, addr, options).await
        }
        None => {
            let hostile = hostile
                .map(|name| reference::hostile::by_name(&name).unwrap_or_else(|| unknown(&name)));
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
