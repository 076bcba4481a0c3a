//! `taskcheck watch`: a real client and server talking through taskcheck, every byte relayed
//! unchanged and every message recorded, then judged: over stdio (a client's server command)
//! and over Streamable HTTP (a reverse proxy).

mod conversations;
pub mod http;
pub mod stdio;

/// Resolves on SIGINT or SIGTERM (how a client or a user stops what it started); from the first
/// call on, neither kills the process.
pub async fn terminated() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
}
