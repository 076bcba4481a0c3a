//! The extension's reference receiver: a stateless 2026-07-28 server that answers tools/call
//! with a task whenever the request declares the extension, and passes every check of the
//! profile; each `Fault` of `faults.rs` breaks one rule.

mod calls;
pub mod faults;
pub mod http;
mod notify;
pub mod requestor;
mod requests;
pub mod variants;

use super::official_tools::{self, Runs};
use super::{declares, request_capabilities, EXTENSION, META_VERSION, MISSING_CAPABILITY};
use crate::reference::{renamed, rfc3339, Receives};
use crate::wire::{code, Message};
use faults::{Fault, Faults};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};
use variants::Variant;

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
/// How long a task lives under the short-ttl variant, in ms.
const SHORT_TTL_MS: u64 = 100;
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
    /// When it was created, on the reference's clock (the short-ttl variant discards it
    /// once its ttl has elapsed since).
    born: std::time::Instant,
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
    /// When it started (the slow-start variant answers nothing before `SLOW_START` has passed).
    born: std::time::Instant,
}

/// How long the slow-start variant takes to start answering: longer than profile detection
/// once waited.
const SLOW_START: Duration = Duration::from_millis(3500);

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
    let state = params.get("requestState")?.as_str()?;
    let key = match state.strip_prefix(CONFIRM_STATE)? {
        "" => ask.key,
        minted => minted.strip_prefix(':')?,
    };
    let answer = params.get("inputResponses")?.get(key)?;
    Some(answer_text(answer, ask.field))
}

/// An input-request key of the server's own making (the own-input-keys variant).
fn minted_key() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..16].to_string()
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
            born: std::time::Instant::now(),
        })
    }

    fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }

    fn is(&self, variant: Variant) -> bool {
        self.faults.is(variant)
    }

    /// The tasks, less those whose ttl has elapsed (discarded, as the text allows, under the
    /// short-ttl variant).
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Task>> {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        if self.is(Variant::ShortTtl) {
            let ttl = std::time::Duration::from_millis(SHORT_TTL_MS);
            tasks.retain(|_, t| t.born.elapsed() < ttl);
        }
        tasks
    }

    /// The `ttlMs` every task is shown with.
    fn ttl_ms(&self) -> Value {
        match (self.is(Variant::UnlimitedTtl), self.is(Variant::ShortTtl)) {
            (true, _) => Value::Null,
            (false, true) => json!(SHORT_TTL_MS),
            (false, false) => json!(TTL_MS),
        }
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
        if self.is(Variant::SlowStart) {
            tokio::time::sleep_until((self.born + SLOW_START).into()).await;
        }
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
        let served = |v: &str| {
            v == super::PROTOCOL_VERSION || (v == "2025-11-25" && self.has(Fault::TasksUnder2025))
        };
        if let Some(v) = version.filter(|v| !served(v)) {
            return Err(
                json!({"code": -32022, "message": format!("unsupported protocol version {v}"),
                "data": {"supported": [super::PROTOCOL_VERSION], "requested": v}}),
            );
        }
        let declared = declares(caps);
        let tasks_method = matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel");
        if tasks_method && self.is(Variant::NoTasks) {
            return Err(error(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            ));
        }
        if tasks_method && !declared && !self.has(Fault::TasksMethodsUndeclared) {
            return Err(missing_capability());
        }
        let complete = |mut r: Value| {
            r["resultType"] = json!("complete");
            Ok(r)
        };
        match method {
            "server/discover" => complete(self.discover()),
            "tools/list" if self.has(Fault::ListAnsweredWithTask) => Ok(self
                .create("optional_sleep", json!({"ms": 300}), caller)
                .await),
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
                let declared = (declared || self.has(Fault::TaskWithoutCapability))
                    && !self.is(Variant::NoTasks);
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
        if !self.has(Fault::Undeclared) && !self.is(Variant::NoTasks) {
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

    /// Whether one of its own tools is there (the without-required-sleep variant lacks one).
    fn offers(&self, tool: &str) -> bool {
        let dropped = tool == "required_sleep" && self.is(Variant::WithoutRequiredSleep);
        let without_tasks = own_runs(tool) == Runs::TaskOnly && self.is(Variant::NoTasks);
        !(dropped || without_tasks)
    }

    /// Whether one of the official suite's tools is there (a server without Tasks has none
    /// that runs only as a task).
    fn offers_official(&self, tool: &official_tools::OfficialTool) -> bool {
        !(self.is(Variant::NoTasks) && tool.runs == Runs::TaskOnly)
    }

    fn tools_list(&self) -> Reply {
        let tools: Vec<Value> = TOOLS
            .iter()
            .filter(|(name, _)| self.offers(name))
            .map(|(name, what)| {
                let tool = json!({"name": name, "description": what, "inputSchema": {"type": "object",
                    "properties": {"ms": {"type": "integer", "minimum": 0}}}});
                match self.is(Variant::RenamedTools) {
                    true => renamed::listed(tool),
                    false => tool,
                }
            })
            .chain(
                official_tools::TOOLS
                    .iter()
                    .filter(|t| self.offers_official(t))
                    .map(official_tools::listed),
            )
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
}

/// Takes answers to outstanding requests: each leaves `inputRequests` at once, the task
/// waits for input no more once none is left (never `input_required` with nothing to ask),
/// and the work waiting for them wakes.
fn take_answers(task: &mut Task, answers: Vec<(String, Value)>) {
    for (key, answer) in answers {
        task.asking.remove(&key);
        task.answers.insert(key, answer);
    }
    if task.asking.is_empty() && task.status == "input_required" {
        task.status = "working";
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
pub async fn serve_stdio(
    faults: Faults,
    record: Option<crate::reference::record::Recorder>,
) -> std::io::Result<()> {
    crate::reference::serve_stdio_with(faults, None, record, ExtReference::new).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(faults: &[&str]) -> Arc<ExtReference> {
        let names: Vec<String> = faults.iter().map(|f| f.to_string()).collect();
        let (out, _unused) = mpsc::unbounded_channel();
        let list: Vec<_> = faults::FAULTS.iter().collect();
        ExtReference::new(Faults::named(&names, &list, "test").unwrap(), out)
    }

    /// Params carrying the per-request `_meta`, declaring the extension or not.
    /// A request's params, from a client that declares the extension and elicitation, as
    /// taskcheck's requests do, or nothing.
    fn params(declaring: bool, mut p: Value) -> Value {
        let caps = if declaring {
            let mut caps = super::super::declaring();
            caps["elicitation"] = json!({});
            caps
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
