//! `--url-from COMMAND`: a Streamable HTTP receiver that taskcheck starts afresh for every
//! scenario. The command prints the endpoint URL as the first line of its stdout (as
//! `taskcheck reference --http` does); scenarios then run one at a time, each against a new
//! server, so no scenario sees what an earlier one left behind. The server is killed (its
//! whole process group) when the next scenario starts, and when taskcheck ends. Its stderr
//! goes to the first requestor's trace, and its exit mid-scenario ends that scenario's
//! connections as a receiver that went away.

use super::http::HttpConnector;
use super::stdio::{read_log_lines, spawn_group, GroupGuard};
use super::{Cause, Closure, Connect, ConnectError, Connection, Incoming, Peer};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::{mpsc, watch, Mutex};

/// How long a connection that broke waits to learn whether the server exited meanwhile (a
/// process printing its crash on a busy machine can take seconds to end; only a connection
/// that already broke waits, so a long grace costs a correct run nothing).
const EXIT_GRACE: Duration = Duration::from_millis(10_000);

/// Builds the HTTP connector of the URL a server printed.
pub type HttpOf = Box<dyn Fn(reqwest::Url) -> Result<HttpConnector, String> + Send + Sync>;

/// Starts the command before each scenario and talks to the URL it prints.
pub struct ServedConnector {
    command: String,
    http: HttpOf,
    /// Longest wait for the URL line.
    startup: Duration,
    distinct_auth: bool,
    current: Mutex<Option<Served>>,
}

struct Served {
    http: HttpConnector,
    /// The server's exit, once it happened.
    exited: watch::Receiver<Option<String>>,
    /// Its stderr lines, for the first connection that takes them.
    stderr: Option<mpsc::Receiver<Incoming>>,
    _group: GroupGuard,
}

impl ServedConnector {
    /// A connector starting `command`, waiting at most `startup` for its URL;
    /// `distinct_auth` as `Connect::distinct_auth` (the two requestors' credentials differ).
    pub fn new(
        command: String,
        http: HttpOf,
        startup: Duration,
        distinct_auth: bool,
    ) -> ServedConnector {
        ServedConnector {
            command,
            http,
            startup,
            distinct_auth,
            current: Mutex::new(None),
        }
    }

    async fn start(&self) -> Result<Served, ConnectError> {
        let (mut child, group) = spawn_group(&self.command)?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (log_tx, stderr) = mpsc::channel(1024);
        tokio::spawn(read_log_lines(
            child.stderr.take().expect("stderr is piped"),
            log_tx,
        ));
        let mut lines = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(self.startup, lines.next_line()).await;
        let line = match first {
            Ok(Ok(Some(line))) => line,
            Ok(_) => {
                return Err(ConnectError(format!(
                    "`{}` ended before printing its URL",
                    self.command
                )))
            }
            Err(_) => {
                return Err(ConnectError(format!(
                    "`{}` printed no URL within {} ms",
                    self.command,
                    self.startup.as_millis()
                )))
            }
        };
        tokio::spawn(drain(lines.into_inner()));
        // the child is reaped when the group is killed; keep it from being killed on drop now
        let (exit_tx, exited) = watch::channel(None);
        tokio::spawn(async move {
            let status = match child.wait().await {
                Ok(status) => status.to_string(),
                Err(e) => format!("cannot wait for it: {e}"),
            };
            let _ = exit_tx.send(Some(status));
        });
        let url = reqwest::Url::parse(line.trim()).map_err(|e| {
            ConnectError(format!(
                "`{}` printed {:?} first, not a URL: {e}",
                self.command,
                line.trim()
            ))
        })?;
        let http = (self.http)(url).map_err(ConnectError)?;
        Ok(Served {
            http,
            exited,
            stderr: Some(stderr),
            _group: group,
        })
    }
}

/// The server's exit status, once it exited (None if no one will ever say).
async fn exit_of(exited: &mut watch::Receiver<Option<String>>) -> Option<String> {
    exited.wait_for(Option::is_some).await.ok()?.clone()
}

