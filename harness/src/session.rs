//! A session with one receiver: handshake, id correlation, server-to-client requests,
//! notifications, and the trace of everything exchanged.

use crate::trace::{Direction, Trace};
use crate::transport::{Cause, Closure, Connection, Incoming, Outgoing, Received};
use crate::wire::{self, Message, Outcome};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch, Notify};

/// A response to one of taskcheck's requests.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Trace sequence number of the request.
    pub asked: u64,
    /// Trace sequence number of the response.
    pub seq: u64,
    pub outcome: Outcome,
    pub elapsed: Duration,
}

/// What came back for raw text (`Session::send_raw`).
#[derive(Debug, Clone)]
pub struct RawReply {
    /// Trace sequence number of the text sent.
    pub asked: u64,
    /// The response (trace sequence number and outcome), if one came in time. An HTTP
    /// refusal without a JSON-RPC error is an error outcome with `httpStatus` and no `code`.
    pub answer: Option<(u64, Outcome)>,
}

/// A request or notification the receiver sent to taskcheck (`id` is null for a notification).
#[derive(Debug, Clone)]
pub struct Inbound {
    pub id: Value,
    pub method: String,
    pub params: Value,
    pub seq: u64,
}

/// Which of the receiver's messages a step waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inbox {
    Requests,
    Notifications,
}

/// Most messages kept waiting per inbox; past it the oldest are dropped (a flood stays bounded).
const MAILBOX_LIMIT: usize = 10_000;

/// Receiver messages waiting for a step to take them.
#[derive(Default)]
struct Mailbox {
    queue: Mutex<VecDeque<Inbound>>,
    arrived: Notify,
}

impl Mailbox {
    fn push(&self, message: Inbound) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        if q.len() >= MAILBOX_LIMIT {
            q.pop_front();
        }
        q.push_back(message);
        drop(q);
        self.arrived.notify_waiters();
    }

    fn take_any(&self) -> Option<Inbound> {
        self.queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
    }

    /// Every waiting message of `method`, oldest first.
    fn take_all(&self, method: &str) -> Vec<Inbound> {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let mut taken = Vec::new();
        q.retain(|r| match r.method == method {
            true => {
                taken.push(r.clone());
                false
            }
            false => true,
        });
        taken
    }

    /// The oldest message of `method` received after trace number `after` (if given).
    fn take(&self, method: &str, after: Option<u64>) -> Option<Inbound> {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let i = q
            .iter()
            .position(|r| r.method == method && after.is_none_or(|a| r.seq > a))?;
        q.remove(i)
    }
}

#[derive(Default)]
struct Mailboxes {
    requests: Mailbox,
    notifications: Mailbox,
    /// Set once a client receiver is initialized: taskcheck, its server, offers nothing, so
    /// its requests (but ping) get -32601 at once instead of waiting unanswered.
    refuse_requests: std::sync::atomic::AtomicBool,
}

impl Mailboxes {
    fn get(&self, inbox: Inbox) -> &Mailbox {
        match inbox {
            Inbox::Requests => &self.requests,
            Inbox::Notifications => &self.notifications,
        }
    }
}

/// Why a request got no reply.
#[derive(Debug, Clone)]
pub enum RequestError {
    /// No response within the timeout; `meanwhile` says what the receiver sent while taskcheck
    /// waited (an acknowledgement, notifications), or is empty.
    Timeout {
        method: String,
        after: Duration,
        meanwhile: String,
    },
    /// The connection ended (receiver exited, wrote garbage, closed stdout).
    Closed(Closure),
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Timeout {
                method,
                after,
                meanwhile,
            } => {
                write!(f, "no response to {method} within {} ms", after.as_millis())?;
                match meanwhile.is_empty() {
                    true => Ok(()),
                    false => write!(f, " (meanwhile it sent {meanwhile})"),
                }
            }
            RequestError::Closed(why) => write!(f, "connection lost: {why}"),
        }
    }
}

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<(u64, Outcome)>>>>;

