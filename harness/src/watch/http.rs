//! `taskcheck watch --listen ADDR --upstream URL`: a Streamable HTTP reverse proxy. Every
//! request to any path of ADDR goes to URL with its method, headers and body, and every answer
//! comes back with its status, headers and body, an SSE stream passed on event by event as it
//! comes. Each message body is also recorded, before it goes on, with the version and routing
//! headers of a request (no other header is: credentials stay out of the trace), by session
//! (`Mcp-Session-Id`) or, for traffic without one, by client, for judging once the proxy stops.

use crate::reference::record::ENDED;
use crate::requestor::watched::{COMMAND_ENDED, QUIET};
use crate::trace::{Direction, Entry, Trace};
use crate::transport::http::{VIA_GET, VIA_POST_JSON, VIA_POST_SSE};
use crate::transport::routing::{METHOD_HEADER, NAME_HEADER, VERSION_HEADER};
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;
use std::collections::BTreeMap;
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
/// The request headers recorded with a message (what the requestor rules read); no other
/// header is, so credentials never reach a trace.
const RECORDED: [&str; 3] = [VERSION_HEADER, METHOD_HEADER, NAME_HEADER];
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
/// request, or once `command` says the command it served ended (`watch --exec`), or on
/// Ctrl-C, whichever comes first.
pub struct Stop {
    pub sessions: Option<usize>,
    pub idle: Option<Duration>,
    pub command: Option<tokio::sync::watch::Receiver<bool>>,
}

