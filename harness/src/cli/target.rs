//! The receiver a command reaches: `--stdio`, `--url` or `--url-from`, and the profile it speaks.

use super::args::TargetArgs;
use super::usage_error;
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::runner::Limits;
use mcp_taskcheck::transport::http::{parse_header, HttpConnector};
use mcp_taskcheck::transport::served::ServedConnector;
use mcp_taskcheck::transport::stdio::StdioConnector;
use mcp_taskcheck::transport::Connect;
use reqwest::header::HeaderMap;
use std::time::Duration;

/// Runs `$call` with the connector `$args` asks for (`--stdio`, `--url` or `--url-from`),
/// bound to `$c`, whichever transport it is; `$scale` is the `--timeout-scale` in force.
macro_rules! with_target {
    ($args:expr, $scale:expr, |$c:ident| $call:expr) => {
        match $crate::cli::target::target($args, $scale) {
            $crate::cli::target::Target::Stdio($c) => $call,
            $crate::cli::target::Target::Http($c) => {
                let $c = *$c;
                $call
            }
            $crate::cli::target::Target::Served($c) => {
                let $c = *$c;
                $call
            }
        }
    };
}

/// A receiver to connect to.
pub enum Target {
    Stdio(StdioConnector),
    Http(Box<HttpConnector>),
    Served(Box<ServedConnector>),
}

/// The connector `--stdio` or `--url` asks for; a bad URL or header is a usage error.
pub fn target(args: &TargetArgs, timeout_scale: f64) -> Target {
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
                    "give the receiver with --stdio COMMAND, --url URL or --url-from COMMAND (or in taskcheck.yaml, which `taskcheck init` writes)",
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
            // a server starting on a busy machine gets the stretch every other wait gets
            let startup =
                Duration::from_millis(args.connect_timeout_ms.max(10_000)).mul_f64(timeout_scale);
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
pub fn http_connector(args: &TargetArgs, url: &str) -> Result<HttpConnector, String> {
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

/// The profile given, or else the one the receiver speaks (said on stderr).
pub async fn profile_for<C: Connect>(
    connector: &C,
    given: Option<Profile>,
    limits: &Limits,
) -> Profile {
    if let Some(profile) = given {
        return profile;
    }
    let (profile, why) = mcp_taskcheck::runner::detect_profile(connector, limits).await;
    say_spoken(profile, why);
    profile
}

/// The profile given, or else the one the receiver speaks (said on stderr where `say`), once
/// a first session has opened; or that profile and why no session opens (nothing said).
pub async fn tested_profile<C: Connect>(
    connector: &C,
    given: Option<Profile>,
    limits: &Limits,
    say: bool,
) -> Result<Profile, (Profile, String)> {
    let (profile, why) = mcp_taskcheck::runner::first_session(connector, limits, given).await?;
    if given.is_none() && say {
        say_spoken(profile, why);
    }
    Ok(profile)
}

/// Says on stderr which design the receiver speaks, and how that was found out.
fn say_spoken(profile: Profile, why: Option<String>) {
    let why = why.map(|w| format!(" ({w})")).unwrap_or_default();
    eprintln!(
        "taskcheck: the server speaks the {profile} design of Tasks{why}; --profile picks another"
    );
}
