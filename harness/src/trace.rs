//! The trace: every message in and out of a session, numbered and timed.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which way a trace entry went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// taskcheck to the receiver.
    Out,
    /// The receiver to taskcheck.
    In,
    /// A line the receiver wrote on stderr.
    Stderr,
}

/// One line of the JSON-lines trace.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The scenario whose session this is (set when a run's traces are written together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The second requestor's session (`b`) in isolation scenarios; absent for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    pub seq: u64,
    pub dir: Direction,
    pub transport: String,
    /// Milliseconds since the session started.
    pub t_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Value>,
    /// Raw text, for stderr lines and output that is not a JSON-RPC message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// How the message came, where the transport has several ways (HTTP: `POST
    /// application/json`, `POST text/event-stream`, `GET text/event-stream`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The request metadata headers (`Mcp-Method`, `Mcp-Name`) an HTTP request came with, as
    /// the reference receiver records them (`reference --http --record`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// Set on the entry that records why the connection ended (`receiver`: the peer taskcheck
    /// talks to exited or closed its output; `limit`: it sent a line above taskcheck's limit),
    /// its `text` saying how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<String>,
}

impl Entry {
    /// The JSON-RPC message the entry holds, decoded, if it holds a valid one.
    pub fn decoded(&self) -> Option<crate::wire::MessageRef<'_>> {
        crate::wire::classify_ref(self.message.as_ref()?).ok()
    }

    /// A message entry of a stdio session (for building traces by hand, as tests do).
    pub fn of(seq: u64, dir: Direction, t_ms: u64, message: Value) -> Entry {
        Entry {
            scenario: None,
            peer: None,
            seq,
            dir,
            transport: "stdio".into(),
            t_ms,
            message: Some(message),
            text: None,
            via: None,
            headers: None,
            closed: None,
        }
    }

    /// Whether the entry records the receiver going away (it exited or closed its output).
    pub fn receiver_closed(&self) -> bool {
        self.closed.as_deref() == Some(RECEIVER_CLOSED)
    }
}

/// The `closed` mark of the entry that records the receiver going away.
pub const RECEIVER_CLOSED: &str = "receiver";
/// The `closed` mark of the entry that records a line above taskcheck's limit (taskcheck's
/// limit, not the receiver's fault).
pub const LIMIT_CLOSED: &str = "limit";

/// A shared, append-only trace.
#[derive(Clone)]
pub struct Trace {
    inner: Arc<Mutex<Vec<Entry>>>,
    /// Entries numbered so far (all of them are kept unless the trace only counts).
    count: Arc<AtomicU64>,
    keep: bool,
    start: Instant,
    transport: &'static str,
    peer: Option<&'static str>,
}

/// Longest raw text kept in a trace entry.
const TEXT_PREVIEW: usize = 2048;
/// Most entries one trace keeps; later ones are counted, not kept, so a receiver that floods
/// cannot exhaust taskcheck's memory (the trace then says where it stopped keeping).
pub const MAX_KEPT: usize = 50_000;

impl Trace {
    /// An empty trace for one session.
    pub fn new(transport: &'static str) -> Trace {
        Trace {
            inner: Arc::default(),
            count: Arc::default(),
            keep: true,
            start: Instant::now(),
            transport,
            peer: None,
        }
    }

    /// A trace that numbers entries but keeps none (load runs: memory stays flat).
    pub fn counting(transport: &'static str) -> Trace {
        Trace {
            keep: false,
            ..Trace::new(transport)
        }
    }

    /// The same trace, its new entries tagged as another requestor's.
    pub fn for_peer(&self, peer: &'static str) -> Trace {
        Trace {
            peer: Some(peer),
            ..self.clone()
        }
    }

