//! The 2025-11-25 reference receiver: a correct Tasks receiver built on the same model, with
//! `--fault` switches that each break one rule. The same receiver, with sampling, elicitation
//! and roots in place of tools, is the reference client (`client.rs`).

mod client;
pub mod faults;
pub mod http;
mod lifecycle;
mod own_tools;
mod render;
pub mod requestor;
mod requests;
mod serve;
mod store;
mod tools;
pub mod variants;
mod workers;

use crate::fixtures;
use crate::model::TaskStatus;
use crate::reference::hostile::Hostile;
use crate::reference::{rfc3339, DecodeCodes, Receives};
use crate::spec::PROTOCOL_VERSION;
use crate::transport::ReceiverKind;
use crate::wire::{self, code, Message, Outcome};
use faults::{Fault, Faults};
use serde_json::{json, Value};
pub use serve::Reference as Serving;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
pub use store::Store;
use store::{TaskOutcome, TaskRecord};
use tokio::sync::{mpsc, oneshot};

use store::{Policy, Unlimited};
use variants::Variant;

/// Notifications a requestor may send that the reference knows.
const KNOWN_NOTIFICATIONS: [&str; 4] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// Which message a Task object is rendered for (faults differ by message).
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Create,
    Get,
    Other,
}

/// A running reference receiver.
pub struct Reference {
    /// Which side it plays: a server receiving tools/call, or a client receiving sampling and
    /// elicitation requests.
    kind: ReceiverKind,
    faults: Faults,
    store: Arc<Mutex<Store>>,
    out: mpsc::UnboundedSender<Value>,
    calls: Mutex<HashMap<String, oneshot::Sender<Result<Value, String>>>>,
    next_call: AtomicU64,
    /// Tasks whose result tasks/result took (the result-deletes-task fault).
    taken: Mutex<std::collections::HashSet<String>>,
    /// Tasks a tasks/get showed `input_required` or a tasks/result asked for, and the wake-up
    /// of elicitations waiting for that (the input-shown-first variant).
    input_seen: Mutex<std::collections::HashSet<String>>,
    input_wake: tokio::sync::Notify,
    /// Set by the HTTP server when a session ends (the session-end-stops-tasks fault): shared
    /// by every session of the server.
    support_stopped: Arc<AtomicBool>,
    /// Whether the client's initialize declared the Tasks extension (the
    /// extension-enables-tasks fault serves it as the extension would).
    extension_declared: AtomicBool,
}

type Reply = Result<Value, (i64, String)>;

/// The Tasks extension's identifier, which a 2025-11-25 client may declare among its
/// `extensions` and which enables nothing under that version.
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The work of a task: the underlying request's outcome (a result, or a JSON-RPC error object).
type Work = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, Value>> + Send>>;

fn invalid(message: impl Into<String>) -> (i64, String) {
    (code::INVALID_PARAMS, message.into())
}

/// The `data` every error carries under the extra-meta variant.
const EXTRA_ERROR_DATA: &str = "taskcheck-reference";
/// The extra `_meta` key every result carries under the extra-meta variant.
const EXTRA_META_KEY: &str = "example.com/taskcheck-reference";

