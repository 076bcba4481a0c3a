//! `taskcheck client` (an MCP client as task receiver), the reference client, and `serve`,
//! the stdio server command a client under `client --stdio` spawns.

use super::args::SuiteArgs;
use super::run::run_suite;
use super::usage_error;
use mcp_taskcheck::design::{ClientServer, NotServed};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::transport::client::{
    self as client_transport, ClientConnector, ClientTransport,
};
use mcp_taskcheck::transport::http::HttpConnector;
use mcp_taskcheck::transport::stdio::StdioConnector;
use mcp_taskcheck::transport::ReceiverKind;
use mcp_taskcheck::{exit, inspect};
use reqwest::header::HeaderMap;
use std::path::PathBuf;
use std::time::Duration;

/// What `client` takes.
#[derive(clap::Args, Clone)]
pub struct ClientArgs {
    /// The client, run by /bin/sh with the server appended: the endpoint URL, or with --stdio
    /// the server command to spawn. `TASKCHECK_SCENARIO` holds the scenario id.
    #[arg(long, value_name = "COMMAND")]
    pub command: String,
    /// Give the client a stdio server command instead of an HTTP URL.
    #[arg(long)]
    pub stdio: bool,
    /// Longest wait for a started client to initialize, in ms.
    #[arg(long, default_value_t = 10_000)]
    pub connect_timeout_ms: u64,
    /// Longest line (or HTTP message) accepted from the client, in bytes.
    #[arg(long, default_value_t = 8 * 1024 * 1024)]
    pub max_line_bytes: usize,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// Runs the client scenarios against a client, taskcheck playing its server.
pub async fn run(args: ClientArgs) -> i32 {
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

/// What `reference-client` takes.
#[derive(clap::Args, Clone)]
pub struct ReferenceClientArgs {
    /// Break one rule (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// List the faults the reference client can have and the rule each breaks.
    #[arg(long)]
    pub list_faults: bool,
    /// The server's Streamable HTTP endpoint.
    #[arg(long, value_name = "URL", conflicts_with = "server")]
    pub url: Option<String>,
    /// The server: a URL, or a command (and its arguments) to spawn for stdio.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "SERVER"
    )]
    pub server: Vec<String>,
}

/// Runs the reference client against a server until it ends the connection.
pub async fn reference_client(args: ReferenceClientArgs) -> i32 {
    let ReferenceClientArgs {
        faults,
        list_faults,
        url,
        server,
    } = args;
    if list_faults {
        print!("{}", inspect::client_fault_list());
        return exit::CONFORMANT;
    }
    let Some(client) = Profile::reference_clients().next() else {
        usage_error("no design of Tasks has a reference client")
    };
    let server = match server_of(url, server) {
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
            ClientServer::Http(Box::new(http))
        }
        ServerOf::Command(command) => {
            let stdio = StdioConnector {
                command,
                max_line: 8 * 1024 * 1024,
            };
            ClientServer::Stdio(stdio)
        }
    };
    match client.run(server, faults).await {
        Ok(()) => exit::CONFORMANT,
        Err(NotServed::Usage(e)) => usage_error(e),
        Err(NotServed::Failed(e)) => {
            eprintln!("taskcheck reference-client: {e}");
            exit::HARNESS
        }
    }
}

/// What `serve` takes.
#[derive(clap::Args, Clone)]
pub struct ServeArgs {
    /// The Unix socket taskcheck listens on.
    #[arg(long, value_name = "SOCKET")]
    pub connect: PathBuf,
}

/// Relays stdin and stdout to the running taskcheck over its socket.
pub async fn serve(args: ServeArgs) -> i32 {
    let connect = args.connect;
    match client_transport::relay(&connect).await {
        Ok(()) => exit::CONFORMANT,
        Err(e) => {
            eprintln!("taskcheck serve: {}: {e}", connect.display());
            exit::HARNESS
        }
    }
}

/// The server the reference client connects to.
pub enum ServerOf {
    Url(String),
    Command(String),
}

/// `--url URL`, one URL word, or a command's words (quoted for /bin/sh).
pub fn server_of(url: Option<String>, words: Vec<String>) -> ServerOf {
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
