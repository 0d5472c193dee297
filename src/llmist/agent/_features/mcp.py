"""A run with MCP servers: connect them, add their tools to this run, disconnect at the end.

Servers the agent connects it also closes, whether the run ends, fails or is cancelled;
servers the caller already opened (``async with server:``) stay open, so their tool lists stay
cached across runs (and so does the plan made with them). Firing the run's signal while a
server connects stops connecting: the run then starts cancelled and ends at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

from llmist.agent._features import Feature

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.gadgets import AbortSignal, Gadget
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
            if run.signal.aborted:
                break
            if not server.connected:
                opened.append(server)  # closed below even if connecting fails half way
                if not await _unless_aborted(server.connect(), run.signal):
                    break
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


async def _unless_aborted(work: Awaitable[None], signal: AbortSignal) -> bool:
    """Await ``work``; cancel it if ``signal`` fires first. Whether it finished."""
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()

    def on_abort(_: object) -> None:
        loop.call_soon_threadsafe(task.cancel)

    signal.add_listener(on_abort)
    try:
        await task
    except asyncio.CancelledError:
        if not signal.aborted:
            raise  # the caller was cancelled, not the run
        return False
    finally:
        signal.remove_listener(on_abort)
    return True
