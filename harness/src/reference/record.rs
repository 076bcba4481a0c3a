//! `reference --record FILE`: the reference receiver writes its conversation as a trace, in
//! the JSON-lines form `run --trace` writes (the requestor's messages `out`, its own `in`), a
//! line at a time, so what a requestor did is there even if the receiver is killed. `taskcheck
//! requestor` judges the requestor from it.

use crate::trace::{Direction, Entry};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// The text of the entry that starts a recording, followed by the time (ms since the Unix
/// epoch) its `t_ms` count from, so whoever reads it can place what it saw on the same clock.
pub const STARTED: &str = "recording started at unix ms ";
/// The text of the entry the reader adds when the requestor ended of itself.
pub const ENDED: &str = "the requestor ended";
/// The text of the entry the reader adds when the requestor was stopped at its deadline.
pub const STOPPED: &str = "the requestor was stopped at its deadline";

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A text entry (no message) of the requestor's side.
pub fn note(seq: u64, t_ms: u64, text: String) -> Entry {
    Entry {
        message: None,
        text: Some(text),
        ..Entry::of(seq, Direction::Out, t_ms, Value::Null)
    }
}

/// The most entries one recording keeps.
const MAX_RECORDED: u64 = 100_000;

/// Appends every message of one conversation to a file.
pub struct Recorder {
    file: Mutex<(std::fs::File, u64)>,
    start: Instant,
}

/// The recorder `--record` asks for, if it does: the error names the file.
pub fn open(path: Option<&Path>) -> Result<Option<Recorder>, String> {
    path.map(|p| Recorder::create(p).map_err(|e| format!("cannot record to {}: {e}", p.display())))
        .transpose()
}

impl Recorder {
    /// Creates (or empties) the file.
    pub fn create(path: &Path) -> std::io::Result<Recorder> {
        let recorder = Recorder {
            file: Mutex::new((std::fs::File::create(path)?, 0)),
            start: Instant::now(),
        };
        let started = format!("{STARTED}{}", unix_ms());
        recorder.write(|seq, t_ms| note(seq, t_ms, started));
        Ok(recorder)
    }

    /// Records a message: `from_requestor` the requestor's, otherwise the receiver's.
    pub fn record(&self, from_requestor: bool, message: &Value) {
        let dir = match from_requestor {
            true => Direction::Out,
            false => Direction::In,
        };
        self.write(|seq, t_ms| Entry::of(seq, dir, t_ms, message.clone()));
    }

    /// Records an HTTP request of the requestor with the request metadata headers it carried.
    pub fn record_request(&self, message: &Value, headers: BTreeMap<String, String>) {
        self.write(|seq, t_ms| Entry {
            transport: "http".into(),
            headers: Some(headers),
            ..Entry::of(seq, Direction::Out, t_ms, message.clone())
        });
    }

    /// Records a message over HTTP: `from_requestor` the requestor's, otherwise the receiver's,
    /// sent `via` the way it went where the transport has several (`GET text/event-stream`).
    pub fn record_http(&self, from_requestor: bool, message: &Value, via: Option<&str>) {
        let dir = match from_requestor {
            true => Direction::Out,
            false => Direction::In,
        };
        self.write(|seq, t_ms| Entry {
            transport: "http".into(),
            via: via.map(str::to_string),
            ..Entry::of(seq, dir, t_ms, message.clone())
        });
    }

    fn write(&self, entry: impl FnOnce(u64, u64) -> Entry) {
        let t_ms = self.start.elapsed().as_millis() as u64;
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        guard.1 += 1;
        // a flood is cut short: what came first is what a requestor is judged by
        if guard.1 > MAX_RECORDED {
            return;
        }
        let entry = entry(guard.1, t_ms);
        if let Ok(mut line) = serde_json::to_string(&entry) {
            line.push('\n');
            // a recording that cannot be written leaves the requestor unjudged, not unserved
            let _ = guard.0.write_all(line.as_bytes());
        }
    }
}
