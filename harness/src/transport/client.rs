//! `taskcheck client`: the receiver is an MCP client, started for every scenario, that
//! connects to taskcheck as its server.
//!
//! - HTTP: taskcheck serves Streamable HTTP on loopback and appends the endpoint URL to the
//!   client's command.
//! - stdio: a client spawns its server, so taskcheck appends the command of one —
//!   `<taskcheck> serve --connect <socket>` — which relays its stdin and stdout to taskcheck
//!   over a Unix socket.
//!
//! Either way the scenario's id is in the client's environment as `TASKCHECK_SCENARIO`.

use super::client_http::ClientServer;
use super::stdio::{
    read_log_lines, read_messages, spawn_group, watch_exit, write_lines, GroupGuard,
};
use super::{Connect, ConnectError, Connection, Incoming, Outgoing, Peer};
use crate::transport::ReceiverKind;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::UnixListener;
use tokio::process::Child;
use tokio::sync::{mpsc, OnceCell};

/// How the client reaches taskcheck.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientTransport {
    Http,
    Stdio,
}

/// Starts the client command for every connection and waits for it to connect.
pub struct ClientConnector {
    command: String,
    transport: ClientTransport,
    /// Longest wait for the client to initialize.
    startup: Duration,
    max_line: usize,
    http: OnceCell<Arc<ClientServer>>,
    sockets: AtomicUsize,
}

/// Quotes a word for /bin/sh.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A started client: its process, its process group, and what it writes (stdout and stderr,
/// which it does not speak MCP on) as log events.
struct Started {
    child: Child,
    group: GroupGuard,
    output: mpsc::Receiver<Incoming>,
}

/// Removes a socket file when the connection ends.
struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl ClientConnector {
    /// A connector running `command` (by /bin/sh) with the endpoint appended.
    pub fn new(
        command: String,
        transport: ClientTransport,
        startup: Duration,
        max_line: usize,
    ) -> ClientConnector {
        ClientConnector {
            command,
            transport,
            startup,
            max_line,
            http: OnceCell::new(),
            sockets: AtomicUsize::new(0),
        }
    }

    fn spawn(&self, scenario: &str, endpoint: &str) -> Result<Started, ConnectError> {
        let line = format!(
            "export TASKCHECK_SCENARIO={}; {} {endpoint}",
            shell_quote(scenario),
            self.command
        );
        let (mut child, group) = spawn_group(&line)?;
        // read from the start: a client blocked on a full pipe would never connect
        let (tx, output) = mpsc::channel(1024);
        tokio::spawn(read_log_lines(
            child.stdout.take().expect("piped"),
            tx.clone(),
        ));
        tokio::spawn(read_log_lines(child.stderr.take().expect("piped"), tx));
        Ok(Started {
            child,
            group,
            output,
        })
    }

    /// Waits for the client to connect, or says why it did not.
    async fn arrival<T, E: std::fmt::Display>(
        &self,
        child: &mut Child,
        connected: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, ConnectError> {
        tokio::select! {
            c = connected => c.map_err(|e| ConnectError(format!("the client did not connect: {e}"))),
            status = child.wait() => Err(ConnectError(match status {
                Ok(s) => format!("the client `{}` exited ({s}) before it initialized", self.command),
                Err(e) => format!("cannot wait for the client: {e}"),
            })),
            _ = tokio::time::sleep(self.startup) => Err(ConnectError(format!(
                "the client `{}` did not initialize within {} ms",
                self.command,
                self.startup.as_millis()
            ))),
        }
    }

    async fn connect_http(&self, scenario: &str) -> Result<Connection, ConnectError> {
        let server = self
            .http
            .get_or_try_init(|| ClientServer::start(self.max_line))
            .await
            .map_err(|e| ConnectError(format!("cannot serve HTTP on loopback: {e}")))?;
        let (url, accepted) = server.expect();
        let mut started = self.spawn(scenario, &shell_quote(&url))?;
        let conn = self.arrival(&mut started.child, accepted).await?;
        Ok(attach(conn, started))
    }

    async fn connect_stdio(&self, scenario: &str) -> Result<Connection, ConnectError> {
        let n = self.sockets.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("taskcheck-{}-{n}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)
            .map_err(|e| ConnectError(format!("cannot listen on {}: {e}", path.display())))?;
        let file = SocketFile(path.clone());
        let exe = std::env::current_exe()
            .map_err(|e| ConnectError(format!("cannot find taskcheck's own binary: {e}")))?;
        let relay = format!(
            "{} serve --connect {}",
            shell_quote(&exe.to_string_lossy()),
            shell_quote(&path.to_string_lossy())
        );
        let mut started = self.spawn(scenario, &relay)?;
        let (socket, _) = self.arrival(&mut started.child, listener.accept()).await?;
        let (read, write) = socket.into_split();
        let (in_tx, in_rx) = mpsc::channel(1024);
        let (out_tx, out_rx) = mpsc::channel::<Outgoing>(64);
        tokio::spawn(write_lines(write, out_rx, in_tx.clone()));
        tokio::spawn(read_messages(read, self.max_line, in_tx));
        let conn = Connection {
            outgoing: out_tx,
            incoming: in_rx,
            guard: Box::new(file),
            transport: "stdio",
            abandon: Box::new(|_| {}),
        };
        Ok(attach(conn, started))
    }
}

/// Adds the client process to a connection: its output and exit become events, and dropping
/// the connection kills it.
fn attach(mut conn: Connection, started: Started) -> Connection {
    let Started {
        child,
        group,
        output,
    } = started;
    let (tx, rx) = mpsc::channel(1024);
    let from_session = std::mem::replace(&mut conn.incoming, rx);
    for mut events in [from_session, output] {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if tx.send(event).await.is_err() {
                    return;
                }
            }
        });
    }
    tokio::spawn(watch_exit(child, tx));
    let session_guard = std::mem::replace(&mut conn.guard, Box::new(()));
    // the client dies first, then its session ends
    conn.guard = Box::new((group, session_guard));
    conn
}

impl Connect for ClientConnector {
    async fn connect(&self, peer: Peer) -> Result<Connection, ConnectError> {
        self.connect_for(peer, "").await
    }

    async fn connect_for(&self, _peer: Peer, scenario: &str) -> Result<Connection, ConnectError> {
        match self.transport {
            ClientTransport::Http => self.connect_http(scenario).await,
            ClientTransport::Stdio => self.connect_stdio(scenario).await,
        }
    }

    fn describe(&self) -> String {
        format!("{} (a client per scenario)", self.command)
    }

    fn transport(&self) -> &'static str {
        match self.transport {
            ClientTransport::Http => "http",
            ClientTransport::Stdio => "stdio",
        }
    }

    fn receiver(&self) -> ReceiverKind {
        ReceiverKind::Client
    }
}

/// `taskcheck serve --connect SOCKET`: relays stdin to the socket and the socket to stdout
/// until either side ends.
pub async fn relay(socket: &std::path::Path) -> std::io::Result<()> {
    let stream = tokio::net::UnixStream::connect(socket).await?;
    let (mut read, mut write) = stream.into_split();
    let up = async {
        tokio::io::copy(&mut tokio::io::stdin(), &mut write).await?;
        write.shutdown().await
    };
    let down = async {
        let mut stdout = tokio::io::stdout();
        tokio::io::copy(&mut read, &mut stdout).await?;
        stdout.flush().await
    };
    tokio::select! {
        r = up => r,
        r = down => r,
    }
}
