"""``LLMist``: the entry point that builds agents (``LLMist.create_agent()``)."""

from __future__ import annotations

from llmist.agent.builder import AgentBuilder

__all__ = ["LLMist"]


class LLMist:
    """The llmist client. ``LLMist.create_agent()`` starts a fluent agent builder."""

    @classmethod
    def create_agent(cls) -> AgentBuilder:
        """A new :class:`AgentBuilder`."""
        return AgentBuilder()
