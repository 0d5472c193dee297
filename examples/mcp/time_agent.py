"""docs/mcp.md: an agent using the tools of a published MCP server (mcp-server-time), offline."""

import asyncio
import json
import sys

from llmist import Agent
from llmist.mcp import MCPServerStdio
from llmist.testing import MockModel

# A scripted model stands in for a real one; it calls the server's tool, then answers.
model = MockModel(
    [
        "!!!GADGET_START:get_current_time\n!!!ARG:timezone\nAsia/Tokyo\n!!!GADGET_END",
        "It is morning in Tokyo.",
    ]
)

time_server = MCPServerStdio(sys.executable, ["-m", "mcp_server_time", "--local-timezone", "UTC"])
agent = Agent(model=model, mcp_servers=[time_server])
result = agent.run_sync("What time is it in Tokyo?")
print(json.loads(result.gadget_results[0].result or "{}")["timezone"])  # Asia/Tokyo


async def list_tools() -> list[str]:
    async with MCPServerStdio(sys.executable, ["-m", "mcp_server_time"], tool_prefix="time_") as server:
        return [gadget.name for gadget in await server.gadgets()]


print(asyncio.run(list_tools()))  # ['time_get_current_time', 'time_convert_time']
