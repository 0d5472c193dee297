"""ModelRegistry: lookups, aliases, prices from genai-prices and the built-in table, user models."""

from __future__ import annotations

import pytest

from llmist.models import ModelRegistry, ModelSpec, split_model_ref
from llmist.providers.base import Usage


def test_split_model_ref_keeps_colons_in_the_model_name() -> None:
    assert split_model_ref("ollama:qwen2.5:7b") == ("ollama", "qwen2.5:7b")


def test_split_model_ref_requires_a_provider() -> None:
    with pytest.raises(ValueError, match="provider:model"):
        split_model_ref("gpt-4o")


def test_alias_lookup_returns_the_model_spec() -> None:
    spec = ModelRegistry().get("sonnet")
    assert spec is not None
    assert (spec.provider, spec.model_id, spec.caching) == ("anthropic", "claude-sonnet-5-5", True)


def test_spec_has_limits_and_features() -> None:
    spec = ModelRegistry().get("openai:gpt-4o")
    assert spec is not None
    assert (spec.context_window, spec.max_output_tokens, spec.vision, spec.reasoning) == (128_000, 16_384, True, False)


def test_cost_uses_cached_input_price() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=0, cached_input_tokens=500_000)
    assert ModelRegistry().cost("gpt-4o", usage) == pytest.approx(0.5 * 2.5 + 0.5 * 1.25)


def test_cost_of_a_model_known_only_to_genai_prices() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=0)
    assert ModelRegistry().cost("openai:gpt-4.1-nano", usage) == pytest.approx(0.1)


def test_builtin_table_prices_when_genai_prices_is_off() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_write_tokens=1_000_000)
    registry = ModelRegistry(use_genai_prices=False)
    assert registry.cost("anthropic:claude-sonnet-4-6", usage) == pytest.approx(3.75 + 15.0)


def test_unknown_local_model_costs_nothing() -> None:
    assert ModelRegistry().cost("ollama:qwen2.5:7b", Usage(1000, 1000)) == 0.0


def test_registered_model_prices_win() -> None:
    registry = ModelRegistry()
    registry.register(ModelSpec("ollama", "qwen2.5:7b", input_price=1.0, output_price=2.0, context_window=32_768))
    assert registry.cost("ollama:qwen2.5:7b", Usage(1_000_000, 1_000_000)) == pytest.approx(3.0)
    assert registry.get("ollama:qwen2.5:7b") == ModelSpec(
        "ollama", "qwen2.5:7b", input_price=1.0, output_price=2.0, context_window=32_768
    )


def test_registered_alias_resolves() -> None:
    registry = ModelRegistry()
    registry.register_alias("local", "ollama:llama3.2")
    assert registry.resolve_alias("local") == "ollama:llama3.2"


def test_alias_target_must_name_a_provider() -> None:
    with pytest.raises(ValueError, match="provider:model"):
        ModelRegistry().register_alias("x", "llama3.2")


def test_list_models_filters_by_provider_and_fills_prices() -> None:
    rows = ModelRegistry().list_models("gemini")
    assert rows and all(r.provider == "gemini" for r in rows)
    assert all(r.has_prices for r in rows)


def test_bare_model_id_of_a_builtin_model_is_found() -> None:
    spec = ModelRegistry().get("claude-haiku-4-5")
    assert spec is not None and spec.provider == "anthropic"


@pytest.mark.parametrize(
    "model", ["openai:gpt-4o", "openai:gpt-4.1-mini", "openai:gpt-5", "openai:o3", "sonnet", "gemini:gemini-2.5-flash"]
)
def test_current_catalog_models_call_tools_natively(model: str) -> None:
    spec = ModelRegistry().get(model)
    assert spec is not None and spec.native_tools
    assert ModelRegistry().native_tools(model)


def test_a_model_nothing_is_known_about_does_not_call_tools_natively() -> None:
    assert not ModelRegistry().native_tools("ollama:tinyllama")
    assert ModelSpec("ollama", "tinyllama").native_tools is False


def test_a_registered_model_sets_native_tools() -> None:
    registry = ModelRegistry()
    registry.register(ModelSpec("ollama", "qwen3:8b", native_tools=True))
    assert registry.native_tools("qwen3:8b", "ollama")
    assert registry.native_tools("ollama:qwen3:8b")
