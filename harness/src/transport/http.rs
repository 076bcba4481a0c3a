//! Streamable HTTP transport (2025-11-25): every message is a POST answered by JSON or an SSE
//! stream; a standalone GET stream carries what the receiver sends on its own; the session
//! id and protocol version go on every request after initialize; DELETE ends the session.

use super::sse::{self, SseError};
use super::{
    Cause, Closure, Connect, ConnectError, Connection, Incoming, Outgoing, Peer, SESSION_HEADER,
};
use crate::spec::PROTOCOL_VERSION;
use crate::trace::preview;
use crate::wire::{self, DecodeError, Message};
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// How often a stream that closed before its response is resumed with Last-Event-ID.
const MAX_RESUMES: usize = 5;
/// How a message came over HTTP (a trace entry's `via`): a POST's JSON answer, a POST's SSE
/// stream, the GET stream.
pub const VIA_POST_JSON: &str = "POST application/json";
pub const VIA_POST_SSE: &str = "POST text/event-stream";
pub const VIA_GET: &str = "GET text/event-stream";
/// How long pooled connections stay idle before they are dropped: below the keep-alive of
/// common servers (5 s), so taskcheck seldom sends on a connection the server is closing.
const POOL_IDLE: Duration = Duration::from_secs(2);
/// The pause between two tries of a request refused before the server ever answered.
const REFUSED_PAUSE: Duration = Duration::from_millis(100);
/// How often the GET stream is reopened after the receiver closed it.
const MAX_GET_REOPENS: usize = 20;

/// Talks to a receiver at a URL; every scenario gets its own HTTP session.
pub struct HttpConnector {
    pub url: reqwest::Url,
    /// `--header` values, sent on every request.
    pub headers: HeaderMap,
    /// `--auth-a` / `--auth-b`: extra headers of the two requestors.
    pub auth: [HeaderMap; 2],
    /// Longest message (JSON body or SSE event) accepted, in bytes.
    pub max_message: usize,
    pub client: reqwest::Client,
    /// A client that keeps no idle connection: a request sent again goes on a fresh one.
    pub fresh: reqwest::Client,
    /// How long a request whose connection is refused is tried again (a server that prints its
    /// URL, or was started, a moment before it listens), until the server answered once: a
    /// refusal after that is a server gone.
    pub startup: Duration,
    /// Whether the server has answered any request of this connector.
    pub reached: Arc<AtomicBool>,
}

impl HttpConnector {
    /// A connector with a client that times out connecting after `connect_timeout`.
    pub fn new(
        url: reqwest::Url,
        headers: HeaderMap,
        auth: [HeaderMap; 2],
        max_message: usize,
        connect_timeout: Duration,
    ) -> Result<HttpConnector, String> {
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(connect_timeout)
                .tcp_nodelay(true)
                .pool_idle_timeout(POOL_IDLE)
                .redirect(reqwest::redirect::Policy::limited(5))
        };
        let built = |b: reqwest::ClientBuilder| {
            b.build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))
        };
        let client = built(builder())?;
        let fresh = built(builder().pool_max_idle_per_host(0))?;
        Ok(HttpConnector {
            url,
            headers,
            auth,
            max_message,
            client,
            fresh,
            // the refusal, not a silence, is what the opening request reports when it ends
            startup: connect_timeout.saturating_sub(Duration::from_millis(500)),
            reached: Arc::default(),
        })
    }
}

/// Parses `Name: value` into a header (for `--header`, `--auth-a`, `--auth-b`).
pub fn parse_header(text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("header {:?} is not `Name: value`", redact(text)))?;
    let name = HeaderName::from_bytes(name.trim().as_bytes())
        .map_err(|_| format!("{:?} is not a header name", name.trim()))?;
    let value = HeaderValue::from_str(value.trim())
        .map_err(|_| format!("the value of header {name} is not a valid header value"))?;
    Ok((name, value))
}

