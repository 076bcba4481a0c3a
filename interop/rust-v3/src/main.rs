//! taskcheck fixture server for the Tasks extension (`io.modelcontextprotocol/tasks`, protocol
//! 2026-07-28), written with the official Rust SDK (rmcp 3.11.0): the extension's fixture
//! contract (`taskcheck list --fixtures --profile ext-tasks`), shaped like the SDK's own task
//! example (`examples/servers/src/common/task_demo.rs`: `call_tool` decides per request, on the
//! request's client capabilities, whether to spawn a task on a `TaskManager`; the task methods
//! delegate to it) and its multi round-trip example (`examples/servers/src/mrtr.rs`).
//! interop/README.md says where the contract could not be expressed.
//!
//!     taskcheck-interop-rust-v3            # stdio
//!     taskcheck-interop-rust-v3 --http     # Streamable HTTP on 127.0.0.1, a free port; the
//!                                          # endpoint URL is the first line of stdout

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{schemars, tool, tool_router, ErrorData as McpError, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Sleep {
    #[serde(default)]
    ms: u64,
}

/// The `requestState` confirm_first hands out: an opaque handle, nothing to protect.
const CONFIRM_STATE: &str = "confirm_first";

fn text(value: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(value.into())])
}

async fn sleep(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// A form elicitation asking for one string `field`.
fn elicitation(message: &str, field: &str) -> InputRequest {
    let schema = serde_json::from_value(json!({
        "type": "object",
        "properties": {field: {"type": "string"}},
        "required": [field],
    }))
    .expect("a valid elicitation schema");
    InputRequest::Elicitation(ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.into(),
        requested_schema: schema,
    }))
}

/// The string an elicitation answer gave for `field` ("?" when it gave none).
fn answered(answer: &Value, field: &str) -> String {
    answer
        .pointer(&format!("/content/{field}"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string()
}

/// Asks one input request of a running task and waits for its answer.
async fn ask(ctx: &TaskContext, key: &str, message: &str, field: &str) -> Result<String, TaskExit> {
    let answer = ctx.request_input(key, elicitation(message, field)).await?;
    Ok(answered(&answer, field))
}

#[derive(Clone)]
struct Fixtures {
    tool_router: ToolRouter<Self>,
    /// Shared by every instance the HTTP service makes (one per request when stateless).
    tasks: TaskManager,
}

#[tool_router]
impl Fixtures {
    fn new(tasks: TaskManager) -> Self {
        Self {
            tool_router: Self::tool_router(),
            tasks,
        }
    }

    #[tool(description = "taskcheck fixture optional_sleep")]
    async fn optional_sleep(&self, Parameters(Sleep { ms }): Parameters<Sleep>) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(text(format!("slept {ms}")))
    }

    #[tool(description = "taskcheck fixture required_sleep: only as a task")]
    async fn required_sleep(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "taskcheck fixture tool_error")]
    async fn tool_error(&self, Parameters(Sleep { ms }): Parameters<Sleep>) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(CallToolResult::error(vec![ContentBlock::text("tool_error failed")]))
    }

    #[tool(description = "taskcheck fixture protocol_error")]
    async fn protocol_error(&self, Parameters(Sleep { ms }): Parameters<Sleep>) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Err(McpError::internal_error("protocol_error failed", None))
    }

    #[tool(description = "taskcheck fixture elicit_input: only as a task")]
    async fn elicit_input(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "taskcheck fixture elicit_pair: only as a task")]
    async fn elicit_pair(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "taskcheck fixture elicit_twice: only as a task")]
    async fn elicit_twice(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "taskcheck fixture confirm_first: only as a task")]
    async fn confirm_first(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }
}

/// The error of a tool that runs only as a task, called without the extension.
fn needs_tasks() -> McpError {
    McpError::missing_required_client_capability(ClientCapabilities::builder().enable_tasks().build())
}

