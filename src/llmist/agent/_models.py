"""Turn an agent's ``model=`` argument into a provider and the model name it knows."""

from __future__ import annotations

from collections.abc import Sequence

from llmist.providers.base import Message, Provider
from llmist.providers.mock import MockModel

__all__ = ["resolve_agent_model"]


def _echo(messages: Sequence[Message]) -> str:
    last_user = next((m.text for m in reversed(messages) if m.role == "user"), "")
    return f"(mock) {last_user}"


def resolve_agent_model(model: str | Provider) -> tuple[Provider, str]:
    """``(provider, model_name)`` for a provider instance, ``"mock"`` (a MockModel that echoes
    the last user message), or a ``provider:model`` string / alias."""
    if not isinstance(model, str):
        if not isinstance(model, Provider):
            raise TypeError(f"model must be a model string or a Provider, got {type(model).__name__}")
        return model, str(getattr(model, "model", None) or model.name)
    if model == "mock" or model.startswith("mock:"):
        return MockModel(_echo), "mock"
    raise ValueError(
        f"unknown model {model!r}: real providers are not available in this build; "
        "use model='mock' or pass a provider instance"
    )