/// A header line with its value hidden (header values are often secrets).
fn redact(text: &str) -> String {
    match text.split_once(':') {
        Some((name, _)) => format!("{name}: ***"),
        None => "***".into(),
    }
}

/// What one HTTP session shares between its POSTs and its GET stream.
struct Shared {
    client: reqwest::Client,
    fresh: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    max: usize,
    startup: Duration,
    reached: Arc<AtomicBool>,
    session_id: Mutex<Option<HeaderValue>>,
    events: mpsc::Sender<Incoming>,
    /// Running POST/GET tasks; the POSTs of requests by request id, to drop their streams.
    tasks: Mutex<Vec<AbortHandle>>,
    by_request: Mutex<HashMap<String, AbortHandle>>,
}

impl Shared {
    fn request(&self, method: reqwest::Method, after_init: bool) -> reqwest::RequestBuilder {
        self.request_on(&self.client, method, after_init)
    }

    /// A request of this session sent with `client`.
    fn request_on(
        &self,
        client: &reqwest::Client,
        method: reqwest::Method,
        after_init: bool,
    ) -> reqwest::RequestBuilder {
        let mut req = client
            .request(method, self.url.clone())
            .headers(self.headers.clone());
        if let Some(id) = self
            .session_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            req = req.header(SESSION_HEADER, id);
        }
        if after_init {
            req = req.header(super::routing::VERSION_HEADER, PROTOCOL_VERSION);
        }
        req
    }

    async fn close(&self, why: String) {
        let _ = self
            .events
            .send(Incoming::Closed(Closure::broken(why)))
            .await;
    }

    /// Whether the server still takes connections (any HTTP answer to a GET will do).
    async fn reachable(&self) -> bool {
        let probe = self
            .client
            .get(self.url.clone())
            .timeout(Duration::from_secs(1))
            .send()
            .await;
        !matches!(probe, Err(e) if e.is_connect())
    }

    /// The server stopped taking connections (it went away).
    async fn gone(&self, why: String) {
        let _ = self.events.send(Incoming::Closed(Closure::gone(why))).await;
    }

    async fn log(&self, line: String) {
        let _ = self.events.send(Incoming::Log(line)).await;
    }

    fn track(&self, handle: AbortHandle, request: Option<String>) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        tasks.retain(|t| !t.is_finished());
        if let Some(id) = request {
            self.by_request
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id, handle.clone());
        }
        tasks.push(handle);
    }

    /// Decodes one message and hands it to the session; false if the session is gone.
    async fn deliver(&self, bytes: &[u8], via: &str) -> Result<Option<Message>, ()> {
        let event = match wire::decode(bytes, self.max) {
            Ok((value, msg)) => {
                let _ = self
                    .events
                    .send(Incoming::message(value, msg.clone(), Some(via.into())))
                    .await;
                return Ok(Some(msg));
            }
            Err(error) => Incoming::Invalid {
                raw: preview(&String::from_utf8_lossy(bytes), 200),
                error,
            },
        };
        let _ = self.events.send(event).await;
        Err(())
    }
}

/// Ends the HTTP session when the connection is dropped: stops every stream, sends DELETE.
struct SessionGuard {
    shared: Arc<Shared>,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        for t in self
            .shared
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            t.abort();
        }
        let has_session = self
            .shared
            .session_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        if has_session {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let delete = self
                    .shared
                    .request(reqwest::Method::DELETE, true)
                    .timeout(Duration::from_secs(1))
                    .send();
                runtime.spawn(async move {
                    let _ = delete.await;
                });
            }
        }
    }
}

