//! The reference receiver over Streamable HTTP: one receiver (and task store) per session,
//! JSON answers for polls, SSE streams for tools/call and tasks/result (resumable: a client that
//! loses one gets its response on a GET with the priming event's id as Last-Event-ID), and a
//! GET stream for what the receiver sends on its own (which carries a task's requests to the
//! client whenever it is open). With `--record` it writes the conversation down, each message
//! it sent with the stream it went on.

use super::faults::{Fault, Faults};
use super::{Reference, Store};
use crate::reference::http_hostile::{self, HttpHostile};
use crate::reference::record::Recorder;
use crate::spec::PROTOCOL_VERSION;
use crate::transport::http::{VIA_GET, VIA_POST_JSON, VIA_POST_SSE};
use crate::transport::http_server::{json_body, local_origin, lock, plain, sse_frames};
use crate::transport::SESSION_HEADER;
use crate::wire::{self, Message};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

use crate::transport::routing::VERSION_HEADER;
/// Receiver messages kept for a session while no stream can carry them.
const BACKLOG_LIMIT: usize = 1000;
/// POST streams a session keeps resumable at most.
const RESUMABLE_LIMIT: usize = 1000;
/// How long a client waits before it resumes a POST stream, in ms (the priming event's `retry`).
const RESUME_RETRY_MS: u64 = 500;
/// The official conformance suite's tool that has the server end a stream mid-call.
const RECONNECTION_TOOL: &str = "test_reconnection";

struct Server {
    faults: Faults,
    hostile: Option<HttpHostile>,
    json_only: bool,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// Under the shared-task-store fault, the one store of every session.
    shared_store: Option<Arc<Mutex<Store>>>,
    /// Set when a session ends under the session-end-stops-tasks fault: every session's task
    /// support stops.
    support_stopped: Arc<AtomicBool>,
    /// Where `--record` writes the conversation.
    record: Option<Arc<Recorder>>,
}

