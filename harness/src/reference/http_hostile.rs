//! Hostile behaviours of the HTTP reference receiver (`reference --http --hostile MODE`):
//! each breaks the Streamable HTTP transport, to prove taskcheck survives it.

use crate::wire::Message;
use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::time::Duration;

/// One way to break the HTTP transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpHostile {
    WrongContentType,
    ServerError,
    RedirectLoop,
    TruncatedSse,
    EndlessStream,
}

/// Every HTTP hostile mode: its name and what it does.
pub const HTTP_HOSTILE: &[(HttpHostile, &str, &str)] = &[
    (
        HttpHostile::WrongContentType,
        "wrong-content-type",
        "(HTTP) answers every request with Content-Type text/plain",
    ),
    (
        HttpHostile::ServerError,
        "server-error",
        "(HTTP) answers everything after initialize with HTTP 500",
    ),
    (
        HttpHostile::RedirectLoop,
        "redirect-loop",
        "(HTTP) redirects every POST to itself",
    ),
    (
        HttpHostile::TruncatedSse,
        "truncated-sse",
        "(HTTP) after initialize, answers with an SSE stream that ends inside its first event",
    ),
    (
        HttpHostile::EndlessStream,
        "endless-stream",
        "(HTTP) after initialize, answers with an SSE stream of keep-alives that never ends",
    ),
];

/// Looks a mode up by name.
pub fn by_name(name: &str) -> Option<HttpHostile> {
    HTTP_HOSTILE
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(m, _, _)| *m)
}

/// The `--list-hostile` lines of the HTTP modes.
pub fn list() -> String {
    HTTP_HOSTILE
        .iter()
        .map(|(_, name, what)| format!("{name:<22} {what}\n"))
        .collect()
}

/// The hostile answer to a POSTed message, or None to answer it normally.
pub fn intercept(mode: HttpHostile, message: &Message) -> Option<Response> {
    let initialize = matches!(message, Message::Request { method, .. } if method == "initialize");
    let request = matches!(message, Message::Request { .. });
    match mode {
        HttpHostile::WrongContentType if request => {
            Some(([(header::CONTENT_TYPE, "text/plain")], "{}").into_response())
        }
        HttpHostile::ServerError if !initialize => {
            Some((StatusCode::INTERNAL_SERVER_ERROR, "hostile: internal error").into_response())
        }
        HttpHostile::RedirectLoop => {
            Some((StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, "/mcp")]).into_response())
        }
        HttpHostile::TruncatedSse if request && !initialize => Some(
            (
                [(header::CONTENT_TYPE, "text/event-stream")],
                Body::from("data: {\"jsonrpc\":\"2.0\",\"id\":"),
            )
                .into_response(),
        ),
        HttpHostile::EndlessStream if request && !initialize => {
            let never = futures::stream::pending::<Result<Event, Infallible>>();
            let alive = KeepAlive::new().interval(Duration::from_millis(100));
            Some(Sse::new(never).keep_alive(alive).into_response())
        }
        _ => None,
    }
}
