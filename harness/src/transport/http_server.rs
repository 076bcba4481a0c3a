//! What taskcheck's two Streamable HTTP servers share (the reference receiver's, and the one
//! client receivers connect to): plain-text answers and locks that survive a panicked holder.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::{Mutex, MutexGuard};

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
