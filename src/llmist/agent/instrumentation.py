"""Opt-in OpenTelemetry tracing: :class:`InstrumentationSettings` and :func:`instrument`.

Nothing here imports OpenTelemetry: the spans are made in ``_tracing.py``, which a run imports
only when it is instrumented, so an agent without ``instrument`` pays nothing for the feature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["InstrumentationSettings", "instrument"]


@dataclass(frozen=True, slots=True)
class InstrumentationSettings:
    """How runs are traced (``pip install 'llmist[otel]'``)."""

    include_content: bool = False
    """Record prompts, model answers, gadget arguments and results on the spans. Off by default
    because they may hold personal or secret data."""
    tracer_provider: Any = None
    """An OpenTelemetry ``TracerProvider``; ``None`` uses the global one."""


_global: InstrumentationSettings | None = None


def instrument(settings: InstrumentationSettings | bool = True) -> None:
    """Trace every agent that does not set ``instrument`` itself (``False`` turns it off again)."""
    global _global
    if settings is True:
        settings = InstrumentationSettings()
    _global = settings or None


def resolve(option: InstrumentationSettings | bool | None) -> InstrumentationSettings | None:
    """The settings an agent's ``instrument`` option means (``None``: the global ones)."""
    if option is None:
        return _global
    if option is True:
        return InstrumentationSettings()
    return option or None
