//! taskcheck fixture server written with the official Rust SDK (rmcp 2.2.0): the fixture
//! contract (`taskcheck list --fixtures`) with `#[tool_router]` tools declaring
//! `execution(task_support = ...)`, and the task methods `#[task_handler]` generates over an
//! `OperationProcessor`, as the SDK documents them. interop/README.md says where the contract
//! could not be expressed.
//!
//!     taskcheck-interop-rust            # stdio
//!     taskcheck-interop-rust --http     # Streamable HTTP on 127.0.0.1, a free port; the
//!                                       # endpoint URL is the first line of stdout
//!     --default-capabilities            # the capabilities the macros declare by themselves
//!
//! Built with `--features no-task-handler`, it is a server without `#[task_handler]`: the
//! same tools, no task methods, no tasks capability.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, ErrorData as McpError, ProgressNotificationParam,
    ServerCapabilities, ServerInfo, TasksCapability,
};
use rmcp::service::RequestContext;
#[cfg(not(feature = "no-task-handler"))]
use rmcp::task_handler;
use rmcp::task_manager::OperationProcessor;
use rmcp::{schemars, tool, tool_handler, tool_router, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use tokio::sync::Mutex;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Echo {
    #[serde(default)]
    text: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Sleep {
    #[serde(default)]
    ms: u64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Progress {
    #[serde(default)]
    ms: u64,
    steps: Option<u64>,
}

/// The one answer `elicit_input` asks for.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Answer {
    answer: String,
}

rmcp::elicit_safe!(Answer);

#[derive(Clone)]
struct Fixtures {
    #[allow(dead_code, reason = "the tool_handler macro reads it")]
    tool_router: ToolRouter<Self>,
    #[cfg_attr(
        feature = "no-task-handler",
        allow(dead_code, reason = "only #[task_handler] reads it")
    )]
    processor: Arc<Mutex<OperationProcessor>>,
}

fn text(value: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![Content::text(value.into())])
}

async fn sleep(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

#[tool_router]
impl Fixtures {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
            processor: Arc::new(Mutex::new(OperationProcessor::new())),
        }
    }

    #[tool(description = "taskcheck fixture sync_echo")]
    async fn sync_echo(
        &self,
        Parameters(Echo { text: t }): Parameters<Echo>,
    ) -> Result<CallToolResult, McpError> {
        Ok(text(t))
    }

    #[tool(
        description = "taskcheck fixture forbidden_echo",
        execution(task_support = "forbidden")
    )]
    async fn forbidden_echo(
        &self,
        Parameters(Echo { text: t }): Parameters<Echo>,
    ) -> Result<CallToolResult, McpError> {
        Ok(text(t))
    }

    #[tool(
        description = "taskcheck fixture optional_sleep",
        execution(task_support = "optional")
    )]
    async fn optional_sleep(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(text(format!("slept {ms}")))
    }

    #[tool(
        description = "taskcheck fixture required_sleep",
        execution(task_support = "required")
    )]
    async fn required_sleep(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(text(format!("slept {ms}")))
    }

    #[tool(
        description = "taskcheck fixture tool_error",
        execution(task_support = "optional")
    )]
    async fn tool_error(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(CallToolResult::error(vec![Content::text(
            "tool_error failed",
        )]))
    }

    #[tool(
        description = "taskcheck fixture protocol_error",
        execution(task_support = "optional")
    )]
    async fn protocol_error(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Err(McpError::internal_error("protocol_error failed", None))
    }

    #[tool(
        description = "taskcheck fixture elicit_input",
        execution(task_support = "optional")
    )]
    async fn elicit_input(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        match context
            .peer
            .elicit::<Answer>("taskcheck asks for an answer")
            .await
        {
            Ok(Some(a)) => Ok(text(a.answer)),
            Ok(None) => Ok(text("declined")),
            Err(e) => Err(McpError::internal_error(
                format!("elicitation failed: {e}"),
                None,
            )),
        }
    }

    #[tool(
        description = "taskcheck fixture progress_sleep",
        execution(task_support = "optional")
    )]
    async fn progress_sleep(
        &self,
        Parameters(Progress { ms, steps }): Parameters<Progress>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let steps = steps.unwrap_or(3).max(1);
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            sleep(ms / steps).await;
            if let Some(token) = &token {
                let mut progress = ProgressNotificationParam::new(token.clone(), step as f64);
                progress.total = Some(steps as f64);
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        Ok(text(format!("slept {ms}")))
    }
}

#[tool_handler]
#[cfg_attr(not(feature = "no-task-handler"), task_handler)]
impl ServerHandler for Fixtures {
    fn get_info(&self) -> ServerInfo {
        if std::env::args().any(|a| a == "--default-capabilities") {
            // what #[tool_handler] beside #[task_handler] generate when get_info is not written
            return ServerInfo::new(
                ServerCapabilities::builder()
                    .enable_tools()
                    .enable_tasks()
                    .build(),
            );
        }
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        if cfg!(not(feature = "no-task-handler")) {
            capabilities.tasks = Some(TasksCapability::server_default());
        }
        ServerInfo::new(capabilities)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--http") {
        use rmcp::transport::streamable_http_server::{
            session::local::LocalSessionManager, StreamableHttpService,
        };
        let service = StreamableHttpService::new(
            || Ok(Fixtures::new()),
            Arc::new(LocalSessionManager::default()),
            Default::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("http://{}/mcp", listener.local_addr()?);
        axum::serve(listener, router).await?;
    } else {
        let running = Fixtures::new().serve(rmcp::transport::stdio()).await?;
        running.waiting().await?;
    }
    Ok(())
}
