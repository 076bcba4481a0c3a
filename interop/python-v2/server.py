"""A server written with the newest major of the Python SDK (mcp 2.3.0), which no longer
implements 2025-11-25 tasks: taskcheck must say so plainly (the tasks rules not applicable)
and still check that a task-augmented call is processed normally, its `task` ignored.

Only the two fixtures that scenario needs, with the SDK's `MCPServer` decorators:

    python server.py          # stdio
"""

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("taskcheck-fixtures-python-v2")


@server.tool()
def sync_echo(text: str = "") -> str:
    """taskcheck fixture sync_echo: returns the text."""
    return text


@server.tool()
async def optional_sleep(ms: int = 0) -> str:
    """taskcheck fixture optional_sleep: returns "slept <ms>" after ms."""
    await anyio.sleep(ms / 1000)
    return f"slept {ms}"


if __name__ == "__main__":
    server.run("stdio")
