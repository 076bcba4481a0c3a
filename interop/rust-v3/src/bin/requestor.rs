//! taskcheck requestor driver for the Tasks extension, written with the official Rust SDK
//! (rmcp 3.11.0) the way its task client example does (`examples/clients/src/task_stdio.rs`):
//! declare the extension with `enable_tasks`, `call_tool_once`, take a `CallToolResponse::Task`
//! or `Complete` as it comes, then sleep `pollIntervalMs` between `tasks/get` until the task
//! is terminal. rmcp leaves that loop to its caller ("this helper does not drive the task
//! polling lifecycle", `Peer::call_tool`), so the loop is this driver's; what rmcp decides
//! itself is every message's shape, the capabilities, the routing headers over HTTP and how a
//! task is cancelled (`cancel_task`). An `input_required` task's requests are answered with
//! `update_task`, once per key, with an accepted elicitation. Does what TASKCHECK_REQUEST asks
//! of the server given as arguments (`taskcheck requestor`):
//!
//!     requestor URL                   # Streamable HTTP
//!     requestor COMMAND [ARGS...]     # stdio, the server spawned as a child process

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    ElicitResult, ElicitationAction, GetTaskParams, Implementation, InputResponses, TaskPayload,
    UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// What `taskcheck requestor` asks, from TASKCHECK_REQUEST.
#[derive(Debug, Default, Deserialize)]
struct Ask {
    tool: String,
    #[serde(default)]
    arguments: Map<String, Value>,
    cancel_after_ms: Option<u64>,
    times: Option<u32>,
    #[serde(default)]
    list_tools: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let ask: Ask = serde_json::from_str(&std::env::var("TASKCHECK_REQUEST")?)?;
    let mut server = std::env::args().skip(1);
    let first = server
        .next()
        .ok_or_else(|| anyhow::anyhow!("no server given"))?;
    let info = ClientConfig::new(
        ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build(),
        Implementation::new("taskcheck-requestor-rmcp", "3.11.0"),
    );
    // the modern lifecycle (server/discover, `_meta` on every request), as rmcp's own tests of
    // 2026-07-28 start a client; plain `serve` sends a legacy `initialize`
    let modern = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client: RunningService<RoleClient, ClientConfig> = if first.starts_with("http") {
        let transport = StreamableHttpClientTransport::from_uri(first);
        info.serve_with_lifecycle(transport, modern).await?
    } else {
        let mut command = tokio::process::Command::new(first);
        command.args(server);
        info.serve_with_lifecycle(TokioChildProcess::new(command)?, modern)
            .await?
    };
    if ask.list_tools {
        client.list_tools(None).await?;
    }
    for _ in 0..ask.times.unwrap_or(1) {
        call(client.peer(), &ask).await?;
    }
    client.cancel().await?;
    Ok(())
}

/// Calls the tool once and, when the server made a task of it, follows the task to its end.
async fn call(peer: &Peer<RoleClient>, ask: &Ask) -> anyhow::Result<()> {
    let params = CallToolRequestParams::new(ask.tool.clone()).with_arguments(ask.arguments.clone());
    let create = match peer.call_tool_once(params).await? {
        CallToolResponse::Task(create) => create,
        // the server is allowed to answer at once
        CallToolResponse::Complete(_) => return Ok(()),
        other => anyhow::bail!("unexpected response: {other:?}"),
    };
    let task_id = create.task.task_id.clone();
    let mut poll_ms = create.task.poll_interval_ms.unwrap_or(500);
    let created = Instant::now();
    let mut cancel_after = ask.cancel_after_ms.map(Duration::from_millis);
    let mut answered = BTreeSet::new();
    loop {
        tokio::time::sleep(Duration::from_millis(poll_ms)).await;
        if cancel_after.is_some_and(|after| created.elapsed() >= after) {
            peer.cancel_task(CancelTaskParams::new(task_id.clone()))
                .await?;
            cancel_after = None;
        }
        let task = peer
            .get_task(GetTaskParams::new(task_id.clone()))
            .await?
            .task;
        poll_ms = task.task.poll_interval_ms.unwrap_or(poll_ms);
        if task.status().is_terminal() {
            return Ok(());
        }
        if let TaskPayload::InputRequired { input_requests } = &task.payload {
            let responses: InputResponses = input_requests
                .keys()
                .filter(|key| answered.insert((*key).clone()))
                .map(|key| (key.clone(), accepted()))
                .collect();
            if !responses.is_empty() {
                peer.update_task(UpdateTaskParams::new(task_id.clone(), responses))
                    .await?;
            }
        }
    }
}

/// An accepted elicitation, the answer the fixture's elicitations expect.
fn accepted() -> Value {
    let mut result = ElicitResult::new(ElicitationAction::Accept);
    result.content = Some(json!({"answer": "taskcheck"}));
    serde_json::to_value(result).expect("an ElicitResult serialises")
}
