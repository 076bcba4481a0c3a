//! The extension's reference receiver: a stateless 2026-07-28 server that answers tools/call
//! with a task whenever the request declares the extension, and passes every check of the
//! profile; each `Fault` of `faults.rs` breaks one rule.

use super::official_tools::{self, Runs};
use super::{declares, request_capabilities, EXTENSION, META_VERSION, MISSING_CAPABILITY};
use super::faults::{Fault, Faults};
use super::variants::Variant;
use crate::reference::{rfc3339, Receives};
use crate::wire::{code, Message};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

/// The fixture tools, each with what it does.
pub const TOOLS: &[(&str, &str)] = &[
    ("optional_sleep", "after `ms`, returns \"slept <ms>\"; a task when the extension is declared"),
    ("required_sleep", "like optional_sleep, but only as a task: without the extension, -32021"),
    ("tool_error", "after `ms`, a CallToolResult with `isError: true`"),
    ("protocol_error", "after `ms`, the request ends in JSON-RPC error -32603"),
    ("elicit_input", "asks one elicitation (`name`) through `inputRequests`, returns \"Hello, <name>!\"; only as a task"),
    ("elicit_pair", "asks two elicitations at once (`first`, `last`), returns \"Hello, <first> <last>!\"; only as a task"),
    ("elicit_twice", "asks one elicitation, then a second once the first is answered, returns both answers; only as a task"),
    ("confirm_first", "asks a confirmation (`confirm`) over an InputRequiredResult before it creates its task; retried with the answer and `requestState`, creates the task, which returns \"Confirmed: <confirm>\"; only as a task"),
];

/// The extension's fixture contract as a Markdown table (`taskcheck list --fixtures --profile
/// ext-tasks`).
pub fn contract_table() -> String {
    let mut out = String::from("| tool | behaviour |\n|---|---|\n");
    for (name, what) in TOOLS {
        out.push_str(&format!("| `{name}` | {what} |\n"));
    }
    out.push_str("\nEvery tool takes an optional integer `ms` (default 0). Text results are one `{\"type\":\"text\"}` item. ");
    out.push_str(&format!(
        "The server creates a task for every call whose request declares the extension; server/discover declares `{{\"extensions\":{{\"{EXTENSION}\":{{}}}}}}`.\n"
    ));
    let official: Vec<String> = official_tools::TOOLS
        .iter()
        .map(|t| format!("`{}`", t.name))
        .collect();
    out.push_str(&format!(
        "\nThe reference receiver also serves the official conformance suite's tasks fixtures ({}) so `interop/calibrate.sh` can run that suite against it; they are not part of this contract.\n",
        official.join(", ")
    ));
    out
}

/// The confirmation confirm_first asks before it creates its task.
const CONFIRM: &str = "confirm";
/// The `requestState` confirm_first hands out and expects back.
const CONFIRM_STATE: &str = "taskcheck-reference/confirm_first";

/// The extra `_meta` key (and error `data`) of the extra-meta variant.
const EXTRA_META_KEY: &str = "example.com/taskcheck-reference";
/// How a Task is shown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    /// A CreateTaskResult or acknowledgement: the Task's fields only.
    Handle,
    /// A tasks/get result.
    Get,
    /// A notifications/tasks.
    Notification,
}

/// The method that opens a notification stream.
const LISTEN: &str = "subscriptions/listen";
/// How long a task lives, in ms.
const TTL_MS: u64 = 60_000;
/// How long a client may cache server/discover and tools/list, in ms: not at all, as faults
/// and variants change them from run to run.
const CACHE_TTL_MS: u64 = 0;
/// The poll interval the reference suggests, in ms.
const POLL_MS: u64 = 50;

/// One task's state.
struct Task {
    status: &'static str,
    status_message: Option<String>,
    created_at: String,
    updated_at: String,
    /// The outcome once terminal: a result or a JSON-RPC error.
    outcome: Option<Result<Value, Value>>,
    /// Outstanding requests by key, and answers not yet taken by the work.
    asking: BTreeMap<String, Value>,
    answers: BTreeMap<String, Value>,
    /// Keys whose requests were answered (never outstanding again).
    answered: Vec<String>,
    /// The credentials of the caller that created it (over HTTP).
    owner: Option<String>,
    /// Set once a cancelled task was read cancelled (the cancelled-reopens fault).
    read_cancelled: bool,
    wake: Arc<Notify>,
}

/// An open `subscriptions/listen` stream: its request id, the tasks it watches, and where its
/// messages go (stdout over stdio, the POST's SSE answer over HTTP).
struct Listener {
    id: Value,
    watched: Vec<String>,
    out: mpsc::UnboundedSender<Value>,
}