impl Connect for HttpConnector {
    async fn connect(&self, peer: Peer) -> Result<Connection, ConnectError> {
        let mut headers = self.headers.clone();
        let auth = match peer {
            Peer::A => &self.auth[0],
            Peer::B => &self.auth[1],
        };
        headers.extend(auth.clone());
        let (in_tx, in_rx) = mpsc::channel(1024);
        let (out_tx, out_rx) = mpsc::channel::<Outgoing>(64);
        let shared = Arc::new(Shared {
            client: self.client.clone(),
            fresh: self.fresh.clone(),
            url: self.url.clone(),
            headers,
            max: self.max_message,
            startup: self.startup,
            reached: self.reached.clone(),
            session_id: Mutex::new(None),
            events: in_tx,
            tasks: Mutex::default(),
            by_request: Mutex::default(),
        });
        let writer = tokio::spawn(send_all(shared.clone(), out_rx));
        shared.track(writer.abort_handle(), None);
        let abandoning = shared.clone();
        Ok(Connection {
            outgoing: out_tx,
            incoming: in_rx,
            guard: Box::new(SessionGuard { shared }),
            transport: "http",
            abandon: Box::new(move |id: &Value| {
                let handle = abandoning
                    .by_request
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id.to_string());
                if let Some(h) = handle {
                    h.abort();
                }
            }),
        })
    }

    fn describe(&self) -> String {
        self.url.to_string()
    }

    fn transport(&self) -> &'static str {
        "http"
    }

    fn distinct_auth(&self) -> bool {
        !self.auth[0].is_empty() && !self.auth[1].is_empty() && self.auth[0] != self.auth[1]
    }

    fn shares_receiver(&self) -> bool {
        true
    }
}

/// POSTs every outgoing message, each on its own task so a long stream never blocks the rest.
async fn send_all(shared: Arc<Shared>, mut out: mpsc::Receiver<Outgoing>) {
    while let Some(outgoing) = out.recv().await {
        if let Outgoing::EndInput = outgoing {
            // the polite end: the session's DELETE answered before the connection says so
            let delete = shared.request(reqwest::Method::DELETE, true);
            let ended = shared
                .session_id
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            if ended.is_some() {
                let _ = delete.timeout(Duration::from_secs(1)).send().await;
            }
            let why = "taskcheck ended the session".to_string();
            let _ = shared
                .events
                .send(Incoming::Closed(Closure::gone(why)))
                .await;
            return;
        }
        let msg = outgoing.value();
        let method = msg
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let request_id = match (msg.get("id"), msg.get("method")) {
            (Some(id), Some(_)) => Some(id.to_string()),
            _ => None,
        };
        if method == "initialize" {
            // nothing else is sent before the answer, and the session id must be known first
            post(shared.clone(), outgoing).await;
            continue;
        }
        let initialized = method == "notifications/initialized";
        let task = tokio::spawn(post(shared.clone(), outgoing));
        shared.track(task.abort_handle(), request_id);
        if initialized {
            let _ = task.await;
            let get = tokio::spawn(get_stream(shared.clone()));
            shared.track(get.abort_handle(), None);
        }
    }
}

