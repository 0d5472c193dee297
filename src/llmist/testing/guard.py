"""Keep tests offline: block real model requests, swap an agent's model for a scripted one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from llmist.agent import Agent
from llmist.agent._guard import RealModelRequestBlocked, set_blocked
from llmist.providers.base import Provider

__all__ = ["RealModelRequestBlocked", "block_real_models", "override"]


@contextmanager
def block_real_models() -> Iterator[None]:
    """Inside this block any request to a model that is not a test double (``MockModel``, or
    any provider with ``offline = True``) raises :class:`RealModelRequestBlocked`.

    Use it as an autouse fixture in ``conftest.py``::

        @pytest.fixture(autouse=True)
        def _offline():
            with block_real_models():
                yield
    """
    set_blocked(+1)
    try:
        yield
    finally:
        set_blocked(-1)


@contextmanager
def override(agent: Agent, *, model: str | Provider) -> Iterator[Agent]:
    """Run ``agent`` (defined elsewhere, e.g. in application code) with another model inside
    the block; the original model is restored on exit."""
    saved = agent._swap_model(model)
    try:
        yield agent
    finally:
        agent._swap_model(saved)
