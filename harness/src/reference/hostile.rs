//! Hostile transport behaviours of the stdio reference receiver (`reference --hostile MODE`):
//! each breaks the transport rather than a Tasks rule, to prove taskcheck survives it.

use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncWriteExt, Stdout};

/// One way to misbehave on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    Garbage,
    HugeLine,
    InvalidUtf8,
    NotJsonRpc,
    WrongIds,
    SilentAfterInit,
    OneBytePerSecond,
    ExitMidRun,
    ExitBeforeInit,
    CloseStdout,
    DuplicateIds,
    AnswersNotifications,
    RequestFlood,
}

/// A hostile mode's name and what it does.
pub struct HostileInfo {
    pub mode: Hostile,
    pub name: &'static str,
    pub description: &'static str,
}

/// Every hostile mode.
pub const HOSTILE: &[HostileInfo] = &[
    HostileInfo {
        mode: Hostile::Garbage,
        name: "garbage",
        description: "after initialize, writes bytes that are not JSON",
    },
    HostileInfo {
        mode: Hostile::HugeLine,
        name: "huge-line",
        description: "after initialize, writes one 64 MiB line",
    },
    HostileInfo {
        mode: Hostile::InvalidUtf8,
        name: "invalid-utf8",
        description: "after initialize, writes a line that is not UTF-8",
    },
    HostileInfo {
        mode: Hostile::NotJsonRpc,
        name: "not-jsonrpc",
        description: "after initialize, writes JSON that is not JSON-RPC",
    },
    HostileInfo {
        mode: Hostile::WrongIds,
        name: "wrong-ids",
        description: "every response carries an id nobody asked for",
    },
    HostileInfo {
        mode: Hostile::SilentAfterInit,
        name: "silent-after-init",
        description: "answers initialize, then nothing",
    },
    HostileInfo {
        mode: Hostile::OneBytePerSecond,
        name: "one-byte-per-second",
        description: "writes its output one byte per second",
    },
    HostileInfo {
        mode: Hostile::ExitMidRun,
        name: "exit-mid-run",
        description: "exits after its third message",
    },
    HostileInfo {
        mode: Hostile::ExitBeforeInit,
        name: "exit-before-init",
        description: "exits at once, before initialize",
    },
    HostileInfo {
        mode: Hostile::CloseStdout,
        name: "close-stdout",
        description: "closes stdout after initialize and stays alive",
    },
    HostileInfo {
        mode: Hostile::DuplicateIds,
        name: "duplicate-ids",
        description: "sends every response twice",
    },
    HostileInfo {
        mode: Hostile::AnswersNotifications,
        name: "answers-notifications",
        description: "answers every notification with a response of its own",
    },
    HostileInfo {
        mode: Hostile::RequestFlood,
        name: "request-flood",
        description:
            "after initialize, floods taskcheck with 50,000 pings and 50,000 log notifications",
    },
];

/// Fifty thousand pings and fifty thousand log notifications, one line each.
fn flood() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..50_000 {
        let ping = crate::wire::request(&Value::from(format!("flood-{i}")), "ping", &Value::Null);
        let log = crate::wire::notification(
            "notifications/message",
            &serde_json::json!({"level": "debug", "data": i}),
        );
        for msg in [ping, log] {
            out.extend_from_slice(msg.to_string().as_bytes());
            out.push(b'\n');
        }
    }
    out
}

/// What the receiver sends, in this mode, on receiving a notification.
pub fn on_notification(mode: Hostile, method: &str) -> Option<Value> {
    (mode == Hostile::AnswersNotifications)
        .then(|| crate::wire::result(&Value::from(method), serde_json::json!({})))
}

/// Looks a mode up by name.
pub fn by_name(name: &str) -> Option<Hostile> {
    HOSTILE.iter().find(|h| h.name == name).map(|h| h.mode)
}

/// The `--list-hostile` text.
pub fn list() -> String {
    HOSTILE
        .iter()
        .map(|h| format!("{:<22} {}\n", h.name, h.description))
        .collect()
}

fn wrong_id(msg: &mut Value) {
    if let Some(id) = msg
        .get("id")
        .filter(|_| msg.get("method").is_none())
        .cloned()
    {
        msg["id"] = match id.as_i64() {
            Some(n) => Value::from(n + 1000),
            None => Value::from(format!("{}-wrong", crate::wire::id_text(&id))),
        };
    }
}

/// Writes the `n`-th outgoing message (0 is the initialize result) the hostile way; false
/// when the writer should stop.
pub async fn write(mode: Hostile, n: usize, mut msg: Value, out: &mut Stdout) -> bool {
    if mode == Hostile::WrongIds {
        wrong_id(&mut msg);
    }
    let mut line = msg.to_string().into_bytes();
    line.push(b'\n');
    if n >= 1 {
        let replaced: Option<Vec<u8>> = match mode {
            Hostile::Garbage => Some(b"\x00\x01 this is not json {{{\n".to_vec()),
            Hostile::HugeLine => Some([vec![b'x'; 64 << 20], vec![b'\n']].concat()),
            Hostile::InvalidUtf8 => Some(b"\xff\xfe\xfd\n".to_vec()),
            Hostile::NotJsonRpc => Some(b"{\"hello\":\"world\"}\n".to_vec()),
            Hostile::SilentAfterInit => return true,
            Hostile::CloseStdout => {
                let _ = out.shutdown().await;
                // SAFETY: closing our own stdout descriptor; nothing else uses it afterwards.
                unsafe { libc::close(1) };
                return false;
            }
            _ => None,
        };
        if let Some(bytes) = replaced {
            line = bytes;
        }
    }
    if mode == Hostile::ExitMidRun && n >= 3 {
        std::process::exit(0);
    }
    if mode == Hostile::DuplicateIds && msg.get("method").is_none() {
        line = [line.clone(), line].concat();
    }
    if mode == Hostile::RequestFlood && n == 0 {
        // the initialize result first, then the flood
        return out.write_all(&line).await.is_ok()
            && out.write_all(&flood()).await.is_ok()
            && out.flush().await.is_ok();
    }
    if mode == Hostile::OneBytePerSecond {
        for b in line {
            if out.write_all(&[b]).await.is_err() || out.flush().await.is_err() {
                return false;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        return true;
    }
    out.write_all(&line).await.is_ok() && out.flush().await.is_ok()
}