/// Sends one message and hands what comes back to the session.
async fn post(shared: Arc<Shared>, outgoing: Outgoing) {
    let msg = outgoing.value();
    let raw = matches!(outgoing, Outgoing::Raw(_));
    let method = msg
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    let is_request = method.is_some() && msg.get("id").is_some();
    let what = method.clone().unwrap_or_else(|| "a response".into());
    let after_init = method.as_deref() != Some("initialize");
    // a 2026-07-28 request mirrors its method, name and protocol version into headers
    let mut routing = HeaderMap::new();
    for (name, value) in super::routing::headers_for(&msg) {
        if let Ok(v) = HeaderValue::from_str(&value) {
            routing.insert(HeaderName::from_static(name), v);
        }
    }
    // a scenario's own headers, to see how the server takes wrong ones
    if let Outgoing::Headed(_, headers) = &outgoing {
        for (name, value) in headers {
            let Ok(name) = HeaderName::from_bytes(name.to_ascii_lowercase().as_bytes()) else {
                continue;
            };
            match value.as_deref().map(HeaderValue::from_str) {
                Some(Ok(v)) => {
                    routing.insert(name, v);
                }
                Some(Err(_)) => {}
                None => {
                    routing.remove(name);
                }
            }
        }
    }
    // a scenario's or a fault's `MCP-Protocol-Version: None` leaves the header out
    let unversioned = matches!(&outgoing, Outgoing::Headed(_, headers)
        if headers.iter().any(|(n, v)| v.is_none() && n.eq_ignore_ascii_case(super::routing::VERSION_HEADER)));
    let send = |client: &reqwest::Client| {
        shared
            .request_on(client, reqwest::Method::POST, after_init && !unversioned)
            .headers(routing.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(outgoing.text())
            .send()
    };
    let mut sent = send(&shared.client).await;
    // a server still starting refuses connections: whatever the design opens with (initialize,
    // server/discover, a stateless request), it is tried again until the server has answered once
    let started = std::time::Instant::now();
    while !shared.reached.load(Ordering::Relaxed)
        && matches!(&sent, Err(e) if e.is_connect())
        && started.elapsed() + REFUSED_PAUSE < shared.startup
    {
        tokio::time::sleep(REFUSED_PAUSE).await;
        sent = send(&shared.client).await;
    }
    // a pooled connection the server closed as the request went out: it never read it
    if let Err(e) = &sent {
        if closed_unread(e) {
            shared
                .log(format!(
                    "the server closed the connection {what} went out on ({}): sent again on a fresh connection",
                    error_chain(e)
                ))
                .await;
            sent = send(&shared.fresh).await;
        }
    }
    let response = match sent {
        Ok(r) => {
            shared.reached.store(true, Ordering::Relaxed);
            r
        }
        Err(e) => {
            let why = format!("cannot POST {what} to {}: {}", shared.url, error_chain(&e));
            // once the server has answered and the session is open, a server that no longer
            // answers went away: it refuses connections, or reset this one and takes no new one
            // (it crashed mid-request)
            let opened = after_init && shared.reached.load(Ordering::Relaxed);
            let went_away = e.is_connect() || (e.is_request() && !shared.reachable().await);
            return match went_away && opened {
                true => shared.gone(why).await,
                false => shared.close(why).await,
            };
        }
    };
    let status = response.status();
    if method.as_deref() == Some("initialize") {
        if let Some(id) = response.headers().get(SESSION_HEADER) {
            *shared.session_id.lock().unwrap_or_else(|p| p.into_inner()) = Some(id.clone());
        }
    }
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if status == StatusCode::ACCEPTED && (!is_request || raw) {
        return;
    }
    // a raw input that is no well-formed request may still be answered with a JSON-RPC error
    let answerable = is_request || (raw && !content_type.is_empty());
    if status.is_success() && answerable {
        if content_type.starts_with("text/event-stream") {
            let id = msg.get("id").cloned().unwrap_or(Value::Null);
            return read_request_stream(&shared, response, &what, &id).await;
        }
        if content_type.starts_with("application/json") {
            return match read_body(response, shared.max).await {
                Ok(body) => {
                    let _ = shared.deliver(&body, VIA_POST_JSON).await;
                }
                Err(e) => {
                    shared
                        .close(format!("reading the answer to {what}: {e}"))
                        .await
                }
            };
        }
        return shared
            .close(format!(
                "the answer to {what} has Content-Type {content_type:?}, not application/json or text/event-stream"
            ))
            .await;
    }
    if status.is_success() && raw {
        return;
    }
    if status.is_success() {
        return shared
            .close(format!(
                "{what} was answered HTTP {status}, not 202 Accepted"
            ))
            .await;
    }
    let body = read_body(response, shared.max).await.unwrap_or_default();
    if status == StatusCode::NOT_FOUND
        && shared
            .session_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    {
        let why = format!("the session expired: {what} was answered HTTP 404");
        let _ = shared
            .events
            .send(Incoming::Closed(Closure {
                why,
                cause: Cause::SessionEnded,
            }))
            .await;
        return;
    }
    // an HTTP error may carry a JSON-RPC error for the request: judge that, not the status
    if let (true, Ok(mut error)) = (is_request || raw, serde_json::from_slice::<Value>(&body)) {
        if error.get("error").is_some() && error.get("result").is_none() {
            let mut via = format!("POST HTTP {}", status.as_u16());
            // the HTTP answer to a POST answers the request it carried, whatever id its
            // error names (null, or one of the SDK's own such as "server-error")
            // (only an id JSON-RPC allows: malformed input is answered as what it is)
            let sent = msg
                .get("id")
                .filter(|id| id.is_string() || id.is_i64() || id.is_u64());
            match (sent, error.get("id").cloned()) {
                (Some(sent), Some(named)) if !named.is_null() && &named != sent => {
                    via = format!("{via}, its error naming id {named}");
                    error["id"] = sent.clone();
                }
                (Some(sent), None | Some(Value::Null)) => error["id"] = sent.clone(),
                // an id that could not be read is null (JSON-RPC), whatever the body names
                (None, Some(named)) if raw && !named.is_null() => {
                    via = format!("{via}, its error naming id {named}");
                    error["id"] = json!(null);
                }
                (None, None) if !raw => error["id"] = json!(null),
                _ => {}
            }
            let _ = shared.deliver(error.to_string().as_bytes(), &via).await;
            return;
        }
    }
    if raw && status.is_client_error() {
        // refusing a malformed input is an answer to it, not the end of the session
        let refused = Incoming::Refused {
            id: msg.get("id").cloned().unwrap_or(Value::Null),
            status: status.as_u16(),
            body: one_line(&String::from_utf8_lossy(&body), 300),
        };
        let _ = shared.events.send(refused).await;
        return;
    }
    let why = format!(
        "{what} was answered HTTP {status}: {}",
        one_line(&String::from_utf8_lossy(&body), 300)
    );
    let closed = Closure {
        why,
        cause: Cause::HttpStatus,
    };
    let _ = shared.events.send(Incoming::Closed(closed)).await;
}

/// Reads the SSE stream answering a request; resumes with Last-Event-ID if it ends early.
async fn read_request_stream(
    shared: &Arc<Shared>,
    response: reqwest::Response,
    what: &str,
    request_id: &Value,
) {
    let mut state = StreamState::default();
    read_events(
        shared,
        body_bytes(response),
        VIA_POST_SSE,
        request_id,
        &mut state,
    )
    .await;
    for _ in 0..MAX_RESUMES {
        if state.answered || state.failed {
            return;
        }
        let Some(last) = state.last_id.clone() else {
            break;
        };
        tokio::time::sleep(Duration::from_millis(
            state.retry_ms.unwrap_or(500).min(10_000),
        ))
        .await;
        let resumed = shared
            .request(reqwest::Method::GET, true)
            .header(ACCEPT, "text/event-stream")
            .header("last-event-id", last)
            .send()
            .await;
        match resumed {
            Ok(r) if r.status().is_success() => {
                read_events(shared, body_bytes(r), VIA_GET, request_id, &mut state).await
            }
            _ => break,
        }
    }
    if !state.answered && !state.failed {
        // a response may not come on another stream: without a resumable stream it is lost
        let why = format!(
            "the SSE stream answering {what} ended before its response, and could not be resumed"
        );
        // a server that died ends its streams too: then it went away
        match shared.reachable().await {
            true => shared.close(why).await,
            false => {
                shared
                    .gone(format!("{why}; the server no longer takes connections"))
                    .await
            }
        }
    }
}

/// The receiver's own stream, reopened when the receiver closes it.
async fn get_stream(shared: Arc<Shared>) {
    let mut state = StreamState::default();
    for _ in 0..MAX_GET_REOPENS {
        let mut req = shared
            .request(reqwest::Method::GET, true)
            .header(ACCEPT, "text/event-stream");
        if let Some(last) = &state.last_id {
            req = req.header("last-event-id", last.clone());
        }
        let response = match req.send().await {
            Ok(r) => r,
            Err(_) => return,
        };
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return shared
                .log("the receiver offers no GET stream (405)".into())
                .await;
        }
        if !response.status().is_success() {
            return shared
                .log(format!(
                    "the GET stream was answered HTTP {}",
                    response.status()
                ))
                .await;
        }
        read_events(
            &shared,
            body_bytes(response),
            VIA_GET,
            &Value::Null,
            &mut state,
        )
        .await;
        if state.failed {
            return;
        }
        tokio::time::sleep(Duration::from_millis(
            state.retry_ms.unwrap_or(500).min(10_000),
        ))
        .await;
    }
}

