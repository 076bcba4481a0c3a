//! The 2025-11-25 reference receiver: a correct Tasks receiver built on the same model, with
//! `--fault` switches that each break one rule. The same receiver, with sampling, elicitation
//! and roots in place of tools, is the reference client (`client.rs`).

mod client;
pub mod faults;
pub mod http;
mod serve;
mod store;
mod tools;
pub mod variants;

use crate::fixtures;
use crate::model::TaskStatus;
use crate::spec::PROTOCOL_VERSION;
use crate::transport::ReceiverKind;
use crate::wire::{self, code, Message, Outcome};
use faults::{Fault, Faults};
use crate::reference::hostile::Hostile;
use crate::reference::{rfc3339, DecodeCodes, Receives};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
pub use serve::Reference as Serving;
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
}

type Reply = Result<Value, (i64, String)>;

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

    /// A task id as it appears on the wire (a number under the numeric-task-id fault).
    fn wire_id(&self, id: &str) -> Value {
        match id.parse::<u64>() {
            Ok(n) if self.faults.has(Fault::NumericTaskId) => json!(n),
            _ => json!(id),
        }
    }

    /// `_meta` associating a message with a task.
    fn related_meta(&self, id: &str) -> Value {
        json!({ wire::RELATED_TASK: {"taskId": self.wire_id(id)} })
    }

    /// Renders a task as the wire Task object.
    fn render(&self, t: &mut TaskRecord, view: View) -> Value {
        t.reports += 1;
        let f = &self.faults;
        let id = self.wire_id(&t.id);
        let mut status = t.status;
        if view == View::Get && t.status == TaskStatus::Completed {
            t.terminal_gets += 1;
            let reopens = f.has(Fault::TerminalStatusChanges)
                || (f.has(Fault::ThirdTaskReopens) && t.ordinal == 3);
            if reopens && t.terminal_gets > 1 {
                status = TaskStatus::Working;
            }
        }
        let created = if f.has(Fault::CreatedAtDrifts) {
            self.stamp(t.created - time::Duration::seconds(t.reports as i64), view)
        } else if f.has(Fault::CreatedAtNotRfc3339) {
            format!("{}", (t.created.unix_timestamp_nanos() / 1_000_000))
        } else {
            self.stamp(t.created, view)
        };
        let mut task = json!({"taskId": id, "status": status.as_str(), "createdAt": created});
        if !f.has(Fault::LastUpdatedAtMissing) {
            let updated = if view == View::Get && f.has(Fault::LastUpdatedGoesBack) {
                t.updated + time::Duration::milliseconds(1000 - t.reports as i64)
            } else {
                t.updated
            };
            task["lastUpdatedAt"] = json!(self.stamp(updated, view));
        }
        if !(view == View::Get && f.has(Fault::GetOmitsTtl)) {
            task["ttl"] = json!(t.ttl_ms);
        }
        let poll_interval = match f.is(Variant::LongPollInterval) {
            true => 1500,
            false => store::POLL_INTERVAL_MS,
        };
        task["pollInterval"] = if f.has(Fault::PollIntervalString) {
            json!(poll_interval.to_string())
        } else {
            json!(poll_interval)
        };
        let always = f
            .is(Variant::StatusMessageAlways)
            .then(|| format!("The task is {}.", status.as_str()));
        if let Some(m) = t.status_message.clone().or(always) {
            task["statusMessage"] = json!(m);
        }
        task
    }

    /// A timestamp as this receiver writes it for a view (RFC 3339 unless a fault or a
    /// variant says otherwise).
    fn stamp(&self, t: time::OffsetDateTime, view: View) -> String {
        let f = &self.faults;
        let t = match view != View::Create && f.is(Variant::MillisecondReads) {
            true => t
                .replace_nanosecond(t.millisecond() as u32 * 1_000_000)
                .unwrap_or(t),
            false => t,
        };
        let text = rfc3339(t);
        if f.has(Fault::TimestampsWithoutOffset) {
            return text.trim_end_matches('Z').to_string();
        }
        match view != View::Create && f.is(Variant::OffsetTimestamps) {
            true => format!("{}+00:00", text.trim_end_matches('Z')),
            false => text,
        }
    }

    /// Moves a task and announces it with notifications/tasks/status.
    fn set_status(&self, id: &str, status: TaskStatus, message: Option<String>) {
        let mut store = self.lock();
        if !store.transition(id, status, message, false) {
            return;
        }
        self.announce(&mut store, id);
    }

    fn announce(&self, store: &mut Store, id: &str) {
        let Some(t) = store.get(id) else { return };
        let mut params = self.render(t, View::Other);
        if self.faults.has(Fault::StatusNotificationWithRelatedTask) {
            params["_meta"] = self.related_meta(id);
        }
        self.send(wire::notification("notifications/tasks/status", &params));
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

    fn task_id_param(&self, params: &Value) -> Result<String, (i64, String)> {
        if self.faults.has(Fault::TrustRequestMeta) {
            if let Some(id) = wire::related_task_id(params) {
                return Ok(id.to_string());
            }
        }
        match params.get("taskId") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) if self.faults.has(Fault::NumericTaskId) => Ok(n.to_string()),
            _ if self.faults.has(Fault::MalformedIdInternalError) => Err((
                code::INTERNAL_ERROR,
                "Invalid input: expected string at taskId".into(),
            )),
            _ => Err(invalid("`taskId` must be a string")),
        }
    }

    fn not_found(&self, id: &str) -> (i64, String) {
        let taken = self
            .taken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(id);
        let code = if self.faults.has(Fault::UnknownTaskWrongCode) {
            code::INVALID_REQUEST
        } else if taken {
            code::RESOURCE_NOT_FOUND
        } else {
            code::INVALID_PARAMS
        };
        (code, format!("Task not found: {id:?}"))
    }

    async fn handle(self: Arc<Self>, id: Value, method: String, params: Value) {
        let client = self.kind == ReceiverKind::Client;
        let reply = match method.as_str() {
            "initialize" if !client => Ok(self.initialize()),
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
            "tools/list" if !client => Ok(fixtures::tools_list()),
            "roots/list" if client => Ok(fixtures::client::roots()),
            "tools/call" if !client => self.tools_call(params, &id).await,
            "sampling/createMessage" | "elicitation/create" if client => {
                self.client_request(method, params, &id).await
            }
            "tasks/get" => self.tasks_get(&params),
            "tasks/result" => self.tasks_result(&params).await,
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
        self.send(match reply {
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
        });
    }

    fn initialize(&self) -> Value {
        let mut caps = fixtures::server_capabilities();
        if self.faults.has(Fault::NoTasksCapability) {
            caps.as_object_mut()
                .expect("capabilities are an object")
                .remove("tasks");
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
        let fixture =
            fixtures::find(&name).ok_or_else(|| invalid(format!("Unknown tool: {name:?}")))?;
        let args = params.get("arguments").cloned().unwrap_or(json!({}));
        let support = fixture.task_support.unwrap_or("forbidden");
        let task = params.get("task").cloned();
        let server = self.clone();
        let work = move |task_id: Option<String>| -> Work {
            Box::pin(async move {
                let run_ctx = tools::RunContext {
                    task_id,
                    progress_token: params.pointer("/_meta/progressToken").cloned(),
                };
                tools::run(&server, &name, &args, &run_ctx).await
            })
        };
        let Some(task) = task else {
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

    /// Answers a task-augmented request: checks `task`, creates the task running `work` (given
    /// the task id) and returns its CreateTaskResult.
    async fn augmented(
        self: &Arc<Self>,
        task: &Value,
        request_id: &Value,
        work: impl FnOnce(Option<String>) -> Work,
    ) -> Reply {
        let requested_ttl = match (task.is_object(), task.get("ttl")) {
            _ if self.faults.has(Fault::MalformedTaskAccepted) => {
                task.get("ttl").and_then(Value::as_u64)
            }
            (false, _) => return Err(invalid("`task` must be an object")),
            (true, None | Some(Value::Null)) => None,
            (true, Some(v))
                if v.is_number()
                    && v.as_u64().is_none()
                    && self.faults.has(Fault::DiesOnOddTtl) =>
            {
                std::process::exit(70)
            }
            (true, Some(v)) => Some(
                v.as_u64()
                    .ok_or_else(|| invalid("`task.ttl` must be a non-negative integer"))?,
            ),
        };
        if let Some(max) = self.faults.max_live_tasks {
            if self.lock().unfinished() >= max {
                return Err((
                    code::INTERNAL_ERROR,
                    format!("Too many unfinished tasks: at most {max} at once"),
                ));
            }
        }
        if self.faults.has(Fault::CreateReturnsResult) {
            return work(None).await.map_err(error_pair);
        }
        let task_id = match self.faults.has(Fault::TaskIdIsRequestId) {
            true => wire::id_text(request_id),
            false => self.next_task_id(),
        };
        let created =
            self.start_task_with_id(task_id.clone(), requested_ttl, work(Some(task_id.clone())));
        if self.faults.has(Fault::SlowCreate) {
            let done = self.lock().get(&task_id).map(|t| t.done.subscribe());
            if let Some(mut done) = done {
                let _ = done.wait_for(|d| *d).await;
            }
        }
        Ok(created)
    }

    /// The id of the next task (a UUID, unless a fault says otherwise).
    fn next_task_id(&self) -> String {
        let store = self.lock();
        let n = store.created_count();
        if self.faults.has(Fault::NumericTaskId) {
            (n + 1).to_string()
        } else if self.faults.has(Fault::SequentialTaskId) {
            format!("task-{}", n + 1)
        } else if self.faults.has(Fault::DuplicateTaskId) && n % 2 == 1 {
            store.newest().cloned().unwrap_or_default()
        } else if self.faults.has(Fault::PerSessionIds) {
            uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, &n.to_be_bytes()).to_string()
        } else {
            uuid::Uuid::new_v4().to_string()
        }
    }

    /// Creates a task running `work` and returns its CreateTaskResult.
    fn start_task(self: &Arc<Self>, requested_ttl: Option<u64>, work: Work) -> Value {
        let id = self.next_task_id();
        self.start_task_with_id(id, requested_ttl, work)
    }

    fn start_task_with_id(
        self: &Arc<Self>,
        task_id: String,
        requested_ttl: Option<u64>,
        work: Work,
    ) -> Value {
        let (created, cancel) = {
            let mut store = self.lock();
            let record = store.create(task_id.clone(), requested_ttl);
            let cancel = record.cancel.clone();
            let task = self.render(record, View::Create);
            let hint = format!("Task {task_id} started; poll tasks/get for its status.");
            let created = json!({"task": task, "_meta": {wire::MODEL_IMMEDIATE_RESPONSE: hint}});
            (created, cancel)
        };
        let server = self.clone();
        tokio::spawn(async move {
            let f = &server.faults;
            let goes_on = [
                Fault::CancelledTaskCompletes,
                Fault::CancelledTaskFails,
                Fault::CancelKeepsWorking,
            ];
            let outcome = if goes_on.iter().any(|g| f.has(*g)) {
                Some(work.await)
            } else if f.has(Fault::CrashAfterCancel) {
                let mut work = work;
                tokio::select! {
                    o = &mut work => Some(o),
                    _ = cancel.notified() => {
                        let _ = work.await;
                        eprintln!("taskcheck reference: cannot store the result of cancelled task {task_id}: exiting");
                        std::process::exit(70);
                    }
                }
            } else {
                tokio::select! {
                    o = work => Some(o),
                    _ = cancel.notified() => None,
                }
            };
            if let Some(outcome) = outcome {
                server.finish(&task_id, outcome);
            }
        });
        created
    }

    /// Records the outcome of a task's work and moves it to completed or failed.
    fn finish(&self, id: &str, outcome: Result<Value, Value>) {
        let mut store = self.lock();
        let fails = self.faults.has(Fault::CancelledTaskFails);
        let force = self.faults.has(Fault::CancelledTaskCompletes) || fails;
        let was_cancelled = store
            .get(id)
            .is_some_and(|t| t.status == TaskStatus::Cancelled);
        let (status, message, stored) = match outcome {
            Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => (
                if self.faults.has(Fault::ToolErrorCompletes) {
                    TaskStatus::Completed
                } else {
                    TaskStatus::Failed
                },
                Some("the tool reported an error (isError: true)".to_string()),
                TaskOutcome::Result(r),
            ),
            Ok(r) => (TaskStatus::Completed, None, TaskOutcome::Result(r)),
            Err(e) => (
                match self.faults.has(Fault::ProtocolErrorCompletes) {
                    true => TaskStatus::Completed,
                    false => TaskStatus::Failed,
                },
                Some(format!(
                    "the request failed: {}",
                    e.get("message").and_then(Value::as_str).unwrap_or("error")
                )),
                TaskOutcome::Error(e),
            ),
        };
        if let Some(t) = store.get(id) {
            if t.status.is_terminal() && !force {
                return;
            }
            t.outcome = Some(stored);
        }
        let (status, message) = match (fails && was_cancelled, status) {
            (true, _) => (TaskStatus::Failed, None),
            (false, s) => (s, message),
        };
        let message = message.filter(|_| !self.faults.has(Fault::FailedWithoutStatusMessage));
        if store.transition(id, status, message, force) {
            self.announce(&mut store, id);
        }
        if self.faults.has(Fault::UnlimitedTtlVanishes) {
            let store = self.store.clone();
            let id = id.to_string();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                store.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
            });
        }
    }

    /// The final outcome of a terminal task as a tasks/result answer.
    fn outcome_of(&self, id: &str) -> Reply {
        let mut store = self.lock();
        let t = store.get(id).ok_or_else(|| self.not_found(id))?;
        let meta = self.related_meta(id);
        let drop_meta = self.faults.has(Fault::ResultWithoutRelatedTask)
            || (self.faults.has(Fault::OverlappingResultsLoseMeta) && t.results_overlapped);
        let with_meta = |mut v: Value| {
            if !drop_meta {
                if let Some(o) = v.as_object_mut() {
                    let m = o.entry("_meta").or_insert(json!({}));
                    if let (Some(m), Some(add)) = (m.as_object_mut(), meta.as_object()) {
                        m.extend(add.clone());
                    }
                }
            }
            v
        };
        match t.outcome.clone() {
            Some(TaskOutcome::Result(r)) => Ok(with_meta(r)),
            Some(TaskOutcome::Error(e)) if self.faults.has(Fault::ResultErrorAsSuccess) => {
                let text = e.get("message").cloned().unwrap_or(json!("error"));
                Ok(with_meta(
                    json!({"content": [{"type": "text", "text": text}], "isError": true}),
                ))
            }
            Some(TaskOutcome::Error(e)) if self.faults.has(Fault::ResultErrorRewrapped) => {
                let (code, message) = error_pair(e);
                Err((code, format!("Task {id:?} failed: {message}")))
            }
            Some(TaskOutcome::Error(e)) => Err(error_pair(e)),
            None => Err((
                code::INTERNAL_ERROR,
                format!("Task {id:?} was cancelled before it produced a result"),
            )),
        }
    }

    fn tasks_get(&self, params: &Value) -> Reply {
        let id = self.task_id_param(params)?;
        let mut store = self.lock();
        let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
        let mut task = self.render(t, View::Get);
        if self.faults.has(Fault::GetWithRelatedTask) {
            task["_meta"] = self.related_meta(&id);
        }
        Ok(task)
    }

    async fn tasks_result(&self, params: &Value) -> Reply {
        let id = self.task_id_param(params)?;
        let mut done = {
            let mut store = self.lock();
            let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
            if t.status.is_terminal() && self.faults.has(Fault::ResultReturnsTask) {
                let mut task = self.render(t, View::Other);
                task["_meta"] = self.related_meta(&id);
                return Ok(task);
            }
            if !t.status.is_terminal() && self.faults.has(Fault::ResultNotBlocking) {
                return Err(invalid(format!("Task {id:?} has not finished")));
            }
            if !t.status.is_terminal() && self.faults.has(Fault::ResultReturnsEarly) {
                let mut empty = match self.kind {
                    ReceiverKind::Server => json!({"content": []}),
                    ReceiverKind::Client => {
                        json!({"role": "assistant", "content": {"type": "text", "text": ""}, "model": "none"})
                    }
                };
                empty["_meta"] = self.related_meta(&id);
                return Ok(empty);
            }
            t.results_waiting += 1;
            t.results_overlapped |= t.results_waiting > 1;
            t.done.subscribe()
        };
        let _ = done.wait_for(|d| *d).await;
        if let Some(t) = self.lock().get(&id) {
            t.results_waiting -= 1;
        }
        if self.faults.has(Fault::ResultDeletesTask) {
            let outcome = self.outcome_of(&id);
            self.lock().remove(&id);
            self.taken
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id);
            return outcome;
        }
        if self.faults.has(Fault::ResultOnce) {
            let mut store = self.lock();
            let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
            t.results_served += 1;
            if t.results_served > 1 {
                return Err(invalid(format!(
                    "Task {id:?}: its result was already retrieved"
                )));
            }
        }
        self.outcome_of(&id)
    }

    fn tasks_list(&self, params: &Value) -> Reply {
        let cursor = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(c.as_str()),
            Some(_) => return Err(invalid("`cursor` must be a string")),
        };
        let mut store = self.lock();
        if self.faults.has(Fault::ListOnePage) {
            // it never gives a cursor, so none is valid
            if let Some(c) = cursor {
                return Err(invalid(format!("Invalid cursor: {c:?}")));
            }
            let tasks: Vec<Value> = store
                .all_ids()
                .iter()
                .filter_map(|id| store.get(id).map(|t| self.render(t, View::Other)))
                .collect();
            return Ok(json!({"tasks": tasks}));
        }
        if self.faults.has(Fault::ListOnlyUnfinished) {
            let tasks: Vec<Value> = store
                .unfinished_ids()
                .iter()
                .filter_map(|id| store.get(id).map(|t| self.render(t, View::Other)))
                .collect();
            return Ok(json!({"tasks": tasks}));
        }
        let (ids, next) = match store.page(cursor) {
            Some(page) => page,
            None if self.faults.has(Fault::BadCursorAccepted) => {
                store.page(None).expect("the first page always exists")
            }
            None => {
                return Err(invalid(format!(
                    "Invalid cursor: {:?}",
                    cursor.unwrap_or_default()
                )))
            }
        };
        let hidden = self
            .faults
            .has(Fault::ListHidesTask)
            .then(|| store.newest().cloned())
            .flatten();
        let mut tasks = Vec::new();
        for id in ids.iter().filter(|id| Some(*id) != hidden.as_ref()) {
            if let Some(t) = store.get(id) {
                tasks.push(self.render(t, View::Other));
            }
        }
        let mut result = json!({"tasks": tasks});
        if let Some(n) = next.filter(|_| !self.faults.has(Fault::ListDropsNextCursor)) {
            result["nextCursor"] = json!(n);
        }
        Ok(result)
    }

    async fn tasks_cancel(self: &Arc<Self>, params: &Value) -> Reply {
        let id = self.task_id_param(params)?;
        let mut store = self.lock();
        let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
        if t.status == TaskStatus::InputRequired
            && self.faults.has(Fault::CancelInputRequiredRejected)
        {
            return Err(invalid(format!(
                "Cannot cancel task {id:?}: it is waiting for input"
            )));
        }
        if t.status.is_terminal() {
            if self.faults.has(Fault::CancelTerminalOk) {
                return Ok(self.render(t, View::Other));
            }
            return Err(invalid(format!(
                "Cannot cancel task {id:?}: already in terminal status {:?}",
                t.status.as_str()
            )));
        }
        if self.faults.has(Fault::CancelReportsWorking) {
            let answer = self.render(t, View::Other);
            let server = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                server.cancel_now(&id);
            });
            return Ok(answer);
        }
        drop(store);
        self.cancel_now(&id);
        let mut store = self.lock();
        let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
        let answer = self.render(t, View::Other);
        if self.faults.is(Variant::CancelledDeleted) {
            store.remove(&id);
        }
        Ok(answer)
    }

    /// Cancels a task now, whatever its status allows (used by the HTTP receiver's faults too).
    pub fn cancel_now(&self, id: &str) {
        let cancel = self.lock().get(id).map(|t| t.cancel.clone());
        self.set_status(
            id,
            TaskStatus::Cancelled,
            Some("The task was cancelled by request.".into()),
        );
        if let Some(c) = cancel {
            c.notify_one();
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
        Reference::with_store(faults, out, store)
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
            max_ttl_ms: match faults.is(Variant::LowTtlCap) {
                true => 4000,
                false => defaults.max_ttl_ms,
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

    /// A receiver keeping its tasks in `store` (shared between sessions only by a fault).
    pub fn with_store(
        faults: Faults,
        out: mpsc::UnboundedSender<Value>,
        store: Arc<Mutex<Store>>,
    ) -> Arc<Reference> {
        Reference::build(ReceiverKind::Server, faults, out, store)
    }

    /// The reference client: a receiver of sampling and elicitation tasks.
    pub fn client(faults: Faults, out: mpsc::UnboundedSender<Value>) -> Arc<Reference> {
        let store = Reference::new_store(&faults);
        Reference::build(ReceiverKind::Client, faults, out, store)
    }

    fn build(
        kind: ReceiverKind,
        faults: Faults,
        out: mpsc::UnboundedSender<Value>,
        store: Arc<Mutex<Store>>,
    ) -> Arc<Reference> {
        Arc::new(Reference {
            kind,
            store,
            faults,
            out,
            calls: Mutex::default(),
            next_call: AtomicU64::new(0),
            taken: Mutex::default(),
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
pub async fn serve_stdio(faults: Faults, hostile: Option<Hostile>) -> std::io::Result<()> {
    crate::reference::serve_stdio_with(faults, hostile, Reference::new).await
}