/// The ids taskcheck used, to tell a late answer (to a request it stopped waiting for) from
/// an answer to a request never sent or answered twice, which breaks the transport.
#[derive(Default)]
struct Sent {
    /// Request ids are 0, 1, 2, ...: every id below this was sent.
    next: AtomicI64,
    /// Ids of raw text (fuzz-wire), which may be answered any number of times.
    raw: Mutex<HashSet<String>>,
}

/// Answers already received, per request id.
#[derive(Default)]
struct Answered(HashSet<i64>);

impl Answered {
    /// Why a response that no one waits for breaks the transport, if it does.
    fn stray(&mut self, id: &Value, sent: &Sent) -> Option<String> {
        if id.is_null()
            || sent
                .raw
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(&id_key(id))
        {
            return None;
        }
        match id.as_i64() {
            Some(n) if (0..sent.next.load(Ordering::Relaxed)).contains(&n) => {
                (!self.0.insert(n)).then(|| format!("the receiver answered request {n} twice"))
            }
            _ => Some(format!(
                "the receiver sent a response to id {id}, which taskcheck never used"
            )),
        }
    }
}

/// What the receiver declared in its initialize result.
#[derive(Debug, Clone, Default)]
pub struct ServerInfo {
    pub capabilities: Value,
    pub server_info: Value,
    pub protocol_version: String,
}

impl ServerInfo {
    /// What an initialize result declares.
    pub fn from_result(result: &Value) -> ServerInfo {
        ServerInfo::declared(result, "serverInfo")
    }

    /// What a client receiver's initialize request declares.
    pub fn from_client_request(params: &Value) -> ServerInfo {
        ServerInfo::declared(params, "clientInfo")
    }

    /// What an initialize result (`serverInfo`) or request (`clientInfo`) declares.
    fn declared(result: &Value, who: &str) -> ServerInfo {
        ServerInfo {
            capabilities: result.get("capabilities").cloned().unwrap_or(json!({})),
            server_info: result.get(who).cloned().unwrap_or(Value::Null),
            protocol_version: result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        }
    }
}

/// HTTP headers a request sets against what its body calls for (None: left out).
pub type Headers = Vec<(String, Option<String>)>;

