"""Keep tests offline: block real model requests, swap an agent's model for a scripted one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from llmist.agent import Agent
from llmist.agent.guard import RealModelRequestBlocked, block_real_models
from llmist.providers.base import Provider

__all__ = ["RealModelRequestBlocked", "block_real_models", "override"]


@contextmanager
def override(agent: Agent, *, model: str | Provider) -> Iterator[Agent]:
    """Run ``agent`` (defined elsewhere, e.g. in application code) with another model inside
    the block; the original model is restored on exit."""
    saved = agent.model
    agent.model = model
    try:
        yield agent
    finally:
        agent.model = saved