/// Where one stream's messages are recorded, and how they went.
type Recording = Option<(Arc<Recorder>, &'static str)>;

impl Server {
    fn recording(&self, via: &'static str) -> Recording {
        self.record.clone().map(|r| (r, via))
    }
}

type Outbox = mpsc::UnboundedSender<Value>;

struct HttpSession {
    reference: Arc<Reference>,
    /// Streams (or JSON answers) waiting for the response to a request id.
    waiting: Mutex<HashMap<String, Outbox>>,
    /// Open SSE streams that may carry the receiver's own messages, the GET stream first.
    streams: Mutex<Vec<Outbox>>,
    backlog: Mutex<VecDeque<Value>>,
    /// The POST streams a client may resume with a GET and Last-Event-ID, by stream number.
    resumable: Mutex<HashMap<u64, Resumable>>,
    next_stream: std::sync::atomic::AtomicU64,
}

/// A POST stream's request, and its response if it came after the client left the stream.
struct Resumable {
    request: String,
    orphan: Option<Value>,
}

impl HttpSession {
    /// Sends one outgoing message on the right stream.
    fn route(&self, msg: Value) {
        let is_response = msg.get("method").is_none();
        if is_response {
            let id = msg.get("id").map(Value::to_string).unwrap_or_default();
            if let Some(tx) = lock(&self.waiting).remove(&id) {
                lock(&self.streams).retain(|s| !s.same_channel(&tx));
                let delivered = tx.send(msg).map_err(|unsent| unsent.0);
                // a response whose stream is gone waits for the client to resume it
                let mut resumable = lock(&self.resumable);
                let stream = resumable
                    .iter()
                    .find(|(_, r)| r.request == id)
                    .map(|(n, _)| *n);
                match (stream, delivered) {
                    (Some(n), Err(msg)) => {
                        if let Some(r) = resumable.get_mut(&n) {
                            r.orphan = Some(msg)
                        }
                    }
                    (Some(n), Ok(())) => drop(resumable.remove(&n)),
                    (None, _) => {}
                }
            }
            return;
        }
        // streams, then backlog, as open_stream locks them: a stream opening now drains what
        // is kept here, never before it
        let mut streams = lock(&self.streams);
        streams.retain(|s| !s.is_closed());
        if let Some(first) = streams.first() {
            if first.send(msg.clone()).is_ok() {
                return;
            }
        }
        let mut backlog = lock(&self.backlog);
        if backlog.len() >= BACKLOG_LIMIT {
            backlog.pop_front();
        }
        backlog.push_back(msg);
    }

    /// Numbers a new POST stream answering `request`, which a client may resume.
    fn resumable_stream(&self, request: String) -> u64 {
        let n = self
            .next_stream
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut resumable = lock(&self.resumable);
        if resumable.len() >= RESUMABLE_LIMIT {
            let oldest = resumable.keys().min().copied();
            oldest.map(|k| resumable.remove(&k));
        }
        resumable.insert(
            n,
            Resumable {
                request,
                orphan: None,
            },
        );
        n
    }

    /// Resumes the POST stream a Last-Event-ID names: its response if it already came, else a
    /// stream that carries it when it does. None if no such stream is resumable.
    fn resume(&self, last_event_id: &str) -> Option<mpsc::UnboundedReceiver<Value>> {
        let n: u64 = last_event_id.split('-').next()?.parse().ok()?;
        let mut resumable = lock(&self.resumable);
        let entry = resumable.get_mut(&n)?;
        let (tx, rx) = mpsc::unbounded_channel();
        match entry.orphan.take() {
            Some(response) => {
                resumable.remove(&n);
                let _ = tx.send(response);
            }
            None => {
                lock(&self.waiting).insert(entry.request.clone(), tx);
            }
        }
        Some(rx)
    }

    /// A new stream for the receiver's own messages; the GET stream goes first.
    fn open_stream(&self, tx: &Outbox, first: bool) {
        let mut streams = lock(&self.streams);
        for msg in lock(&self.backlog).drain(..) {
            let _ = tx.send(msg);
        }
        if first {
            streams.insert(0, tx.clone());
        } else {
            streams.push(tx.clone());
        }
    }
}

/// How the HTTP reference answers: JSON only, or hostile.
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpOptions {
    /// Every request answered with one JSON body (no SSE streams on POST).
    pub json_only: bool,
    /// Break the transport on purpose.
    pub hostile: Option<HttpHostile>,
}

/// Serves the reference receiver over Streamable HTTP at `addr` until stopped; prints the
/// endpoint URL as the first line of stdout.
pub async fn serve_http(
    faults: Faults,
    addr: SocketAddr,
    options: HttpOptions,
    record: Option<Recorder>,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    println!("http://{bound}/mcp");
    use std::io::Write;
    std::io::stdout().flush()?;
    let shared_store = faults
        .has(Fault::SharedTaskStore)
        .then(|| Reference::new_store(&faults));
    let server = Arc::new(Server {
        faults,
        hostile: options.hostile,
        json_only: options.json_only,
        sessions: Mutex::default(),
        shared_store,
        support_stopped: Arc::default(),
        record: record.map(Arc::new),
    });
    use axum::serve::ListenerExt;
    // answers are small and many: never let Nagle hold one back
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Router::new()
        .route("/mcp", post(on_post).get(on_get).delete(on_delete))
        .with_state(server);
    // Ctrl-C is handled by the command line, which stops the process (exit 130)
    axum::serve(listener, app).await
}

/// Why a request is turned away: an HTTP status and a short text.
type Refusal = (StatusCode, String);

/// Checks what every request must carry: a local Origin, a known protocol version.
fn check_common(headers: &HeaderMap) -> Result<(), Refusal> {
    if !local_origin(headers) {
        return Err((StatusCode::FORBIDDEN, "Origin not allowed".into()));
    }
    match headers
        .get(VERSION_HEADER)
        .map(|v| v.to_str().unwrap_or(""))
    {
        None | Some(PROTOCOL_VERSION) => Ok(()),
        Some(other) => Err((
            StatusCode::BAD_REQUEST,
            format!("unsupported MCP-Protocol-Version {other:?}"),
        )),
    }
}

fn session_of(server: &Server, headers: &HeaderMap) -> Result<Arc<HttpSession>, Refusal> {
    let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return Err((StatusCode::BAD_REQUEST, "missing Mcp-Session-Id".into()));
    };
    lock(&server.sessions)
        .get(id)
        .cloned()
        .ok_or_else(|| (StatusCode::NOT_FOUND, "unknown or ended session".into()))
}

