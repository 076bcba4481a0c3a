//! `taskcheck watch --listen ADDR --upstream URL`: a Streamable HTTP reverse proxy. Every
//! request to any path of ADDR goes to URL with its method, headers and body, and every answer
//! comes back with its status, headers and body, an SSE stream passed on event by event as it
//! comes. Each message body is also recorded (headers never are: credentials stay out of the
//! trace), by session (`Mcp-Session-Id`; traffic without one is one conversation), off the
//! relay's path, for judging once the proxy stops.

use crate::trace::{Direction, Entry, Trace};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Largest request body the proxy reads (Streamable HTTP requests are single messages).
const MAX_REQUEST: usize = 8 << 20;
/// Largest SSE event recorded; a larger one is still relayed.
const MAX_EVENT: usize = 8 << 20;
/// The session header of Streamable HTTP.
const SESSION: &str = "mcp-session-id";
/// The conversation of the traffic that names no session (stateless servers).
const STATELESS: &str = "stateless";
/// Headers that belong to one hop, never forwarded.
const HOP: [&str; 6] = [
    "host",
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
    "upgrade",
];

/// When the proxy stops: after `sessions` sessions ended (a DELETE), or `idle` without a
/// request, or on Ctrl-C, whichever comes first.
pub struct Stop {
    pub sessions: Option<usize>,
    pub idle: Option<Duration>,
}

/// The conversations recorded, by key, in the order they began.
#[derive(Default)]
struct Conversations {
    traces: Vec<(String, Trace)>,
}

impl Conversations {
    /// The trace of a session (`key`), begun if new.
    fn of(&mut self, key: &str) -> Trace {
        if let Some((_, t)) = self.traces.iter().find(|(k, _)| k == key) {
            return t.clone();
        }
        let trace = Trace::new("http");
        self.traces.push((key.to_string(), trace.clone()));
        trace
    }

    /// Where a request is recorded as it is sent, before its answer: its session's trace, or
    /// (a request without a session, which may open one) a trace of its own that
    /// [`Conversations::settle`] files once the answer says which it was.
    fn for_request(&mut self, session: Option<&str>) -> (Trace, bool) {
        match session {
            Some(id) => (self.of(id), false),
            None => (Trace::new("http"), true),
        }
    }

    /// Files a trace of its own under the session its answer opened, or in the conversation
    /// of the traffic without sessions; the trace to record the answer in.
    fn settle(&mut self, own: Trace, opened: Option<&str>) -> Trace {
        let key = opened.unwrap_or(STATELESS);
        match self.traces.iter().find(|(k, _)| k == key) {
            // a conversation under that name already (the stateless one): what was recorded
            // joins it, the request before its answer
            Some((_, existing)) => {
                for e in own.entries() {
                    existing.record(e.dir, e.message, e.text.as_deref());
                }
                existing.clone()
            }
            None => {
                self.traces.push((key.to_string(), own.clone()));
                own
            }
        }
    }
}

