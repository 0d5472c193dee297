"""``AgentStream``: the events of one run as they happen, and its result once it ended."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Generic

from llmist.agent.events import AgentEvent
from llmist.agent.result import AgentResult, OutputT

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.gadgets import AbortSignal

__all__ = ["AgentStream"]


class AgentStream(Generic[OutputT]):
    """The events of one run, as an async iterator; ``result`` is set once it is exhausted.

    ``cancel()`` stops the run at the next step (running gadgets are cancelled); the result then
    has ``stop_reason == "cancelled"``. Made by ``Agent.stream()`` (the assembler starts the run).
    """

    def __init__(self, run: RunContext, events: RunEvents) -> None:
        self._run = run
        self._gen = events
        self._pending: deque[AgentEvent] = deque()

    @property
    def signal(self) -> AbortSignal:
        """Fire it (or call :meth:`cancel`) to cancel the run."""
        return self._run.signal

    @property
    def result(self) -> AgentResult[OutputT] | None:
        """The run's outcome, once the stream is exhausted."""
        return self._run.result

    def batches(self) -> RunEvents:
        """The run's events as the loop produces them, in lists (one per step)."""
        return self._gen

    def cancel(self) -> None:
        """Cancel the run."""
        self._run.signal.abort("run cancelled")

    def __aiter__(self) -> AgentStream[OutputT]:
        return self

    async def __anext__(self) -> AgentEvent:
        pending = self._pending
        while not pending:
            pending.extend(await self._gen.__anext__())
        return pending.popleft()

    async def aclose(self) -> None:
        """Stop early: cancel running gadgets and close the model stream."""
        self._pending.clear()
        await self._gen.aclose()