/// The extension's reference receiver.
pub struct ExtReference {
    faults: Faults,
    out: mpsc::UnboundedSender<Value>,
    tasks: Mutex<HashMap<String, Task>>,
    /// Open `subscriptions/listen` streams.
    listening: Mutex<Vec<Listener>>,
    /// The counter behind the sequential-task-id fault.
    next_id: std::sync::atomic::AtomicU64,
    /// Itself, for changes made later (eventually consistent variants).
    me: std::sync::Weak<ExtReference>,
}

type Reply = Result<Value, Value>;

fn now() -> String {
    rfc3339(time::OffsetDateTime::now_utc())
}

fn error(code: i64, message: impl Into<String>) -> Value {
    json!({"code": code, "message": message.into()})
}

fn text(s: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": s.into()}], "isError": false})
}

fn elicitation(message: &str, field: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}}})
}

/// What confirm_first asks over its InputRequiredResult: the key, the form's one field and
/// its message.
#[derive(Clone, Copy)]
struct PreTaskAsk {
    key: &'static str,
    field: &'static str,
    message: &'static str,
}

/// confirm_first's own question.
const CONFIRM_ASK: PreTaskAsk = PreTaskAsk {
    key: CONFIRM,
    field: CONFIRM,
    message: "Proceed?",
};
/// The question of the official suite's test_tool_with_task, which runs as confirm_first.
const USER_NAME: PreTaskAsk = PreTaskAsk {
    key: "user_name",
    field: "name",
    message: "Your name?",
};

/// The answer a retried confirm_first call carries with its `requestState`, if any.
fn confirmation(params: &Value, ask: PreTaskAsk) -> Option<String> {
    let answer = params.get("inputResponses")?.get(ask.key)?;
    (params.get("requestState") == Some(&json!(CONFIRM_STATE)))
        .then(|| answer_text(answer, ask.field))
}

/// When one of the reference's own tools makes a task.
fn own_runs(name: &str) -> Runs {
    match name.starts_with("elicit") || matches!(name, "required_sleep" | "confirm_first") {
        true => Runs::TaskOnly,
        false => Runs::Either,
    }
}

/// The text an elicitation answer gave for `field` ("?" when declined).
fn answer_text(answer: &Value, field: &str) -> String {
    answer
        .get("content")
        .and_then(|c| c.get(field))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string()
}

impl ExtReference {
    /// A receiver writing its messages to `out`.
    pub fn new(faults: Faults, out: mpsc::UnboundedSender<Value>) -> Arc<ExtReference> {
        Arc::new_cyclic(|me| ExtReference {
            faults,
            out,
            tasks: Mutex::default(),
            listening: Mutex::default(),
            next_id: Default::default(),
            me: me.clone(),
        })
    }

    fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }

    fn is(&self, variant: Variant) -> bool {
        self.faults.is(variant)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Task>> {
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a request opens a notification stream (its transport serves it with `listen`):
    /// a listen, unless it asks for task notifications without declaring the extension.
    pub fn opens_stream(&self, method: &str, params: &Value) -> bool {
        let asks_tasks = params["notifications"].get("taskIds").is_some();
        let allowed = declares(request_capabilities(params)) || !asks_tasks;
        method == LISTEN && allowed && !self.is(Variant::NoListen)
    }

    async fn handle(self: Arc<Self>, id: Value, method: String, params: Value) {
        if self.opens_stream(&method, &params) {
            // a long-lived request: acknowledged, then never answered while the stream lives
            return self.listen(id, &params, self.out.clone());
        }
        let reply = self.answer(&method, &params, None).await;
        let msg = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
        };
        let _ = self.out.send(msg);
    }

    /// The outcome of one request: a result or a JSON-RPC error object (with an extra `_meta`
    /// key or `data` under the extra-meta variant).
    /// `caller` is who asks (its credentials over HTTP; none over stdio): a task is seen
    /// only by the caller that created it.
    pub async fn answer(
        self: &Arc<Self>,
        method: &str,
        params: &Value,
        caller: Option<&str>,
    ) -> Reply {
        let outcome = self.outcome(method, params, caller).await;
        if !self.is(Variant::ExtraMeta) {
            return outcome;
        }
        match outcome {
            Ok(mut r) => {
                r["_meta"][EXTRA_META_KEY] = json!(true);
                Ok(r)
            }
            Err(e) => Err(with_data(e)),
        }
    }

    async fn outcome(
        self: &Arc<Self>,
        method: &str,
        params: &Value,
        caller: Option<&str>,
    ) -> Reply {
        let meta = params.get("_meta");
        let version = meta
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str);
        let caps = request_capabilities(params);
        if !super::carries_request_meta(params) && !self.has(Fault::AcceptsMissingMeta) {
            return Err(error(
                code::INVALID_PARAMS,
                "every request carries _meta io.modelcontextprotocol/protocolVersion and clientCapabilities",
            ));
        }
        if let Some(v) = version.filter(|v| *v != super::PROTOCOL_VERSION) {
            return Err(
                json!({"code": -32022, "message": format!("unsupported protocol version {v}"),
                "data": {"supported": [super::PROTOCOL_VERSION], "requested": v}}),
            );
        }
        let declared = declares(caps);
        let tasks_method = matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel");
        if tasks_method && !declared && !self.has(Fault::TasksMethodsUndeclared) {
            return Err(missing_capability());
        }
        let complete = |mut r: Value| {
            r["resultType"] = json!("complete");
            Ok(r)
        };
        match method {
            "server/discover" => complete(self.discover()),
            "tools/list" => self.tools_list(),
            LISTEN if self.is(Variant::NoListen) => Err(error(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
            // a listen the server serves is a stream its transport opens (`listen`)
            LISTEN if self.opens_stream(method, params) => Err(error(
                code::INTERNAL_ERROR,
                "subscriptions/listen opens a stream, which its transport serves",
            )),
            LISTEN if self.has(Fault::ListenWithoutCapability) => complete(json!({})),
            LISTEN => Err(missing_capability()),
            "tools/call" => {
                let declared = declared || self.has(Fault::TaskWithoutCapability);
                self.call(params, declared, caller).await
            }
            "tasks/get" => self.get(params, caller),
            "tasks/update" => self.update(params, caller),
            "tasks/cancel" => self.cancel(params, caller),
            "tasks/result" if self.has(Fault::ServesTasksResult) => {
                let task = self.get(params, caller)?;
                complete(task.get("result").cloned().unwrap_or(json!({})))
            }
            _ => Err(error(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
        }
    }

    fn discover(&self) -> Value {
        let mut capabilities = json!({"tools": {}});
        if !self.has(Fault::Undeclared) {
            capabilities["extensions"] = json!({EXTENSION: {}});
        }
        if self.has(Fault::AdvertisesLegacy) {
            capabilities["tasks"] = json!({"requests": {"tools": {"call": {}}}, "cancel": {}});
        }
        let versions = match self.has(Fault::DiscoverWithoutVersion) {
            true => json!(["2025-11-25"]),
            false => json!([super::PROTOCOL_VERSION]),
        };
        let mut result = json!({"supportedVersions": versions, "capabilities": capabilities,
            "_meta": {super::META_SERVER_INFO: {"name": "taskcheck-reference-ext", "version": env!("CARGO_PKG_VERSION")}}});
        self.cacheable(&mut result);
        result
    }

    /// Makes a result a CacheableResult (2026-07-28): how long it may be cached, and by whom.
    fn cacheable(&self, result: &mut Value) {
        if !self.has(Fault::NoCacheFields) {
            result["ttlMs"] = json!(CACHE_TTL_MS);
            result["cacheScope"] = json!("private");
        }
    }

    fn tools_list(&self) -> Reply {
        let tools: Vec<Value> = TOOLS
            .iter()
            .map(|(name, what)| {
                json!({"name": name, "description": what, "inputSchema": {"type": "object",
                    "properties": {"ms": {"type": "integer", "minimum": 0}}}})
            })
            .chain(official_tools::TOOLS.iter().map(official_tools::listed))
            .collect();
        let mut result = json!({ "tools": tools });
        self.cacheable(&mut result);
        if self.has(Fault::ListResultTypeTask) {
            result["resultType"] = json!("task");
        } else if !self.has(Fault::OmitsResultType) {
            result["resultType"] = json!("complete");
        }
        Ok(result)
    }

    async fn call(self: &Arc<Self>, params: &Value, declared: bool, caller: Option<&str>) -> Reply {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let args = params.get("arguments").cloned().unwrap_or(json!({}));
        // an official suite's tool runs as one of the reference's own
        let (runs, name, mut args, ask) = match official_tools::find(name) {
            Some(t) if t.name == "test_tool_with_task" => (
                t.runs,
                t.runs_as,
                official_tools::translate(t, &args),
                USER_NAME,
            ),
            Some(t) => (
                t.runs,
                t.runs_as,
                official_tools::translate(t, &args),
                CONFIRM_ASK,
            ),
            None if TOOLS.iter().any(|(t, _)| *t == name) => {
                (own_runs(name), name, args, CONFIRM_ASK)
            }
            None => {
                return Err(error(
                    code::INVALID_PARAMS,
                    format!("unknown tool {name:?}"),
                ))
            }
        };
        let caps = request_capabilities(params);
        let as_task = declared
            || self.has(Fault::LegacyHonoured) && caps.get("tasks").is_some()
            || self.has(Fault::TaskParamHonoured) && params.get("task").is_some();
        // the task-param-honoured fault makes a task of any tool the parameter asks it for
        let sync_only = runs == Runs::SyncOnly
            && !(self.has(Fault::TaskParamHonoured) && params.get("task").is_some());
        if !as_task || sync_only {
            if runs == Runs::TaskOnly {
                return Err(match self.has(Fault::MissingCapabilityWrongCode) {
                    true => error(code::INVALID_PARAMS, format!("{name} runs only as a task")),
                    false => missing_capability(),
                });
            }
            return self.clone().work(name, &args, None).await.map(|mut r| {
                r["resultType"] = json!("complete");
                r
            });
        }
        if name == "confirm_first" && !self.has(Fault::MrtrInsideTask) {
            // the round trip is resolved before the task exists
            match confirmation(params, ask) {
                Some(answer) => args[CONFIRM] = json!(answer),
                None => {
                    return Ok(json!({"resultType": "input_required",
                        "inputRequests": {ask.key: elicitation(ask.message, ask.field)},
                        "requestState": CONFIRM_STATE}))
                }
            }
        }
        Ok(self.create(name, args, caller).await)
    }

    /// Creates a task for a call and starts its work.
    async fn create(self: &Arc<Self>, name: &str, args: Value, caller: Option<&str>) -> Value {
        let task_id = match self.has(Fault::SequentialTaskId) {
            true => format!(
                "task-{}",
                self.next_id
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            false => uuid::Uuid::new_v4().to_string(),
        };
        let created = now();
        let task = Task {
            owner: caller.map(str::to_string),
            status: "working",
            status_message: None,
            created_at: created.clone(),
            updated_at: created,
            outcome: None,
            asking: BTreeMap::new(),
            answers: BTreeMap::new(),
            answered: Vec::new(),
            read_cancelled: false,
            wake: Arc::new(Notify::new()),
        };
        let mut handle = self.detail(&task_id, &task, View::Handle);
        handle["resultType"] = json!(match self.has(Fault::CreateResultTypeComplete) {
            true => "complete",
            false => "task",
        });
        let me = self.clone();
        let lazy = self.has(Fault::LazyCreation);
        let (id, name) = (task_id.clone(), name.to_string());
        let store = move || {
            me.lock().insert(id.clone(), task);
            tokio::spawn(async move {
                let outcome = me.clone().work(&name, &args, Some(&id)).await;
                me.finish(&id, outcome);
            });
        };
        match lazy {
            true => {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    store();
                });
            }
            false => store(),
        }
        handle
    }

    /// Runs a fixture tool to its outcome; `task` is the task it runs for, if any.
    async fn work(self: Arc<Self>, name: &str, args: &Value, task: Option<&str>) -> Reply {
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let task = task.unwrap_or_default();
        match name {
            "optional_sleep" | "required_sleep" => Ok(text(format!("slept {ms}"))),
            "greet" => Ok(text(format!(
                "Hello, {}!",
                args["name"].as_str().unwrap_or("world")
            ))),
            "tool_error" => Ok(
                json!({"content": [{"type": "text", "text": "tool_error fixture failed as asked"}], "isError": true}),
            ),
            "protocol_error" => {
                let e = error(
                    code::INTERNAL_ERROR,
                    "protocol_error fixture: internal error as asked",
                );
                // the task's error is the very error a plain call ends in
                Err(match self.is(Variant::ExtraMeta) {
                    true => with_data(e),
                    false => e,
                })
            }
            "elicit_input" => {
                let answers = self
                    .ask(
                        task,
                        vec![("name", elicitation("Please enter your name.", "name"))],
                    )
                    .await?;
                Ok(text(format!(
                    "Hello, {}!",
                    answer_text(&answers[0], "name")
                )))
            }
            "elicit_pair" => {
                let answers = self
                    .ask(
                        task,
                        vec![
                            ("first", elicitation("Your first name?", "first")),
                            ("last", elicitation("Your last name?", "last")),
                        ],
                    )
                    .await?;
                Ok(text(format!(
                    "Hello, {} {}!",
                    answer_text(&answers[0], "first"),
                    answer_text(&answers[1], "last")
                )))
            }
            "elicit_twice" => {
                let first = self
                    .ask(task, vec![("first", elicitation("First answer?", "value"))])
                    .await?;
                let second = self
                    .ask(
                        task,
                        vec![("second", elicitation("Second answer?", "value"))],
                    )
                    .await?;
                Ok(text(format!(
                    "{} then {}",
                    answer_text(&first[0], "value"),
                    answer_text(&second[0], "value")
                )))
            }
            "confirm_first" => {
                let answer = match args.get(CONFIRM).and_then(Value::as_str) {
                    Some(given) => given.to_string(),
                    // the mrtr-inside-task fault asks inside the task instead
                    None => {
                        let answers = self
                            .ask(task, vec![(CONFIRM, elicitation("Proceed?", CONFIRM))])
                            .await?;
                        answer_text(&answers[0], CONFIRM)
                    }
                };
                Ok(text(format!("Confirmed: {answer}")))
            }
            _ => Err(error(
                code::INVALID_PARAMS,
                format!("unknown tool {name:?}"),
            )),
        }
    }

    /// Puts a task in `input_required` with these requests and waits for their answers
    /// (Err once the task is cancelled).
    async fn ask(&self, task_id: &str, requests: Vec<(&str, Value)>) -> Result<Vec<Value>, Value> {
        let wake = {
            let mut tasks = self.lock();
            let Some(task) = tasks.get_mut(task_id) else {
                return Err(error(code::INTERNAL_ERROR, "the task is gone"));
            };
            // the reuses-input-key fault keys a later ask like the task's first
            let reused = task
                .answered
                .first()
                .filter(|_| self.has(Fault::ReusesInputKey));
            let keys: Vec<String> = requests
                .iter()
                .map(|(k, _)| reused.cloned().unwrap_or_else(|| k.to_string()))
                .collect();
            for (key, (_, request)) in keys.iter().zip(&requests) {
                task.asking.insert(key.clone(), request.clone());
            }
            task.status = "input_required";
            task.updated_at = now();
            self.announce(task_id, task);
            (task.wake.clone(), keys)
        };
        let (wake, keys) = wake;
        loop {
            let notified = wake.notified();
            {
                let mut tasks = self.lock();
                let Some(task) = tasks.get_mut(task_id) else {
                    return Err(error(code::INTERNAL_ERROR, "the task is gone"));
                };
                if task.status == "cancelled" {
                    return Err(error(code::INTERNAL_ERROR, "cancelled"));
                }
                let partial = self.has(Fault::PartialCompletes)
                    && keys.iter().any(|k| task.answers.contains_key(k));
                if partial || keys.iter().all(|k| task.answers.contains_key(k)) {
                    let answers = keys
                        .iter()
                        .map(|k| {
                            task.answers
                                .remove(k)
                                .unwrap_or(json!({"action": "decline"}))
                        })
                        .collect();
                    for k in &keys {
                        task.asking.remove(k);
                        task.answered.push(k.clone());
                    }
                    task.status = "working";
                    task.updated_at = now();
                    self.announce(task_id, task);
                    return Ok(answers);
                }
            }
            notified.await;
        }
    }

    /// Opens a notification stream writing to `out`: the acknowledgement first, then a
    /// notifications/tasks for each change of a task it watches.
    pub fn listen(&self, id: Value, params: &Value, out: mpsc::UnboundedSender<Value>) {
        // task notifications go only to a client that declares the extension
        let agreed =
            !self.is(Variant::NoTaskNotifications) && declares(request_capabilities(params));
        let watched: Vec<String> = params["notifications"]["taskIds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect();
        let tag = json!({super::META_SUBSCRIPTION: id});
        let current = |id: &str| {
            let tasks = self.lock();
            tasks
                .get(id)
                .map(|t| self.detail(id, t, View::Notification))
        };
        if self.has(Fault::NotifyBeforeAck) {
            for t in watched.iter().filter_map(|t| current(t)) {
                send_tagged(&out, "notifications/tasks", t, &tag);
            }
        }
        let acknowledged = match agreed {
            true => json!({"notifications": {"taskIds": watched}}),
            false => json!({"notifications": {}}),
        };
        send_tagged(
            &out,
            "notifications/subscriptions/acknowledged",
            acknowledged,
            &tag,
        );
        // the stream stays open until the client leaves, watching what was agreed to
        let watched = if agreed { watched } else { Vec::new() };
        if self.has(Fault::ProgressOnStream) {
            send_tagged(
                &out,
                "notifications/message",
                json!({"level": "info", "data": "listening"}),
                &tag,
            );
        }
        self.listening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Listener { id, watched, out });
    }

    /// Tells the streams watching a task that it changed.
    fn announce(&self, task_id: &str, task: &Task) {
        let mut listening = self.listening.lock().unwrap_or_else(|p| p.into_inner());
        // a stream whose client left is closed
        listening.retain(|l| !l.out.is_closed());
        for l in listening
            .iter()
            .filter(|l| l.watched.iter().any(|t| t == task_id))
        {
            let mut detail = self.detail(task_id, task, View::Notification);
            if self.has(Fault::NotificationWithoutPayload) {
                for k in ["result", "error", "inputRequests"] {
                    detail.as_object_mut().map(|d| d.remove(k));
                }
            }
            send_tagged(
                &l.out,
                "notifications/tasks",
                detail,
                &json!({super::META_SUBSCRIPTION: l.id}),
            );
        }
    }

    /// Records a task's outcome, unless it was cancelled meanwhile.
    fn finish(&self, task_id: &str, outcome: Reply) {
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(task_id) else {
            return;
        };
        if task.status == "cancelled" {
            return;
        }
        let is_error = outcome.as_ref().is_ok_and(|r| r["isError"] == json!(true));
        let (status, outcome) = match outcome {
            Ok(_) if is_error && self.has(Fault::ToolErrorFails) => (
                "failed",
                Err(error(code::INTERNAL_ERROR, "the tool reported an error")),
            ),
            Ok(r) => ("completed", Ok(r)),
            Err(e) => ("failed", Err(e)),
        };
        task.status = status;
        if status == "failed" && !self.has(Fault::FailedWithoutMessage) {
            task.status_message = Some("the request ended in a JSON-RPC error".into());
        }
        task.outcome = Some(outcome);
        task.updated_at = now();
        self.announce(task_id, task);
    }

    /// A task as a view shows it: a handle has no payload; tasks/get (with its faults) and a
    /// notification carry the result, error or requests of its status.
    fn detail(&self, task_id: &str, task: &Task, view: View) -> Value {
        let mut out = json!({"taskId": task_id, "status": task.status, "createdAt": task.created_at,
            "lastUpdatedAt": task.updated_at});
        if !self.is(Variant::NoPollInterval) {
            out["pollIntervalMs"] = json!(POLL_MS);
        }
        let ttl = match self.is(Variant::UnlimitedTtl) {
            true => Value::Null,
            false => json!(TTL_MS),
        };
        match self.has(Fault::TtlNotTtlMs) {
            true => out["ttl"] = ttl,
            false => out["ttlMs"] = ttl,
        }
        match &task.status_message {
            Some(m) => out["statusMessage"] = json!(m),
            None if self.is(Variant::StatusMessageAlways) => {
                out["statusMessage"] = json!(format!("the task is {}", task.status))
            }
            None => {}
        }
        if view == View::Handle {
            return out;
        }
        // the tasks/get faults break tasks/get only
        let get_fault = |f: Fault| view == View::Get && self.has(f);
        match (&task.outcome, task.status) {
            (Some(Ok(result)), "completed") if !get_fault(Fault::CompletedWithoutResult) => {
                let mut result = result.clone();
                if get_fault(Fault::ResultLosesIsError) {
                    result.as_object_mut().map(|r| r.remove("isError"));
                }
                out["result"] = result;
            }
            (Some(Err(e)), "failed") if !get_fault(Fault::FailedWithoutError) => {
                let mut e = e.clone();
                if get_fault(Fault::ErrorDiffers) {
                    e["message"] = json!("the task failed");
                }
                out["error"] = e;
            }
            _ => {}
        }
        if task.status == "input_required" {
            let shown = match get_fault(Fault::OneInputRequest) {
                true => 1,
                false => usize::MAX,
            };
            let requests: Map<String, Value> = task
                .asking
                .iter()
                .take(shown)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out["inputRequests"] = Value::Object(requests);
        }
        out
    }

    fn task_id(params: &Value) -> Result<String, Value> {
        params
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| error(code::INVALID_PARAMS, "taskId must be a string"))
    }

    /// Whether a caller may see a task: the one that created it (every caller under the
    /// unbound-tasks fault).
    fn visible(&self, task: &Task, caller: Option<&str>) -> bool {
        self.has(Fault::UnboundTasks) || task.owner.as_deref() == caller
    }

    /// The error for a task id nobody knows (-32603 under `wrong`).
    fn unknown(&self, task_id: &str, wrong: Option<Fault>) -> Value {
        match wrong.is_some_and(|f| self.has(f)) {
            true => error(code::INTERNAL_ERROR, format!("no task {task_id}")),
            false => error(
                code::INVALID_PARAMS,
                format!("Failed to retrieve task: Task not found ({task_id})"),
            ),
        }
    }

    fn get(&self, params: &Value, caller: Option<&str>) -> Reply {
        let task_id = Self::task_id(params)?;
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(&task_id).filter(|t| self.visible(t, caller)) else {
            return Err(self.unknown(&task_id, Some(Fault::GetUnknownWrongCode)));
        };
        let reopened = task.read_cancelled && self.has(Fault::CancelledReopens);
        task.read_cancelled |= task.status == "cancelled";
        let mut out = self.detail(&task_id, task, View::Get);
        if reopened {
            out["status"] = json!("working");
        }
        if self.has(Fault::GetOtherTaskId) {
            out["taskId"] = json!(format!("{task_id}-other"));
        }
        out["resultType"] = json!(match self.has(Fault::GetResultTypeTask) {
            true => "task",
            false => "complete",
        });
        Ok(out)
    }

    /// The empty acknowledgement (`{}` under `missing_type`; with the task's fields under
    /// `returns_task`, when there is a task).
    fn ack(&self, missing_type: Fault, returns_task: Fault, task: Option<(&str, &Task)>) -> Value {
        let mut ack = match self.has(missing_type) {
            true => json!({}),
            false => json!({"resultType": "complete"}),
        };
        if let (Some((id, task)), true) = (task, self.has(returns_task)) {
            if let (Some(a), Value::Object(detail)) =
                (ack.as_object_mut(), self.detail(id, task, View::Handle))
            {
                a.extend(detail);
            }
        }
        ack
    }

    /// Changes a task `ms` from now (an eventually consistent write).
    fn later(&self, ms: u64, task_id: String, change: impl FnOnce(&mut Task) + Send + 'static) {
        let me = self.me.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            if let Some(me) = me.upgrade() {
                if let Some(task) = me.lock().get_mut(&task_id) {
                    change(task);
                    me.announce(&task_id, task);
                }
            }
        });
    }

    fn update(&self, params: &Value, caller: Option<&str>) -> Reply {
        let task_id = Self::task_id(params)?;
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(&task_id).filter(|t| self.visible(t, caller)) else {
            return match self.has(Fault::UpdateUnknownAcks) {
                true => Ok(self.ack(
                    Fault::UpdateResultTypeMissing,
                    Fault::UpdateReturnsTask,
                    None,
                )),
                false => Err(self.unknown(&task_id, None)),
            };
        };
        let responses = params
            .get("inputResponses")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let stray = responses.keys().find(|k| !task.asking.contains_key(*k));
        if let Some(k) = stray.filter(|_| self.has(Fault::UpdateRejectsUnknownKey)) {
            return Err(error(
                code::INVALID_PARAMS,
                format!("{k:?} is not an outstanding request"),
            ));
        }
        if !self.has(Fault::UpdateIgnored) {
            let answers: Vec<(String, Value)> = responses
                .into_iter()
                .filter(|(k, _)| task.asking.contains_key(k))
                .collect();
            match self.is(Variant::LazyUpdate) {
                true => self.later(200, task_id.clone(), move |task| {
                    take_answers(task, answers)
                }),
                false => take_answers(task, answers),
            }
        }
        Ok(self.ack(
            Fault::UpdateResultTypeMissing,
            Fault::UpdateReturnsTask,
            Some((&task_id, task)),
        ))
    }

    fn cancel(&self, params: &Value, caller: Option<&str>) -> Reply {
        let task_id = Self::task_id(params)?;
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(&task_id).filter(|t| self.visible(t, caller)) else {
            return match self.has(Fault::CancelUnknownAcks) {
                true => Ok(self.ack(
                    Fault::CancelResultTypeMissing,
                    Fault::CancelReturnsTask,
                    None,
                )),
                false => Err(self.unknown(&task_id, None)),
            };
        };
        if self.is(Variant::LazyCancel) {
            self.later(300, task_id.clone(), cancel_now);
        } else if !self.is(Variant::CancelIgnored) {
            cancel_now(task);
            self.announce(&task_id, task);
        }
        Ok(self.ack(
            Fault::CancelResultTypeMissing,
            Fault::CancelReturnsTask,
            Some((&task_id, task)),
        ))
    }
}

