"""The model client gadgets get as ``ctx.llm``, built on the providers' ``LLMClient``."""

from __future__ import annotations

from typing import Any

from llmist.gadgets import LLMCompletion
from llmist.providers import LLMClient

__all__ = ["GadgetLLM", "gadget_llm"]


class GadgetLLM:
    """Completes prompts through an :class:`LLMClient` and says what each completion cost, so the
    execution layer adds it to the calling gadget's cost."""

    __slots__ = ("client",)

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        """The client calls go through (its totals include them)."""

    async def complete(self, prompt: str, *, model: str | None = None, **kwargs: Any) -> LLMCompletion:
        """The whole answer to ``prompt`` and its cost in USD."""
        provider, model_name = self.client.resolve(model)
        parts: list[str] = []
        cost = 0.0
        async for chunk in self.client.stream(prompt, model, **kwargs):
            parts.append(chunk.text)
            if chunk.usage is not None:
                cost += self.client.model_registry.cost(model_name, chunk.usage, provider.name)
        return LLMCompletion("".join(parts), cost)


def gadget_llm(client: Any) -> Any:
    """Adapt what the user passed as ``llm_client``: an ``LLMClient`` is wrapped; anything else with a
    ``complete(prompt, *, model=None) -> LLMCompletion`` is used as is."""
    if isinstance(client, LLMClient):
        return GadgetLLM(client)
    return client
