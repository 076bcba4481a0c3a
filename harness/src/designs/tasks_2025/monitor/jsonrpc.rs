//! The conversation itself: one response per request, nothing but MCP messages on a stdio
//! connection, and a receiver that stays to answer what it was asked.

use super::*;

/// A request gets one response, to its id (MUST).
pub(super) const ONE_RESPONSE: &str = "wire.one-response";
/// Over stdio, nothing but MCP messages (MUST NOT).
pub(super) const STDOUT_ONLY_MCP: &str = "transport.stdio.stdout-only-mcp";
/// The receiver stays and answers (MUST).
pub(super) const SURVIVES: &str = "wire.survives";

impl Monitor<'_> {
    /// A response of the receiver's to no open request of the requestor's: one already
    /// answered, or an id never sent.
    pub(super) fn stray_response(&mut self, id: &Value, e: &Entry) {
        if id.is_null() {
            return;
        }
        self.findings.judge(
            ONE_RESPONSE,
            false,
            None,
            || format!("a response to id {id}, which no open request had: one already answered, or an id no request used"),
            || vec![e.seq],
        );
    }

    /// An entry of the receiver's that holds no JSON-RPC message: output that is no MCP
    /// message over stdio, or the receiver going away.
    pub(super) fn no_message(&mut self, e: &Entry) {
        if e.dir != Direction::In || !self.opened {
            return;
        }
        if e.receiver_closed() {
            let open: Vec<u64> = self.asked.values().map(|a| a.seq).collect();
            if let Some(first) = open.iter().min().copied() {
                self.findings.judge(
                    SURVIVES,
                    false,
                    None,
                    || {
                        format!(
                            "{} while {} request(s) of the requestor's were unanswered{}",
                            e.text.as_deref().unwrap_or("the receiver went away"),
                            open.len(),
                            stderr_tail(&self.stderr)
                        )
                    },
                    || vec![first, e.seq],
                );
            } else {
                self.gone = Some(e.seq);
            }
            return;
        }
        let Some(text) = e.text.as_deref() else {
            return;
        };
        if e.transport != "stdio" || e.closed.is_some() || text.starts_with(KEPT_NO_MORE) {
            return;
        }
        self.findings.judge(
            STDOUT_ONLY_MCP,
            false,
            None,
            || format!("the receiver wrote a line that is no MCP message: {text:?}"),
            || vec![e.seq],
        );
    }

    /// A request sent after the receiver went away found no one to answer it.
    pub(super) fn sent_after_gone(&mut self, e: &Entry) {
        let Some(gone) = self.gone.take() else {
            return;
        };
        self.findings.judge(
            SURVIVES,
            false,
            None,
            || {
                format!(
                    "the receiver went away (trace #{gone}) before a request of the requestor's{}",
                    stderr_tail(&self.stderr)
                )
            },
            || vec![gone, e.seq],
        );
    }

    /// A ping answered: the receiver is still there.
    pub(super) fn pinged(&mut self, e: &Entry) {
        self.findings.judge(
            SURVIVES,
            true,
            None,
            || "the receiver still answers ping".into(),
            || vec![e.seq],
        );
    }
}

/// How the trace's note begins once it keeps no more messages (`Trace`'s limit).
const KEPT_NO_MORE: &str = "taskcheck keeps at most";

/// The last lines of the receiver's stderr, as a suffix of a message.
fn stderr_tail(lines: &[String]) -> String {
    match lines.len() {
        0 => String::new(),
        n => format!(
            "; the last of its stderr:\n{}",
            lines[n.saturating_sub(STDERR_LINES)..].join("\n")
        ),
    }
}

/// Stderr lines shown with the receiver going away.
const STDERR_LINES: usize = 8;
