//! What taskcheck's Streamable HTTP servers share (the reference receivers', and the one client
//! receivers connect to): JSON and plain-text answers, SSE streams, and locks that survive a
//! panicked holder.

use axum::http::{header, StatusCode};
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
