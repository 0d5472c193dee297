"""Reasoning models: the effort or budget in each provider's native parameter, reasoning tokens
read from usage and priced apart, and thinking text streamed as its own event, never parsed."""

from __future__ import annotations

import re

import pytest

from llmist import Agent, GadgetCallEvent, Reasoning, ReasoningEvent, TextEvent, gadget
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import LLMRequest, Message, complete
from llmist.providers.compatible import openai_compatible
from llmist.providers.gemini import GeminiProvider
from llmist.providers.openai import OpenAIProvider
from llmist.providers.retry import RetryPolicy
from llmist.testing import MockModel
from tests.providers.fake_servers import FakeServer, anthropic_stream, gemini_stream, openai_stream
from tests.providers.kits import serve_model

HI = [Message("user", "Hi")]


async def _openai_body(reasoning: Reasoning, retry: RetryPolicy) -> dict[str, object]:
    with FakeServer([openai_stream(["ok"])]) as server:
        provider = OpenAIProvider(api_key="k", base_url=f"{server.base_url}/v1", retry=retry)
        await complete(provider, LLMRequest("gpt-5", HI, reasoning=reasoning))
    body: dict[str, object] = server.requests[0].body
    return body


async def test_openai_gets_reasoning_effort(fast_retry: RetryPolicy) -> None:
    body = await _openai_body(Reasoning(effort="high"), fast_retry)
    assert body["reasoning_effort"] == "high"


async def test_openai_given_a_budget_gets_the_effort_that_covers_it(fast_retry: RetryPolicy) -> None:
    body = await _openai_body(Reasoning(budget_tokens=5000), fast_retry)
    assert body["reasoning_effort"] == "medium"


async def test_openai_compatible_servers_get_reasoning_effort(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        provider = openai_compatible("vllm", base_url=f"{server.base_url}/v1", retry=fast_retry)
        await complete(provider, LLMRequest("qwen3", HI, reasoning=Reasoning(effort="low")))
    assert server.requests[0].body["reasoning_effort"] == "low"


async def _anthropic_body(
    reasoning: Reasoning, retry: RetryPolicy, max_tokens: int | None = None, model: str = "claude-sonnet-5-5"
) -> dict[str, object]:
    with FakeServer([anthropic_stream(["ok"], model=model)]) as server:
        provider = AnthropicProvider(api_key="k", base_url=server.base_url, retry=retry)
        await complete(provider, LLMRequest(model, HI, max_tokens=max_tokens, reasoning=reasoning))
    body: dict[str, object] = server.requests[0].body
    return body


async def test_anthropic_budget_is_extended_thinking_on_top_of_the_answer_cap(fast_retry: RetryPolicy) -> None:
    body = await _anthropic_body(Reasoning(budget_tokens=4000), fast_retry, max_tokens=1000)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert body["max_tokens"] == 5000


async def test_anthropic_effort_is_adaptive_thinking_at_that_effort(fast_retry: RetryPolicy) -> None:
    body = await _anthropic_body(Reasoning(effort="high"), fast_retry)
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "high"}
    assert body["max_tokens"] == 8192


@pytest.mark.parametrize("model", ["claude-opus-4-1", "claude-sonnet-4-20250514", "claude-3-7-sonnet-latest"])
async def test_anthropic_models_without_adaptive_thinking_get_the_efforts_budget(
    model: str, fast_retry: RetryPolicy
) -> None:
    body = await _anthropic_body(Reasoning(effort="low"), fast_retry, max_tokens=1000, model=model)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 3048 and "output_config" not in body


async def test_anthropic_effort_none_disables_thinking(fast_retry: RetryPolicy) -> None:
    body = await _anthropic_body(Reasoning(effort="none"), fast_retry)
    assert body["thinking"] == {"type": "disabled"}


async def _gemini_config(reasoning: Reasoning, retry: RetryPolicy, model: str = "gemini-3.8-flash") -> object:
    with FakeServer([gemini_stream(["ok"])]) as server:
        provider = GeminiProvider(api_key="k", base_url=server.base_url, retry=retry)
        await complete(provider, LLMRequest(model, HI, reasoning=reasoning))
    config = server.requests[0].body["generationConfig"]["thinkingConfig"]
    # The API takes either spelling of a field; compare in one.
    return {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), k): v for k, v in config.items()}


async def test_gemini_budget_is_thinking_budget_with_thoughts_shown(fast_retry: RetryPolicy) -> None:
    config = await _gemini_config(Reasoning(budget_tokens=2048), fast_retry)
    assert config == {"thinking_budget": 2048, "include_thoughts": True}


async def test_gemini_2_has_no_levels_and_gets_the_efforts_budget(fast_retry: RetryPolicy) -> None:
    config = await _gemini_config(Reasoning(effort="low"), fast_retry, model="gemini-2.5-flash")
    assert config == {"thinking_budget": 2048, "include_thoughts": True}


async def test_gemini_effort_is_thinking_level(fast_retry: RetryPolicy) -> None:
    config = await _gemini_config(Reasoning(effort="low"), fast_retry)
    assert config == {"thinking_level": "LOW", "include_thoughts": True}