fn accepts(headers: &HeaderMap, kind: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains(kind) || v.contains("*/*"))
}

fn new_session(server: &Server) -> (String, Arc<HttpSession>) {
    let (out, mut rx) = mpsc::unbounded_channel();
    let store = match &server.shared_store {
        Some(store) => store.clone(),
        None => Reference::new_store(&server.faults),
    };
    let reference = Reference::in_server(
        server.faults.clone(),
        out,
        store,
        server.support_stopped.clone(),
    );
    let session = Arc::new(HttpSession {
        reference,
        waiting: Mutex::default(),
        streams: Mutex::default(),
        backlog: Mutex::default(),
        resumable: Mutex::default(),
        next_stream: Default::default(),
    });
    let router = Arc::downgrade(&session);
    tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            match router.upgrade() {
                Some(s) => s.route(msg),
                None => return,
            }
        }
    });
    let id = uuid::Uuid::new_v4().to_string();
    lock(&server.sessions).insert(id.clone(), session.clone());
    (id, session)
}

async fn on_post(State(server): State<Arc<Server>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(r) = check_common(&headers) {
        return r.into_response();
    }
    if !(accepts(&headers, "application/json") && accepts(&headers, "text/event-stream")) {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list application/json and text/event-stream",
        );
    }
    let message = match wire::decode(&body, crate::reference::MAX_LINE) {
        Ok((_, m)) => m,
        Err(e) => {
            let error = super::decode_answer(&server.faults, &body, &e);
            return json_body(StatusCode::BAD_REQUEST, error);
        }
    };
    if let (Some(r), Ok(value)) = (&server.record, serde_json::from_slice::<Value>(&body)) {
        // with the protocol version header it came with, which every POST after the
        // initialize must carry
        let version = headers.get(VERSION_HEADER).and_then(|v| v.to_str().ok());
        let carried = version.map(|v| (VERSION_HEADER.to_string(), v.to_string()));
        r.record_request(&value, carried.into_iter().collect());
    }
    if let Some(hostile) = server
        .hostile
        .and_then(|h| http_hostile::intercept(h, &message))
    {
        return hostile;
    }
    let (session_id, session) = match &message {
        Message::Request { method, .. } if method == "initialize" => {
            let (id, s) = new_session(&server);
            (Some(id), s)
        }
        _ => match session_of(&server, &headers) {
            Ok(s) => (None, s),
            Err(r) => return r.into_response(),
        },
    };
    let Message::Request { id, method, params } = message else {
        session.reference.receive(message);
        return StatusCode::ACCEPTED.into_response();
    };
    if method == "tools/call" && params["name"] == RECONNECTION_TOOL && !server.json_only {
        return reconnection(&session, &id);
    }
    let (tx, rx) = mpsc::unbounded_channel();
    lock(&session.waiting).insert(id.to_string(), tx.clone());
    let sse = !server.json_only
        && (matches!(method.as_str(), "tools/call" | "tasks/result")
            || (method == "tasks/get" && server.faults.has(Fault::GetOverSse)));
    let task_id = params
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let waits_for_result = method == "tasks/result";
    let stream = sse.then(|| session.resumable_stream(id.to_string()));
    session
        .reference
        .receive(Message::Request { id, method, params });
    let mut response = if sse {
        session.open_stream(&tx, false);
        let cancel = (waits_for_result && server.faults.has(Fault::CancelOnDisconnect))
            .then(|| task_id.map(|t| (session.reference.clone(), t)))
            .flatten();
        request_stream(rx, cancel, stream, server.recording(VIA_POST_SSE))
    } else {
        json_answer(rx, server.recording(VIA_POST_JSON)).await
    };
    if let Some(id) = session_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

