"""Refuse real model requests inside tests: :func:`block_real_models`.

The agent loop checks :func:`check_model_allowed` before each model call; ``llmist.testing``
re-exports :func:`block_real_models` and :class:`RealModelRequestBlocked` for tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from llmist.agent.errors import RealModelRequestBlocked

__all__ = ["RealModelRequestBlocked", "block_real_models", "check_model_allowed"]

_blocked = 0


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
    global _blocked
    _blocked += 1
    try:
        yield
    finally:
        _blocked = max(0, _blocked - 1)


def check_model_allowed(provider: object, model_name: str) -> None:
    """Raise :class:`RealModelRequestBlocked` if blocking is on and ``provider`` is not a test double."""
    if _blocked and not getattr(provider, "offline", False):
        raise RealModelRequestBlocked(
            f"real model request blocked: {getattr(provider, 'name', type(provider).__name__)}:{model_name}. "
            "Inside block_real_models() only offline models run; use MockModel or "
            "`with override(agent, model=MockModel([...])):`"
        )
