"""``ModelRegistry``: the catalog of models, their aliases, limits, prices and the cost of a call."""

from __future__ import annotations

import dataclasses
import logging

from llmist.models import _prices
from llmist.models._catalog import BUILTIN_ALIASES, BUILTIN_MODELS
from llmist.models.spec import CostBreakdown, ModelSpec, TokenUsage

__all__ = ["ModelRegistry", "split_model_ref"]

logger = logging.getLogger("llmist.models")

_MILLION = 1_000_000


def split_model_ref(ref: str) -> tuple[str, str]:
    """Split ``"provider:model"`` at its first colon (``"ollama:qwen2.5:7b"`` -> ``("ollama", "qwen2.5:7b")``).

    Raises ``ValueError`` when ``ref`` has no provider prefix.
    """
    provider, sep, model_id = ref.partition(":")
    if not sep or not provider or not model_id:
        raise ValueError(f"Expected a model string of the form 'provider:model', got {ref!r}")
    return provider, model_id


class ModelRegistry:
    """Models llmist knows: limits, features, prices (USD per million tokens) and aliases.

    Prices come from, in order: models you :meth:`register`, the maintained
    ``genai-prices`` database, then a small built-in table. A model none of them knows
    (a local model, say) costs 0.
    """

    def __init__(self, *, use_genai_prices: bool = True) -> None:
        self._builtin: dict[str, ModelSpec] = {m.ref: m for m in BUILTIN_MODELS}
        self._user: dict[str, ModelSpec] = {}
        self._aliases: dict[str, str] = dict(BUILTIN_ALIASES)
        self._use_genai_prices = use_genai_prices
        self._merged: dict[str, ModelSpec | None] = {}

    def register(self, spec: ModelSpec) -> None:
        """Add a model or replace what is known about one; its prices win over every other source."""
        self._user[spec.ref] = spec
        self._merged.pop(spec.ref, None)

    def register_alias(self, alias: str, target: str) -> None:
        """Make ``alias`` stand for the model string ``target`` (``"provider:model"``)."""
        split_model_ref(target)
        self._aliases[alias] = target

    def resolve_alias(self, name: str) -> str | None:
        """The ``provider:model`` string an alias stands for, or ``None`` when ``name`` is no alias."""
        return self._aliases.get(name)

    @property
    def aliases(self) -> dict[str, str]:
        """A copy of the alias table."""
        return dict(self._aliases)

    def get(self, model: str, provider: str | None = None) -> ModelSpec | None:
        """What is known about a model, by ``provider:model`` string, alias, or ``model`` plus ``provider``.

        Fields the built-in table leaves empty are filled from ``genai-prices``.
        """
        ref = self._ref(model, provider)
        if ref is None:
            return None
        if ref not in self._merged:
            self._merged[ref] = self._merge(ref)
        return self._merged[ref]

    def cost(self, model: str, usage: TokenUsage, provider: str | None = None) -> float:
        """Cost in USD of one call of ``model`` that used ``usage`` tokens (0.0 when prices are unknown).

        Cache reads and writes are billed at the model's cache prices, as providers bill them.
        """
        return self.cost_breakdown(model, usage, provider).total

    def cost_breakdown(self, model: str, usage: TokenUsage, provider: str | None = None) -> CostBreakdown:
        """:meth:`cost` split into input, visible output and reasoning (all zero when prices are unknown)."""
        ref = self._ref(model, provider)
        if ref is None:
            logger.debug("No provider known for model %r; cost counted as 0", model)
            return CostBreakdown()
        user = self._user.get(ref)
        if user is not None and user.has_prices:
            return _cost_from_spec(user, usage)
        prov, model_id = split_model_ref(ref)
        if self._use_genai_prices:
            looked_up = _prices.price(prov, model_id, usage)
            if looked_up is not None:
                return looked_up
        spec = self._builtin.get(ref)
        if spec is not None and spec.has_prices:
            return _cost_from_spec(spec, usage)
        logger.debug("No prices known for %s; cost counted as 0", ref)
        return CostBreakdown()

    def sees_images(self, model: str, provider: str | None = None) -> bool | None:
        """Whether the model accepts images: from models you registered or the built-in table;
        ``None`` when neither knows it (genai-prices knows prices, not features)."""
        ref = self._ref(model, provider)
        spec = None if ref is None else self._user.get(ref) or self._builtin.get(ref)
        return None if spec is None else spec.vision

    def native_tools(self, model: str, provider: str | None = None) -> bool:
        """Whether the model calls tools well through its provider's native API
        (:attr:`ModelSpec.native_tools`): from models you registered or the built-in table;
        ``False`` when neither knows it."""
        ref = self._ref(model, provider)
        spec = None if ref is None else self._user.get(ref) or self._builtin.get(ref)
        return spec is not None and spec.native_tools

    def list_models(self, provider: str | None = None) -> list[ModelSpec]:
        """Every built-in and registered model (of ``provider`` if given), sorted by model string."""
        refs = sorted(set(self._builtin) | set(self._user))
        specs = [self.get(ref) for ref in refs]
        return [s for s in specs if s is not None and (provider is None or s.provider == provider)]

    def _ref(self, model: str, provider: str | None) -> str | None:
        if provider is not None:
            return f"{provider}:{model}"
        alias = self._aliases.get(model)
        if alias is not None:
            return alias
        if ":" in model:
            return model
        for ref in (*self._user, *self._builtin):
            if ref.split(":", 1)[1] == model:
                return ref
        return None

    def _merge(self, ref: str) -> ModelSpec | None:
        prov, model_id = split_model_ref(ref)
        known = self._user.get(ref) or self._builtin.get(ref)
        looked_up = _prices.lookup(prov, model_id) if self._use_genai_prices else None
        if known is None:
            return looked_up
        if looked_up is None or ref in self._user:
            return known
        fill = {
            f.name: getattr(looked_up, f.name)
            for f in dataclasses.fields(ModelSpec)
            if f.name in {"input_price", "output_price", "cached_input_price", "cache_write_price"}
            and getattr(looked_up, f.name) is not None
        }
        if known.context_window is None and looked_up.context_window is not None:
            fill["context_window"] = looked_up.context_window
        return dataclasses.replace(known, **fill)


def _cost_from_spec(spec: ModelSpec, usage: TokenUsage) -> CostBreakdown:
    """Cost in USD from a spec's per-million prices (reasoning at the output price)."""
    input_price = spec.input_price or 0.0
    output_price = spec.output_price or 0.0
    cached = usage.cached_input_tokens
    written = usage.cache_write_tokens
    cached_price = input_price if spec.cached_input_price is None else spec.cached_input_price
    write_price = input_price if spec.cache_write_price is None else spec.cache_write_price
    plain_input = max(usage.input_tokens - cached - written, 0)
    reasoning = min(usage.reasoning_tokens, usage.output_tokens)
    return CostBreakdown(
        input=(plain_input * input_price + cached * cached_price + written * write_price) / _MILLION,
        output=(usage.output_tokens - reasoning) * output_price / _MILLION,
        reasoning=reasoning * output_price / _MILLION,
    )
