"""taskcheck fixture server written with the official Python SDK (mcp 1.30.0).

Implements the fixture contract (`taskcheck list --fixtures`) with the SDK's low-level
`Server` and its experimental tasks support, the way the SDK documents it: task-augmented
calls go through `request_context.experimental.run_task`, everything else is the SDK's own
default. Nothing here papers over what the SDK does; interop/README.md says where the
contract could not be expressed.

    python server.py                 # stdio
    python server.py --http [PORT]   # Streamable HTTP on 127.0.0.1 (default: a free port);
                                     # the endpoint URL is the first line of stdout
    --json-response                  # HTTP: JSON responses instead of SSE streams
    --stateless                      # HTTP: no session, a fresh transport per request
    --no-tasks                       # a server without tasks: no enable_tasks(), no taskSupport
"""

import argparse
import contextlib
import socket
import sys
import warnings

import anyio
import mcp.types as types
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import McpError

# the experimental tasks API warns that mcp 2.0 removes it: that is why this version is pinned
warnings.simplefilter("ignore", DeprecationWarning)

# how a server without tasks is written: no enable_tasks(), tools without `execution`
NO_TASKS = "--no-tasks" in sys.argv

server = Server("taskcheck-fixtures-python")
if not NO_TASKS:
    server.experimental.enable_tasks()

MS = {"ms": {"type": "integer", "minimum": 0}}


def tool(name, support, extra=None, required=()):
    properties = dict(MS, **(extra or {}))
    schema = {"type": "object", "properties": properties, "required": list(required)}
    execution = types.ToolExecution(taskSupport=support) if support and not NO_TASKS else None
    return types.Tool(name=name, description=f"taskcheck fixture {name}", inputSchema=schema, execution=execution)


TOOLS = [
    tool("sync_echo", None, {"text": {"type": "string"}}),
    tool("forbidden_echo", "forbidden", {"text": {"type": "string"}}),
    tool("optional_sleep", "optional"),
    tool("required_sleep", "required"),
    tool("tool_error", "optional"),
    tool("protocol_error", "optional"),
    tool("elicit_input", "optional"),
    tool("progress_sleep", "optional", {"steps": {"type": "integer", "minimum": 1}}),
]
SUPPORT = {t.name: (t.execution.taskSupport if t.execution else None) for t in TOOLS}
ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def text(value):
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


@server.list_tools()
async def list_tools():
    return TOOLS


async def run_fixture(name, args, elicit, progress):
    """The fixture's work; `elicit` and `progress` differ between plain calls and tasks."""
    ms = int(args.get("ms", 0))
    if name in ("sync_echo", "forbidden_echo"):
        return text(str(args.get("text", "")))
    if name == "progress_sleep":
        steps = int(args.get("steps", 3))
        for step in range(1, steps + 1):
            await anyio.sleep(ms / 1000 / steps)
            await progress(step, steps)
        return text(f"slept {ms}")
    await anyio.sleep(ms / 1000)
    if name in ("optional_sleep", "required_sleep"):
        return text(f"slept {ms}")
    if name == "tool_error":
        return types.CallToolResult(content=[types.TextContent(type="text", text="tool_error failed")], isError=True)
    if name == "protocol_error":
        raise McpError(types.ErrorData(code=types.INTERNAL_ERROR, message="protocol_error failed"))
    if name == "elicit_input":
        answer = await elicit("taskcheck asks for an answer", ANSWER_SCHEMA)
        if answer.action == "accept":
            return text(str((answer.content or {}).get("answer", "")))
        return text("declined" if answer.action == "decline" else "cancelled")
    raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}"))


@server.call_tool()
async def call_tool(name, arguments):
    ctx = server.request_context
    if name not in SUPPORT:
        raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}"))
    if not NO_TASKS:
        ctx.experimental.validate_task_mode(SUPPORT[name])
    session = ctx.session
    token = ctx.meta.progressToken if ctx.meta else None

    async def progress(step, steps):
        if token is not None:
            await session.send_progress_notification(token, step, steps)

    if not NO_TASKS and ctx.experimental.is_task:

        async def work(task: ServerTaskContext):
            return await run_fixture(name, arguments, task.elicit, progress)

        return await ctx.experimental.run_task(work)

    async def elicit(message, schema):
        return await session.elicit(message, schema, related_request_id=ctx.request_id)

    return await run_fixture(name, arguments, elicit, progress)


async def serve_stdio():
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_http(port, json_response, stateless):
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    manager = StreamableHTTPSessionManager(app=server, json_response=json_response, stateless=stateless)

    async def handle(scope, receive, send):
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        async with manager.run():
            yield

    app = Starlette(routes=[Mount("/mcp", app=handle)], lifespan=lifespan)
    listener = socket.create_server(("127.0.0.1", port))
    print(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    anyio.run(lambda: http.serve(sockets=[listener]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT", nargs="?", const=0)
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--no-tasks", action="store_true")
    options = parser.parse_args()
    if options.http is not None:
        serve_http(options.http, options.json_response, options.stateless)
    else:
        anyio.run(serve_stdio)
