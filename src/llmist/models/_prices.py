"""Narrow bridge to the ``genai-prices`` database (imported lazily: it is slow to load)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from llmist.models.spec import CostBreakdown, ModelSpec, TokenUsage

__all__ = ["GENAI_PROVIDER_IDS", "lookup", "price"]

logger = logging.getLogger("llmist.models")

GENAI_PROVIDER_IDS: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "google",
    "openrouter": "openrouter",
}
"""Our provider ids mapped to the ids ``genai-prices`` uses. Other providers (local servers) have no prices."""


def _find(provider: str, model_id: str) -> Any | None:
    """The genai-prices ``ModelInfo`` of a model, or ``None`` when unknown or the package is missing."""
    provider_id = GENAI_PROVIDER_IDS.get(provider)
    if provider_id is None:
        return None
    try:
        from genai_prices import data_snapshot
    except ImportError:
        logger.debug("genai-prices is not installed; using the built-in price table")
        return None
    try:
        _, info = data_snapshot.get_snapshot().find_provider_model(model_id, None, provider_id, None)
    except LookupError:
        return None
    return info


def _per_mtok(value: object) -> float | None:
    """A genai-prices price (a ``Decimal`` or tiered prices with a ``base``) as a float."""
    if isinstance(value, Decimal):
        return float(value)
    base = getattr(value, "base", None)
    return float(base) if isinstance(base, Decimal) else None


def lookup(provider: str, model_id: str) -> ModelSpec | None:
    """What genai-prices knows about a model: prices per million tokens and context window."""
    info = _find(provider, model_id)
    if info is None:
        return None
    prices = info.get_prices(datetime.now(tz=UTC))
    return ModelSpec(
        provider=provider,
        model_id=model_id,
        display_name=info.name or "",
        context_window=info.context_window,
        input_price=_per_mtok(getattr(prices, "input_mtok", None)),
        output_price=_per_mtok(getattr(prices, "output_mtok", None)),
        cached_input_price=_per_mtok(getattr(prices, "cache_read_mtok", None)),
        cache_write_price=_per_mtok(getattr(prices, "cache_write_mtok", None)),
    )


def price(provider: str, model_id: str, usage: TokenUsage) -> CostBreakdown | None:
    """Cost in USD of ``usage`` by genai-prices, or ``None`` when it does not know the model.

    genai-prices bills reasoning tokens as part of the output; their share of the output
    cost is reported apart.
    """
    info = _find(provider, model_id)
    if info is None:
        return None
    from genai_prices import Usage, data_snapshot

    gp_usage = Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cached_input_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        output_reasoning_tokens=usage.reasoning_tokens,
    )
    provider_info, _ = data_snapshot.get_snapshot().find_provider_model(
        model_id, None, GENAI_PROVIDER_IDS[provider], None
    )
    calculation = info.calc_price(gp_usage, provider_info)
    output = float(calculation.output_price)
    reasoning = output * usage.reasoning_tokens / usage.output_tokens if usage.output_tokens else 0.0
    return CostBreakdown(float(calculation.input_price), output - reasoning, reasoning)
