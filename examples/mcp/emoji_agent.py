"""docs/mcp.md: the same MCP tool called in the emoji syntax (positional arguments)."""

import sys

from llmist import Agent
from llmist.mcp import MCPServerStdio
from llmist.testing import MockModel

model = MockModel(["🛠️[convert_time Europe/Paris 09:30 America/New_York]\n🛠️[/end]", "Done."])
server = MCPServerStdio(sys.executable, ["-m", "mcp_server_time", "--local-timezone", "UTC"])
result = Agent(model=model, mcp_servers=[server], syntax="emoji").run_sync("Convert 09:30 Paris time.")
print(result.gadget_results[0].result)
assert result.gadget_results[0].error is None