    /// The transport this trace records (`stdio` or `http`).
    pub fn transport(&self) -> &'static str {
        self.transport
    }

    /// Appends an entry and returns its sequence number.
    pub fn record(&self, dir: Direction, message: Option<Value>, text: Option<&str>) -> u64 {
        self.record_via(dir, message, text, None)
    }

    /// Appends an entry that says how it came.
    pub fn record_via(
        &self,
        dir: Direction,
        message: Option<Value>,
        text: Option<&str>,
        via: Option<String>,
    ) -> u64 {
        self.push(dir, message, text, via, None, None)
    }

    /// Appends the entry that records why the connection ended (`by`: [`RECEIVER_CLOSED`],
    /// [`LIMIT_CLOSED`]), saying how.
    pub fn record_closed(&self, by: &str, why: &str) -> u64 {
        let seq = self.push(Direction::In, None, Some(why), None, None, None);
        self.mark_closed(seq, Some(by.to_string()));
        seq
    }

    /// Appends an entry of another trace as it is (its time at `at_ms`, else now).
    fn push_entry(&self, e: Entry, at_ms: Option<u64>) {
        let seq = self.push(e.dir, e.message, e.text.as_deref(), e.via, e.headers, at_ms);
        self.mark_closed(seq, e.closed);
    }

    /// Sets the `closed` mark of the entry numbered `seq`, if it was kept and is the last.
    fn mark_closed(&self, seq: u64, closed: Option<String>) {
        if closed.is_none() {
            return;
        }
        let mut entries = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = entries.last_mut().filter(|e| e.seq == seq) {
            e.closed = closed;
        }
    }

    /// Appends every entry of `other` as it is (when and how it came, its headers), in this
    /// trace's sequence.
    pub fn take_in(&self, other: &Trace) {
        // when `other` began, in this trace's time
        let offset = other
            .start
            .saturating_duration_since(self.start)
            .as_millis() as u64;
        for e in other.entries() {
            let at = Some(offset + e.t_ms);
            self.push_entry(e, at);
        }
    }

    /// One trace of the entries of several, in the order they came (their own order where
    /// two came in the same millisecond), timed from the earliest start. The entries are moved,
    /// not copied: the traces given are left empty.
    pub fn merged(traces: &[Trace]) -> Trace {
        let Some(first) = traces.iter().min_by_key(|t| t.start) else {
            return Trace::new("http");
        };
        let whole = Trace {
            inner: Arc::default(),
            count: Arc::default(),
            ..first.clone()
        };
        let mut all: Vec<(u64, usize, Entry)> = Vec::new();
        for (i, t) in traces.iter().enumerate() {
            let offset = t.start.duration_since(first.start).as_millis() as u64;
            all.extend(
                t.take_entries()
                    .into_iter()
                    .map(|e| (offset + e.t_ms, i, e)),
            );
        }
        // stable: a trace's own entries keep their order
        all.sort_by_key(|(at, i, _)| (*at, *i));
        for (at, _, e) in all {
            whole.push_entry(e, Some(at));
        }
        whole
    }

    /// Appends a message sent over HTTP with the request metadata headers it carried.
    pub fn record_headed(
        &self,
        dir: Direction,
        message: Value,
        headers: BTreeMap<String, String>,
    ) -> u64 {
        self.push(dir, Some(message), None, None, Some(headers), None)
    }

    fn push(
        &self,
        dir: Direction,
        message: Option<Value>,
        text: Option<&str>,
        via: Option<String>,
        headers: Option<BTreeMap<String, String>>,
        at_ms: Option<u64>,
    ) -> u64 {
        let mut entries = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let seq = self.count.fetch_add(1, Ordering::Relaxed);
        if !self.keep || entries.len() > MAX_KEPT {
            return seq;
        }
        let (message, text, via, headers) = match entries.len() == MAX_KEPT {
            true => (
                None,
                Some(format!(
                    "taskcheck keeps at most {MAX_KEPT} messages of a session: from here on they are counted, not kept or judged"
                )),
                None,
                None,
            ),
            false => (message, text.map(|t| preview(t, TEXT_PREVIEW)), via, headers),
        };
        entries.push(Entry {
            scenario: None,
            peer: self.peer.map(str::to_string),
            seq,
            dir,
            transport: self.transport.to_string(),
            t_ms: at_ms.unwrap_or_else(|| self.start.elapsed().as_millis() as u64),
            message,
            text,
            via,
            headers,
            closed: None,
        });
        seq
    }

    /// A copy of every entry so far.
    pub fn entries(&self) -> Vec<Entry> {
        self.with_entries(<[Entry]>::to_vec)
    }

    /// What `look` finds in the entries so far, read where they are kept (no copy).
    pub fn with_entries<R>(&self, look: impl FnOnce(&[Entry]) -> R) -> R {
        look(&self.inner.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Every entry so far, moved out: the trace keeps none of them (for its last reader).
    pub fn take_entries(&self) -> Vec<Entry> {
        std::mem::take(&mut *self.inner.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// At most `limit` bytes of `text`, cut on a character boundary.
pub fn preview(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    // a text already cut short keeps the size it was cut from, said once
    let (body, total) = text
        .strip_suffix(" bytes)")
        .and_then(|t| t.rsplit_once("… ("))
        .and_then(|(body, n)| Some((body, n.parse::<usize>().ok()?)))
        .unwrap_or((text, text.len()));
    let mut end = limit.min(body.len());
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({total} bytes)", &body[..end])
}

/// Writes entries as JSON lines.
pub fn write_jsonl(path: &std::path::Path, entries: &[Entry]) -> std::io::Result<()> {
    let mut out = String::new();
    for e in entries {
        out.push_str(&serde_json::to_string(e).map_err(std::io::Error::other)?);
        out.push('\n');
    }
    std::fs::write(path, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_of_a_preview_says_its_size_once() {
        let long = "x".repeat(300);
        let once = preview(&long, 100);
        assert_eq!(once, format!("{}… (300 bytes)", "x".repeat(100)));
        let twice = preview(&format!("step 3: {once}"), 50);
        assert_eq!(twice, format!("step 3: {}… (300 bytes)", "x".repeat(42)));
    }

    #[test]
    fn entries_taken_in_keep_when_and_how_they_came() {
        let whole = Trace::new("http");
        std::thread::sleep(std::time::Duration::from_millis(30));
        let own = Trace::new("http");
        let headers = BTreeMap::from([("mcp-name".to_string(), "t1".to_string())]);
        own.record_headed(
            Direction::Out,
            serde_json::json!({"id": 1}),
            headers.clone(),
        );
        std::thread::sleep(std::time::Duration::from_millis(60));
        whole.record(Direction::In, Some(Value::Null), None);
        whole.take_in(&own);
        let entries = whole.entries();
        let taken = &entries[1];
        assert_eq!(taken.seq, 1);
        assert_eq!(taken.headers.as_ref(), Some(&headers));
        // sent 30 ms or more into the whole, and 60 ms or more before it was taken in
        let later = entries[0].t_ms;
        assert!(
            taken.t_ms >= 30 && taken.t_ms + 50 <= later,
            "{} ms, then {later}",
            taken.t_ms
        );
    }

    #[test]
    fn a_flood_is_counted_not_kept() {
        let trace = Trace::new("stdio");
        for _ in 0..MAX_KEPT + 10 {
            trace.record(Direction::In, Some(Value::Null), None);
        }
        let entries = trace.entries();
        assert_eq!(entries.len(), MAX_KEPT + 1);
        let last = entries.last().unwrap();
        assert!(last.message.is_none());
        assert!(last.text.as_deref().unwrap().contains("counted, not kept"));
        assert_eq!(
            trace.record(Direction::Out, None, Some("x")),
            (MAX_KEPT + 10) as u64
        );
    }
}
