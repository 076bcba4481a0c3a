//! The 2025-11-25 handshake, from either side: initialize, then notifications/initialized.

use crate::session::{Inbox, ServerInfo, Session};
use crate::spec::PROTOCOL_VERSION;
use crate::wire::Outcome;
use serde_json::{json, Value};

/// Opens a conversation with a server: initialize with `client_capabilities`, then
/// notifications/initialized.
pub async fn initialize(
    session: &Session,
    client_capabilities: Value,
) -> Result<ServerInfo, String> {
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": client_capabilities,
        "clientInfo": {"name": "taskcheck", "version": env!("CARGO_PKG_VERSION")},
    });
    let reply = session
        .request("initialize", params, session.timeout)
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    let result = match reply.outcome {
        Outcome::Result(r) => r,
        Outcome::Error(e) => return Err(format!("initialize was rejected: {e}")),
    };
    let info = ServerInfo::from_result(&result);
    session
        .notify("notifications/initialized", Value::Null)
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    Ok(info)
}

/// Opens a conversation with a client receiver: answers its initialize with taskcheck's
/// server `capabilities`, then waits for notifications/initialized; every request after it
/// is refused. What the client declared is returned as the receiver's info.
pub async fn accept(session: &Session, capabilities: Value) -> Result<ServerInfo, String> {
    let hello = session
        .next(Inbox::Requests, "initialize", session.timeout)
        .await
        .map_err(|e| format!("the client sent no initialize: {e}"))?;
    let result = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": capabilities,
        "serverInfo": {"name": "taskcheck", "version": env!("CARGO_PKG_VERSION")},
    });
    session
        .respond(&hello.id, result)
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    session
        .next(
            Inbox::Notifications,
            "notifications/initialized",
            session.timeout,
        )
        .await
        .map_err(|e| format!("the client never sent notifications/initialized: {e}"))?;
    // what the client asked before it was initialized gets the same answer
    session.refuse_requests().await;
    Ok(ServerInfo::from_client_request(&hello.params))
}
