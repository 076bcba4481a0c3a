//! The seam between shared machinery and the designs of Tasks: what a design supplies (its
//! identity, how a conversation opens, its monitors, what explore, fuzz-wire and load send
//! under it, its reference receiver, how a trace of it is recognised). Shared code asks a
//! design's `Profile` (in the registry) through this trait and never which design it is;
//! `designs/` holds one folder per design.

use crate::calibration::Observed;
use crate::explore::ops::{Offer, Op, Steps};
use crate::monitor::{Context, Judgement};
use crate::reference::faults::FaultEntry;
use crate::session::{Reply, ServerInfo, Session};
use crate::trace::Entry;
use crate::transport::http::HttpConnector;
use crate::transport::stdio::StdioConnector;
use crate::transport::ReceiverKind;
use crate::verdict::Check;
use futures::future::BoxFuture;
use serde_json::Value;
use std::time::{Duration, Instant};

/// What a design is and which of taskcheck's features it joins, as data: one literal per
/// design (`FACTS` in its folder), so the compiler lists every field a new design must decide;
/// an empty list or `None` where the design joins no such feature.
pub struct Facts {
    /// The name `--profile` takes, reports show and the catalogue file carries
    /// (`catalogue/<name>.yaml`).
    pub name: &'static str,
    /// One sentence on the design, for the scenario format's schema.
    pub summary: &'static str,
    /// What a report's heading calls the design: "MCP <title> conformance".
    pub title: &'static str,
    /// Where the catalogue's `section` anchors point.
    pub spec_base: &'static str,
    /// What the design's messages are called on the wire.
    pub wire: Wire,
    /// The folders under `scenarios/` holding the design's built-in scenarios, one per kind
    /// of receiver (`2025-11-25/server`).
    pub scenario_folders: &'static [&'static str],
    /// Built-in scenarios the design holds itself, as (file name, YAML text).
    pub own_scenarios: &'static [(&'static str, &'static str)],
    /// The server capability (a dotted path) under which tools/call can create tasks.
    pub task_tools_capability: &'static str,
    /// The rules the design's monitors judge on every run.
    pub monitor_rules: &'static [&'static str],
    /// The requestor rules taskcheck checks its own messages against (a break is a harness
    /// error).
    pub conduct_rules: &'static [&'static str],
    /// Whether the design has client receivers (`taskcheck client`), whose coverage shows too.
    pub has_client_receivers: bool,
    /// The design's rules `fuzz-wire` judges besides the `wire.*` ones (listed by `explain`).
    pub fuzz_wire_rules: &'static [&'static str],
    /// Where a result names the task it created (a JSON pointer), and the rule that holds task
    /// ids unique across the scenarios of a run.
    pub created_task_ids: Option<(&'static str, &'static str)>,
    /// The rule `load` reports a granted ten-year ttl under (as information); none where
    /// requests ask for no ttl.
    pub limits_rule: Option<&'static str>,
    /// Why a client must never send a JSON-RPC response under the design, if it must not.
    pub forbids_client_responses: Option<&'static str>,
    /// The rules `load` judges every task it completes by.
    pub load_rules: &'static [&'static str],
    /// The folder of its requestor scenarios (`scenarios/<design>/requestor`), if it judges
    /// requestors (`taskcheck requestor`).
    pub requestor_folder: Option<&'static str>,
}

