//! The probe's reference receiver, served in process over channels: it speaks the probe's
//! wire (`probe/hello`, `jobs/peek`, `everyMs`), which neither real design speaks, so a
//! scenario that passes against it shows the engine reads the wire from the design.

use super::WIRE;
use crate::transport::{Closure, Connect, ConnectError, Connection, Incoming, Outgoing, Peer};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The probe's receiver, whole or with its one fault.
pub struct ProbeReceiver {
    /// `get-omits-ttl`: `jobs/peek` leaves the task's `ttl` out.
    pub omits_ttl: bool,
}

/// A job: when it started and how long it works.
struct Job {
    started: Instant,
    works: Duration,
}

impl ProbeReceiver {
    /// The answer to one request: a result or a JSON-RPC error.
    fn answer(&self, jobs: &mut BTreeMap<String, Job>, method: &str, params: &Value) -> Value {
        let peek = |id: &str, job: &Job| {
            let done = job.started.elapsed() >= job.works;
            let mut task = json!({
                "taskId": id,
                "status": if done { "completed" } else { "working" },
                (WIRE.poll_interval): 10,
                "ttl": 60000,
            });
            if self.omits_ttl {
                task.as_object_mut().map(|t| t.remove("ttl"));
            }
            json!({ "result": task })
        };
        match method {
            m if m == WIRE.opening => json!({"result": {
                "protocolVersion": WIRE.protocol_version,
                "capabilities": {"tasks": {"requests": {"tools": {"call": {}}}}, "tools": {}},
                "serverInfo": {"name": "probe", "version": "1"},
            }}),
            m if m == WIRE.liveness => json!({"result": {}}),
            "tools/list" => json!({"result": {"tools": [{
                "name": "optional_sleep",
                "inputSchema": {"type": "object"},
                "execution": {"taskSupport": "optional"},
            }]}}),
            "tools/call" if params.get("task").is_some() => {
                let id = format!("job-{}", jobs.len() + 1);
                let ms = params["arguments"]["ms"].as_u64().unwrap_or(0);
                let job = Job {
                    started: Instant::now(),
                    works: Duration::from_millis(ms),
                };
                let answer = json!({"result": {"task": peek(&id, &job)["result"]}});
                jobs.insert(id, job);
                answer
            }
            m if m == WIRE.get => match params["taskId"].as_str().and_then(|id| jobs.get(id)) {
                Some(job) => peek(params["taskId"].as_str().unwrap_or_default(), job),
                None => json!({"error": {"code": -32602, "message": "no such job"}}),
            },
            _ => json!({"error": {"code": -32601, "message": "method not found"}}),
        }
    }

    /// Answers every request that comes, until the connection is dropped.
    async fn serve(self, mut from: mpsc::Receiver<Outgoing>, to: mpsc::Sender<Incoming>) {
        let mut jobs = BTreeMap::new();
        while let Some(outgoing) = from.recv().await {
            let message = outgoing.value();
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
                continue;
            };
            let mut reply = self.answer(&mut jobs, method, &message["params"]);
            reply["jsonrpc"] = json!("2.0");
            reply["id"] = id.clone();
            let incoming = match crate::wire::classify(&reply) {
                Ok(decoded) => Incoming::message(reply, decoded, None),
                Err(e) => Incoming::Closed(Closure::broken(e.to_string())),
            };
            if to.send(incoming).await.is_err() {
                return;
            }
        }
    }
}

impl Connect for ProbeReceiver {
    async fn connect(&self, _peer: Peer) -> Result<Connection, ConnectError> {
        let (outgoing, from) = mpsc::channel(16);
        let (to, incoming) = mpsc::channel(16);
        let receiver = ProbeReceiver {
            omits_ttl: self.omits_ttl,
        };
        let serving = tokio::spawn(receiver.serve(from, to));
        Ok(Connection {
            outgoing,
            incoming,
            guard: Box::new(Stops(serving)),
            transport: "in-process",
            abandon: Box::new(|_| {}),
        })
    }

    fn describe(&self) -> String {
        format!("the probe's receiver (omits ttl: {})", self.omits_ttl)
    }

    fn transport(&self) -> &'static str {
        "in-process"
    }
}

/// Stops the serving task when the connection is dropped.
struct Stops(tokio::task::JoinHandle<()>);

impl Drop for Stops {
    fn drop(&mut self) {
        self.0.abort();
    }
}
