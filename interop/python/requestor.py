"""taskcheck requestor driver written with the official Python SDK (mcp 1.30.0), used as the
docstrings of mcp/client/experimental/tasks.py show: `call_tool_as_task`, `poll_task` (which
"respects the pollInterval hint"), `get_task_result` on input_required and once terminal,
`cancel_task`, and an elicitation callback. The SDK leaves to its caller whether a tool is called
as a task: this driver does so where the server's capabilities hold `tasks.requests.tools.call`
and tools/list gives the tool a taskSupport that allows one (tasks.mdx, Tool-Level Negotiation). Does
what TASKCHECK_REQUEST asks of the server given as arguments, a URL (Streamable HTTP,
`streamablehttp_client`) or a stdio command (`taskcheck requestor`).

    python requestor.py URL | SERVER-COMMAND [ARGS...]
"""

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


async def elicit(context, params):
    return types.ElicitResult(action="accept", content={"answer": "taskcheck"})


async def main():
    ask = json.loads(os.environ.get("TASKCHECK_REQUEST", "{}"))
    if sys.argv[1].startswith("http"):
        transport = streamablehttp_client(sys.argv[1])
    else:
        transport = stdio_client(StdioServerParameters(command=sys.argv[1], args=sys.argv[2:]))
    async with transport as (read, write, *_):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for _ in range(ask.get("times", 1)):
                await call(session, tools, ask)
            cursor = None
            while ask.get("list"):
                cursor = (await session.experimental.list_tasks(cursor)).nextCursor
                if not cursor:
                    break


def tool_tasks(session):
    """Whether the server declared tasks.requests.tools.call."""
    tasks = session.get_server_capabilities().tasks
    requests = tasks and tasks.requests
    return bool(requests and requests.tools and requests.tools.call)


async def call(session, tools, ask):
    """Calls the tool asked for once, as a task where the server and its taskSupport allow, to
    its end."""
    name, arguments = ask["tool"], ask.get("arguments", {})
    execution = tools[name].execution
    support = execution.taskSupport if execution else None
    if not ask.get("task") or support not in ("optional", "required") or not tool_tasks(session):
        await session.call_tool(name, arguments)
        return
    created = await session.experimental.call_tool_as_task(name, arguments)
    task_id = created.task.taskId
    cancel_after = ask.get("cancel_after_ms")
    started = anyio.current_time()
    async for status in session.experimental.poll_task(task_id):
        waited = (anyio.current_time() - started) * 1000
        if cancel_after is not None and waited >= cancel_after:
            await session.experimental.cancel_task(task_id)
            cancel_after = None
        if status.status == "input_required":
            await session.experimental.get_task_result(task_id, types.CallToolResult)
            return
    if status.status == "completed":
        await session.experimental.get_task_result(task_id, types.CallToolResult)


anyio.run(main)