/// One design of Tasks: its facts, and what it does as code. A default method switches off a
/// feature the design does not join.
pub trait Design: Sync + Send + 'static {
    /// What the design is and which of taskcheck's features it joins, as data.
    fn facts(&self) -> &'static Facts;

    /// The fixture contract receivers of this design play (`taskcheck list --fixtures`).
    fn fixture_contract(&self) -> String;

    /// The fixture roles its scenarios call, which `--fixtures` may map to a receiver's tools.
    fn fixture_roles(&self) -> Vec<&'static str>;

    /// The client capabilities a scenario declares unless it says otherwise.
    fn default_client_capabilities(&self) -> Value;

    /// Whether tools declare `execution.taskSupport` to a receiver that declared these
    /// capabilities, so a fixture role's tool must match the role's.
    fn negotiates_task_support(&self, _capabilities: &Value) -> bool {
        false
    }

    /// Opens a conversation with the receiver and learns what it declares.
    fn open<'a>(
        &self,
        session: &'a Session,
        receiver: ReceiverKind,
        capabilities: Value,
    ) -> BoxFuture<'a, Result<ServerInfo, String>>;

    /// Asks a receiver, on a fresh session, whether it speaks this design: `None` for the
    /// design every receiver is assumed to speak when no other says it does, else what it
    /// answered (`Ok` when it speaks it).
    fn ask_speaks<'a>(
        &self,
        _session: &'a Session,
    ) -> Option<BoxFuture<'a, Result<String, Unspoken>>> {
        None
    }

    /// Judges a session's trace by the design's monitors.
    fn judge(&self, entries: &[Entry], ctx: &Context) -> Judgement;

    /// The note a report adds when the receiver declared no tasks under this design.
    fn no_tasks_note(&self, capabilities: &Value) -> Option<&'static str>;

    /// Whether a request taskcheck sent marks a recorded session as this design's.
    fn marks_trace(&self, _method: &str, _params: &Value) -> bool {
        false
    }

    /// What the result of the opening request declares.
    fn declared(&self, result: &Value) -> ServerInfo;

    /// The steps a drawn sequence of operations becomes (`explore`); none by default.
    fn explore_steps(&self, _ops: &[Op], _offer: &Offer) -> Steps {
        (Vec::new(), Vec::new(), Vec::new())
    }

    /// What a requestor may send under the design (fuzz-wire draws its cases from it); by
    /// default, none of the optional requests.
    fn requests(&self) -> Requests {
        Requests {
            initialize: false,
            list: None,
            task_param: None,
        }
    }

    /// The requests that name a task by `taskId`, each with the other params it needs, for a
    /// receiver that offers what `offer` says; none by default.
    fn task_id_requests(&self, _offer: &Offer) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// The rule an answer to a request naming a task that does not exist is held to (its code
    /// is -32602): `has_id` when the request carries a taskId at all; `None` where no rule says.
    fn bad_task_id_rule(&self, _method: &str, _has_id: bool) -> Option<&'static str> {
        None
    }

    /// The `_meta` every request carries under the design, if any (stateless designs).
    fn request_meta(&self) -> Option<serde_json::Map<String, Value>> {
        None
    }

    /// The client capabilities a session that only creates and polls tasks declares.
    fn load_capabilities(&self) -> Value {
        Value::Object(Default::default())
    }

    /// One task of `load`, from its creation to its result checked; a failure names its rule
    /// first (`rule: what happened`). By default the design has no load task.
    fn load_task<'a>(&self, _run: &'a dyn LoadRun, _i: usize) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(std::future::ready(Err(format!(
            "the {} design defines no load task",
            self.facts().name
        ))))
    }

    /// What one task-augmented call of a tool (a `tools/call`'s params) does, watched to its
    /// end or to its first request for input; otherwise why it could not be watched. By
    /// default the design cannot tell.
    fn observe_task<'a>(
        &self,
        _session: &'a Session,
        _call: Value,
        _limit: Duration,
    ) -> BoxFuture<'a, Result<Observed, String>> {
        let why = format!(
            "taskcheck cannot watch a task under the {} design yet",
            self.facts().name
        );
        Box::pin(std::future::ready(Err(why)))
    }

    /// The requestor rules `judge_requestor` judges.
    fn requestor_rules(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Judges a requestor by its recorded conversation with the reference receiver (the
    /// requestor's messages `out`), given what it was asked to do: a check per requestor rule
    /// its messages exercised.
    fn judge_requestor(&self, _entries: &[Entry], _ask: &crate::scenario::Ask) -> Vec<Check> {
        Vec::new()
    }

    /// Judges the client of a conversation `taskcheck watch` relayed, which asked whatever it
    /// chose and ended of itself (the recording's last entry says so): the requestor checks
    /// that need no ask, or None where the design's requestor judges need to know what the
    /// client was asked to do.
    fn judge_watched_requestor(&self, _entries: &[Entry]) -> Option<Vec<Check>> {
        None
    }

    /// The faults of the design's reference receiver.
    fn faults(&self) -> Vec<FaultEntry>;

    /// The reference receiver: its listings and serving it.
    fn reference(&self) -> &'static dyn ReferenceReceiver;
}

/// What a design's messages are called on the wire, as data the shared engine reads: a
/// design fills every field in one literal, so the compiler lists what a new design decides.
/// A request the design lacks is `None`.
pub struct Wire {
    /// The protocol revision the design speaks.
    pub protocol_version: &'static str,
    /// The request that opens a conversation, whose result says what the receiver declared.
    pub opening: &'static str,
    /// The request that asks whether a receiver still answers, with a result.
    pub liveness: &'static str,
    /// The request that reads a task (`{"taskId": …}`) and answers with it.
    pub get: &'static str,
    /// The request that waits for a task's outcome and answers with it.
    pub result: Option<&'static str>,
    /// The request that cancels a task (`{"taskId": …}`), and the capability by which a
    /// receiver says it serves it.
    pub cancel: Option<(&'static str, &'static str)>,
    /// Where a result that made a task holds it (a JSON pointer; `""`: the result is the task).
    pub created_task: &'static str,
    /// The request that lists tasks a page at a time (`{"cursor": …}`).
    pub list: Option<&'static str>,
    /// The request that answers a task's outstanding input requests.
    pub update: Option<&'static str>,
    /// The notification whose params are a task, its status new.
    pub status_notification: &'static str,
    /// The key under which a task names the interval, in ms, to poll it at.
    pub poll_interval: &'static str,
    /// How a task lists the input requests it awaits, and how an answer carries the
    /// responses, each by the request's key (the design has no such keys where `None`).
    pub input: Option<InputKeys>,
    /// The `_meta` key by which a message names the task it belongs to: taskcheck's answer to a
    /// receiver's request that names one names it too (the design has none where `None`).
    pub related_task: Option<&'static str>,
}

/// The keys of a design's input requests and responses.
pub struct InputKeys {
    /// Where a task or an InputRequiredResult lists its requests.
    pub requests: &'static str,
    /// Where an answer carries the responses.
    pub responses: &'static str,
    /// Where an InputRequiredResult keeps state the retried request echoes.
    pub state: &'static str,
    /// The `resultType` of an answer that asks for input instead of giving a result.
    pub result_type: &'static str,
}

/// Why a receiver does not speak a design: it said so, or it did not answer at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unspoken {
    /// It answered, as a receiver of another design does.
    Refused(String),
    /// No answer in time, or the connection ended.
    Silent(String),
}