impl Reference {
    fn send(&self, msg: Value) {
        let _ = self.out.send(msg);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends a request to the requestor and waits for its answer.
    async fn call_client(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = json!(format!(
            "ref-{}",
            self.next_call.fetch_add(1, Ordering::Relaxed)
        ));
        let (tx, rx) = oneshot::channel();
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), tx);
        self.send(wire::request(&id, method, &params));
        rx.await
            .map_err(|_| "the requestor went away".to_string())?
    }

    async fn handle(self: Arc<Self>, id: Value, method: String, params: Value) {
        let client = self.kind == ReceiverKind::Client;
        let twice = method == "tools/call" && self.faults.has(Fault::AnswersCallTwice);
        let reply = match method.as_str() {
            "initialize" if !client => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" | "roots/list"
                if self.faults.has(Fault::TasksForUndeclaredTypes)
                    && params.get("task").is_some() =>
            {
                let listed = self.listing();
                Ok(self.start_task(None, Box::pin(async { Ok(listed) })))
            }
            "tools/list" | "roots/list"
                if self.faults.has(Fault::UndeclaredTaskRefused)
                    && params.get("task").is_some() =>
            {
                Err((
                    code::INVALID_PARAMS,
                    format!("{method} cannot be task-augmented"),
                ))
            }
            "tools/list" | "roots/list" => Ok(self.listing()),
            "tools/call" if !client => self.tools_call(params, &id).await,
            "sampling/createMessage" | "elicitation/create" if client => {
                self.client_request(method, params, &id).await
            }
            m if m.starts_with("tasks/") && self.faults.is(Variant::NoTasks) => Err((
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method} (no Tasks here)"),
            )),
            "tasks/get" => self.tasks_get(&params),
            "tasks/result" => self.tasks_result(&params).await,
            "tasks/list" | "tasks/cancel" if self.faults.is(Variant::CallsOnly) => Err((
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method} (not declared)"),
            )),
            "tasks/list" if !self.faults.has(Fault::ListMethodMissing) => self.tasks_list(&params),
            "tasks/cancel" if !self.faults.has(Fault::CancelMethodMissing) => {
                self.tasks_cancel(&params).await
            }
            _ if self.faults.has(Fault::SilentOnUnknownMethod) => return,
            other if self.faults.has(Fault::UnknownMethodInvalidParams) => {
                Err((code::INVALID_PARAMS, format!("Method not found: {other}")))
            }
            other => Err((code::METHOD_NOT_FOUND, format!("Method not found: {other}"))),
        };
        let extra = self.faults.is(Variant::ExtraMeta);
        let answer = match reply {
            Ok(mut result) => {
                if let (true, Some(o)) = (extra, result.as_object_mut()) {
                    let meta = o.entry("_meta").or_insert(json!({}));
                    meta[EXTRA_META_KEY] = json!({"receiver": EXTRA_ERROR_DATA});
                }
                wire::result(&id, result)
            }
            Err((_, _)) if self.faults.has(Fault::EmptyErrorMessages) => {
                let (code, _) = reply.expect_err("matched an error");
                wire::error(&id, code, "")
            }
            Err((code, message)) => {
                let mut error = wire::error(&id, code, &message);
                if extra {
                    error["error"]["data"] = json!({"receiver": EXTRA_ERROR_DATA});
                }
                error
            }
        };
        if twice {
            self.send(answer.clone());
        }
        self.send(answer);
    }

    fn initialize(&self, params: &Value) -> Value {
        let extension = params
            .pointer("/capabilities/extensions")
            .and_then(|e| e.get(EXTENSION));
        self.extension_declared
            .store(extension.is_some(), Ordering::Relaxed);
        let mut caps = fixtures::server_capabilities();
        if self.faults.has(Fault::NoTasksCapability) || self.faults.is(Variant::NoTasks) {
            caps.as_object_mut()
                .expect("capabilities are an object")
                .remove("tasks");
        }
        let tasks = caps.get_mut("tasks").and_then(Value::as_object_mut);
        if let (true, Some(tasks)) = (self.faults.is(Variant::CallsOnly), tasks) {
            tasks.remove("list");
            tasks.remove("cancel");
        }
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": caps,
            "serverInfo": {"name": "taskcheck-reference", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "taskcheck reference receiver: implements the taskcheck fixture contract.",
        })
    }

    async fn tools_call(self: &Arc<Self>, params: Value, request_id: &Value) -> Reply {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut args = params.get("arguments").cloned().unwrap_or(json!({}));
        let renamed = self.faults.is(Variant::RenamedTools);
        let name = match renamed {
            true => {
                args = crate::reference::renamed::arguments(&args);
                let fixtures = fixtures::FIXTURES.iter().map(|f| f.name);
                crate::reference::renamed::fixture_of(&name, fixtures)
                    .ok_or_else(|| invalid(format!("Unknown tool: {name:?}")))?
                    .to_string()
            }
            false => name,
        };
        let (fixture, support) = match self.faults.is(Variant::OwnTools) {
            true => {
                let (fixture, own_args, support) = own_tools::as_fixture(&name, &args)
                    .ok_or_else(|| invalid(format!("Unknown tool: {name:?}")))?;
                args = own_args;
                (
                    fixtures::find(fixture).expect("own tools run as fixtures"),
                    support,
                )
            }
            false => {
                let fixture = fixtures::find(&name)
                    .ok_or_else(|| invalid(format!("Unknown tool: {name:?}")))?;
                (fixture, fixture.task_support.unwrap_or("forbidden"))
            }
        };
        let name = fixture.name.to_string();
        let task = params.get("task").cloned();
        let server = self.clone();
        let work = move |task_id: Option<String>| -> Work {
            Box::pin(async move {
                let run_ctx = tools::RunContext {
                    task_id,
                    progress_token: params.pointer("/_meta/progressToken").cloned(),
                };
                let outcome = tools::run(&server, &name, &args, &run_ctx).await;
                match renamed {
                    true => outcome.map(crate::reference::renamed::output),
                    false => outcome,
                }
            })
        };
        if self.faults.is(Variant::NoTasks) {
            // a server without Tasks processes every call normally (undeclared-processed-normally)
            return work(None).await.map_err(error_pair);
        }
        let extension = self.faults.has(Fault::ExtensionEnablesTasks)
            && self.extension_declared.load(Ordering::Relaxed);
        let Some(task) = task.or_else(|| (extension && support == "optional").then(|| json!({})))
        else {
            if support == "required" && !self.faults.has(Fault::RequiredAcceptsPlain) {
                return Err((
                    code::METHOD_NOT_FOUND,
                    format!("Tool {:?} requires task augmentation", fixture.name),
                ));
            }
            return work(None).await.map_err(error_pair);
        };
        if support == "forbidden" && self.faults.has(Fault::NoTasksCapability) {
            // undeclared, a task-augmented call is processed normally: only the optional
            // tools' tasks are the fault
            return work(None).await.map_err(error_pair);
        }
        let well_formed = task.is_object() && task.get("ttl").is_none_or(Value::is_u64);
        let plainly = self.faults.has(Fault::OptionalAnsweredPlainly)
            || self.support_stopped.load(Ordering::Relaxed);
        if support == "optional" && well_formed && plainly {
            return work(None).await.map_err(error_pair);
        }
        if support == "forbidden" && !self.faults.has(Fault::ForbiddenAcceptsTask) {
            return Err((
                code::METHOD_NOT_FOUND,
                format!("Tool {:?} does not support task augmentation", fixture.name),
            ));
        }
        self.augmented(&task, request_id, work).await
    }

    /// What this side lists: its tools (server) or roots (client).
    fn listing(&self) -> Value {
        match self.kind {
            ReceiverKind::Server if self.faults.is(Variant::OwnTools) => own_tools::tools_list(),
            ReceiverKind::Server if self.faults.is(Variant::RenamedTools) => {
                let mut list = fixtures::tools_list();
                if let Some(tools) = list["tools"].as_array_mut() {
                    for tool in tools {
                        *tool = crate::reference::renamed::listed(tool.take());
                    }
                }
                list
            }
            ReceiverKind::Server => fixtures::tools_list(),
            ReceiverKind::Client => fixtures::client::roots(),
        }
    }

    /// A sampling or elicitation request to the reference client, plain or task-augmented.
    async fn client_request(self: &Arc<Self>, method: String, params: Value, id: &Value) -> Reply {
        let task = params.get("task").cloned();
        let work = move |_: Option<String>| -> Work {
            Box::pin(async move {
                fixtures::client::answer(&method, &params)
                    .await
                    .unwrap_or_else(|| {
                        Err(json!({"code": code::METHOD_NOT_FOUND, "message": method}))
                    })
            })
        };
        match task {
            Some(task) => self.augmented(&task, id, work).await,
            None => work(None).await.map_err(error_pair),
        }
    }

    fn answer_call(&self, id: &Value, outcome: Outcome) {
        let waiter = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id.to_string());
        if let Some(tx) = waiter {
            let _ = tx.send(match outcome {
                Outcome::Result(r) => Ok(r),
                Outcome::Error(e) => Err(e.to_string()),
            });
        }
    }
}

