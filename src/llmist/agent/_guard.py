"""The switch behind ``llmist.testing.block_real_models()``: refuse real model requests."""

from __future__ import annotations

from llmist.gadgets import LlmistError

__all__ = ["RealModelRequestBlocked", "check_model_allowed", "set_blocked"]

_blocked = 0


class RealModelRequestBlocked(LlmistError):
    """A real model was called while ``block_real_models()`` was active (inside a test)."""


def set_blocked(delta: int) -> None:
    """Enter (+1) or leave (-1) a blocking scope."""
    global _blocked
    _blocked = max(0, _blocked + delta)


def check_model_allowed(provider: object, model_name: str) -> None:
    """Raise :class:`RealModelRequestBlocked` if blocking is on and ``provider`` is not a test double."""
    if _blocked and not getattr(provider, "offline", False):
        raise RealModelRequestBlocked(
            f"real model request blocked: {getattr(provider, 'name', type(provider).__name__)}:{model_name}. "
            "Inside block_real_models() only offline models run; use MockModel or "
            "`with override(agent, model=MockModel([...])):`"
        )