REASONING_STREAMS = {
    "openai": (
        lambda url: OpenAIProvider(api_key="k", base_url=f"{url}/v1"),
        openai_stream(["42"], completion_tokens=500, reasoning_tokens=400),
    ),
    "anthropic": (
        lambda url: AnthropicProvider(api_key="k", base_url=url),
        anthropic_stream(["42"], output_tokens=500, thinking=["hmm"], thinking_tokens=400),
    ),
    "gemini": (
        lambda url: GeminiProvider(api_key="k", base_url=url),
        gemini_stream(["42"], output_tokens=100, thoughts=["hmm"], thoughts_tokens=400),
    ),
}


@pytest.mark.parametrize("kind", list(REASONING_STREAMS))
async def test_reasoning_tokens_are_read_from_usage_as_part_of_the_output(kind: str) -> None:
    make, stream = REASONING_STREAMS[kind]
    with FakeServer([stream]) as server:
        response = await complete(make(server.base_url), LLMRequest("m", HI))
    assert (response.usage.output_tokens, response.usage.reasoning_tokens) == (500, 400)


PRICED = {"openai": "openai:o3", "anthropic": "anthropic:claude-opus-5-5", "gemini": "gemini:gemini-2.5-pro"}


@pytest.mark.parametrize("kind", list(PRICED))
async def test_reasoning_tokens_are_priced_apart_from_the_answer(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = ModelRegistry()
    provider, model_id = PRICED[kind].split(":", 1)
    registry.register(ModelSpec(provider, model_id, input_price=1.0, output_price=10.0))
    with FakeServer([REASONING_STREAMS[kind][1]]) as server:
        agent = Agent(model=serve_model(PRICED[kind], server, monkeypatch), model_registry=registry)
        result = await agent.run("What is six times seven?")
    breakdown = registry.cost_breakdown(PRICED[kind], result.usage)
    assert result.usage.reasoning_tokens == 400
    assert breakdown.reasoning == pytest.approx(400 * 10.0 / 1_000_000)
    assert breakdown.output == pytest.approx(100 * 10.0 / 1_000_000)
    assert result.llm_cost == pytest.approx(breakdown.total)


def test_the_default_registry_splits_reasoning_from_output() -> None:
    from llmist.providers.base import Usage

    breakdown = ModelRegistry().cost_breakdown("openai:o3", Usage(output_tokens=1000, reasoning_tokens=750))
    assert breakdown.reasoning == pytest.approx(3 * breakdown.output)
    assert breakdown.total == pytest.approx(ModelRegistry().cost("openai:o3", Usage(output_tokens=1000)))


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


CALL = "!!!GADGET_START:add\n!!!ARG:a\n2\n!!!ARG:b\n3\n!!!GADGET_END\n"


async def test_thinking_streams_as_reasoning_events_and_is_never_parsed(fast_retry: RetryPolicy) -> None:
    # The thinking drafts a call; only the answer's call may run.
    stream = anthropic_stream(["The answer is 42."], thinking=["Maybe I should call\n", CALL])
    with FakeServer([stream]) as server:
        provider = AnthropicProvider(api_key="k", base_url=server.base_url, retry=fast_retry)
        events = [e async for e in Agent(model=provider, gadgets=[add]).stream("Think, then answer.")]
    reasoning = [e.content for e in events if isinstance(e, ReasoningEvent)]
    assert "".join(reasoning) == "Maybe I should call\n" + CALL
    assert not any(isinstance(e, GadgetCallEvent) for e in events)
    assert "".join(e.content for e in events if isinstance(e, TextEvent)) == "The answer is 42."
    assert ReasoningEvent.type == "reasoning"


async def test_an_agent_passes_its_reasoning_setting_with_every_request() -> None:
    model = MockModel([CALL, "5"])
    await Agent(model=model, gadgets=[add], reasoning="high").run("Add 2 and 3")
    assert [r.reasoning for r in model.requests] == [Reasoning(effort="high")] * 2


async def test_mock_model_thinking_reaches_the_stream_but_not_the_output() -> None:
    model = MockModel(["Five."], thinking=["two plus three"])
    agent = Agent(model=model)
    events = [e async for e in agent.stream("Add 2 and 3")]
    assert [e.content for e in events if isinstance(e, ReasoningEvent)] == ["two plus three"]
    result = await Agent(model=MockModel(["Five."], thinking=["two plus three"])).run("Add 2 and 3")
    assert result.output == "Five." and result.usage.reasoning_tokens > 0
    assert not any("two plus three" in m.text for m in result.messages)


def test_a_token_budget_or_an_effort_name_stands_for_a_reasoning_setting() -> None:
    assert Reasoning.of("low") == Reasoning(effort="low")
    assert Reasoning.of(3000) == Reasoning(budget_tokens=3000)
    assert Reasoning(effort="medium").budget == 8192


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs an effort"),
        ({"effort": "extreme"}, "Unknown reasoning effort 'extreme'; expected one of none, minimal"),
        ({"budget_tokens": -1}, "budget_tokens must be a whole number >= 0"),
    ],
)
def test_a_bad_reasoning_setting_says_what_was_expected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Reasoning(**kwargs)  # type: ignore[arg-type]