/// One session under `load`, as a design's load routine drives it.
pub trait LoadRun: Sync {
    /// The fixture's `ms` for task `i`.
    fn sleep_ms(&self, i: usize) -> u64;
    /// Sends a request; the error is the failure.
    fn ask<'a>(&'a self, method: &'a str, params: Value) -> BoxFuture<'a, Result<Reply, String>>;
    /// A tools/call meant to create a task: its result and reply, or `None` (counted) when
    /// the receiver refused it.
    fn create(&self, params: Value) -> BoxFuture<'_, Result<Option<(Value, Reply)>, String>>;
    /// Whether a task id is seen for the first time (ids must be unique); remembers it.
    fn first_sight(&self, id: &str) -> bool;
    /// A tasks/get answered after `elapsed`.
    fn got(&self, elapsed: Duration);
    /// A task's result checked, its creation having begun at `start`.
    fn completed(&self, start: Instant);
    /// Waits as a task's poll interval (`key`) asks (requestors SHOULD), at least 10 ms.
    fn pause(&self, task: &Value, key: &str) -> BoxFuture<'static, ()> {
        let poll = task.get(key).and_then(Value::as_u64).unwrap_or(100).max(10);
        Box::pin(tokio::time::sleep(Duration::from_millis(poll)))
    }
}

/// What a requestor may send under a design.
#[derive(Debug, Clone, Copy)]
pub struct Requests {
    /// An initialize first (so input before it is a case of its own).
    pub initialize: bool,
    /// tasks/list, with cursors: the rule an unknown cursor's answer (-32602) is held to.
    pub list: Option<&'static str>,
    /// The `task` parameter with a requested ttl: the rule a malformed one's answer (-32602)
    /// is held to.
    pub task_param: Option<&'static str>,
}

