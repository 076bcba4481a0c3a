//! `taskcheck watch` over stdio: a client's server command run through taskcheck. Every byte
//! is relayed unchanged, in order, each way as it comes (garbage included); each line is also
//! recorded as a trace entry (client to server `out`, server to client `in`) for judging once
//! the conversation ends.

use crate::trace::{Direction, Entry, Trace};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Longest line recorded whole; a longer one is still relayed in full, and recorded as text
/// cut short.
const MAX_LINE: usize = 8 << 20;
/// How long a server may take to end its output once its client closed its input, before it
/// is killed.
const SERVER_GRACE: Duration = Duration::from_secs(5);

/// The lines of one direction of the relay, recorded as they complete.
struct Lines {
    dir: Direction,
    trace: Trace,
    pending: Vec<u8>,
    /// The line under way outgrew [`MAX_LINE`]: the rest of it is not kept.
    overflowed: bool,
}

impl Lines {
    fn new(dir: Direction, trace: Trace) -> Lines {
        Lines {
            dir,
            trace,
            pending: Vec::new(),
            overflowed: false,
        }
    }

    /// Takes in relayed bytes, recording every line they complete.
    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            self.keep(&bytes[..end]);
            self.line_ended();
            bytes = &bytes[end + 1..];
        }
        self.keep(bytes);
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.pending.len());
        self.overflowed |= bytes.len() > room;
        self.pending
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Records the line held: a JSON value as a message, anything else as text.
    fn line_ended(&mut self) {
        let line = std::mem::take(&mut self.pending);
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches('\r');
        let overflowed = std::mem::take(&mut self.overflowed);
        if text.trim().is_empty() {
            return;
        }
        match (overflowed, serde_json::from_str::<Value>(text)) {
            (false, Ok(message)) => self.trace.record(self.dir, Some(message), None),
            (true, _) => self.trace.record(
                self.dir,
                None,
                Some(&format!("a line longer than {MAX_LINE} bytes: {text}")),
            ),
            (false, Err(_)) => self.trace.record(self.dir, None, Some(text)),
        };
    }
}

/// Copies `from` to `to` chunk by chunk, the lines each completes recorded before it is
/// written: a message is in the trace before its peer can answer it, so an answer never comes
/// first (the peer may answer before this side's write returns). Ends when `from` ends (its
/// last line recorded) or `to` is gone.
async fn relay<R, W>(mut from: R, mut to: W, mut lines: Lines)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        lines.feed(&buf[..n]);
        if to.write_all(&buf[..n]).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    lines.line_ended();
}

/// Who ended a watched conversation first.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Ender {
    /// The client closed its input (the trace's last client entry then says so, as a
    /// requestor's recording does).
    Client,
    /// The server ended its output.
    Server,
    /// `watch` itself got SIGINT or SIGTERM: it passed SIGTERM on to the server.
    Signal,
}

/// What a watched conversation left: its trace, how the server ended, and who ended it.
pub struct Watched {
    pub entries: Vec<Entry>,
    pub ended: String,
    pub ender: Ender,
}

/// Runs `command` (a program and its arguments) as the server of this process's own client:
/// its stdin from ours, its stdout to ours, its stderr to ours, until the server ends its output
/// (or, once the client closed its input or a signal came, [`SERVER_GRACE`] has passed, or a
/// signal came again: then it is killed). `ending` is shown the conversation as soon as either
/// side ended it, before the server is waited for (a client may stop this process then).
pub async fn run(command: &[String], ending: impl FnOnce(&[Entry])) -> Result<Watched, String> {
    let (program, args) = command
        .split_first()
        .ok_or("no server command given (after `--`)")?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let (Some(server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(format!("{program}: no pipes to it"));
    };
    let trace = Trace::new("stdio");
    let up = relay(
        tokio::io::stdin(),
        server_in,
        Lines::new(Direction::Out, trace.clone()),
    );
    let down = relay(
        server_out,
        tokio::io::stdout(),
        Lines::new(Direction::In, trace.clone()),
    );
    let signal = super::terminated();
    tokio::pin!(down, signal);
    // the client closing its input closes the server's; the server then has a while to end
    let ender = tokio::select! {
        _ = &mut down => Ender::Server,
        _ = up => {
            trace.record(Direction::Out, None, Some(crate::reference::record::ENDED));
            Ender::Client
        }
        _ = &mut signal => {
            if let Some(pid) = child.id() {
                // SAFETY: kill has no memory effects; a pid already gone only yields ESRCH
                unsafe { libc::kill(pid as i32, libc::SIGTERM) };
            }
            Ender::Signal
        }
    };
    trace.with_entries(ending);
    if ender != Ender::Server {
        let ended = tokio::select! {
            done = tokio::time::timeout(SERVER_GRACE, &mut down) => done.is_ok(),
            _ = super::terminated() => false,
        };
        if !ended {
            let _ = child.start_kill();
        }
    }
    let ended = match tokio::time::timeout(SERVER_GRACE, child.wait()).await {
        Ok(Ok(status)) => format!("the server ended: {status}"),
        Ok(Err(e)) => format!("the server's end is unknown: {e}"),
        Err(_) => {
            let _ = child.start_kill();
            "the server closed its output but did not exit: killed".to_string()
        }
    };
    Ok(Watched {
        entries: trace.take_entries(),
        ended,
        ender,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that notes, at each write, how many entries the trace already held.
    struct Noting {
        trace: Trace,
        seen: Vec<usize>,
    }

    impl AsyncWrite for Noting {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            let held = self.trace.entries().len();
            self.seen.push(held);
            std::task::Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }

        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_line_is_recorded_before_the_peer_can_read_it() {
        let trace = Trace::new("stdio");
        let mut to = Noting {
            trace: trace.clone(),
            seen: Vec::new(),
        };
        let from: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\"}\n";
        relay(from, &mut to, Lines::new(Direction::In, trace.clone())).await;
        // an answer the peer wrote at once would come after it
        assert_eq!(to.seen, [1]);
    }

    #[test]
    fn lines_are_recorded_as_messages_or_text_however_the_bytes_are_cut() {
        let trace = Trace::new("stdio");
        let mut lines = Lines::new(Direction::Out, trace.clone());
        lines.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,");
        lines.feed(b"\"method\":\"ping\"}\r\nnot json\n\n{\"id\"");
        lines.line_ended();
        let entries = trace.entries();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].message.as_ref().unwrap()["method"], "ping");
        assert_eq!(entries[1].text.as_deref(), Some("not json"));
        assert_eq!(entries[2].text.as_deref(), Some("{\"id\""));
    }
}
