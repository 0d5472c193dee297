"""The model of a run: an agent's ``model=`` as a provider and the name it knows, and its price."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from llmist.models import ModelRegistry
from llmist.providers import resolve_model
from llmist.providers.base import Provider, Usage

__all__ = ["default_registry", "pricer", "resolve_agent_model", "shared_registry"]

logger = logging.getLogger("llmist.agent")

_shared: ModelRegistry | None = None


def shared_registry() -> ModelRegistry:
    """The registry agents price real models with when given none (made on first use)."""
    global _shared
    if _shared is None:
        _shared = ModelRegistry()
    return _shared


def resolve_agent_model(model: str | Provider | tuple[Provider, str], registry: Any = None) -> tuple[Provider, str]:
    """``(provider, model_name)`` for a provider instance, a model string (``"mock"``,
    ``"provider:model"``, an alias; see ``llmist.providers.resolve_model``) or such a pair."""
    if isinstance(model, str):
        return resolve_model(model, registry if isinstance(registry, ModelRegistry) else None)
    if isinstance(model, tuple):
        return model
    # What isinstance(model, Provider) checks, without the protocol machinery (which reads the
    # protocol's members again on every call before Python 3.12: a large part of building a plan).
    if not (hasattr(model, "name") and callable(getattr(model, "stream", None))):
        raise TypeError(f"model must be a model string or a Provider, got {type(model).__name__}")
    return model, str(getattr(model, "model", None) or model.name)


def default_registry(registry: Any, provider: Provider) -> Any:
    """``registry``, else the shared one for a real provider (a test double has no prices)."""
    if registry is None and not getattr(provider, "offline", False):
        return shared_registry()
    return registry


def pricer(registry: Any, provider: Provider, model_name: str) -> Callable[[Usage], float]:
    """The USD cost of a usage of ``model_name`` on ``provider`` (0 when ``registry`` has no price)."""
    if registry is None:
        return lambda usage: 0.0
    name = getattr(provider, "name", None)

    def cost_of(usage: Usage) -> float:
        try:
            return float(registry.cost(model_name, usage, name) or 0.0)
        except Exception:
            logger.debug("no price for %s:%s; cost counted as 0", name, model_name, exc_info=True)
            return 0.0

    return cost_of
