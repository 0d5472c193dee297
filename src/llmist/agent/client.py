"""``LLMist``: the client that calls models and builds agents (``LLMist.create_agent()``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llmist.agent.builder import AgentBuilder
from llmist.providers import LLMClient

__all__ = ["LLMist"]


class _ClassOrInstance:
    """``LLMist.create_agent()`` and ``client.create_agent()`` both work; the second shares the client."""

    def __get__(self, obj: LLMist | None, owner: type[LLMist]) -> Callable[[], AgentBuilder]:
        def create_agent() -> AgentBuilder:
            """A new :class:`AgentBuilder` (agents built from a client share its registry and lend it to gadgets)."""
            return AgentBuilder(client=obj)

        return create_agent


class LLMist(LLMClient):
    """The llmist client: everything :class:`~llmist.providers.LLMClient` does (``complete``,
    ``stream_text``, ``stream``, ``model_registry``), plus ``create_agent()``, a fluent agent builder.

    ``LLMist.create_agent()`` works on the class too; then agents use the default registry.
    """

    create_agent: Any = _ClassOrInstance()