/// The work of a fixture tool run as a task.
async fn work(name: &str, ms: u64, confirmed: Option<String>, ctx: TaskContext) -> Result<CallToolResult, TaskExit> {
    let run = async {
        sleep(ms).await;
        match name {
            "tool_error" => Ok(CallToolResult::error(vec![ContentBlock::text("tool_error failed")])),
            "protocol_error" => Err(TaskExit::Error(McpError::internal_error("protocol_error failed", None))),
            "elicit_input" => Ok(text(format!("Hello, {}!", ask(&ctx, "name", "Please enter your name.", "name").await?))),
            "elicit_pair" => {
                let (first, last) = tokio::join!(
                    ask(&ctx, "first", "Your first name?", "first"),
                    ask(&ctx, "last", "Your last name?", "last"),
                );
                Ok(text(format!("Hello, {} {}!", first?, last?)))
            }
            "elicit_twice" => {
                let one = ask(&ctx, "first", "First answer?", "value").await?;
                let two = ask(&ctx, "second", "Second answer?", "value").await?;
                Ok(text(format!("{one} then {two}")))
            }
            "confirm_first" => Ok(text(format!("Confirmed: {}", confirmed.unwrap_or_default()))),
            _ => Ok(text(format!("slept {ms}"))),
        }
    };
    // cancellation is cooperative: honoured by ending the work
    tokio::select! {
        _ = ctx.cancelled() => Err(TaskExit::Cancelled),
        outcome = run => outcome,
    }
}

impl ServerHandler for Fixtures {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // the server decides per request, and never makes a task for one that does not
        // declare the extension
        let client_supports_tasks = context.client_capabilities().is_some_and(|caps| caps.supports_tasks());
        let name = request.name.to_string();
        let fixture = self.tool_router.list_all().iter().any(|t| t.name == name);
        if !client_supports_tasks || !fixture {
            let tcc = ToolCallContext::new(self, request, context);
            return self.tool_router.call(tcc).await;
        }
        let ms = request.arguments.as_ref().and_then(|a| a.get("ms")).and_then(Value::as_u64).unwrap_or(0);
        let mut confirmed = None;
        if name == "confirm_first" {
            // the confirmation is asked over an InputRequiredResult before the task exists
            let answer = request.input_responses.as_ref().and_then(|r| r.get("confirm"));
            match (request.request_state.as_deref(), answer) {
                (Some(CONFIRM_STATE), Some(answer)) => confirmed = Some(answered(answer, "confirm")),
                _ => {
                    let mut asks = InputRequests::new();
                    asks.insert("confirm".into(), elicitation("Proceed?", "confirm"));
                    let mut ask = InputRequiredResult::from_request_state(CONFIRM_STATE);
                    ask.input_requests = Some(asks);
                    return Ok(CallToolResponse::InputRequired(ask));
                }
            }
        }
        let task = self.tasks.spawn(TaskOptions::default(), move |ctx| {
            Box::pin(async move { work(&name, ms, confirmed, ctx).await })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tool_router.list_all()))
    }

    async fn get_task(&self, request: GetTaskParams, _context: RequestContext<RoleServer>) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(&self, request: UpdateTaskParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.tasks.update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(&self, request: CancelTaskParams, _context: RequestContext<RoleServer>) -> Result<(), McpError> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tasks = TaskManager::new();
    if std::env::args().any(|a| a == "--http") {
        use rmcp::transport::streamable_http_server::{session::local::LocalSessionManager, StreamableHttpService};
        let service = StreamableHttpService::new(
            move || Ok(Fixtures::new(tasks.clone())),
            Arc::new(LocalSessionManager::default()),
            Default::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("http://{}/mcp", listener.local_addr()?);
        axum::serve(listener, router).await?;
    } else {
        let running = Fixtures::new(tasks).serve(rmcp::transport::stdio()).await?;
        running.waiting().await?;
    }
    Ok(())
}