/// One live session.
pub struct Session {
    outgoing: mpsc::Sender<Outgoing>,
    pub trace: Trace,
    pending: Pending,
    inbox: Arc<Mailboxes>,
    closed: watch::Receiver<Option<Closure>>,
    sent: Arc<Sent>,
    /// Default per-request timeout.
    pub timeout: Duration,
    abandon: Box<dyn Fn(&Value) + Send + Sync>,
    /// `_meta` entries every request carries unless its params set them (a stateless
    /// profile's per-request protocol version and client capabilities).
    stamp: std::sync::RwLock<serde_json::Map<String, Value>>,
    /// What the transport holds open (a process, an HTTP session); `end` drops it.
    guard: std::sync::Mutex<Option<Box<dyn Send + Sync>>>,
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Session {
    /// Starts routing a connection's messages.
    pub fn start(conn: Connection, timeout: Duration) -> Session {
        let trace = Trace::new(conn.transport);
        Session::start_with(conn, timeout, trace)
    }

    /// Starts routing a connection's messages into an existing trace.
    pub fn start_with(conn: Connection, timeout: Duration, trace: Trace) -> Session {
        let pending: Pending = Arc::default();
        let inbox = Arc::new(Mailboxes::default());
        let (closed_tx, closed) = watch::channel(None);
        let sent = Arc::new(Sent::default());
        tokio::spawn(route(
            conn.incoming,
            conn.outgoing.clone(),
            trace.clone(),
            pending.clone(),
            inbox.clone(),
            closed_tx,
            sent.clone(),
        ));
        Session {
            outgoing: conn.outgoing,
            trace,
            pending,
            inbox,
            closed,
            sent,
            timeout,
            abandon: conn.abandon,
            stamp: Default::default(),
            guard: std::sync::Mutex::new(Some(conn.guard)),
        }
    }

    /// Makes every later request carry these `_meta` entries (a request's own win).
    pub fn stamp_requests(&self, meta: serde_json::Map<String, Value>) {
        *self.stamp.write().unwrap_or_else(|p| p.into_inner()) = meta;
    }

    /// `params` with the stamped `_meta` entries it does not set itself; a stamped key a
    /// request sets to null is left out (to send a request without it).
    fn stamped(&self, mut params: Value) -> Value {
        let stamp = self.stamp.read().unwrap_or_else(|p| p.into_inner());
        if stamp.is_empty() {
            return params;
        }
        if params.is_null() {
            params = json!({});
        }
        let Some(obj) = params.as_object_mut() else {
            return params;
        };
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            for (k, v) in stamp.iter() {
                match meta.get(k) {
                    Some(Value::Null) => {
                        meta.remove(k);
                    }
                    Some(_) => {}
                    None => {
                        meta.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        params
    }

    /// Ends the session now, as a requestor leaving does (HTTP: DELETE; stdio: the process
    /// stops), and notes it in the trace.
    pub fn end(&self) {
        let guard = self.guard.lock().unwrap_or_else(|p| p.into_inner()).take();
        if guard.is_some() {
            let note = "taskcheck ended this session (HTTP: DELETE; stdio: stopped the process)";
            self.trace.record(Direction::Out, None, Some(note));
        }
        drop(guard);
    }

    /// Ends the session as a client leaving politely does (the MCP stdio shutdown): stdio
    /// closes the receiver's input and gives it up to `grace` to exit before it is stopped;
    /// HTTP ends it at once (DELETE).
    pub async fn close(&self, grace: Duration) {
        if self.put(Outgoing::EndInput).await.is_ok() {
            let mut closed = self.closed.clone();
            let _ = tokio::time::timeout(grace, closed.wait_for(Option::is_some)).await;
        }
        self.end();
    }

    /// Why the connection ended, if it did.
    pub fn closed_reason(&self) -> Option<Closure> {
        self.closed.borrow().clone()
    }

    async fn send(&self, msg: Value, headers: Headers) -> Result<u64, RequestError> {
        // over HTTP, the request metadata headers it goes with (those a 2026-07-28 body
        // calls for), so a trace tells a mismatch
        let sent = match self.trace.transport() {
            "http" => crate::transport::routing::headers_sent(&msg, &headers),
            _ => Default::default(),
        };
        let seq = match sent.is_empty() {
            true => self.trace.record(Direction::Out, Some(msg.clone()), None),
            false => self.trace.record_headed(Direction::Out, msg.clone(), sent),
        };
        let outgoing = match headers.is_empty() {
            true => Outgoing::Message(msg),
            false => Outgoing::Headed(msg, headers),
        };
        self.put(outgoing).await.map(|_| seq)
    }

    async fn put(&self, outgoing: Outgoing) -> Result<(), RequestError> {
        if let Some(why) = self.closed_reason() {
            return Err(RequestError::Closed(why));
        }
        self.outgoing
            .send(outgoing)
            .await
            .map_err(|_| RequestError::Closed(Closure::broken("the transport stopped")))
    }

    /// Sends `text` as it is (it need not be JSON-RPC) and waits up to `wait` for a response
    /// whose id is one of `ids` (null: the answer to input whose id cannot be read).
    pub async fn send_raw(
        &self,
        text: &str,
        ids: &[Value],
        wait: Duration,
    ) -> Result<RawReply, RequestError> {
        let mut waiters = Vec::new();
        self.sent
            .raw
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(crate::wire::raw_ids(text).iter().map(id_key));
        for id in ids {
            let (tx, rx) = oneshot::channel();
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id_key(id), tx);
            waiters.push(rx);
        }
        let asked = self.trace.record(Direction::Out, None, Some(text));
        let sent = self.put(Outgoing::Raw(text.to_string())).await;
        let answer = match (&sent, waiters.is_empty()) {
            (Ok(()), false) => {
                let first = futures::future::select_all(waiters);
                let mut closed = self.closed.clone();
                tokio::select! {
                    (r, _, _) = first => r.ok(),
                    _ = tokio::time::sleep(wait) => None,
                    _ = closed.wait_for(Option::is_some) => None,
                }
            }
            _ => None,
        };
        for id in ids {
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id_key(id));
        }
        sent.map(|()| RawReply { asked, answer })
    }

    /// Sends a request and waits for its response, at most `timeout`.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Reply, RequestError> {
        self.request_headed(method, params, timeout, Vec::new())
            .await
    }

    /// Sends a request whose HTTP headers differ from what its body calls for (`headers`:
    /// set, or with None left out) and waits for its response, at most `timeout`.
    pub async fn request_headed(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        headers: Headers,
    ) -> Result<Reply, RequestError> {
        self.ask(method, params, timeout, headers, true).await
    }

    /// Sends a long-lived request (a subscriptions/listen) and waits at most `timeout` for an
    /// answer; past it the request stays open, and what the receiver sends on its stream
    /// still arrives.
    pub async fn request_open(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        headers: Headers,
    ) -> Result<Reply, RequestError> {
        self.ask(method, params, timeout, headers, false).await
    }

    /// Sends a request and waits for its answer; past `timeout`, `abandon` drops its stream.
    async fn ask(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        headers: Headers,
        abandon: bool,
    ) -> Result<Reply, RequestError> {
        let id = json!(self.sent.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        let msg = wire::request(&id, method, &self.stamped(params));
        let start = Instant::now();
        // register before sending so a fast answer is never missed
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id_key(&id), tx);
        let asked = match self.send(msg, headers).await {
            Ok(seq) => seq,
            Err(e) => {
                self.forget(&id, true);
                return Err(e);
            }
        };
        let mut closed = self.closed.clone();
        let outcome = tokio::select! {
            r = rx => r.ok(),
            _ = tokio::time::sleep(timeout) => None,
            _ = closed.wait_for(Option::is_some) => None,
        };
        match outcome {
            Some((seq, outcome)) => Ok(Reply {
                asked,
                seq,
                outcome,
                elapsed: start.elapsed(),
            }),
            None => {
                self.forget(&id, abandon);
                Err(match self.closed_reason() {
                    Some(why) => RequestError::Closed(why),
                    None => RequestError::Timeout {
                        method: method.to_string(),
                        after: timeout,
                        meanwhile: self.sent_since(asked),
                    },
                })
            }
        }
    }

    /// What the receiver sent after trace entry `asked`, by method, in the order each first
    /// came: `notifications/subscriptions/acknowledged, 2× notifications/tasks/status`; the
    /// answers to other requests counted apart.
    fn sent_since(&self, asked: u64) -> String {
        let mut seen: Vec<(String, usize)> = Vec::new();
        self.trace.with_entries(|entries| {
            for e in entries
                .iter()
                .filter(|e| e.seq > asked && e.dir == Direction::In)
            {
                let what = match e.decoded() {
                    Some(wire::MessageRef::Request { method, .. })
                    | Some(wire::MessageRef::Notification { method, .. }) => method.to_string(),
                    Some(_) => "an answer to another request".to_string(),
                    None => continue,
                };
                match seen.iter_mut().find(|(m, _)| *m == what) {
                    Some((_, n)) => *n += 1,
                    None => seen.push((what, 1)),
                }
            }
        });
        let each: Vec<String> = seen
            .into_iter()
            .map(|(m, n)| match n {
                1 => m,
                n => format!("{n}× {m}"),
            })
            .collect();
        each.join(", ")
    }

    /// Stops waiting for a request's answer (and, with `abandon`, drops its stream).
    fn forget(&self, id: &Value, abandon: bool) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id_key(id));
        if abandon {
            (self.abandon)(id);
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), RequestError> {
        self.send(wire::notification(method, &params), Vec::new())
            .await
            .map(|_| ())
    }

