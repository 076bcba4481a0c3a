//! Streamable HTTP served to a client receiver: taskcheck is the MCP server. Each expected
//! client gets its own endpoint URL (`/mcp/<token>`); its initialize POST opens the session,
//! which is handed over as a [`Connection`]. What taskcheck sends goes out on the client's GET
//! stream (kept a second for the client to open one; then the session ends); the answers to the client's own requests are the JSON
//! bodies of their POSTs; its responses and notifications are accepted with 202.

use super::http_server::{lock, plain};
use super::{Closure, Connection, Incoming, Outgoing, SESSION_HEADER};
use crate::wire::{self, Message};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::{mpsc, oneshot};

/// Messages kept for a client while it has no GET stream open.
const BACKLOG_LIMIT: usize = 1000;
/// How long messages may wait for the client's GET stream before the session ends.
const GET_STREAM_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The loopback server that client receivers connect to.
pub struct ClientServer {
    base: String,
    max_message: usize,
    /// Endpoint tokens whose first initialize is awaited.
    expected: Mutex<HashMap<String, oneshot::Sender<Connection>>>,
    sessions: Mutex<HashMap<String, Arc<Served>>>,
}

/// One client's session.
struct Served {
    incoming: mpsc::Sender<Incoming>,
    /// The client's requests waiting for taskcheck's answer, by id.
    waiting: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    /// The GET stream, or what waits for it: one lock, so nothing slips between the two.
    outbox: Mutex<Outbox>,
    /// Whether a message already waits for a GET stream since one was last opened (the client
    /// gets a grace period to open it, or open it again).
    awaits_stream: std::sync::atomic::AtomicBool,
}

impl Served {
    /// Sends one of taskcheck's messages: an answer to its POST, or on the GET stream.
    fn route(self: &Arc<Self>, msg: Value) {
        if msg.get("method").is_none() {
            let id = msg.get("id").map(Value::to_string).unwrap_or_default();
            if let Some(tx) = lock(&self.waiting).remove(&id) {
                let _ = tx.send(msg);
                return;
            }
        }
        let mut outbox = lock(&self.outbox);
        if let Some(stream) = &outbox.stream {
            if stream.send(msg.clone()).is_ok() {
                return;
            }
        }
        if outbox.backlog.len() >= BACKLOG_LIMIT {
            outbox.backlog.pop_front();
        }
        outbox.backlog.push_back(msg);
        drop(outbox);
        if !self
            .awaits_stream
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            // a client opens its GET stream just after initializing: give it a moment
            let served = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(GET_STREAM_GRACE).await;
                if lock(&served.outbox).stream.is_none() {
                    // not the client's fault under the spec (the GET stream is a MAY), but
                    // taskcheck has no other way to reach it: a transport error, no verdict
                    let why = "the client opened no GET stream, the only way taskcheck can send \
                               it requests (it POSTs nothing else to answer on)";
                    let _ = served
                        .incoming
                        .send(Incoming::Closed(Closure::broken(why)))
                        .await;
                }
            });
        }
    }
}

/// Where taskcheck's own messages to a client go.
#[derive(Default)]
struct Outbox {
    stream: Option<mpsc::UnboundedSender<Value>>,
    backlog: VecDeque<Value>,
}

/// Ends a session when its connection is dropped.
struct SessionEnd {
    server: Weak<ClientServer>,
    id: String,
}

impl Drop for SessionEnd {
    fn drop(&mut self) {
        if let Some(server) = self.server.upgrade() {
            lock(&server.sessions).remove(&self.id);
        }
    }
}

impl ClientServer {
    /// Starts serving on a free loopback port; `max_message` bounds a POST body.
    pub async fn start(max_message: usize) -> std::io::Result<Arc<ClientServer>> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let server = Arc::new(ClientServer {
            base: format!("http://{}/mcp", listener.local_addr()?),
            max_message,
            expected: Mutex::default(),
            sessions: Mutex::default(),
        });
        let app = Router::new()
            .route("/mcp/{token}", post(on_post).get(on_get).delete(on_delete))
            // bodies up to --max-line-bytes reach the decoder, which judges their size itself
            .layer(DefaultBodyLimit::max(max_message.saturating_add(1)))
            .with_state(server.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(server)
    }

    /// A new endpoint URL, and the connection of the client that initializes there.
    pub fn expect(&self) -> (String, oneshot::Receiver<Connection>) {
        let token = uuid::Uuid::new_v4().simple().to_string();
        let (tx, rx) = oneshot::channel();
        lock(&self.expected).insert(token.clone(), tx);
        (format!("{}/{token}", self.base), rx)
    }

