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

/// The arguments of the official suite's `greet`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Greet {
    #[serde(default)]
    name: String,
}

/// The arguments of the official suite's `slow_compute`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Compute {
    #[serde(default)]
    seconds: f64,
    #[serde(default)]
    label: String,
}

/// The arguments of the official suite's `confirm_delete` (read from the request by its task;
/// declared here for the tool's input schema).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Delete {
    #[serde(default)]
    filename: String,
}

fn text(value: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(value.into())])
}

async fn sleep(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// A form elicitation asking for one `field` of a JSON type (`string`, `boolean`).
fn elicitation(message: &str, field: &str, kind: &str) -> InputRequest {
    let schema = serde_json::from_value(json!({
        "type": "object",
        "properties": {field: {"type": kind}},
        "required": [field],
    }))
    .expect("a valid elicitation schema");
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema: schema,
        },
    ))
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
    let answer = ctx
        .request_input(key, elicitation(message, field, "string"))
        .await?;
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
    async fn optional_sleep(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(text(format!("slept {ms}")))
    }

    #[tool(description = "taskcheck fixture required_sleep: only as a task")]
    async fn required_sleep(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "taskcheck fixture tool_error")]
    async fn tool_error(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
        sleep(ms).await;
        Ok(CallToolResult::error(vec![ContentBlock::text(
            "tool_error failed",
        )]))
    }

    #[tool(description = "taskcheck fixture protocol_error")]
    async fn protocol_error(
        &self,
        Parameters(Sleep { ms }): Parameters<Sleep>,
    ) -> Result<CallToolResult, McpError> {
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

    // the official conformance suite's tasks fixtures (interop/calibrate.sh)

    #[tool(description = "official conformance fixture greet: never a task")]
    async fn greet(
        &self,
        Parameters(Greet { name }): Parameters<Greet>,
    ) -> Result<CallToolResult, McpError> {
        Ok(text(format!("Hello, {name}!")))
    }

    #[tool(description = "official conformance fixture slow_compute: sleeps `seconds`")]
    async fn slow_compute(
        &self,
        Parameters(c): Parameters<Compute>,
    ) -> Result<CallToolResult, McpError> {
        sleep(seconds_ms(c.seconds)).await;
        Ok(text(format!("{} done", c.label)))
    }

    #[tool(description = "official conformance fixture failing_job: only as a task")]
    async fn failing_job(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "official conformance fixture protocol_error_job")]
    async fn protocol_error_job(&self) -> Result<CallToolResult, McpError> {
        Err(McpError::internal_error("protocol_error_job failed", None))
    }

    #[tool(description = "official conformance fixture confirm_delete: only as a task")]
    async fn confirm_delete(
        &self,
        Parameters(_d): Parameters<Delete>,
    ) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "official conformance fixture multi_input: only as a task")]
    async fn multi_input(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }

    #[tool(description = "official conformance fixture test_tool_with_task: only as a task")]
    async fn test_tool_with_task(&self) -> Result<CallToolResult, McpError> {
        Err(needs_tasks())
    }
}

/// Seconds as whole milliseconds.
fn seconds_ms(seconds: f64) -> u64 {
    (seconds.max(0.0) * 1000.0) as u64
}

/// What a tool asks over an InputRequiredResult before its task exists: the key and the
/// form's one field.
fn pre_task_question(name: &str) -> Option<(&'static str, &'static str, &'static str)> {
    match name {
        "confirm_first" => Some(("confirm", "confirm", "Proceed?")),
        "test_tool_with_task" => Some(("user_name", "name", "Your name?")),
        _ => None,
    }
}

/// The fixture tools that ask their client for input, before their task exists or while it
/// runs (the official suite's tools are served as its own scenarios expect).
const ASKS_INPUT: [&str; 4] = [
    "elicit_input",
    "elicit_pair",
    "elicit_twice",
    "confirm_first",
];

/// The error of a tool that runs only as a task, called without the extension.
fn needs_tasks() -> McpError {
    McpError::missing_required_client_capability(
        ClientCapabilities::builder().enable_tasks().build(),
    )
}

