"""Anthropic specifics: prompt caching, role alternation, cache usage, in-stream errors."""

from __future__ import annotations

import pytest

from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import ImagePart, LLMRequest, Message, TextPart, complete
from llmist.providers.errors import MissingAPIKeyError
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer, anthropic_stream

MODEL = "claude-sonnet-5-5"


def _provider(server: FakeServer, retry: RetryPolicy) -> AnthropicProvider:
    return AnthropicProvider(api_key="sk-ant-test", base_url=server.base_url, retry=retry)


async def test_system_prompt_is_sent_with_cache_control(fast_retry: RetryPolicy) -> None:
    request = LLMRequest(model=MODEL, messages=[Message("system", "Rules."), Message("user", "Hi")])
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server, fast_retry), request)
    body = server.requests[0].body
    assert body["system"] == [{"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral"}}]
    assert server.requests[0].path == "/v1/messages"


async def test_gadget_results_become_user_turns_merged_with_neighbours(fast_retry: RetryPolicy) -> None:
    messages = [
        Message("user", "Add 2 and 3"),
        Message("assistant", "calling add"),
        Message("gadget_result", "Result of add: 5"),
        Message("user", "Now finish"),
    ]
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=messages))
    sent = server.requests[0].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[2]["content"][0]["text"] == "Result of add: 5\n\nNow finish"


async def test_temperature_and_default_max_tokens(fast_retry: RetryPolicy) -> None:
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=[Message("user", "Hi")]))
    body = server.requests[0].body
    assert "temperature" not in body
    assert body["max_tokens"] == 8192


async def test_cache_reads_and_writes_count_as_input(fast_retry: RetryPolicy) -> None:
    stream = anthropic_stream(
        ["ok"], model=MODEL, input_tokens=10, cache_read_input_tokens=1000, cache_creation_input_tokens=200
    )
    with FakeServer([stream]) as server:
        response = await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=[]))
    usage = response.usage
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_tokens) == (1210, 1000, 200)


async def test_thinking_is_kept_apart_from_text(fast_retry: RetryPolicy) -> None:
    with FakeServer([anthropic_stream(["42"], model=MODEL, thinking=["hmm, ", "six times seven"])]) as server:
        response = await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=[]))
    assert (response.text, response.reasoning) == ("42", "hmm, six times seven")


async def test_overloaded_error_event_before_text_is_retried(fast_retry: RetryPolicy) -> None:
    script = [anthropic_stream(["x"], model=MODEL, error_after=2), anthropic_stream(["ok"], model=MODEL)]
    with FakeServer(script) as server:
        response = await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=[]))
    assert response.text == "ok"
    assert len(server.requests) == 2


async def test_images_are_sent_as_base64_blocks(fast_retry: RetryPolicy) -> None:
    message = Message("user", (TextPart("What is this?"), ImagePart(b"\x89PNG", "image/png")))
    with FakeServer([anthropic_stream(["ok"], model=MODEL)]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=[message]))
    blocks = server.requests[0].body["messages"][0]["content"]
    assert blocks[1]["source"] == {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider()
