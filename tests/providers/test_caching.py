"""Prompt caching: what is marked cacheable, cached tokens read from every provider's usage,
and priced at the cached rate, through the real SDKs against the fake servers."""

from __future__ import annotations

import pytest

from llmist import Agent
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import LLMRequest, Message, complete
from llmist.providers.compatible import openai_compatible
from llmist.providers.gemini import GeminiProvider
from llmist.providers.openai import OpenAIProvider
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeResponse, FakeServer, anthropic_stream, gemini_stream, openai_stream
from tests.providers.kits import serve_model

EPHEMERAL = {"type": "ephemeral"}
CONVERSATION = [
    Message("system", "Rules and the gadget list."),
    Message("user", "Add 2 and 3"),
    Message("assistant", "calling add"),
    Message("gadget_result", "Result of add: 5"),
]


async def test_anthropic_marks_the_system_prompt_and_the_conversation_end_cacheable(fast_retry: RetryPolicy) -> None:
    with FakeServer([anthropic_stream(["ok"])]) as server:
        provider = AnthropicProvider(api_key="k", base_url=server.base_url, retry=fast_retry)
        await complete(provider, LLMRequest(model="claude-sonnet-5-5", messages=CONVERSATION))
    body = server.requests[0].body
    assert body["system"][0]["cache_control"] == EPHEMERAL
    first, middle, last = body["messages"]
    assert first["content"] == "Add 2 and 3" and middle["content"] == "calling add"
    assert last["content"] == [{"type": "text", "text": "Result of add: 5", "cache_control": EPHEMERAL}]


async def test_anthropic_conversation_caching_can_be_turned_off(fast_retry: RetryPolicy) -> None:
    with FakeServer([anthropic_stream(["ok"])]) as server:
        provider = AnthropicProvider(api_key="k", base_url=server.base_url, retry=fast_retry, cache_conversation=False)
        await complete(provider, LLMRequest(model="claude-sonnet-5-5", messages=CONVERSATION))
    assert server.requests[0].body["messages"][-1]["content"] == "Result of add: 5"


CACHED_STREAMS: dict[str, tuple[FakeResponse, tuple[int, int, int]]] = {
    # provider: (a stream reporting cache use, expected (input, cached, written))
    "openai": (openai_stream(["ok"], prompt_tokens=1200, cached_tokens=1000), (1200, 1000, 0)),
    "anthropic": (
        anthropic_stream(["ok"], input_tokens=10, cache_read_input_tokens=1000, cache_creation_input_tokens=190),
        (1200, 1000, 190),
    ),
    "gemini": (gemini_stream(["ok"], prompt_tokens=1200, cached_tokens=1000), (1200, 1000, 0)),
    "openrouter": (
        openai_stream(["ok"], prompt_tokens=1200, cached_tokens=1000, cache_write_tokens=190),
        (1200, 1000, 190),
    ),
}


def _provider(kind: str, url: str, retry: RetryPolicy) -> AnthropicProvider | GeminiProvider | OpenAIProvider:
    if kind == "anthropic":
        return AnthropicProvider(api_key="k", base_url=url, retry=retry)
    if kind == "gemini":
        return GeminiProvider(api_key="k", base_url=url, retry=retry)
    if kind == "openrouter":
        return openai_compatible("openrouter", api_key="k", base_url=f"{url}/v1", retry=retry)
    return OpenAIProvider(api_key="k", base_url=f"{url}/v1", retry=retry)


@pytest.mark.parametrize("kind", list(CACHED_STREAMS))
async def test_cached_and_written_tokens_are_read_from_usage(kind: str, fast_retry: RetryPolicy) -> None:
    stream, expected = CACHED_STREAMS[kind]
    with FakeServer([stream]) as server:
        response = await complete(
            _provider(kind, server.base_url, fast_retry), LLMRequest("m", [Message("user", "Hi")])
        )
    usage = response.usage
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_tokens) == expected


PRICED_MODELS = {
    "openai": "openai:gpt-4o",
    "anthropic": "anthropic:claude-sonnet-5-5",
    "gemini": "gemini:gemini-2.5-flash",
}


@pytest.mark.parametrize("kind", list(PRICED_MODELS))
async def test_an_agent_prices_cached_tokens_at_the_cached_rate(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # USD per million: input 2, cached 0.5, cache write 2.5, output 10.
    registry = ModelRegistry()
    provider, model_id = PRICED_MODELS[kind].split(":", 1)
    registry.register(
        ModelSpec(provider, model_id, input_price=2.0, output_price=10.0, cached_input_price=0.5, cache_write_price=2.5)
    )
    stream, (input_tokens, cached, written) = CACHED_STREAMS[kind]
    with FakeServer([stream]) as server:
        agent = Agent(model=serve_model(PRICED_MODELS[kind], server, monkeypatch), model_registry=registry)
        result = await agent.run("Hi")
    plain = input_tokens - cached - written
    expected = (plain * 2.0 + cached * 0.5 + written * 2.5 + result.usage.output_tokens * 10.0) / 1_000_000
    assert result.usage.cached_input_tokens == cached
    assert result.llm_cost == pytest.approx(expected)


def test_the_default_registry_bills_cache_reads_at_the_models_cache_price() -> None:
    registry = ModelRegistry()
    spec = registry.get("anthropic:claude-sonnet-5-5")
    assert spec is not None and spec.input_price is not None and spec.cached_input_price is not None
    from llmist.providers.base import Usage

    cost = registry.cost("anthropic:claude-sonnet-5-5", Usage(input_tokens=1_000_000, cached_input_tokens=1_000_000))
    assert cost == pytest.approx(spec.cached_input_price)
    assert cost < spec.input_price
