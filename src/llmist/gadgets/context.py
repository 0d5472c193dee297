"""``ExecutionContext``: what a running gadget can use besides its parameters."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from llmist.gadgets.gadget_logger import GadgetLogger
from llmist.gadgets.signal import AbortSignal

__all__ = ["CostReportingLLM", "ExecutionContext", "LLMClient", "LLMCompletion"]


@dataclass(frozen=True, slots=True)
class LLMCompletion:
    """One completion from an :class:`LLMClient`: the text and what it cost."""

    text: str
    cost: float = 0.0
    """USD."""


@runtime_checkable
class LLMClient(Protocol):
    """A model client the agent lends to gadgets; it says what each completion cost."""

    async def complete(self, prompt: str, *, model: str | None = None, **kwargs: Any) -> LLMCompletion:
        """Complete ``prompt`` and return the text with its cost."""
        ...


class CostReportingLLM:
    """``ctx.llm``: completes prompts and adds each completion's cost to the gadget's cost."""

    __slots__ = ("_client", "_ctx", "_loop")

    def __init__(self, client: LLMClient, ctx: ExecutionContext, loop: asyncio.AbstractEventLoop | None) -> None:
        self._client = client
        self._ctx = ctx
        self._loop = loop

    async def complete(self, prompt: str, *, model: str | None = None, **kwargs: Any) -> str:
        """Complete ``prompt``; its cost is reported to the gadget's context."""
        completion = await self._client.complete(prompt, model=model, **kwargs)
        self._ctx.report_cost(completion.cost)
        return completion.text

    def complete_sync(self, prompt: str, *, model: str | None = None, **kwargs: Any) -> str:
        """Same as :meth:`complete`, for sync gadgets (which run in a worker thread)."""
        if self._loop is None:
            raise RuntimeError("complete_sync needs the executor's event loop; use `await ctx.llm.complete(...)`")
        future = asyncio.run_coroutine_threadsafe(self.complete(prompt, model=model, **kwargs), self._loop)
        return future.result()


class ExecutionContext:
    """Handed to ``execute(params, ctx)``: cost reporting, an LLM client, cancellation, logging."""

    __slots__ = ("_cost", "_lock", "gadget_name", "invocation_id", "llm", "logger", "signal")

    def __init__(
        self,
        *,
        gadget_name: str,
        invocation_id: str = "",
        signal: AbortSignal | None = None,
        llm_client: LLMClient | None = None,
        logger: logging.Logger | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.gadget_name = gadget_name
        """Name of the running gadget."""
        self.invocation_id = invocation_id
        """Id of the running call."""
        self.signal: AbortSignal = signal if signal is not None else AbortSignal()
        """Fires when the call times out or the run is cancelled."""
        self.llm: CostReportingLLM | None = CostReportingLLM(llm_client, self, loop) if llm_client is not None else None
        """A model client whose costs are added to this call's cost, or ``None`` (tests, CLI)."""
        self.logger = GadgetLogger(
            logger if logger is not None else logging.getLogger(f"llmist.gadget.{gadget_name}"),
            gadget_name,
            invocation_id,
        )
        """The stdlib logger ``llmist.gadget.<Name>`` with ``trace`` and structured fields
        (:class:`~llmist.gadgets.gadget_logger.GadgetLogger`)."""
        self._cost = 0.0
        self._lock = threading.Lock()

    def report_cost(self, usd: float) -> None:
        """Add ``usd`` to this call's cost (thread-safe; may be called many times)."""
        if usd < 0:
            raise ValueError(f"report_cost takes a non-negative amount in USD, got {usd}")
        with self._lock:
            self._cost += usd

    @property
    def cost(self) -> float:
        """The cost reported so far (``report_cost`` plus ``llm`` completions), in USD."""
        return self._cost
