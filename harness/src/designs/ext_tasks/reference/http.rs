//! The extension's reference receiver over Streamable HTTP (2026-07-28): stateless, no session,
//! one JSON answer per POST (a subscriptions/listen stream is its POST's SSE answer). It checks the request metadata headers against the body as the
//! transport requires (400 with -32020 HeaderMismatch when they are missing or differ) and
//! answers with the HTTP status the core revision gives each error; a request from a page of
//! another origin gets 403 (DNS rebinding).

use super::faults::{Fault, Faults};
use super::ExtReference;
use crate::reference::record::Recorder;
use crate::transport::http_server::{json_body, stream_of};
use crate::transport::routing::{self, METHOD_HEADER, NAME_HEADER, VERSION_HEADER};
use crate::wire::{self, code, Message};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::Sse;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;

/// HeaderMismatch.
const HEADER_MISMATCH: i64 = -32020;

/// Serves the extension's reference receiver at `http://ADDR/mcp`; the URL is the first line
/// of stdout.
pub async fn serve_http(
    faults: Faults,
    addr: SocketAddr,
    record: Option<Recorder>,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush()?;
    // answers go back on each POST; nothing is ever sent on its own
    let (out, _unused) = tokio::sync::mpsc::unbounded_channel();
    let server = ExtReference::new(faults, out);
    let app = Router::new()
        .route("/mcp", post(on_post))
        .with_state((server, record.map(Arc::new)));
    axum::serve(listener, app).await
}

/// Answers one POST, writing the request and its JSON answer down where `--record` asks.
async fn on_post(
    State((server, record)): State<(Arc<ExtReference>, Option<Arc<Recorder>>)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(record) = record else {
        return answer_post(&server, &headers, &body, None).await;
    };
    if let Ok(value) = serde_json::from_slice::<Value>(&body) {
        let routing = [METHOD_HEADER, NAME_HEADER, VERSION_HEADER]
            .into_iter()
            .filter_map(|n| Some((n.to_string(), headers.get(n)?.to_str().ok()?.to_string())))
            .collect();
        record.record_request(&value, routing);
    }
    answer_post(&server, &headers, &body, Some(&record)).await
}

async fn answer_post(
    server: &Arc<ExtReference>,
    headers: &HeaderMap,
    body: &Bytes,
    record: Option<&Recorder>,
) -> Response {
    if !crate::transport::http_server::local_origin(headers) {
        return (StatusCode::FORBIDDEN, "Origin not allowed").into_response();
    }
    let refuse = |code: i64, message: String| {
        let error = json!({"jsonrpc": "2.0", "id": null,
            "error": {"code": code, "message": message}});
        json_body(StatusCode::BAD_REQUEST, error)
    };
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return refuse(code::PARSE_ERROR, format!("Parse error: {e}")),
    };
    let message = match wire::classify(&value) {
        Ok(m) => m,
        Err(e) => return refuse(code::INVALID_REQUEST, e.to_string()),
    };
    let Message::Request { id, method, params } = message else {
        return StatusCode::ACCEPTED.into_response();
    };
    let answer = |status: StatusCode, outcome: Result<Value, Value>| {
        let body = match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        if let Some(r) = record {
            r.record_http(false, &body, None);
        }
        json_body(status, body)
    };
    let checked = !server.faults().has(Fault::AcceptsMismatchedHeaders);
    let strict = server.is(super::variants::Variant::StrictNames);
    let why = mismatch(headers, &value).or_else(|| strict.then(|| unnamed(headers, &value))?);
    if let Some(why) = why.filter(|_| checked) {
        let error = json!({"code": HEADER_MISMATCH, "message": format!("Header mismatch: {why}")});
        return answer(StatusCode::BAD_REQUEST, Err(error));
    }
    if server.opens_stream(&method, &params) {
        // the stream is the POST's SSE answer, open while the client holds it
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        server.listen(id, &params, tx);
        return Sse::new(stream_of(rx)).into_response();
    }
    let caller = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let outcome = server.answer(&method, &params, caller).await;
    let status = match outcome.as_ref().err().and_then(|e| e["code"].as_i64()) {
        Some(code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(super::MISSING_CAPABILITY) | Some(-32022) => StatusCode::BAD_REQUEST,
        // a request without its required _meta is malformed: 400 with -32602
        Some(code::INVALID_PARAMS) if !super::super::carries_request_meta(&params) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    };
    answer(status, outcome)
}

/// Under the strict-names variant: a request that names something (a tool, a task) without an
/// `Mcp-Name`, or whose body names it with no string.
fn unnamed(headers: &HeaderMap, body: &Value) -> Option<String> {
    let method = body.get("method").and_then(Value::as_str)?;
    // a request of an earlier revision calls for no metadata header
    if routing::headers_for(body).is_empty() {
        return None;
    }
    let field = match method {
        "tools/call" => "name",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    match (headers.get(NAME_HEADER), &body["params"][field]) {
        (None, _) => Some(format!("{NAME_HEADER} is missing")),
        (_, Value::String(_)) => None,
        (_, other) => Some(format!("the body's {field} is {other}, no string")),
    }
}

/// What is wrong with the request metadata headers of a body, if anything.
fn mismatch(headers: &HeaderMap, body: &Value) -> Option<String> {
    let expected = routing::headers_for(body);
    for name in [VERSION_HEADER, METHOD_HEADER, NAME_HEADER] {
        let want = expected.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        let got = headers.get(name).and_then(|v| v.to_str().ok());
        match (want, got) {
            (Some(_), None) => return Some(format!("{name} is missing")),
            (Some(w), Some(g)) if routing::decode(g) != routing::decode(w) => {
                return Some(format!("{name} is {g:?}, the body says {w:?}"))
            }
            _ => {}
        }
    }
    None
}
