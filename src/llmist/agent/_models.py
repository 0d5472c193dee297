"""Turn an agent's ``model=`` argument into a provider and the model name it knows."""

from __future__ import annotations

from typing import Any

from llmist.models import ModelRegistry
from llmist.providers import resolve_model
from llmist.providers.base import Provider

__all__ = ["resolve_agent_model", "shared_registry"]

_shared: ModelRegistry | None = None


def shared_registry() -> ModelRegistry:
    """The registry agents price real models with when given none (made on first use)."""
    global _shared
    if _shared is None:
        _shared = ModelRegistry()
    return _shared


def resolve_agent_model(model: str | Provider, registry: Any = None) -> tuple[Provider, str]:
    """``(provider, model_name)`` for a provider instance or a model string (``"mock"``,
    ``"provider:model"``, an alias; see ``llmist.providers.resolve_model``)."""
    if isinstance(model, str):
        return resolve_model(model, registry if isinstance(registry, ModelRegistry) else None)
    if not isinstance(model, Provider):
        raise TypeError(f"model must be a model string or a Provider, got {type(model).__name__}")
    return model, str(getattr(model, "model", None) or model.name)
