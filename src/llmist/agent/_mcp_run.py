"""A run with MCP servers: connect them, add their tools for this run, disconnect at the end.

Kept apart from the loop: the run is wrapped, not changed. Servers the agent connects it also
closes, whether the run ends, fails or is cancelled; servers the caller already opened (``async
with server:``) stay open, so their tool lists stay cached across runs.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from llmist.agent._config import RunConfig
from llmist.agent._loop import Events
from llmist.gadgets import AbortSignal, Gadget

if TYPE_CHECKING:
    from llmist.mcp import MCPServer

__all__ = ["run_with_mcp"]


async def run_with_mcp(
    config: RunConfig,
    servers: Sequence[MCPServer],
    start: Callable[[RunConfig], AsyncGenerator[Events, None]],
    run_gadgets: Sequence[Gadget] = (),
    signal: AbortSignal | None = None,
) -> AsyncGenerator[Events, None]:
    """The events of ``start(config with the servers' tools)``, the servers open around them.

    ``run_gadgets`` (the final-answer gadgets of a typed run) join them; ``config``'s observers
    stay. Firing ``signal`` (the run's) while a server connects stops connecting: the run then
    starts cancelled and ends at once.
    """
    opened: list[MCPServer] = []
    try:
        extra: list[Gadget] = list(run_gadgets)
        for server in servers:
            if signal is not None and signal.aborted:
                break
            if not server.connected:
                opened.append(server)  # closed below even if connecting fails half way
                if not await _unless_aborted(server.connect(), signal):
                    break
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


async def _unless_aborted(work: Awaitable[None], signal: AbortSignal | None) -> bool:
    """Await ``work``; cancel it if ``signal`` fires first. Whether it finished."""
    task = asyncio.ensure_future(work)
    if signal is None:
        await task
        return True
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