/// Passes a connection's events on, with the server's stderr lines, and says the receiver
/// went away when the server exited (a stream it broke by exiting says so too).
async fn forward(
    mut inner: mpsc::Receiver<Incoming>,
    mut stderr: Option<mpsc::Receiver<Incoming>>,
    mut exited: watch::Receiver<Option<String>>,
    out: mpsc::Sender<Incoming>,
) {
    let gone = |status: &str, why: &str| {
        Incoming::Closed(Closure::gone(format!("the server exited ({status}){why}")))
    };
    loop {
        let event = tokio::select! {
            biased;
            event = inner.recv() => match event {
                Some(Incoming::Closed(c)) if c.cause == Cause::Transport => {
                    match tokio::time::timeout(EXIT_GRACE, exit_of(&mut exited)).await {
                        Ok(Some(status)) => gone(&status, &format!(": {}", c.why)),
                        _ => Incoming::Closed(c),
                    }
                }
                Some(event) => event,
                None => return,
            },
            Some(line) = async { match stderr.as_mut() { Some(s) => s.recv().await, None => None } } => line,
            Some(status) = exit_of(&mut exited) => {
                // what the server wrote before it exited comes first
                tokio::time::sleep(Duration::from_millis(50)).await;
                while let Ok(event) = inner.try_recv() {
                    // a connection that broke as the server died broke because it died
                    let event = match event {
                        Incoming::Closed(c) if c.cause == Cause::Transport => {
                            gone(&status, &format!(": {}", c.why))
                        }
                        event => event,
                    };
                    let _ = out.send(event).await;
                }
                let _ = out.send(gone(&status, "")).await;
                return;
            }
        };
        if out.send(event).await.is_err() {
            return;
        }
    }
}

/// Reads and drops what a server writes, so it never blocks on a full pipe.
async fn drain<R: AsyncRead + Unpin>(reader: R) {
    let mut lines = BufReader::new(reader).lines();
    while let Ok(Some(_)) = lines.next_line().await {}
}

impl Connect for ServedConnector {
    async fn connect(&self, peer: Peer) -> Result<Connection, ConnectError> {
        let mut current = self.current.lock().await;
        if peer == Peer::A || current.is_none() {
            // the first requestor of a scenario gets a new server; the old one is killed
            *current = None;
            *current = Some(self.start().await?);
        }
        let served = current.as_mut().expect("a server was just started");
        let mut conn = served.http.connect(peer).await?;
        let (tx, rx) = mpsc::channel(1024);
        let stderr = match peer {
            Peer::A => served.stderr.take(),
            Peer::B => None,
        };
        tokio::spawn(forward(conn.incoming, stderr, served.exited.clone(), tx));
        conn.incoming = rx;
        Ok(conn)
    }

    fn describe(&self) -> String {
        format!("{} (a server per scenario)", self.command)
    }

    fn transport(&self) -> &'static str {
        "http"
    }

    fn distinct_auth(&self) -> bool {
        self.distinct_auth
    }

    fn connects_at_once(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_connection_that_breaks_as_the_server_exits_says_the_server_went_away() {
        let (inner_tx, inner) = mpsc::channel(8);
        let (exit_tx, exited) = watch::channel(None);
        let (out, mut events) = mpsc::channel(8);
        tokio::spawn(forward(inner, None, exited, out));
        // the exit is seen first; the request it broke reports within the grace that follows
        exit_tx.send(Some("exit status: 1".into())).unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
        let broken = Closure::broken("cannot POST tasks/result: connection closed");
        inner_tx.send(Incoming::Closed(broken)).await.unwrap();
        let Some(Incoming::Closed(first)) = events.recv().await else {
            panic!("no closure was forwarded");
        };
        assert_eq!(first.cause, Cause::ReceiverGone, "{}", first.why);
        assert_eq!(
            first.why,
            "the server exited (exit status: 1): cannot POST tasks/result: connection closed"
        );
    }
}
