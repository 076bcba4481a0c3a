//! Transports: how taskcheck reaches a receiver. Each yields a [`Connection`] of channels,
//! so the session never knows which transport it talks over.

pub mod stdio;

use crate::wire::{DecodeError, Message};
use serde_json::Value;
use std::future::Future;
use tokio::sync::mpsc;

/// What arrives from a receiver.
#[derive(Debug)]
pub enum Incoming {
    Message(Value, Message),
    /// Output that is not a JSON-RPC message: fatal for the session.
    Invalid {
        raw: String,
        error: DecodeError,
    },
    /// A diagnostic line (stderr).
    Log(String),
    /// The connection ended, with the cause.
    Closed(String),
}

/// A live connection to a receiver; dropping it stops the receiver.
pub struct Connection {
    pub outgoing: mpsc::Sender<Value>,
    pub incoming: mpsc::Receiver<Incoming>,
    /// Held for its Drop: kills what the transport spawned.
    pub guard: Box<dyn Send + Sync>,
    pub transport: &'static str,
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
    /// Opens a new connection.
    fn connect(&self) -> impl Future<Output = Result<Connection, ConnectError>> + Send;
    /// A human description of the receiver (command or URL).
    fn describe(&self) -> String;
}