    /// Answers a request the receiver sent.
    pub async fn respond(&self, id: &Value, result: Value) -> Result<(), RequestError> {
        self.send(wire::result(id, result), Vec::new())
            .await
            .map(|_| ())
    }

    /// Takes the oldest receiver request or notification with this method, waiting at most `timeout`.
    pub async fn next(
        &self,
        inbox: Inbox,
        method: &str,
        timeout: Duration,
    ) -> Result<Inbound, RequestError> {
        self.next_after(inbox, method, None, timeout).await
    }

    /// The same, taking only a message received after trace number `after` (if given).
    pub async fn next_after(
        &self,
        inbox: Inbox,
        method: &str,
        after: Option<u64>,
        timeout: Duration,
    ) -> Result<Inbound, RequestError> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mailbox = self.inbox.get(inbox);
        loop {
            let notified = mailbox.arrived.notified();
            if let Some(message) = mailbox.take(method, after) {
                return Ok(message);
            }
            if let Some(why) = self.closed_reason() {
                return Err(RequestError::Closed(why));
            }
            let mut closed = self.closed.clone();
            tokio::select! {
                _ = notified => {}
                _ = closed.wait_for(Option::is_some) => {}
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(RequestError::Timeout { method: method.to_string(), after: timeout, meanwhile: String::new() });
                }
            }
        }
    }

    /// Takes every receiver request or notification with this method that is waiting now.
    pub fn drain(&self, inbox: Inbox, method: &str) -> Vec<Inbound> {
        self.inbox.get(inbox).take_all(method)
    }
}