/// What a stream showed so far.
#[derive(Default)]
struct StreamState {
    last_id: Option<String>,
    retry_ms: Option<u64>,
    /// The response to the stream's request arrived.
    answered: bool,
    /// The stream broke the transport (invalid message, oversized event).
    failed: bool,
}

async fn read_events<S>(
    shared: &Arc<Shared>,
    bytes: S,
    via: &str,
    request_id: &Value,
    state: &mut StreamState,
) where
    S: Stream<Item = Result<bytes::Bytes, String>> + Unpin,
{
    let mut events = sse::events(bytes, shared.max);
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(e) => e,
            Err(SseError::Transport(_)) => return,
            Err(SseError::TooLarge(e)) => {
                state.failed = true;
                return shared
                    .close(format!("the receiver sent an SSE event too large: {e}"))
                    .await;
            }
            Err(SseError::Broken(e)) => {
                state.failed = true;
                return shared
                    .close(format!("the receiver's SSE stream is broken: {e}"))
                    .await;
            }
        };
        if !event.id.is_empty() {
            state.last_id = Some(event.id.clone());
        }
        if let Some(retry) = event.retry {
            state.retry_ms = Some(retry.as_millis() as u64);
        }
        // an event with empty data primes the client for reconnection; it carries no message
        if event.data.trim().is_empty() {
            continue;
        }
        match shared.deliver(event.data.as_bytes(), via).await {
            Ok(Some(Message::Response { id, .. })) if &id == request_id => state.answered = true,
            Ok(_) => {}
            Err(()) => {
                state.failed = true;
                return;
            }
        }
    }
}

