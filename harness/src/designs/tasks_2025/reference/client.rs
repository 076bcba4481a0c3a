//! The reference client: a correct client-side Tasks receiver. It connects to a server (over
//! Streamable HTTP, or by spawning the server's command for stdio), declares the client
//! fixture capabilities, and answers sampling, elicitation, roots and tasks/* requests with
//! the same task store and faults as the reference receiver.

use super::faults::{Fault, Faults};
use super::Reference;
use crate::fixtures;
use crate::spec::PROTOCOL_VERSION;
use crate::transport::{Connect, Incoming, Outgoing, Peer};
use crate::wire::{self, Message, Outcome};
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// The id of the reference client's initialize request.
const INITIALIZE_ID: &str = "initialize";

/// Runs the reference client against the server `connector` reaches until the server ends
/// the connection; an error says why it could not connect or initialize.
pub async fn run_client<C: Connect>(connector: &C, faults: Faults) -> Result<(), String> {
    let conn = connector
        .connect(Peer::A)
        .await
        .map_err(|e| e.to_string())?;
    let mut incoming = conn.incoming;
    let outgoing = conn.outgoing;
    let _guard = conn.guard;
    let mut capabilities = fixtures::client::capabilities();
    if faults.has(Fault::NoTasksCapability) {
        capabilities
            .as_object_mut()
            .expect("capabilities are an object")
            .remove("tasks");
    }
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": capabilities,
        "clientInfo": {"name": "taskcheck-reference-client", "version": env!("CARGO_PKG_VERSION")},
    });
    let send = |msg: Value| {
        let outgoing = outgoing.clone();
        async move { outgoing.send(Outgoing::Message(msg)).await.is_ok() }
    };
    send(wire::request(&json!(INITIALIZE_ID), "initialize", &params)).await;
    let (out, mut answers) = mpsc::unbounded_channel();
    let client = Reference::client(faults, out);
    let forward = outgoing.clone();
    tokio::spawn(async move {
        while let Some(msg) = answers.recv().await {
            if forward.send(Outgoing::Message(msg)).await.is_err() {
                return;
            }
        }
    });
    while let Some(event) = incoming.recv().await {
        match event {
            Incoming::Message(received) => match received.message {
                Message::Response { id, outcome } if id == json!(INITIALIZE_ID) => match outcome {
                    Outcome::Result(_) => {
                        send(wire::notification(
                            "notifications/initialized",
                            &Value::Null,
                        ))
                        .await;
                    }
                    Outcome::Error(e) => {
                        return Err(format!("the server rejected initialize: {e}"))
                    }
                },
                message => client.receive(message),
            },
            Incoming::Invalid { raw, error } => {
                eprintln!("taskcheck reference-client: the server sent {raw:?}: {error}");
            }
            Incoming::Log(line) => eprintln!("{line}"),
            Incoming::Refused { status, body, .. } => {
                eprintln!("taskcheck reference-client: HTTP {status}: {body}");
            }
            Incoming::Closed(why) => {
                eprintln!("taskcheck reference-client: {why}");
                return Ok(());
            }
        }
    }
    Ok(())
}
