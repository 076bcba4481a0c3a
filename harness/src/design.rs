//! The seam between shared machinery and the designs of Tasks: what a design supplies (its
//! identity, how a conversation opens, its monitors, its reference receiver, how a trace of it
//! is recognised). Shared code asks a design's `Profile` (in the registry) through this trait and
//! never which design it is; `designs/` holds one folder per design.

use crate::monitor::{Context, Judgement};
use crate::reference::faults::FaultInfo;
use crate::session::{ServerInfo, Session};
use crate::trace::Entry;
use crate::transport::ReceiverKind;
use futures::future::BoxFuture;
use serde_json::Value;

/// One design of Tasks. Default methods hold what most designs share.
pub trait Design: Sync + Send + 'static {
    /// The name `--profile` takes, reports show and the catalogue file carries
    /// (`catalogue/<name>.yaml`).
    fn name(&self) -> &'static str;

    /// One sentence on the design, for the scenario format's schema.
    fn summary(&self) -> &'static str;

    /// What a report's heading calls the design: "MCP <title> conformance".
    fn title(&self) -> &'static str;

    /// The protocol revision the design speaks.
    fn protocol_version(&self) -> &'static str;

    /// Where the catalogue's `section` anchors point.
    fn spec_base(&self) -> &'static str;

    /// The folders under `scenarios/` holding the design's built-in scenarios (`""` is the
    /// top folder).
    fn scenario_folders(&self) -> &'static [&'static str];

    /// The fixture contract receivers of this design play (`taskcheck list --fixtures`).
    fn fixture_contract(&self) -> String;

    /// The server capability (a dotted path) under which tools/call can create tasks.
    fn task_tools_capability(&self) -> &'static str;

    /// The request that asks whether a receiver still answers, with a result.
    fn liveness_method(&self) -> &'static str {
        "ping"
    }

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
    ) -> Option<BoxFuture<'a, Result<String, String>>> {
        None
    }

    /// Judges a session's trace by the design's monitors.
    fn judge(&self, entries: &[Entry], ctx: &Context) -> Judgement;

    /// The rules the design's monitors judge on every run.
    fn monitor_rules(&self) -> &'static [&'static str];

    /// The note a report adds when the receiver declared no tasks under this design.
    fn no_tasks_note(&self, capabilities: &Value) -> Option<&'static str>;

    /// Whether the design has client receivers (`taskcheck client`), whose coverage shows too.
    fn has_client_receivers(&self) -> bool {
        false
    }

    /// Whether a request taskcheck sent marks a recorded session as this design's.
    fn marks_trace(&self, _method: &str, _params: &Value) -> bool {
        false
    }

    /// The request that opens a conversation, whose result says what the receiver declared.
    fn opening_method(&self) -> &'static str;

    /// What the result of the opening request declares.
    fn declared(&self, result: &Value) -> ServerInfo;

    /// The faults of the design's reference receiver.
    fn faults(&self) -> &'static [FaultInfo];

    /// The reference receiver: its listings and serving it.
    fn reference(&self) -> &'static dyn ReferenceReceiver;
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
}
