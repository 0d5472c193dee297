"""A run with MCP servers: connect them, add their tools for this run, disconnect at the end.

Kept apart from the loop: the run is wrapped, not changed. Servers the agent connects it also
closes, whether the run ends, fails or is cancelled; servers the caller already opened (``async
with server:``) stay open, so their tool lists stay cached across runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING

from llmist.agent._config import RunConfig
from llmist.agent._loop import Events
from llmist.gadgets import Gadget

if TYPE_CHECKING:
    from llmist.mcp import MCPServer

__all__ = ["run_with_mcp"]


async def run_with_mcp(
    config: RunConfig,
    servers: Sequence[MCPServer],
    start: Callable[[RunConfig], AsyncGenerator[Events, None]],
    run_gadgets: Sequence[Gadget] = (),
) -> AsyncGenerator[Events, None]:
    """The events of ``start(config with the servers' tools)``, the servers open around them.

    ``run_gadgets`` (the final-answer gadgets of a typed run) join them; ``config``'s observers stay.
    """
    opened: list[MCPServer] = []
    try:
        extra: list[Gadget] = list(run_gadgets)
        for server in servers:
            if not server.connected:
                await server.connect()
                opened.append(server)
            extra.extend(await server.gadgets())
        run_config = RunConfig.build(config.agent, config.provider, config.model_name, extra)
        run = start(dataclasses.replace(run_config, observers=config.observers))
        try:
            async for event in run:
                yield event
        finally:
            await run.aclose()
    finally:
        for server in reversed(opened):
            await server.close()
