"""The OpenAI provider, end to end through the real ``openai`` SDK against a local fake server."""

from __future__ import annotations

import pytest

from llmist.models import ModelRegistry
from llmist.providers.base import LLMRequest, Message, complete
from llmist.providers.errors import (
    AuthenticationError,
    MissingAPIKeyError,
    ProviderServerError,
    RateLimitError,
    StreamInterruptedError,
)
from llmist.providers.openai import OpenAIProvider
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer, openai_error, openai_stream

GADGET_PIECES = ["Let me add.\n!!!GAD", "GET_START:add\n!!!ARG:a\n", "2\n!!!A", "RG:b\n3\n!!!GADGET", "_END\n"]


def _request(text: str = "Hi") -> LLMRequest:
    return LLMRequest(model="gpt-4o", messages=[Message("system", "Be brief."), Message("user", text)])


def _provider(server: FakeServer, retry: RetryPolicy) -> OpenAIProvider:
    return OpenAIProvider(api_key="sk-test", base_url=f"{server.base_url}/v1", retry=retry)


async def test_streams_plain_text_then_usage_and_finish_reason(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["Hel", "lo"], prompt_tokens=12, completion_tokens=2)]) as server:
        chunks = [c async for c in _provider(server, fast_retry).stream(_request())]
    assert "".join(c.text for c in chunks) == "Hello"
    assert chunks[-1].finish_reason == "stop"
    assert chunks[-1].usage is not None
    assert (chunks[-1].usage.input_tokens, chunks[-1].usage.output_tokens) == (12, 2)


async def test_sends_messages_temperature_zero_and_usage_option(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), _request("Hi"))
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert body["temperature"] == 0.0
    assert body["stream_options"] == {"include_usage": True}


async def test_gadget_result_messages_are_sent_as_user_text(fast_retry: RetryPolicy) -> None:
    messages = [Message("user", "Add"), Message("assistant", "call"), Message("gadget_result", "Result: 5")]
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model="gpt-4o", messages=messages))
    assert server.requests[0].body["messages"][-1] == {"role": "user", "content": "Result: 5"}


async def test_usage_prices_to_a_cost(fast_retry: RetryPolicy) -> None:
    stream = openai_stream(["ok"], prompt_tokens=1_000_000, completion_tokens=100_000)
    with FakeServer([stream]) as server:
        response = await complete(_provider(server, fast_retry), _request())
    assert ModelRegistry().cost("openai:gpt-4o", response.usage) == pytest.approx(2.5 + 1.0)


async def test_gadget_block_split_across_events_arrives_intact(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(GADGET_PIECES)]) as server:
        response = await complete(_provider(server, fast_retry), _request())
    assert response.text == "".join(GADGET_PIECES)
    assert "!!!GADGET_START:add\n!!!ARG:a\n2\n!!!ARG:b\n3\n!!!GADGET_END" in response.text


async def test_reasoning_deltas_are_kept_apart_from_text(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["42"], reasoning=["think", "ing"])]) as server:
        response = await complete(_provider(server, fast_retry), _request())
    assert (response.text, response.reasoning) == ("42", "thinking")


async def test_rate_limit_then_success_is_retried_honouring_retry_after() -> None:
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    retry = RetryPolicy(max_attempts=3, sleep=record)
    with FakeServer([openai_error(429, "slow down", headers={"retry-after": "7"}), openai_stream(["ok"])]) as server:
        response = await complete(_provider(server, retry), _request())
    assert response.text == "ok"
    assert waits == [7.0]


async def test_persistent_rate_limit_raises_after_all_attempts(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_error(429)] * 3) as server, pytest.raises(RateLimitError) as info:
        await complete(_provider(server, fast_retry), _request())
    assert info.value.attempts == 3


async def test_server_error_is_retried_then_succeeds(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_error(500, "boom"), openai_stream(["ok"])]) as server:
        response = await complete(_provider(server, fast_retry), _request())
    assert response.text == "ok"
    assert len(server.requests) == 2


async def test_server_error_every_time_raises_server_error(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_error(500, "boom")] * 3) as server, pytest.raises(ProviderServerError, match="500"):
        await complete(_provider(server, fast_retry), _request())


async def test_stream_cut_before_any_text_is_retried(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["a", "b"], cut_after=1), openai_stream(["ok"])]) as server:
        response = await complete(_provider(server, fast_retry), _request())
    assert response.text == "ok"


async def test_stream_cut_after_text_raises_with_the_partial_text(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["Hel", "lo", " world"], cut_after=3)]) as server:
        with pytest.raises(StreamInterruptedError) as info:
            await complete(_provider(server, fast_retry), _request())
    assert info.value.partial_text == "Hello"
    assert len(server.requests) == 1


async def test_empty_response_without_finish_reason_is_retried(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream([], finish_reason=None), openai_stream(["ok"])]) as server:
        response = await complete(_provider(server, fast_retry), _request())
    assert response.text == "ok"


async def test_invalid_key_raises_authentication_error_naming_the_env_var(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_error(401, "Incorrect API key")]) as server, pytest.raises(AuthenticationError) as info:
        await complete(_provider(server, fast_retry), _request())
    assert "OPENAI_API_KEY" in str(info.value)
    assert len(server.requests) == 1


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        OpenAIProvider()