    /// Opens the session of an initialize POST to `token`, handing its connection over.
    fn open(self: &Arc<Self>, token: &str) -> Option<(String, Arc<Served>)> {
        let accept = lock(&self.expected).remove(token)?;
        let (in_tx, in_rx) = mpsc::channel(1024);
        let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(64);
        let served = Arc::new(Served {
            incoming: in_tx,
            waiting: Mutex::default(),
            outbox: Mutex::default(),
            awaits_stream: Default::default(),
        });
        let id = uuid::Uuid::new_v4().to_string();
        let router = served.clone();
        tokio::spawn(async move {
            while let Some(out) = out_rx.recv().await {
                router.route(out.value());
            }
            // the session is over: unanswered POSTs and the GET stream end
            lock(&router.waiting).clear();
            lock(&router.outbox).stream.take();
        });
        let connection = Connection {
            outgoing: out_tx,
            incoming: in_rx,
            guard: Box::new(SessionEnd {
                server: Arc::downgrade(self),
                id: id.clone(),
            }),
            transport: "http",
            abandon: Box::new(|_| {}),
        };
        accept.send(connection).ok()?;
        lock(&self.sessions).insert(id.clone(), served.clone());
        Some((id, served))
    }

    fn session(&self, headers: &HeaderMap) -> Option<Arc<Served>> {
        let id = headers.get(SESSION_HEADER)?.to_str().ok()?;
        lock(&self.sessions).get(id).cloned()
    }
}

async fn on_post(
    State(server): State<Arc<ClientServer>>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let decoded = wire::decode(&body, server.max_message);
    let initialize =
        matches!(&decoded, Ok((_, Message::Request { method, .. })) if method == "initialize");
    let (new_id, served) = match (initialize, server.session(&headers)) {
        (_, Some(s)) => (None, s),
        (true, None) => match server.open(&token) {
            Some((id, s)) => (Some(id), s),
            None => return plain(StatusCode::NOT_FOUND, "no client is expected at this URL"),
        },
        (false, None) => return plain(StatusCode::NOT_FOUND, "unknown or missing Mcp-Session-Id"),
    };
    let (value, message) = match decoded {
        Ok(m) => m,
        Err(error) => {
            let raw = crate::trace::preview(&String::from_utf8_lossy(&body), 200);
            let _ = served.incoming.send(Incoming::Invalid { raw, error }).await;
            return plain(StatusCode::BAD_REQUEST, "not a JSON-RPC message");
        }
    };
    let answer = match &message {
        Message::Request { id, .. } => {
            let (tx, rx) = oneshot::channel();
            lock(&served.waiting).insert(id.to_string(), tx);
            Some(rx)
        }
        _ => None,
    };
    // not "POST ...": the client sent it, no answer stream of taskcheck's carried it
    let via = Some("client POST".to_string());
    if served
        .incoming
        .send(Incoming::message(value, message, via))
        .await
        .is_err()
    {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "the session is over");
    }
    let Some(answer) = answer else {
        return StatusCode::ACCEPTED.into_response();
    };
    let mut response = match answer.await {
        Ok(msg) => (
            [(header::CONTENT_TYPE, "application/json")],
            msg.to_string(),
        )
            .into_response(),
        Err(_) => plain(StatusCode::SERVICE_UNAVAILABLE, "the session is over"),
    };
    if let Some(id) = new_id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

async fn on_get(State(server): State<Arc<ClientServer>>, headers: HeaderMap) -> Response {
    let Some(served) = server.session(&headers) else {
        return plain(StatusCode::NOT_FOUND, "unknown or missing Mcp-Session-Id");
    };
    let (tx, rx) = mpsc::unbounded_channel::<Value>();
    let mut outbox = lock(&served.outbox);
    for msg in outbox.backlog.drain(..) {
        let _ = tx.send(msg);
    }
    outbox.stream = Some(tx);
    drop(outbox);
    // should this stream close too, what waits for the next one gets its own grace period
    served
        .awaits_stream
        .store(false, std::sync::atomic::Ordering::Relaxed);
    let events = futures::stream::unfold(rx, |mut rx| async move {
        let msg = rx.recv().await?;
        Some((
            Ok::<_, Infallible>(Event::default().data(msg.to_string())),
            rx,
        ))
    });
    Sse::new(events).into_response()
}

async fn on_delete(State(server): State<Arc<ClientServer>>, headers: HeaderMap) -> Response {
    let Some(served) = server.session(&headers) else {
        return plain(StatusCode::NOT_FOUND, "unknown or missing Mcp-Session-Id");
    };
    let why = "the client ended its HTTP session (DELETE)".to_string();
    let _ = served
        .incoming
        .send(Incoming::Closed(Closure::gone(why)))
        .await;
    StatusCode::OK.into_response()
}