/// A response body as a byte stream, its errors as text.
fn body_bytes(
    response: reqwest::Response,
) -> impl Stream<Item = Result<bytes::Bytes, String>> + Unpin {
    Box::pin(
        response
            .bytes_stream()
            .map(|chunk| chunk.map_err(|e| format!("the stream broke: {}", error_chain(&e)))),
    )
}

/// A whole response body, at most `max` bytes.
async fn read_body(response: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| error_chain(&e))?;
        if body.len() + chunk.len() > max {
            return Err(DecodeError::TooLong {
                len: body.len() + chunk.len(),
                limit: max,
            }
            .to_string());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// At most `limit` bytes of a body, its white space folded so the cause stays one line.
fn one_line(text: &str, limit: usize) -> String {
    preview(
        &text.split_whitespace().collect::<Vec<_>>().join(" "),
        limit,
    )
}

/// Whether a request failed because the server closed its (pooled, idle) connection before
/// answering anything: the connection was reset or ended before a response began.
fn closed_unread(e: &reqwest::Error) -> bool {
    let chain = error_chain(e).to_lowercase();
    !e.is_connect()
        && !e.is_timeout()
        && (chain.contains("connection closed before message completed")
            || chain.contains("connection reset"))
}

/// An error with its causes ("error sending request: connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_and_hide_their_values() {
        let (n, v) = parse_header("Authorization: Bearer s3cret").unwrap();
        assert_eq!(
            (n.as_str(), v.to_str().unwrap()),
            ("authorization", "Bearer s3cret")
        );
        let e = parse_header("Bearer s3cret").unwrap_err();
        assert!(!e.contains("s3cret"), "{e}");
        assert!(parse_header("bad name: x").is_err());
    }
}