fn error_pair(e: Value) -> (i64, String) {
    let code = e
        .get("code")
        .and_then(Value::as_i64)
        .unwrap_or(code::INTERNAL_ERROR);
    (
        code,
        e.get("message")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string(),
    )
}

impl Reference {
    /// A receiver whose every outgoing message goes to `out`.
    pub fn new(faults: Faults, out: mpsc::UnboundedSender<Value>) -> Arc<Reference> {
        let store = Reference::new_store(&faults);
        Reference::in_server(faults, out, store, Arc::default())
    }

    /// An empty task store for these faults.
    pub fn new_store(faults: &Faults) -> Arc<Mutex<Store>> {
        let defaults = Policy::default();
        let policy = Policy {
            ttl_divisor: if faults.has(Fault::EarlyExpiry) {
                10
            } else {
                1
            },
            max_ttl_ms: match (
                faults.is(Variant::LowTtlCap),
                faults.has(Fault::TtlUncapped),
            ) {
                (true, _) => 4000,
                (_, true) => u64::MAX,
                _ => defaults.max_ttl_ms,
            },
            unlimited: if faults.has(Fault::UnlimitedTtlVanishes) {
                Unlimited::Always
            } else if faults.is(Variant::UnlimitedTtlByDefault) {
                Unlimited::WhenNoneAsked
            } else {
                Unlimited::Never
            },
            page_size: match faults.is(Variant::OnePerPage) {
                true => 1,
                false => defaults.page_size,
            },
        };
        Arc::new(Mutex::new(Store::new(policy)))
    }

