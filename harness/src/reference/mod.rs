//! What every design's reference receiver shares: the stdio serving loop (with its hostile
//! modes), fault and variant tables generic over a design's own enums, and the answer to input
//! that does not decode. Each design's receiver lives in its folder (`designs/<design>/`).

pub mod faults;
pub mod hostile;
pub mod http_hostile;
pub mod record;
pub mod renamed;
pub mod variants;

use crate::wire::{self, code, Message};
use hostile::Hostile;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use time::format_description::well_known::Rfc3339;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest line a reference receiver accepts from a requestor.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// A time as RFC 3339 text.
pub fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

/// A receiver the stdio server can serve: it takes decoded messages and writes its own.
pub trait Receives: Send + Sync + 'static {
    /// Takes one decoded message from the requestor.
    fn take(self: &Arc<Self>, message: Message);
    /// Writes one message to the requestor.
    fn put(&self, msg: Value);
    /// Whether a log line goes out on stdout after the fourth message (a fault of stdio).
    fn logs_on_stdout(&self) -> bool {
        false
    }
    /// The JSON-RPC error answering input that does not decode; by default the right one.
    fn decode_error(&self, raw: &[u8], e: &wire::DecodeError) -> Value {
        decode_error(raw, e, DecodeCodes::default())
    }
}

/// The codes a receiver answers undecodable input with.
#[derive(Debug, Clone, Copy)]
pub struct DecodeCodes {
    /// For input that is not JSON (right: -32700).
    pub not_json: i64,
    /// For JSON that is no valid JSON-RPC message (right: -32600).
    pub not_jsonrpc: i64,
}

impl Default for DecodeCodes {
    fn default() -> Self {
        DecodeCodes {
            not_json: code::PARSE_ERROR,
            not_jsonrpc: code::INVALID_REQUEST,
        }
    }
}

/// The JSON-RPC error answering input that does not decode, with the input's id where it has
/// one.
pub fn decode_error(raw: &[u8], e: &wire::DecodeError, codes: DecodeCodes) -> Value {
    let code = match e {
        wire::DecodeError::NotJsonRpc(_) => codes.not_jsonrpc,
        _ => codes.not_json,
    };
    let id = serde_json::from_slice::<Value>(raw)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .filter(wire::is_valid_id)
        .unwrap_or(Value::Null);
    wire::error(&id, code, &e.to_string())
}

/// Serves a receiver `make` builds from `state` on stdin/stdout until stdin closes; `hostile`
/// breaks the transport on purpose; `record` writes the conversation down.
pub async fn serve_stdio_with<R: Receives, S>(
    state: S,
    hostile: Option<Hostile>,
    record: Option<record::Recorder>,
    make: impl FnOnce(S, mpsc::UnboundedSender<Value>) -> Arc<R>,
) -> std::io::Result<()> {
    let record = record.map(Arc::new);
    if hostile == Some(Hostile::ExitBeforeInit) {
        std::process::exit(1);
    }
    let (out, mut rx) = mpsc::unbounded_channel::<Value>();
    let server = make(state, out);
    let log_line = server.logs_on_stdout();
    let recorder = record.clone();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut sent = 0;
        while let Some(msg) = rx.recv().await {
            if let Some(r) = &recorder {
                r.record(false, &msg);
            }
            let written = match hostile {
                Some(mode) => hostile::write(mode, sent, msg, &mut stdout).await,
                None => {
                    let mut line = msg.to_string();
                    line.push('\n');
                    if log_line && sent == 3 {
                        // a print left in a handler
                        line.push_str("reference: handled a request\n");
                    }
                    stdout.write_all(line.as_bytes()).await.is_ok() && stdout.flush().await.is_ok()
                }
            };
            sent += 1;
            if !written {
                // keep draining so the receiver stays alive (close-stdout) without output
                while rx.recv().await.is_some() {}
                return;
            }
        }
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        if let (Some(r), Ok(value)) = (&record, serde_json::from_str::<Value>(&line)) {
            r.record(true, &value);
        }
        match wire::decode(line.as_bytes(), MAX_LINE) {
            Ok((_, message)) => {
                let answer = match (&message, hostile) {
                    (Message::Notification { method, .. }, Some(h)) => {
                        hostile::on_notification(h, method)
                    }
                    _ => None,
                };
                match answer {
                    Some(a) => server.put(a),
                    None => server.take(message),
                }
            }
            Err(e) => server.put(server.decode_error(line.as_bytes(), &e)),
        }
    }
    drop(server);
    let _ = tokio::time::timeout(Duration::from_secs(1), writer).await;
    Ok(())
}
