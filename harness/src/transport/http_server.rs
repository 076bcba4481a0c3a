//! What taskcheck's Streamable HTTP servers share (the reference receivers', and the one client
//! receivers connect to): JSON and plain-text answers, SSE streams, and locks that survive a
//! panicked holder.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use futures::Stream;
use serde_json::Value;
use std::convert::Infallible;
use std::sync::{Mutex, MutexGuard};
use tokio::sync::mpsc;

/// Locks a mutex, taking its value even if a holder panicked (a session must not die of it).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A JSON answer with a status.
pub fn json_body(status: StatusCode, body: serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// A plain-text answer with a status.
pub fn plain(status: StatusCode, text: &str) -> Response {
    (status, text.to_string()).into_response()
}

/// An SSE answer of frames written as given: axum's `Event` cannot carry the empty `data` of
/// a priming event.
pub fn sse_frames(frames: impl Stream<Item = String> + Send + 'static) -> Response {
    let body = axum::body::Body::from_stream(futures::StreamExt::map(frames, Ok::<_, Infallible>));
    let headers = [
        (header::CONTENT_TYPE, "text/event-stream"),
        (header::CACHE_CONTROL, "no-cache"),
    ];
    (headers, body).into_response()
}

/// An SSE stream of every message sent on `rx`, open until the client leaves.
pub fn stream_of(
    rx: mpsc::UnboundedReceiver<Value>,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold(rx, |mut rx| async move {
        let msg = rx.recv().await?;
        Some((Ok(Event::default().data(msg.to_string())), rx))
    })
}

/// Whether a request comes from a local page, or from no page at all (no Origin): what a
/// server on loopback accepts, against DNS rebinding.
pub fn local_origin(headers: &HeaderMap) -> bool {
    headers.get(header::ORIGIN).is_none_or(|origin| {
        let origin = origin.to_str().unwrap_or("");
        matches!(origin_host(origin), "localhost" | "127.0.0.1" | "[::1]")
    })
}

/// The host of an Origin (`http://[::1]:8080` -> `[::1]`).
fn origin_host(origin: &str) -> &str {
    let rest = origin.split_once("://").map(|(_, r)| r).unwrap_or(origin);
    let authority = rest.split('/').next().unwrap_or("");
    match authority.find(']') {
        Some(end) if authority.starts_with('[') => &authority[..=end],
        _ => authority.split(':').next().unwrap_or(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_judged_by_host() {
        assert_eq!(origin_host("http://localhost:3000"), "localhost");
        assert_eq!(origin_host("http://[::1]:8080/x"), "[::1]");
        assert_eq!(origin_host("https://evil.example"), "evil.example");
        let mut h = HeaderMap::new();
        assert!(local_origin(&h), "no Origin is no page");
        h.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!local_origin(&h));
        h.insert(header::ORIGIN, "http://127.0.0.1:9".parse().unwrap());
        assert!(local_origin(&h));
    }
}