/// What `taskcheck reference` was asked for, beyond the design.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    pub faults: Vec<String>,
    pub variants: Vec<String>,
    pub max_tasks: Option<usize>,
    pub http: Option<std::net::SocketAddr>,
    pub json_response: bool,
    pub hostile: Option<String>,
    /// `--record FILE`: write the conversation down as a trace (stdio).
    pub record: Option<std::path::PathBuf>,
}

/// Why the reference receiver did not serve to the end.
#[derive(Debug)]
pub enum NotServed {
    /// The options name something it does not have.
    Usage(String),
    /// Serving failed.
    Failed(String),
}

/// A design's reference receiver, with its faults, legal variants and hostile modes.
pub trait ReferenceReceiver: Sync + Send + 'static {
    /// `--list-faults`, one line each.
    fn fault_list(&self) -> String;
    /// `--list-variants`, one line each.
    fn variant_list(&self) -> String;
    /// `--list-hostile`, where the receiver has hostile modes.
    fn hostile_list(&self) -> Option<String> {
        None
    }
    /// Serves until its input ends (stdio) or Ctrl-C (HTTP).
    fn serve(&self, options: ServeOptions) -> BoxFuture<'static, Result<(), NotServed>>;
    /// The same design's reference client (a client receiving tasks), where it has one.
    fn client(&self) -> Option<&'static dyn ReferenceClient> {
        None
    }
    /// The same design's reference requestor, where it has one.
    fn requestor(&self) -> Option<&'static dyn ReferenceRequestor> {
        None
    }
}

/// The server a reference client connects to.
pub enum ClientServer {
    Http(Box<HttpConnector>),
    Stdio(StdioConnector),
}

/// A design's reference requestor (`taskcheck reference-requestor`): does what a requestor
/// scenario asks (`TASKCHECK_REQUEST`) of the stdio server it is given, with its faults.
pub trait ReferenceRequestor: Sync + Send + 'static {
    /// Its faults.
    fn faults(&self) -> Vec<FaultEntry>;
    /// `--list-variants`: its legal variants, one line each.
    fn variant_list(&self) -> String;
    /// Starts the server (`command`, for /bin/sh) and does what `ask` says, with the faults
    /// and legal variants these names say.
    fn run(
        &self,
        command: String,
        ask: crate::scenario::Ask,
        faults: Vec<String>,
        variants: Vec<String>,
    ) -> BoxFuture<'static, Result<(), NotServed>>;
}

/// A session with a reference requestor's server: a Streamable HTTP endpoint (a URL), or the
/// stdio server a command starts.
pub async fn requestor_session(server: String) -> Result<Session, NotServed> {
    use crate::transport::{Connect, Peer};
    let failed = |e: String| NotServed::Failed(e);
    let conn = match reqwest::Url::parse(&server) {
        Ok(url) if url.scheme() == "http" => {
            let none = reqwest::header::HeaderMap::new();
            let max = crate::reference::MAX_LINE;
            let http = HttpConnector::new(url, none.clone(), [none.clone(), none], max, WAIT)
                .map_err(failed)?;
            http.connect(Peer::A).await
        }
        _ => {
            let max_line = crate::reference::MAX_LINE;
            let stdio = StdioConnector {
                command: server,
                max_line,
            };
            stdio.connect(Peer::A).await
        }
    };
    Ok(Session::start(
        conn.map_err(|e| failed(e.to_string()))?,
        WAIT,
    ))
}

/// How long a reference requestor waits to connect, and for each answer.
const WAIT: Duration = Duration::from_secs(10);
/// How long a reference requestor, done, waits for its stdio server to exit once it closed
/// the server's input, before stopping it.
pub const SERVER_EXIT: Duration = Duration::from_secs(5);

/// A design's reference client (`taskcheck reference-client`), with its faults.
pub trait ReferenceClient: Sync + Send + 'static {
    /// Its faults.
    fn faults(&self) -> Vec<FaultEntry>;
    /// Runs against a server until the server ends the connection.
    fn run(
        &self,
        server: ClientServer,
        faults: Vec<String>,
    ) -> BoxFuture<'static, Result<(), NotServed>>;
}
