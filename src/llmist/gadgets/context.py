"""``ExecutionContext``: what a running gadget can use besides its parameters."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol, runtime_checkable

from llmist.gadgets.gadget_logger import GadgetLogger
from llmist.gadgets.signal import AbortSignal

__all__ = ["ExecutionContext", "ModelClient"]


@runtime_checkable
class ModelClient(Protocol):
    """What a gadget's ``ctx.llm`` offers: the whole model client, with every call's cost reported.

    In an agent run it is the agent's :class:`llmist.providers.LLMClient`, seen through
    :class:`llmist.providers.CostReportingClient`. The gadgets layer sits below the providers, so
    it names the surface here rather than importing the class; any object with these methods can
    be lent to an executor.
    """

    @property
    def model_registry(self) -> Any:
        """Limits, prices and aliases of the models (a :class:`llmist.models.ModelRegistry`)."""
        ...

    async def complete(
        self,
        prompt: Any,
        model: Any = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> str:
        """The whole text answer to ``prompt`` (text, messages or a request)."""
        ...

    def complete_sync(
        self,
        prompt: Any,
        model: Any = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> str:
        """:meth:`complete` for synchronous code, such as a sync gadget in its worker thread."""
        ...

    def stream_text(
        self,
        prompt: Any,
        model: Any = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> AsyncIterator[str]:
        """The answer's text as it arrives."""
        ...

    def stream(
        self,
        prompt: Any,
        model: Any = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> AsyncIterator[Any]:
        """The answer's chunks (``text``, ``reasoning``; the last one has ``usage``, ``finish_reason``)."""
        ...

    def reporting_to(
        self, report_cost: Callable[[float], None], loop: asyncio.AbstractEventLoop | None = None
    ) -> ModelClient:
        """The same client, also sending each call's cost (USD) to ``report_cost``; ``loop`` is the
        event loop :meth:`complete_sync` runs calls on from other threads."""
        ...


class ExecutionContext:
    """Handed to ``execute(params, ctx)``: cost reporting, an LLM client, cancellation, logging."""

    __slots__ = (
        "_client",
        "_cost",
        "_gadget_logger",
        "_key",
        "_llm",
        "_lock",
        "_logger",
        "_loop",
        "gadget_name",
        "invocation_id",
        "signal",
    )

    def __init__(
        self,
        *,
        gadget_name: str,
        invocation_id: str = "",
        signal: AbortSignal | None = None,
        llm_client: ModelClient | None = None,
        logger: logging.Logger | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        idempotency_key: str | Callable[[], str] | None = None,
    ) -> None:
        self.gadget_name = gadget_name
        """Name of the running gadget."""
        self.invocation_id = invocation_id
        """Id of the running call."""
        self.signal: AbortSignal = signal if signal is not None else AbortSignal()
        """Fires when the call times out or the run is cancelled."""
        self._logger = logger
        self._gadget_logger: GadgetLogger | None = None
        self._cost = 0.0
        self._lock = threading.Lock()
        self._client = llm_client
        self._loop = loop
        self._llm: ModelClient | None = None
        self._key: str | Callable[[], str] | None = idempotency_key
        """The key, or what makes it on first read (an executor's: most calls never read it)."""

    @property
    def idempotency_key(self) -> str:
        """A key naming this call, and only it: the same each time the same call of the same run is
        run again (a durable run recovered after a crash, ``llmist.durable``), different for every
        other call. A gadget with side effects records it beside the effect and skips the effect
        when the key is already there, so that it happens at most once.

        In an agent run it is the run's scope (a fresh id; a durable run's workflow id) and the
        call's place in the run (response and position), not the invocation id, which may differ
        when a recovered run parses the same response again. Outside a run (``test_gadget``, a
        context made by hand) it is a fresh id."""
        key = self._key
        if isinstance(key, str):
            return key
        self._key = key = key() if key is not None else uuid.uuid4().hex
        return key

    @property
    def logger(self) -> GadgetLogger:
        """The stdlib logger ``llmist.gadget.<Name>`` with ``trace`` and structured fields
        (:class:`~llmist.gadgets.gadget_logger.GadgetLogger`)."""
        # Made on first use, like ``llm``: most calls never log.
        if self._gadget_logger is None:
            base = self._logger if self._logger is not None else logging.getLogger(f"llmist.gadget.{self.gadget_name}")
            self._gadget_logger = GadgetLogger(base, self.gadget_name, self.invocation_id)
        return self._gadget_logger

    @property
    def llm(self) -> ModelClient | None:
        """The agent's model client, whose every call's cost is added to this call's cost; ``None``
        when there is no agent (``llmist gadget run``, ``test_gadget`` without ``llm_client``)."""
        # Made on first use: most calls never touch it.
        if self._llm is None and self._client is not None:
            self._llm = self._client.reporting_to(self.report_cost, self._loop)
        return self._llm

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
