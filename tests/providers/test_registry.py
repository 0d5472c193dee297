"""Model strings to providers: prefixes, aliases, registered providers and the environment."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator

import pytest

from llmist.providers import registry as registry_module
from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import LLMChunk, LLMRequest, Provider
from llmist.providers.errors import ProviderNotInstalledError, UnknownModelError
from llmist.providers.gemini import GeminiProvider
from llmist.providers.openai import OpenAIProvider
from llmist.providers.registry import default_model, register_provider, registered_providers, resolve_model


class _Echo:
    """A minimal provider registered under a test prefix."""

    name = "echo"

    async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        yield LLMChunk(text=request.model, finish_reason="stop")


@pytest.fixture
def echo() -> None:
    """Register the ``echo`` provider."""
    register_provider("echo", _Echo)


def test_prefix_selects_the_provider_and_keeps_colons_in_the_model() -> None:
    provider, model = resolve_model("ollama:qwen2.5:7b")
    assert (provider.name, model) == ("ollama", "qwen2.5:7b")


def test_alias_resolves_to_its_provider_and_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    provider, model = resolve_model("sonnet")
    assert isinstance(provider, AnthropicProvider)
    assert model == "claude-sonnet-5-5"


def test_known_model_without_prefix_finds_its_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    provider, model = resolve_model("gemini-2.5-pro")
    assert isinstance(provider, GeminiProvider)
    assert model == "gemini-2.5-pro"


def test_model_family_reveals_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    provider, _ = resolve_model("gpt-9-turbo")
    assert isinstance(provider, OpenAIProvider)


def test_unknown_bare_model_is_refused_even_with_a_key_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with pytest.raises(UnknownModelError, match=r"Unknown model 'some-new-model'.*'openai:some-new-model'"):
        resolve_model("some-new-model")


def test_a_misspelt_alias_suggests_the_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with pytest.raises(UnknownModelError, match=r"Did you mean 'sonnet'\?"):
        resolve_model("sonet")


def test_a_misspelt_provider_prefix_suggests_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with pytest.raises(UnknownModelError, match=r"Unknown provider 'anthropc'.*'anthropic:claude-sonnet-4-5'\?"):
        resolve_model("anthropc:claude-sonnet-4-5")


@pytest.mark.parametrize("name", ["gpt-4o", "o3-mini", "o1", "chatgpt-4o-latest", "ft:gpt-4o-mini:acme::abc123"])
def test_openai_model_ids_need_no_prefix(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    provider, model = resolve_model(name)
    assert (provider.name, model) == ("openai", name)


def test_a_look_alike_name_is_refused_with_its_code_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with pytest.raises(UnknownModelError, match=r"\\u043e3"):
        resolve_model("\u043e3")  # a Cyrillic "о" before the 3: not OpenAI's o3


def test_an_unknown_model_error_quotes_a_huge_name_shortened() -> None:
    with pytest.raises(UnknownModelError) as caught:
        resolve_model("x" * 1_000_000)
    assert len(str(caught.value)) < 1_000


def test_unknown_bare_model_without_keys_explains_the_options() -> None:
    with pytest.raises(UnknownModelError, match="provider:model"):
        resolve_model("some-new-model")


def test_registered_prefix_resolves_bare_and_prefixed(echo: None) -> None:
    bare, bare_model = resolve_model("echo")
    prefixed, model = resolve_model("echo:scripted")
    assert isinstance(bare, Provider) and isinstance(prefixed, _Echo)
    assert (bare_model, model) == ("echo", "scripted")
    assert "echo" in registered_providers()


def test_prefix_with_a_colon_is_refused() -> None:
    with pytest.raises(ValueError, match="colon"):
        register_provider("a:b", _Echo)


def test_empty_spec_uses_llmist_model(monkeypatch: pytest.MonkeyPatch, echo: None) -> None:
    monkeypatch.setenv("LLMIST_MODEL", "echo:x")
    _, model = resolve_model("")
    assert model == "x"


def test_default_model_follows_the_first_key_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    assert default_model().startswith("gemini:")


def test_missing_sdk_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
    with pytest.raises(ProviderNotInstalledError, match=r"-m pip install .*\[anthropic\]'"):
        AnthropicProvider(api_key="k")


@pytest.mark.parametrize(
    ("module", "spec", "package"),
    [("anthropic", "sonnet", "anthropic"), ("openai", "gpt-4o", "openai"), ("google", "flash", "google-genai")],
)
def test_a_missing_sdk_is_named_before_a_missing_key(
    monkeypatch: pytest.MonkeyPatch, module: str, spec: str, package: str
) -> None:
    for name in list(sys.modules):  # google.genai is looked up through google: hide both
        if name == module or name.startswith(module + "."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ProviderNotInstalledError, match=f"needs the '{package}' package"):
        resolve_model(spec)  # no key is set: the package is what is missing first


def test_mock_prefix_is_unknown_until_its_module_registers_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llmist.providers.mock", None)  # as if the module did not exist
    monkeypatch.delitem(registry_module._factories, "mock", raising=False)  # registered by an earlier import
    with pytest.raises(UnknownModelError):
        resolve_model("mock:script")


def test_a_model_name_after_mock_is_an_error_not_an_echo() -> None:
    with pytest.raises(UnknownModelError, match=r"mock provider takes no model name.*MockModel"):
        resolve_model("mock:script.json")
    provider, name = resolve_model("mock")
    assert name == "mock" and type(provider).__name__ == "MockModel"
