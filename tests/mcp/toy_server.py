"""An MCP server written with the official SDK for the client tests (run as a subprocess).

Tools: ``add``; ``fail`` (an isError result); ``unlock`` (adds ``secret`` and sends
tools/list_changed); ``picture`` (text and an image); ``files`` (resources); ``weather``
(structured content only); ``pid``; ``nap``; ``die`` (the process
exits mid-call, as a crashed server would).
"""

from __future__ import annotations

import os
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ResourceLink,
    TextResourceContents,
)
from pydantic import Field

server = MCPServer("toy")


@server.tool()
def add(a: Annotated[int, Field(description="first addend")], b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason given."""
    raise ToolError(f"failed on purpose: {reason}")


def secret() -> str:
    """Tell the secret."""
    return "the secret is 42"


@server.tool()
async def unlock(ctx: Context) -> str:
    """Add the secret tool."""
    server.add_tool(secret)
    await ctx.session.send_tool_list_changed()
    return "unlocked"


@server.tool(structured_output=False)
def picture() -> list[object]:
    """A caption and a one-pixel image."""
    from mcp.types import ImageContent, TextContent

    return [TextContent(text="a red dot"), ImageContent(data="iVBORw0KGgo=", mime_type="image/png")]


@server.tool()
def files() -> CallToolResult:
    """An embedded text file, an embedded binary file and a link."""
    return CallToolResult(
        content=[
            EmbeddedResource(resource=TextResourceContents(uri="file:///a.txt", mime_type="text/plain", text="hi")),
            EmbeddedResource(resource=BlobResourceContents(uri="file:///b.bin", blob="AAAA")),
            ResourceLink(uri="file:///c.csv", name="c.csv", mime_type="text/csv"),
        ]
    )


@server.tool()
def weather() -> CallToolResult:
    """Only structured content."""
    return CallToolResult(content=[], structured_content={"temp_c": 21, "sky": "clear"})


@server.tool()
def pid() -> str:
    """The server's process id (so a test can kill it)."""
    return str(os.getpid())


@server.tool()
async def nap(seconds: float) -> str:
    """Sleep for a while."""
    await anyio.sleep(seconds)
    return "rested"


@server.tool()
def die() -> str:
    """Exit the server process at once."""
    os._exit(3)


if __name__ == "__main__":
    server.run()