/// Takes answers to outstanding requests: each leaves `inputRequests` at once, and the work
/// waiting for them wakes.
fn take_answers(task: &mut Task, answers: Vec<(String, Value)>) {
    for (key, answer) in answers {
        task.asking.remove(&key);
        task.answers.insert(key, answer);
    }
    task.updated_at = now();
    task.wake.notify_one();
}

/// Sends a notification on a subscription's stream.
fn send_tagged(out: &mpsc::UnboundedSender<Value>, method: &str, mut params: Value, tag: &Value) {
    params["_meta"] = tag.clone();
    let _ = out.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
}

/// Cancels a task that is not terminal yet.
fn cancel_now(task: &mut Task) {
    if !matches!(task.status, "completed" | "failed" | "cancelled") {
        task.status = "cancelled";
        task.status_message = Some("cancelled by the client".into());
        task.updated_at = now();
        task.wake.notify_one();
    }
}

/// An error with a `data` member (the extra-meta variant), unless it has one.
fn with_data(mut e: Value) -> Value {
    if e.get("data").is_none() {
        e["data"] = json!(EXTRA_META_KEY);
    }
    e
}

fn missing_capability() -> Value {
    json!({"code": MISSING_CAPABILITY, "message": "Missing required client capability",
        "data": {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}})
}

