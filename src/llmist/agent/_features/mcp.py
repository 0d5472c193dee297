"""A run with MCP servers: connect them, add their tools to this run, disconnect at the end.

Servers the agent connects it also closes, whether the run ends, fails or is cancelled;
servers the caller already opened (``async with server:``) stay open, so their tool lists stay
cached across runs (and so does the plan made with them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llmist.agent._features import Feature

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.gadgets import Gadget
    from llmist.mcp import MCPServer

__all__ = ["MCPServers"]


class MCPServers(Feature):
    """MCP servers as a feature: their tools are known once they are connected, so they join
    each run in ``wrap`` rather than the plan of the spec."""

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run with servers: connected first, their tools added, closed at the end."""
        servers = run.spec.mcp_servers
        if not servers:
            return events
        return _with_servers(run, servers, events)


async def _with_servers(run: RunContext, servers: Sequence[MCPServer], events: RunEvents) -> RunEvents:
    opened: list[MCPServer] = []
    try:
        tools: list[Gadget] = []
        for server in servers:
            if not server.connected:
                await server.connect()
                opened.append(server)
            tools.extend(await server.gadgets())
        run.add_gadgets(tools)
        try:
            async for batch in events:
                yield batch
        finally:
            await events.aclose()
    finally:
        for server in reversed(opened):
            await server.close()
