"""OpenAI and OpenAI-compatible specifics: request shape, reasoning deltas, presets, keys."""

from __future__ import annotations

import pytest

from llmist.providers.base import ImagePart, LLMRequest, Message, TextPart, complete
from llmist.providers.compatible import SERVERS, openai_compatible
from llmist.providers.errors import MissingAPIKeyError, ProviderServerError, UnknownModelError
from llmist.providers.openai import OpenAIProvider
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeResponse, FakeServer, openai_stream


def _provider(server: FakeServer, retry: RetryPolicy) -> OpenAIProvider:
    return OpenAIProvider(api_key="sk-test", base_url=f"{server.base_url}/v1", retry=retry)


async def test_request_has_messages_temperature_and_usage_option(fast_retry: RetryPolicy) -> None:
    request = LLMRequest(model="gpt-4o", messages=[Message("system", "Be brief."), Message("user", "Hi")])
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), request)
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert body["temperature"] == 0.0
    assert body["stream_options"] == {"include_usage": True}


async def test_reasoning_models_get_no_temperature(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model="gpt-5.5", messages=[Message("user", "Hi")]))
    assert "temperature" not in server.requests[0].body


async def test_gadget_results_are_sent_as_user_text(fast_retry: RetryPolicy) -> None:
    messages = [Message("user", "Add"), Message("assistant", "call"), Message("gadget_result", "Result: 5")]
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model="gpt-4o", messages=messages))
    assert server.requests[0].body["messages"][-1] == {"role": "user", "content": "Result: 5"}


async def test_reasoning_content_deltas_are_kept_apart(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["42"], reasoning=["think", "ing"])]) as server:
        response = await complete(_provider(server, fast_retry), LLMRequest(model="gpt-4o", messages=[]))
    assert (response.text, response.reasoning) == ("42", "thinking")


async def test_images_are_sent_as_data_urls(fast_retry: RetryPolicy) -> None:
    message = Message("user", (TextPart("What?"), ImagePart(b"\xff\xd8", "image/jpeg")))
    with FakeServer([openai_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model="gpt-4o", messages=[message]))
    parts = server.requests[0].body["messages"][0]["content"]
    assert parts[1] == {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9g="}}


async def test_ollama_needs_no_key_and_sends_max_tokens(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        provider = openai_compatible("ollama", base_url=f"{server.base_url}/v1", retry=fast_retry)
        request = LLMRequest(model="qwen2.5:7b", messages=[Message("user", "Hi")], max_tokens=50)
        await complete(provider, request)
    body = server.requests[0].body
    assert (body["model"], body["max_tokens"]) == ("qwen2.5:7b", 50)


def test_compatible_base_url_comes_from_the_preset_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_BASE_URL", "http://gpu-box:8000/v1")
    assert openai_compatible("vllm").base_url == "http://gpu-box:8000/v1"


def test_compatible_base_url_defaults_to_the_usual_local_port() -> None:
    assert openai_compatible("ollama").base_url == SERVERS["ollama"].base_url


def test_hosted_compatible_server_requires_its_key() -> None:
    with pytest.raises(MissingAPIKeyError, match="OPENROUTER_API_KEY"):
        openai_compatible("openrouter")


def test_unknown_compatible_server_lists_the_known_ones() -> None:
    with pytest.raises(UnknownModelError, match="ollama"):
        openai_compatible("nope")


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        OpenAIProvider()


async def test_a_server_that_does_not_answer_in_time_is_retried(fast_retry: RetryPolicy) -> None:
    slow = FakeResponse(events=openai_stream(["late"]).events, delay_s=1.0)
    with FakeServer([slow, openai_stream(["ok"])]) as server:
        provider = OpenAIProvider(api_key="k", base_url=f"{server.base_url}/v1", timeout=0.2, retry=fast_retry)
        response = await complete(provider, LLMRequest(model="gpt-4o", messages=[Message("user", "Hi")]))
    assert response.text == "ok"


async def test_an_error_event_inside_the_stream_is_a_retryable_server_error(fast_retry: RetryPolicy) -> None:
    error_event = FakeResponse(events=['event: error\ndata: {"error": {"message": "upstream died"}}\n\n'])
    with FakeServer([error_event] * 3) as server, pytest.raises(ProviderServerError, match="upstream died"):
        await complete(_provider(server, fast_retry), LLMRequest(model="gpt-4o", messages=[Message("user", "Hi")]))