/// The work of a fixture tool run as a task.
async fn work(
    name: &str,
    args: Value,
    confirmed: Option<String>,
    ctx: TaskContext,
) -> Result<CallToolResult, TaskExit> {
    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
    let run = async {
        sleep(ms).await;
        match name {
            "slow_compute" => {
                sleep(seconds_ms(
                    args.get("seconds").and_then(Value::as_f64).unwrap_or(0.0),
                ))
                .await;
                Ok(text(format!(
                    "{} done",
                    args.get("label")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                )))
            }
            "failing_job" => {
                sleep(1000).await;
                Ok(CallToolResult::error(vec![ContentBlock::text(
                    "failing_job failed",
                )]))
            }
            "protocol_error_job" => Err(TaskExit::Error(McpError::internal_error(
                "protocol_error_job failed",
                None,
            ))),
            "confirm_delete" => {
                let file = args
                    .get("filename")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let answer = ctx
                    .request_input(
                        "confirm",
                        elicitation("Delete the file?", "confirm", "boolean"),
                    )
                    .await?;
                let confirmed = answer.pointer("/content/confirm") == Some(&json!(true));
                Ok(text(format!(
                    "{} {file}",
                    if confirmed { "Deleted" } else { "Kept" }
                )))
            }
            "multi_input" => {
                let (one, two) = tokio::join!(
                    ctx.request_input("first", elicitation("First input?", "name", "string")),
                    ctx.request_input("second", elicitation("Second input?", "name", "string")),
                );
                Ok(text(format!(
                    "Received {} and {}",
                    answered(&one?, "name"),
                    answered(&two?, "name")
                )))
            }
            "test_tool_with_task" => Ok(text(format!("Hello, {}!", confirmed.unwrap_or_default()))),
            "tool_error" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "tool_error failed",
            )])),
            "protocol_error" => Err(TaskExit::Error(McpError::internal_error(
                "protocol_error failed",
                None,
            ))),
            "elicit_input" => Ok(text(format!(
                "Hello, {}!",
                ask(&ctx, "name", "Please enter your name.", "name").await?
            ))),
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
            "confirm_first" => Ok(text(format!(
                "Confirmed: {}",
                confirmed.unwrap_or_default()
            ))),
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
        let client_supports_tasks = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        let name = request.name.to_string();
        let fixture = self.tool_router.list_all().iter().any(|t| t.name == name);
        // greet never makes a task
        if !client_supports_tasks || !fixture || name == "greet" {
            let tcc = ToolCallContext::new(self, request, context);
            return self.tool_router.call(tcc).await;
        }
        // a tool that asks its client for input needs a client that declared elicitation:
        // rmcp's Peer::create_elicitation refuses otherwise (CapabilityNotSupported), and a
        // task's TaskContext::request_input leaves that check to the handler, as here
        let elicits = ASKS_INPUT.contains(&name.as_str());
        let can_answer = context
            .client_capabilities()
            .is_some_and(|caps| caps.elicitation.is_some());
        if elicits && !can_answer {
            return Err(McpError::missing_required_client_capability(
                ClientCapabilities::builder().enable_elicitation().build(),
            ));
        }
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let mut confirmed = None;
        if let Some((key, field, message)) = pre_task_question(&name) {
            // the question is asked over an InputRequiredResult before the task exists
            let answer = request.input_responses.as_ref().and_then(|r| r.get(key));
            match (request.request_state.as_deref(), answer) {
                (Some(state), Some(answer)) if state == name => {
                    confirmed = Some(answered(answer, field))
                }
                _ => {
                    let mut asks = InputRequests::new();
                    asks.insert(key.into(), elicitation(message, field, "string"));
                    let mut ask = InputRequiredResult::from_request_state(name.as_str());
                    ask.input_requests = Some(asks);
                    return Ok(CallToolResponse::InputRequired(ask));
                }
            }
        }
        let task = self.tasks.spawn(TaskOptions::default(), move |ctx| {
            Box::pin(async move { work(&name, args, confirmed, ctx).await })
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

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tasks = TaskManager::new();
    if std::env::args().any(|a| a == "--http") {
        use rmcp::transport::streamable_http_server::{
            session::local::LocalSessionManager, StreamableHttpService,
        };
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
