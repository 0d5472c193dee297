"""``LLMClient``: one object to call any model by model string, with usage and cost accounting."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Sequence

from llmist.models import ModelRegistry
from llmist.providers.base import LLMChunk, LLMRequest, Message, Provider, Usage
from llmist.providers.registry import resolve_model

__all__ = ["CostReportingClient", "LLMClient"]

logger = logging.getLogger("llmist.providers.client")

Prompt = str | Sequence[Message] | LLMRequest
"""A prompt: user text, a conversation, or a full request."""


class LLMClient:
    """Calls models by model string (``"sonnet"``, ``"openai:gpt-4o"``, ``"ollama:qwen2.5:7b"``...).

    Providers are made on first use and reused. Every call's usage and cost (USD, from
    :attr:`model_registry`) are added to :attr:`usage` and :attr:`cost`.
    """

    def __init__(self, *, model: str | Provider | None = None, model_registry: ModelRegistry | None = None) -> None:
        self.model = model
        """Model used when a call names none: a model string or a provider instance (``None``: from
        the environment, see ``default_model``)."""
        self._registry = model_registry
        self.usage = Usage()
        """Tokens used by all calls so far."""
        self.cost = 0.0
        """USD spent by all calls so far."""
        self._providers: dict[str, tuple[Provider, str]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def model_registry(self) -> ModelRegistry:
        """Limits, prices and aliases of the models (the default registry, made on first use: an
        agent lends every run's gadgets a client, and most never call a model)."""
        if self._registry is None:
            self._registry = ModelRegistry()
        return self._registry

    @model_registry.setter
    def model_registry(self, registry: ModelRegistry) -> None:
        self._registry = registry

    def resolve(self, model: str | Provider | None = None) -> tuple[Provider, str]:
        """The provider and provider-side model name for ``model`` (cached per model string).

        A provider instance is used as it is, with its ``name`` as the model name.
        """
        if model is None:
            model = self.model
        if model is not None and not isinstance(model, str):
            return model, model.name
        spec = model or ""
        if spec not in self._providers:
            self._providers[spec] = resolve_model(spec, self.model_registry)
        return self._providers[spec]

    async def complete(
        self,
        prompt: Prompt,
        model: str | Provider | None = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> str:
        """The whole text answer to ``prompt`` (of the model that answered last, when a fallback
        model started the answer over)."""
        parts: list[str] = []
        async for chunk in self.stream(prompt, model, system=system, max_tokens=max_tokens, temperature=temperature):
            if chunk.restart:
                parts.clear()
            parts.append(chunk.text)
        return "".join(parts)

    def complete_sync(
        self,
        prompt: Prompt,
        model: str | Provider | None = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> str:
        """:meth:`complete` for synchronous code.

        A gadget's client (:meth:`reporting_to` with the agent's loop) runs the call on that loop
        and waits, which is what a sync gadget in its worker thread needs. Any other client runs
        it on a new event loop. Called from a thread whose event loop is running it raises, since
        waiting there would block the loop the call needs: use ``await client.complete(...)``.
        """
        if _loop_running_here():
            raise RuntimeError(
                "complete_sync was called on a running event loop's thread, where waiting would block "
                "the loop; use `await ...complete(...)` there"
            )
        call = self.complete(prompt, model, system=system, max_tokens=max_tokens, temperature=temperature)
        if self._loop is not None and self._loop.is_running():
            return asyncio.run_coroutine_threadsafe(call, self._loop).result()
        return asyncio.run(call)

    def reporting_to(
        self, report_cost: Callable[[float], None], loop: asyncio.AbstractEventLoop | None = None
    ) -> CostReportingClient:
        """This client as a gadget gets it (``ctx.llm``): each call's cost also goes to
        ``report_cost``, and :meth:`complete_sync` runs calls on ``loop``."""
        return CostReportingClient(self, report_cost, loop)

    async def stream_text(
        self,
        prompt: Prompt,
        model: str | Provider | None = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> AsyncIterator[str]:
        """The answer's text as it arrives (reasoning and empty chunks left out).

        With a :class:`~llmist.providers.fallback.FallbackModel` whose first model broke off
        mid-answer, the next model's answer follows what was already yielded, from its start:
        use :meth:`stream` to see where (``chunk.restart``)."""
        async for chunk in self.stream(prompt, model, system=system, max_tokens=max_tokens, temperature=temperature):
            if chunk.text:
                yield chunk.text

    async def stream(
        self,
        prompt: Prompt,
        model: str | Provider | None = None,
        *,
        system: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
    ) -> AsyncIterator[LLMChunk]:
        """Stream the answer's chunks; the last one carries usage and finish reason.

        With an :class:`LLMRequest` (for what only a request holds: ``tools``, ``reasoning``,
        ``stop``, ``extra``), its ``model`` is read as a model string unless ``model`` is given,
        it is sent as it is otherwise, and the other keyword arguments are ignored.
        """
        if isinstance(prompt, LLMRequest):
            provider, model_name = self.resolve(prompt.model if model is None else model)
            request = dataclasses.replace(prompt, model=model_name)
        else:
            provider, model_name = self.resolve(model)
            messages = [Message("user", prompt)] if isinstance(prompt, str) else list(prompt)
            if system is not None:
                messages.insert(0, Message("system", system))
            request = LLMRequest(model=model_name, messages=messages, max_tokens=max_tokens, temperature=temperature)
        async for chunk in provider.stream(request):
            if chunk.usage is not None:
                self._record(chunk.usage, self._cost(chunk, provider.name, model_name))
            yield chunk

    def _cost(self, chunk: LLMChunk, provider: str, model_name: str) -> float:
        """The USD cost of ``chunk.usage``, at the prices of the model that wrote it."""
        assert chunk.usage is not None
        if chunk.model:  # a fallback chain's member answered: "provider:model", or a test double's name
            provider, _, name = chunk.model.partition(":")
            model_name = name or provider
        return self.model_registry.cost(model_name, chunk.usage, provider)

    def _record(self, usage: Usage, cost: float) -> None:
        self.usage = self.usage + usage
        self.cost += cost
        logger.debug("LLM call used %d tokens, cost $%.6f", usage.total_tokens, cost)


class CostReportingClient(LLMClient):
    """The client a gadget gets as ``ctx.llm``: same methods, and each call's cost goes to ``report_cost``.

    It shares the parent's providers, registry and default model, and adds its usage and
    cost to the parent's totals too.
    """

    def __init__(
        self,
        parent: LLMClient,
        report_cost: Callable[[float], None],
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(model=parent.model, model_registry=parent.model_registry)
        self._parent = parent
        self._providers = parent._providers
        self._report_cost = report_cost
        self._loop = loop

    def _record(self, usage: Usage, cost: float) -> None:
        super()._record(usage, cost)
        self._parent._record(usage, cost)
        self._report_cost(cost)


def _loop_running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