impl Receives for ExtReference {
    fn take(self: &Arc<Self>, message: Message) {
        // notifications and responses need no answer: this server sends no requests
        if let Message::Request { id, method, params } = message {
            tokio::spawn(self.clone().handle(id, method, params));
        }
    }

    fn put(&self, msg: Value) {
        let _ = self.out.send(msg);
    }
}

impl ExtReference {
    /// The faults and variants it runs with.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }
}

/// Serves the extension's reference receiver on stdin/stdout until stdin closes.
pub async fn serve_stdio(faults: Faults) -> std::io::Result<()> {
    crate::reference::serve_stdio_with(faults, None, ExtReference::new).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(faults: &[&str]) -> Arc<ExtReference> {
        let names: Vec<String> = faults.iter().map(|f| f.to_string()).collect();
        let (out, _unused) = mpsc::unbounded_channel();
        let list: Vec<_> = super::super::faults::FAULTS.iter().collect();
        ExtReference::new(Faults::named(&names, &list, "test").unwrap(), out)
    }

    /// Params carrying the per-request `_meta`, declaring the extension or not.
    fn params(declaring: bool, mut p: Value) -> Value {
        let caps = if declaring {
            super::super::declaring()
        } else {
            json!({})
        };
        p["_meta"] = Value::Object(super::super::request_meta(caps));
        p
    }

    async fn call(s: &Arc<ExtReference>, declaring: bool, name: &str, args: Value) -> Reply {
        let p = params(declaring, json!({"name": name, "arguments": args}));
        s.answer("tools/call", &p, None).await
    }

    async fn get(s: &Arc<ExtReference>, task: &Value) -> Value {
        let p = params(true, json!({"taskId": task}));
        s.answer("tasks/get", &p, None).await.unwrap()
    }

    #[tokio::test]
    async fn the_official_suites_tools_run_as_the_references_own() {
        let s = server(&[]);
        // greet never makes a task, even for a declaring client
        let greet = call(&s, true, "greet", json!({"name": "World"}))
            .await
            .unwrap();
        assert_eq!(greet["resultType"], "complete");
        assert_eq!(greet["content"][0]["text"], "Hello, World!");
        // slow_compute is a task when declared, plain otherwise
        let task = call(&s, true, "slow_compute", json!({"seconds": 0}))
            .await
            .unwrap();
        assert_eq!(task["resultType"], "task");
        let plain = call(&s, false, "slow_compute", json!({"seconds": 0}))
            .await
            .unwrap();
        assert_eq!(plain["resultType"], "complete");
        // failing_job runs only as a task
        let refused = call(&s, false, "failing_job", json!({})).await.unwrap_err();
        assert_eq!(refused["code"], MISSING_CAPABILITY);
        // test_tool_with_task asks user_name first, then makes a task carrying the answer
        let ask = call(&s, true, "test_tool_with_task", json!({}))
            .await
            .unwrap();
        assert_eq!(ask["resultType"], "input_required");
        assert!(ask["inputRequests"].get("user_name").is_some(), "{ask}");
        let retry = params(
            true,
            json!({"name": "test_tool_with_task", "arguments": {},
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
            "requestState": ask["requestState"]}),
        );
        let created = s.answer("tools/call", &retry, None).await.unwrap();
        assert_eq!(created["resultType"], "task", "{created}");
        for _ in 0..100 {
            let done = get(&s, &created["taskId"]).await;
            if done["status"] == "completed" {
                assert!(done["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("Alice"));
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("test_tool_with_task never completed");
    }

    #[tokio::test]
    async fn an_answered_request_leaves_input_requests_at_once() {
        let s = server(&[]);
        let task = call(&s, true, "multi_input", json!({})).await.unwrap();
        let id = task["taskId"].clone();
        let mut seen = get(&s, &id).await;
        for _ in 0..100 {
            if seen["inputRequests"]
                .as_object()
                .is_some_and(|r| r.len() == 2)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            seen = get(&s, &id).await;
        }
        let update = params(
            true,
            json!({"taskId": id,
            "inputResponses": {"first": {"action": "accept", "content": {"first": "Ada"}}}}),
        );
        s.answer("tasks/update", &update, None).await.unwrap();
        let after = get(&s, &id).await;
        assert_eq!(after["status"], "input_required", "{after}");
        let keys: Vec<&String> = after["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["last"], "{after}");
    }

    #[tokio::test]
    async fn ping_is_gone_and_a_listen_for_no_tasks_needs_no_extension() {
        let s = server(&[]);
        let ping = s
            .answer("ping", &params(true, json!({})), None)
            .await
            .unwrap_err();
        assert_eq!(ping["code"], code::METHOD_NOT_FOUND);
        let tools = params(false, json!({"notifications": {"toolsListChanged": true}}));
        assert!(s.opens_stream(LISTEN, &tools));
        let tasks = params(false, json!({"notifications": {"taskIds": ["t"]}}));
        assert!(!s.opens_stream(LISTEN, &tasks));
        let refused = s.answer(LISTEN, &tasks, None).await.unwrap_err();
        assert_eq!(refused["code"], MISSING_CAPABILITY);
    }
}