impl Session {
    /// From now on, every request the client sends gets a refusal (taskcheck serves no
    /// capabilities as its server), and so does each it sent before.
    pub async fn refuse_requests(&self) {
        self.inbox.refuse_requests.store(true, Ordering::Relaxed);
        while let Some(early) = self.inbox.requests.take_any() {
            self.send(refusal(&early.id, &early.method), Vec::new())
                .await
                .ok();
        }
    }
}

/// taskcheck's answer, as a client's server, to a request it does not serve.
fn refusal(id: &Value, method: &str) -> Value {
    let message = format!("Method not found: {method} (taskcheck serves no capabilities)");
    wire::error(id, wire::code::METHOD_NOT_FOUND, &message)
}

/// Routes everything the receiver sends: responses to waiters, requests to the queue.
async fn route(
    mut incoming: mpsc::Receiver<Incoming>,
    outgoing: mpsc::Sender<Outgoing>,
    trace: Trace,
    pending: Pending,
    inbox: Arc<Mailboxes>,
    closed: watch::Sender<Option<Closure>>,
    sent: Arc<Sent>,
) {
    let mut answered = Answered::default();
    let close = |why: Closure| {
        closed.send_if_modified(|c| {
            if c.is_none() {
                // the receiver going away is something it did: the trace says when
                if why.cause == Cause::ReceiverGone {
                    trace.record_closed(crate::trace::RECEIVER_CLOSED, &why.why);
                }
                *c = Some(why);
                true
            } else {
                false
            }
        });
    };
    while let Some(event) = incoming.recv().await {
        match event {
            Incoming::Message(received) => {
                let Received {
                    value,
                    message: msg,
                    via,
                } = *received;
                let seq = trace.record_via(Direction::In, Some(value), None, via);
                match msg {
                    Message::Response { id, outcome } => {
                        let waiter = pending
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .remove(&id_key(&id));
                        match waiter {
                            Some(tx) => {
                                if let Some(n) = id.as_i64() {
                                    answered.0.insert(n);
                                }
                                let _ = tx.send((seq, outcome));
                            }
                            None => {
                                if let Some(why) = answered.stray(&id, &sent) {
                                    close(Closure {
                                        why: format!("{why} (trace #{seq})"),
                                        cause: Cause::StrayResponse,
                                    });
                                }
                            }
                        }
                    }
                    Message::Request { id, method, .. } if method == "ping" => {
                        let answer = wire::result(&id, json!({}));
                        trace.record(Direction::Out, Some(answer.clone()), None);
                        let _ = outgoing.send(Outgoing::Message(answer)).await;
                    }
                    Message::Request { id, method, .. }
                        if inbox.refuse_requests.load(Ordering::Relaxed) =>
                    {
                        let answer = refusal(&id, &method);
                        trace.record(Direction::Out, Some(answer.clone()), None);
                        let _ = outgoing.send(Outgoing::Message(answer)).await;
                    }
                    Message::Request { id, method, params } => {
                        inbox.requests.push(Inbound {
                            id,
                            method,
                            params,
                            seq,
                        });
                    }
                    Message::Notification { method, params } => {
                        inbox.notifications.push(Inbound {
                            id: Value::Null,
                            method,
                            params,
                            seq,
                        });
                    }
                }
            }
            Incoming::Invalid { raw, error } => {
                let seq = match &error {
                    // taskcheck's limit: the trace says so, and keeps nothing of the line
                    wire::DecodeError::TooLong { .. } => {
                        trace.record_closed(crate::trace::LIMIT_CLOSED, &error.to_string())
                    }
                    _ => trace.record(Direction::In, None, Some(&raw)),
                };
                // over stdio, output that is no MCP message breaks the transport's MUST NOT;
                // a line above taskcheck's limit is taskcheck's limit, not the receiver's fault
                let cause = match (trace.transport(), &error) {
                    (_, wire::DecodeError::TooLong { .. }) => Cause::Transport,
                    ("stdio", _) => Cause::InvalidOutput,
                    _ => Cause::Transport,
                };
                close(Closure {
                    why: format!(
                        "the receiver sent invalid output (trace #{seq}): {error}: {raw:?}"
                    ),
                    cause,
                });
            }
            Incoming::Refused { id, status, body } => {
                let text = format!("HTTP {status}: {body}");
                let seq = trace.record_via(
                    Direction::In,
                    None,
                    Some(&text),
                    Some(format!("POST HTTP {status}")),
                );
                let waiter = pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id_key(&id));
                if let Some(tx) = waiter {
                    let refusal = json!({"httpStatus": status, "message": body});
                    let _ = tx.send((seq, Outcome::Error(refusal)));
                }
            }
            Incoming::Log(line) => {
                trace.record(Direction::Stderr, None, Some(&line));
            }
            Incoming::Closed(why) => close(why),
        }
    }
    close(Closure::broken("the transport stopped"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_answers_pass_and_stray_or_repeated_ones_break_the_transport() {
        let sent = Sent::default();
        sent.next.store(3, Ordering::Relaxed);
        sent.raw.lock().unwrap().insert(id_key(&json!("fw-1")));
        let mut answered = Answered::default();
        answered.0.insert(0);
        assert_eq!(answered.stray(&json!(1), &sent), None, "a late answer");
        assert!(answered.stray(&json!(1), &sent).unwrap().contains("twice"));
        assert!(answered.stray(&json!(0), &sent).unwrap().contains("twice"));
        assert!(answered
            .stray(&json!(3), &sent)
            .unwrap()
            .contains("never used"));
        assert!(answered
            .stray(&json!("x"), &sent)
            .unwrap()
            .contains("never used"));
        assert_eq!(
            answered.stray(&json!("fw-1"), &sent),
            None,
            "raw ids may repeat"
        );
        assert_eq!(answered.stray(&json!("fw-1"), &sent), None);
        assert_eq!(answered.stray(&Value::Null, &sent), None, "unreadable ids");
    }
}
