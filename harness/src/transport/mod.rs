//! Transports: how taskcheck reaches a receiver. Each yields a [`Connection`] of channels,
//! so the session never knows which transport it talks over.

pub mod client;
pub mod client_http;
pub mod http;
pub mod http_server;
pub mod routing;
pub mod served;
pub mod sse;
pub mod stdio;

use crate::wire::{DecodeError, Message};
use serde_json::Value;
use std::future::Future;
use tokio::sync::mpsc;

/// The side of an MCP connection that receives task-augmented requests.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ReceiverKind {
    /// An MCP server: taskcheck connects as its client.
    #[default]
    Server,
    /// An MCP client: taskcheck serves it, and sends it `sampling`/`elicitation` requests.
    Client,
}

impl ReceiverKind {
    /// Serde's default check, to leave the default out of files.
    pub fn is_server(&self) -> bool {
        *self == ReceiverKind::Server
    }
}

/// What arrives from a receiver.
#[derive(Debug)]
pub enum Incoming {
    /// A message from the receiver.
    Message(Box<Received>),
    /// Output that is not a JSON-RPC message: fatal for the session.
    Invalid { raw: String, error: DecodeError },
    /// A diagnostic line (stderr).
    Log(String),
    /// The connection ended, with the cause.
    Closed(Closure),
    /// HTTP: the receiver refused a raw input (`Outgoing::Raw`) with an error status and no
    /// JSON-RPC error; `id` is the input's request id, if it had one.
    Refused {
        id: Value,
        status: u16,
        body: String,
    },
}

/// The Streamable HTTP header that carries the session id.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// Whose doing the end of a connection was: it decides whether the end is a verdict on the
/// receiver or a harness error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The receiver went away: it exited, closed its output, or stopped taking connections.
    ReceiverGone,
    /// The receiver wrote something on stdout that is not a valid MCP message.
    InvalidOutput,
    /// The receiver answered a request already answered, or an id never used: a JSON-RPC
    /// violation of its own, after which no answer can be trusted to be the one asked for.
    StrayResponse,
    /// The server ended the HTTP session (404 for its session id), which the transport lets
    /// it do at any time: no verdict, but nothing more can be judged in that session.
    SessionEnded,
    /// A request was answered with an HTTP error status and no JSON-RPC message: the server
    /// is there (nothing to wait for its exit), but the exchange cannot go on.
    HttpStatus,
    /// Anything else: one of taskcheck's limits, an HTTP exchange it cannot follow.
    Transport,
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closure {
    pub why: String,
    pub cause: Cause,
}

impl Closure {
    /// The receiver went away.
    pub fn gone(why: impl Into<String>) -> Closure {
        Closure {
            why: why.into(),
            cause: Cause::ReceiverGone,
        }
    }

    /// The transport broke for another reason.
    pub fn broken(why: impl Into<String>) -> Closure {
        Closure {
            why: why.into(),
            cause: Cause::Transport,
        }
    }
}

impl std::fmt::Display for Closure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// What taskcheck sends: a message, or raw text that need not be JSON-RPC (`fuzz-wire`).
#[derive(Debug, Clone)]
pub enum Outgoing {
    Message(Value),
    /// A message whose HTTP request sets (or, with None, leaves out) these headers against
    /// what its body calls for; other transports send the message alone.
    Headed(Value, Vec<(String, Option<String>)>),
    /// One line of text sent as it is (over stdio a newline is added).
    Raw(String),
    /// Nothing more will be sent: stdio closes the receiver's input (the polite end of an MCP
    /// stdio session); other transports send nothing.
    EndInput,
}

impl Outgoing {
    /// The text on the wire.
    pub fn text(&self) -> String {
        match self {
            Outgoing::Message(v) | Outgoing::Headed(v, _) => v.to_string(),
            Outgoing::Raw(s) => s.clone(),
            Outgoing::EndInput => String::new(),
        }
    }

    /// The message as JSON, or null when the text is not JSON.
    pub fn value(&self) -> Value {
        match self {
            Outgoing::Message(v) | Outgoing::Headed(v, _) => v.clone(),
            Outgoing::Raw(s) => serde_json::from_str(s).unwrap_or(Value::Null),
            Outgoing::EndInput => Value::Null,
        }
    }
}

/// One decoded message, and how it came where the transport has several ways (`POST
/// text/event-stream`, `GET text/event-stream`, ...).
#[derive(Debug)]
pub struct Received {
    pub value: Value,
    pub message: Message,
    pub via: Option<String>,
}

impl Incoming {
    /// A decoded message.
    pub fn message(value: Value, message: Message, via: Option<String>) -> Incoming {
        Incoming::Message(Box::new(Received {
            value,
            message,
            via,
        }))
    }
}

/// A live connection to a receiver; dropping it stops the receiver.
pub struct Connection {
    pub outgoing: mpsc::Sender<Outgoing>,
    pub incoming: mpsc::Receiver<Incoming>,
    /// Held for its Drop: kills what the transport spawned (or ends the HTTP session).
    pub guard: Box<dyn Send + Sync>,
    pub transport: &'static str,
    /// Called when taskcheck stops waiting for the answer to a request id (HTTP drops its stream).
    pub abandon: Box<dyn Fn(&Value) + Send + Sync>,
}

/// Which of two requestors a connection speaks for (session isolation scenarios).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    A,
    B,
}

/// Why a connection could not be made.
#[derive(Debug)]
pub struct ConnectError(pub String);

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A way to reach a receiver; every scenario gets a fresh connection.
pub trait Connect: Send + Sync {
    /// Opens a new connection for a requestor.
    fn connect(&self, peer: Peer) -> impl Future<Output = Result<Connection, ConnectError>> + Send;
    /// A human description of the receiver (command or URL).
    fn describe(&self) -> String;
    /// `stdio` or `http`.
    fn transport(&self) -> &'static str;
    /// Whether the two peers carry different authorization contexts (`--auth-a`/`--auth-b`).
    fn distinct_auth(&self) -> bool {
        false
    }
    /// Whether every scenario's connection reaches the same receiver (one HTTP server for the
    /// run), whose task ids must then be unique across them.
    fn shares_receiver(&self) -> bool {
        false
    }
    /// Whether two connections may be opened at once (not where each starts a server that
    /// replaces the last).
    fn connects_at_once(&self) -> bool {
        true
    }
    /// Which side the receiver plays: a server (taskcheck connects) or a client (it connects
    /// to taskcheck).
    fn receiver(&self) -> ReceiverKind {
        ReceiverKind::Server
    }
    /// Opens a new connection for a requestor to run one scenario (a client receiver is told
    /// which, in `TASKCHECK_SCENARIO`).
    fn connect_for(
        &self,
        peer: Peer,
        _scenario: &str,
    ) -> impl Future<Output = Result<Connection, ConnectError>> + Send {
        self.connect(peer)
    }
}