/// The proxy's state: where requests go, what it recorded, and what decides when it stops.
struct Proxy {
    upstream: reqwest::Url,
    client: reqwest::Client,
    conversations: Mutex<Conversations>,
    /// When the last request came (`--idle-exit`).
    last_request: Mutex<Instant>,
    /// Sessions ended by a DELETE (`--sessions`), and a wake-up when one more did.
    ended: AtomicUsize,
    changed: tokio::sync::Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records a body as one entry: a JSON message, or text.
fn record(trace: &Trace, dir: Direction, body: &[u8]) {
    let text = String::from_utf8_lossy(body);
    if text.trim().is_empty() {
        return;
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(message) => trace.record(dir, Some(message), None),
        Err(_) => trace.record(dir, None, Some(&text)),
    };
}

/// The headers to send on: all but the hop-by-hop ones.
fn forwarded(headers: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    for (name, value) in headers {
        if !HOP.contains(&name.as_str()) {
            out.append(name.clone(), value.clone());
        }
    }
    out
}

/// Forwards one request and relays its answer.
async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    *lock(&proxy.last_request) = Instant::now();
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_REQUEST).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            "taskcheck watch: request too large",
        )
            .into_response();
    };
    let session = parts
        .headers
        .get(SESSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    // recorded as sent, so that what the upstream says meanwhile on another stream (a status
    // notification) comes after it, as it did
    let (trace, own) = lock(&proxy.conversations).for_request(session.as_deref());
    record(&trace, Direction::Out, &body);
    let mut url = proxy.upstream.clone();
    if let Some(query) = parts.uri.query() {
        url.set_query(Some(query));
    }
    let sent = proxy
        .client
        .request(parts.method.clone(), url)
        .headers(forwarded(&parts.headers))
        .body(body.clone())
        .send()
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(e) => {
            let why = format!("taskcheck watch: the upstream did not answer: {e}");
            trace.record(Direction::In, None, Some(&why));
            return (StatusCode::BAD_GATEWAY, why).into_response();
        }
    };
    if parts.method == axum::http::Method::DELETE && answer.status().is_success() {
        proxy.ended.fetch_add(1, Ordering::Relaxed);
        proxy.changed.notify_one();
    }
    // a request of its own is filed under the session its answer opens (an initialize), or
    // else as the conversation of the traffic without sessions
    let opened = answer.headers().get(SESSION).and_then(|v| v.to_str().ok());
    let trace = match own {
        true => lock(&proxy.conversations).settle(trace, opened),
        false => trace,
    };
    let status = answer.status();
    let headers = forwarded(answer.headers());
    let stream = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let body = match stream {
        true => Body::from_stream(teed(answer, trace)),
        false => match answer.bytes().await {
            Ok(bytes) => {
                record(&trace, Direction::In, &bytes);
                Body::from(bytes)
            }
            Err(e) => {
                let why = format!("taskcheck watch: the upstream's answer broke off: {e}");
                return (StatusCode::BAD_GATEWAY, why).into_response();
            }
        },
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// An SSE answer's bytes, passed on as they come; a copy goes to a recorder that reads its
/// events and records each `data`, so recording never holds the stream back.
fn teed(
    answer: reqwest::Response,
    trace: Trace,
) -> impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> {
    let (copy, copies) = tokio::sync::mpsc::unbounded_channel::<Result<bytes::Bytes, String>>();
    tokio::spawn(async move {
        let chunks = tokio_stream_of(copies);
        let mut events = crate::transport::sse::events(Box::pin(chunks), MAX_EVENT);
        while let Some(Ok(event)) = events.next().await {
            record(&trace, Direction::In, event.data.as_bytes());
        }
    });
    answer.bytes_stream().map(move |chunk| {
        let copied = match &chunk {
            Ok(bytes) => Ok(bytes.clone()),
            Err(e) => Err(e.to_string()),
        };
        let _ = copy.send(copied);
        chunk.map_err(std::io::Error::other)
    })
}

/// The items of a channel, as a stream.
fn tokio_stream_of<T: Send + 'static>(
    rx: tokio::sync::mpsc::UnboundedReceiver<T>,
) -> impl futures::Stream<Item = T> {
    futures::stream::unfold(rx, |mut rx| async move { Some((rx.recv().await?, rx)) })
}

/// Serves the proxy on `listen` (its URL printed on stdout, first) until it stops as `stop`
/// says; returns every message recorded, each tagged with its conversation.
pub async fn run(
    listen: SocketAddr,
    upstream: reqwest::Url,
    stop: Stop,
) -> Result<Vec<Entry>, String> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    println!("http://{bound}/mcp");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // a redirect is the client's to follow, not the proxy's: it is passed back as it came
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let proxy = Arc::new(Proxy {
        upstream,
        client,
        conversations: Mutex::default(),
        last_request: Mutex::new(Instant::now()),
        ended: AtomicUsize::new(0),
        changed: tokio::sync::Notify::new(),
    });
    let app = axum::Router::new()
        .fallback(forward)
        .with_state(proxy.clone());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    stopped(&proxy, &stop).await;
    // open streams (a GET stream a client holds) end with the proxy
    server.abort();
    let conversations = std::mem::take(&mut *lock(&proxy.conversations));
    Ok(conversations
        .traces
        .into_iter()
        .flat_map(|(key, trace)| {
            trace.entries().into_iter().map(move |e| Entry {
                scenario: Some(key.clone()),
                ..e
            })
        })
        .collect())
}

/// Waits until the proxy should stop.
async fn stopped(proxy: &Proxy, stop: &Stop) {
    let sessions = async {
        loop {
            let ended = proxy.ended.load(Ordering::Relaxed);
            if stop.sessions.is_some_and(|n| ended >= n) {
                return;
            }
            proxy.changed.notified().await;
        }
    };
    let idle = async {
        let Some(idle) = stop.idle else {
            return std::future::pending().await;
        };
        loop {
            let since = lock(&proxy.last_request).elapsed();
            if since >= idle {
                return;
            }
            tokio::time::sleep(idle - since).await;
        }
    };
    tokio::select! {
        _ = sessions => {}
        _ = idle => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