/// The proxy's state: where requests go, what it recorded, and what decides when it stops.
struct Proxy {
    upstream: reqwest::Url,
    client: reqwest::Client,
    conversations: Mutex<super::conversations::Conversations>,
    /// When the last request came (`--idle-exit`).
    last_request: Mutex<Instant>,
    /// Sessions ended by a DELETE (`--sessions`), and a wake-up when one more did.
    ended: AtomicUsize,
    changed: tokio::sync::Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records a body as one entry: a JSON message, or text; an answer with how it came.
fn record(trace: &Trace, dir: Direction, body: &[u8], via: Option<&str>) {
    let text = String::from_utf8_lossy(body);
    if text.trim().is_empty() {
        return;
    }
    let via = via.map(str::to_string);
    match serde_json::from_slice::<Value>(body) {
        Ok(message) => trace.record_via(dir, Some(message), None, via),
        Err(_) => trace.record_via(dir, None, Some(&text), via),
    };
}

/// Records a request's body with the request metadata headers it carried.
fn record_request(trace: &Trace, body: &[u8], headers: &HeaderMap) {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return record(trace, Direction::Out, body, None);
    };
    let carried: BTreeMap<String, String> = RECORDED
        .into_iter()
        .filter_map(|n| Some((n.to_string(), headers.get(n)?.to_str().ok()?.to_string())))
        .collect();
    trace.record_headed(Direction::Out, message, carried);
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
async fn forward(
    State(proxy): State<Arc<Proxy>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
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
    record_request(&trace, &body, &parts.headers);
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
        // the client ended its session: the trace says so, as a requestor's recording does
        if let Some(id) = &session {
            trace.record(Direction::Out, None, Some(ENDED));
            lock(&proxy.conversations).end(id);
        }
        proxy.ended.fetch_add(1, Ordering::Relaxed);
        proxy.changed.notify_one();
    }
    let get = parts.method == axum::http::Method::GET;
    // a request of its own is filed under the session its answer opens (an initialize), or
    // else as the conversation of the traffic without sessions
    let opened = answer.headers().get(SESSION).and_then(|v| v.to_str().ok());
    let trace = match own {
        true => lock(&proxy.conversations).settle(trace, opened, peer),
        false => trace,
    };
    let status = answer.status();
    let headers = forwarded(answer.headers());
    let stream = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let body = match stream {
        true => Body::from_stream(teed(
            answer,
            trace,
            if get { VIA_GET } else { VIA_POST_SSE },
        )),
        false => match answer.bytes().await {
            Ok(bytes) => {
                record(&trace, Direction::In, &bytes, Some(VIA_POST_JSON));
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

/// An SSE answer's bytes, passed on as they come; the events each chunk completes are
/// recorded before the chunk goes on, so an answer the client sends to one of them (an
/// elicitation's result, POSTed at once) is never recorded first.
fn teed(
    answer: reqwest::Response,
    trace: Trace,
    via: &'static str,
) -> impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> {
    use futures::FutureExt;
    // the parser reads what the channel holds, and has read all of it once it waits
    let (copy, copies) = futures::channel::mpsc::unbounded::<Result<bytes::Bytes, String>>();
    let mut events = crate::transport::sse::events(copies, MAX_EVENT);
    answer.bytes_stream().map(move |chunk| {
        let copied = match &chunk {
            Ok(bytes) => Ok(bytes.clone()),
            Err(e) => Err(e.to_string()),
        };
        let _ = copy.unbounded_send(copied);
        while let Some(Some(Ok(event))) = events.next().now_or_never() {
            record(&trace, Direction::In, event.data.as_bytes(), Some(via));
        }
        chunk.map_err(std::io::Error::other)
    })
}

/// Why the proxy stopped.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Stopped {
    /// `--sessions` sessions ended.
    Sessions,
    /// `--idle-exit` passed without a request: every client was that long quiet.
    Idle,
    /// SIGINT or SIGTERM.
    Signal,
    /// The command the proxy served ended (`watch --exec`).
    Command,
}

impl Stopped {
    /// Why, in words.
    pub fn said(self) -> &'static str {
        match self {
            Stopped::Sessions => "the sessions asked for ended",
            Stopped::Idle => "no request came for the time --idle-exit gives",
            Stopped::Signal => "a signal",
            Stopped::Command => "the command it served ended",
        }
    }
}

/// What the proxy relayed: every message, each tagged with its conversation; how many
/// conversations, and how many sessions their client ended (a DELETE); and why it stopped.
pub struct Relayed {
    pub entries: Vec<Entry>,
    pub conversations: usize,
    pub ended: usize,
    pub stopped: Stopped,
}

/// Serves the proxy on `listen` (its URL printed on stdout, first, and given to `started`)
/// until it stops as `stop` says.
pub async fn run(
    listen: SocketAddr,
    upstream: reqwest::Url,
    stop: Stop,
    started: impl FnOnce(&str) -> Result<(), String>,
) -> Result<Relayed, String> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let url = format!("http://{bound}/mcp");
    println!("{url}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    started(&url)?;
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
    let app = app.into_make_service_with_connect_info::<SocketAddr>();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let stopped = stopped(&proxy, &stop).await;
    // open streams (a GET stream a client holds) end with the proxy
    server.abort();
    let conversations = std::mem::take(&mut *lock(&proxy.conversations));
    let ended = conversations.ended();
    // a client still in a conversation when the proxy stopped idle was quiet that long: it is
    // judged as having left
    let quiet = match (stopped, stop.idle) {
        (Stopped::Idle, Some(idle)) => Some(format!("{QUIET}{} s", idle.as_secs())),
        // the clients were the command's: they are done with it (stateless traffic, which no
        // DELETE ends, ends with the command)
        (Stopped::Command, _) => Some(COMMAND_ENDED.to_string()),
        _ => None,
    };
    let (entries, count) = conversations.finish(quiet.as_deref());
    Ok(Relayed {
        entries,
        conversations: count,
        ended,
        stopped,
    })
}

/// Waits until the proxy should stop, and says why.
async fn stopped(proxy: &Proxy, stop: &Stop) -> Stopped {
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
    let command = async {
        let Some(mut ended) = stop.command.clone() else {
            return std::future::pending().await;
        };
        let _ = ended.wait_for(|done| *done).await;
    };
    tokio::select! {
        _ = sessions => Stopped::Sessions,
        _ = idle => Stopped::Idle,
        _ = command => Stopped::Command,
        _ = super::terminated() => Stopped::Signal,
    }
}