/// Waits for the response and sends it as one JSON body.
async fn json_answer(mut rx: mpsc::UnboundedReceiver<Value>, record: Recording) -> Response {
    while let Some(msg) = rx.recv().await {
        if msg.get("method").is_none() {
            recorded(&record, &msg);
            return (
                [(header::CONTENT_TYPE, "application/json")],
                msg.to_string(),
            )
                .into_response();
        }
    }
    plain(StatusCode::INTERNAL_SERVER_ERROR, "the receiver stopped")
}

/// Under the cancel-on-disconnect fault: cancels the task if the stream is dropped unanswered.
struct DropCancels {
    task: Option<(Arc<Reference>, String)>,
    answered: bool,
}

impl Drop for DropCancels {
    fn drop(&mut self) {
        if let (false, Some((reference, task))) = (self.answered, &self.task) {
            reference.cancel_now(task);
        }
    }
}

/// The official conformance suite's `test_reconnection`: the server ends the stream after its
/// priming event, and the result waits for the client to resume it (a tool of the transport,
/// not of the fixture contract).
fn reconnection(session: &HttpSession, id: &Value) -> Response {
    let n = session.resumable_stream(id.to_string());
    let result = json!({"content": [{"type": "text", "text": "reconnected"}], "isError": false});
    if let Some(r) = lock(&session.resumable).get_mut(&n) {
        r.orphan = Some(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
    sse_frames(futures::stream::iter([priming(n)]))
}

/// Records a message the receiver sends, where `--record` asks.
fn recorded(record: &Recording, msg: &Value) {
    if let Some((r, via)) = record {
        r.record_http(false, msg, Some(via));
    }
}

/// The priming event of POST stream `n`: its id, a `retry`, empty data.
fn priming(n: u64) -> String {
    format!("id: {n}-0\nretry: {RESUME_RETRY_MS}\ndata: \n\n")
}

/// An SSE stream carrying messages until the request's response, which ends it. A numbered
/// stream opens with a priming event (its id, a `retry`, empty data), so a client that loses
/// it can resume it with that id as Last-Event-ID.
fn request_stream(
    rx: mpsc::UnboundedReceiver<Value>,
    cancel: Option<(Arc<Reference>, String)>,
    number: Option<u64>,
    record: Recording,
) -> Response {
    let guard = DropCancels {
        task: cancel,
        answered: false,
    };
    let priming = number.map(priming);
    let state = (rx, guard, record);
    let messages = futures::stream::unfold(state, |(mut rx, mut guard, record)| async move {
        if guard.answered {
            return None;
        }
        let msg = rx.recv().await?;
        guard.answered = msg.get("method").is_none();
        recorded(&record, &msg);
        Some((format!("data: {msg}\n\n"), (rx, guard, record)))
    });
    sse_frames(futures::StreamExt::chain(
        futures::stream::iter(priming),
        messages,
    ))
}

async fn on_get(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if let Err(r) = check_common(&headers) {
        return r.into_response();
    }
    if !accepts(&headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list text/event-stream",
        );
    }
    let session = match session_of(&server, &headers) {
        Ok(s) => s,
        Err(r) => return r.into_response(),
    };
    let last = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    if let Some(rx) = last.and_then(|id| session.resume(id)) {
        return request_stream(rx, None, None, server.recording(VIA_GET));
    }
    let (tx, rx) = mpsc::unbounded_channel();
    session.open_stream(&tx, true);
    // no response comes on it, so it stays open until the client leaves
    request_stream(rx, None, None, server.recording(VIA_GET))
}

async fn on_delete(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if let Err(r) = check_common(&headers) {
        return r.into_response();
    }
    let id = headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    match lock(&server.sessions).remove(id) {
        Some(_) => {
            if server.faults.has(Fault::SessionEndStopsTasks) {
                server.support_stopped.store(true, Ordering::Relaxed);
            }
            StatusCode::OK.into_response()
        }
        None => plain(StatusCode::NOT_FOUND, "unknown or ended session"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_from_other_origins_are_refused() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://evil.example"),
        );
        assert!(check_common(&h).is_err());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:9"),
        );
        assert!(check_common(&h).is_ok());
    }
}
