//! stdio transport: the receiver is a spawned command speaking newline-delimited JSON.

use super::{Closure, Connect, ConnectError, Connection, Incoming, Outgoing, Peer};
use crate::trace::preview;
use crate::wire;
use std::collections::HashSet;
use std::process::Stdio;
use std::sync::{Mutex, OnceLock};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// Spawns a shell command per connection.
pub struct StdioConnector {
    pub command: String,
    /// Longest line accepted from the receiver, in bytes.
    pub max_line: usize,
}

/// Process groups spawned and still alive, so Ctrl-C can kill them all.
fn live_groups() -> &'static Mutex<HashSet<i32>> {
    static GROUPS: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    GROUPS.get_or_init(Mutex::default)
}

/// Kills every process group taskcheck spawned (used on Ctrl-C).
pub fn kill_all_groups() {
    let groups = live_groups().lock().unwrap_or_else(|p| p.into_inner());
    for pgid in groups.iter() {
        kill_group(*pgid);
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: killpg has no memory effects; a stale group id only yields ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Kills the receiver's whole process group when the connection is dropped.
pub struct GroupGuard {
    pgid: i32,
}

/// Spawns `command` (run by /bin/sh) in a process group of its own, with piped stdio; the
/// guard kills the whole group when dropped, and Ctrl-C kills it too.
pub fn spawn_group(command: &str) -> Result<(Child, GroupGuard), ConnectError> {
    let child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ConnectError(format!("cannot start `{command}`: {e}")))?;
    let pgid = child
        .id()
        .ok_or_else(|| ConnectError(format!("`{command}` exited at once")))? as i32;
    live_groups()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(pgid);
    Ok((child, GroupGuard { pgid }))
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.pgid);
        live_groups()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.pgid);
    }
}

impl Connect for StdioConnector {
    async fn connect(&self, _peer: Peer) -> Result<Connection, ConnectError> {
        let (mut child, guard) = spawn_group(&self.command)?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let (in_tx, in_rx) = mpsc::channel(1024);
        let (out_tx, out_rx) = mpsc::channel::<Outgoing>(64);
        tokio::spawn(write_lines(stdin, out_rx, in_tx.clone()));
        tokio::spawn(read_messages(stdout, self.max_line, in_tx.clone()));
        tokio::spawn(read_log_lines(stderr, in_tx.clone()));
        tokio::spawn(watch_exit(child, in_tx));
        Ok(Connection {
            outgoing: out_tx,
            incoming: in_rx,
            guard: Box::new(guard),
            transport: "stdio",
            abandon: Box::new(|_| {}),
        })
    }

    fn describe(&self) -> String {
        self.command.clone()
    }

    fn transport(&self) -> &'static str {
        "stdio"
    }
}

/// Reports the receiver's exit, even while a process it left behind keeps stdout open.
pub(super) async fn watch_exit(mut child: Child, events: mpsc::Sender<Incoming>) {
    let why = match child.wait().await {
        Ok(status) => format!("the receiver exited ({status})"),
        Err(e) => format!("cannot wait for the receiver: {e}"),
    };
    // let output written just before the exit be read first
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let _ = events.send(Incoming::Closed(Closure::gone(why))).await;
}

/// Writes every outgoing message as one line; a failed write ends the connection.
pub(super) async fn write_lines<W: AsyncWrite + Unpin>(
    mut stdin: W,
    mut out: mpsc::Receiver<Outgoing>,
    events: mpsc::Sender<Incoming>,
) {
    while let Some(msg) = out.recv().await {
        if let Outgoing::EndInput = msg {
            let _ = stdin.shutdown().await;
            return;
        }
        let mut line = msg.text();
        line.push('\n');
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        };
        if let Err(e) = written.await {
            let _ = events
                .send(Incoming::Closed(Closure::gone(format!(
                    "cannot write to the receiver's stdin: {e}"
                ))))
                .await;
            return;
        }
    }
}

/// Reads one line of at most `limit` bytes; a longer line is drained and reported by length.
async fn read_bounded_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    limit: usize,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<usize>> {
    line.clear();
    let mut total = 0usize;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if total == 0 { None } else { Some(total) });
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], i + 1),
            None => (buf, buf.len()),
        };
        total += chunk.len();
        if total <= limit {
            line.extend_from_slice(chunk);
        }
        let found_newline = done > chunk.len();
        reader.consume(done);
        if found_newline {
            return Ok(Some(total));
        }
    }
}

/// Decodes every line the receiver writes (each at most `limit` bytes) into events.
pub(super) async fn read_messages<R: AsyncRead + Unpin>(
    stdout: R,
    limit: usize,
    events: mpsc::Sender<Incoming>,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        match read_bounded_line(&mut reader, limit, &mut line).await {
            Ok(None) => {
                // an exit closes stdout too: let the exit, with its status, be reported first
                tokio::time::sleep(std::time::Duration::from_millis(150)).await;
                let _ = events
                    .send(Incoming::Closed(Closure::gone(
                        "the receiver closed its stdout",
                    )))
                    .await;
                return;
            }
            Ok(Some(len)) => {
                let text = String::from_utf8_lossy(&line);
                if text.trim().is_empty() && len <= limit {
                    continue;
                }
                let event = if len > limit {
                    Incoming::Invalid {
                        raw: preview(&text, 200),
                        error: wire::DecodeError::TooLong { len, limit },
                    }
                } else {
                    match wire::decode(&line, limit) {
                        Ok((value, msg)) => Incoming::message(value, msg, None),
                        Err(error) => Incoming::Invalid {
                            raw: preview(&text, 200),
                            error,
                        },
                    }
                };
                if events.send(event).await.is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = events
                    .send(Incoming::Closed(Closure::broken(format!(
                        "cannot read the receiver's stdout: {e}"
                    ))))
                    .await;
                return;
            }
        }
    }
}

/// Passes every line of a diagnostic stream (stderr, a client's stdout) on as a log event.
pub(super) async fn read_log_lines<R: AsyncRead + Unpin>(
    stream: R,
    events: mpsc::Sender<Incoming>,
) {
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    // informational: bound each line, never fail on it, and never stop reading (a writer
    // blocked on a full pipe would stop talking MCP too): lines no one takes in time are dropped
    while let Ok(Some(_)) = read_bounded_line(&mut reader, 64 * 1024, &mut line).await {
        let text = String::from_utf8_lossy(&line).into_owned();
        if let Err(mpsc::error::TrySendError::Closed(_)) = events.try_send(Incoming::Log(text)) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_drained_not_buffered() {
        let data = format!("{}\nok\n", "x".repeat(10_000));
        let mut reader = BufReader::with_capacity(64, data.as_bytes());
        let mut line = Vec::new();
        assert_eq!(
            read_bounded_line(&mut reader, 100, &mut line)
                .await
                .unwrap(),
            Some(10_000)
        );
        assert!(line.len() <= 100);
        assert_eq!(
            read_bounded_line(&mut reader, 100, &mut line)
                .await
                .unwrap(),
            Some(2)
        );
        assert_eq!(line, b"ok");
        assert_eq!(
            read_bounded_line(&mut reader, 100, &mut line)
                .await
                .unwrap(),
            None
        );
    }
}
