//! `--url-from COMMAND`: a Streamable HTTP receiver that taskcheck starts afresh for every
//! scenario. The command prints the endpoint URL as the first line of its stdout (as
//! `taskcheck reference --http` does); scenarios then run one at a time, each against a new
//! server, so no scenario sees what an earlier one left behind. The server is killed (its
//! whole process group) when the next scenario starts, and when taskcheck ends.

use super::http::HttpConnector;
use super::stdio::{spawn_group, GroupGuard};
use super::{Connect, ConnectError, Connection, Peer};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::Mutex;

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
        let stderr = child.stderr.take().expect("stderr is piped");
        tokio::spawn(drain(stderr));
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
        tokio::spawn(async move {
            let _ = child.wait().await;
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
            _group: group,
        })
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
        let served = current.as_ref().expect("a server was just started");
        served.http.connect(peer).await
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
}
