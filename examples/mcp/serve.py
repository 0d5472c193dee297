"""docs/mcp.md: `llmist mcp serve` used from another MCP client (here llmist's own, over stdio)."""

import asyncio
import sys
from pathlib import Path

from llmist.mcp import MCPServerStdio

TOOLS = Path(__file__).with_name("tools.py")


async def main() -> None:
    command = [sys.executable, "-m", "llmist.cli", "mcp", "serve", str(TOOLS)]
    async with MCPServerStdio(command[0], command[1:]) as server:
        print([tool.name for tool in await server.list_tools()])  # ['word_count']
        print(await server.call_tool("word_count", {"text": "one two three"}))  # 3


asyncio.run(main())