    /// A receiver keeping its tasks in `store` (shared between sessions only by a fault), whose
    /// task support stops when `support_stopped` is set (by the server, only under a fault).
    pub fn in_server(
        faults: Faults,
        out: mpsc::UnboundedSender<Value>,
        store: Arc<Mutex<Store>>,
        support_stopped: Arc<AtomicBool>,
    ) -> Arc<Reference> {
        Reference::build(ReceiverKind::Server, faults, out, store, support_stopped)
    }

    /// The reference client: a receiver of sampling and elicitation tasks.
    pub fn client(faults: Faults, out: mpsc::UnboundedSender<Value>) -> Arc<Reference> {
        let store = Reference::new_store(&faults);
        Reference::build(ReceiverKind::Client, faults, out, store, Arc::default())
    }

    fn build(
        kind: ReceiverKind,
        faults: Faults,
        out: mpsc::UnboundedSender<Value>,
        store: Arc<Mutex<Store>>,
        support_stopped: Arc<AtomicBool>,
    ) -> Arc<Reference> {
        Arc::new(Reference {
            kind,
            store,
            faults,
            out,
            calls: Mutex::default(),
            next_call: AtomicU64::new(0),
            taken: Mutex::default(),
            input_seen: Mutex::default(),
            input_wake: tokio::sync::Notify::new(),
            support_stopped,
            extension_declared: AtomicBool::new(false),
        })
    }

    /// Takes one decoded message from the requestor.
    pub fn receive(self: &Arc<Self>, message: Message) {
        match message {
            Message::Request { id, method, params } => {
                tokio::spawn(self.clone().handle(id, method, params));
            }
            Message::Response { id, outcome } => self.answer_call(&id, outcome),
            Message::Notification { method, .. } => {
                if self.faults.has(Fault::RepliesToNotifications)
                    && !KNOWN_NOTIFICATIONS.contains(&method.as_str())
                {
                    self.send(wire::error(
                        &Value::Null,
                        code::METHOD_NOT_FOUND,
                        &format!("Method not found: {method}"),
                    ));
                }
            }
        }
    }

    /// Whether a fault is on.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }
}

impl Receives for Reference {
    fn take(self: &Arc<Self>, message: Message) {
        self.receive(message)
    }

    fn put(&self, msg: Value) {
        self.send(msg)
    }

    fn logs_on_stdout(&self) -> bool {
        self.has(Fault::StdoutLogLine)
    }

    fn decode_error(&self, raw: &[u8], e: &wire::DecodeError) -> Value {
        decode_answer(&self.faults, raw, e)
    }
}

/// The JSON-RPC error answering input that does not decode, wrong under the fuzz-wire faults.
fn decode_answer(faults: &Faults, raw: &[u8], e: &wire::DecodeError) -> Value {
    let mut codes = DecodeCodes::default();
    if faults.has(Fault::InvalidRequestAsParseError) {
        codes.not_jsonrpc = code::PARSE_ERROR;
    }
    if faults.has(Fault::ParseErrorWrongCode) {
        codes.not_json = code::INVALID_REQUEST;
    }
    crate::reference::decode_error(raw, e, codes)
}

/// Serves the reference receiver on stdin/stdout until stdin closes; `hostile` breaks the
/// transport on purpose.
pub async fn serve_stdio(
    faults: Faults,
    hostile: Option<Hostile>,
    record: Option<crate::reference::record::Recorder>,
) -> std::io::Result<()> {
    crate::reference::serve_stdio_with(faults, hostile, record, Reference::new).await
}
