"""Gemini specifics: endpoint, system instruction, roles, thoughts, key variables."""

from __future__ import annotations

import pytest

from llmist.providers.base import LLMRequest, Message, complete
from llmist.providers.errors import MissingAPIKeyError
from llmist.providers.gemini import GeminiProvider
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer, gemini_stream

MODEL = "gemini-3.8-flash"


def _provider(server: FakeServer, retry: RetryPolicy) -> GeminiProvider:
    return GeminiProvider(api_key="gm-test", base_url=server.base_url, retry=retry)


async def test_calls_the_streaming_endpoint_with_the_key_header(fast_retry: RetryPolicy) -> None:
    with FakeServer([gemini_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=[Message("user", "Hi")]))
    request = server.requests[0]
    assert request.path.endswith(f"/models/{MODEL}:streamGenerateContent?alt=sse")
    assert request.headers["x-goog-api-key"] == "gm-test"


async def test_system_instruction_roles_and_temperature(fast_retry: RetryPolicy) -> None:
    messages = [
        Message("system", "Rules."),
        Message("user", "Add"),
        Message("assistant", "calling"),
        Message("gadget_result", "5"),
    ]
    with FakeServer([gemini_stream(["ok"])]) as server:
        await complete(_provider(server, fast_retry), LLMRequest(model=MODEL, messages=messages))
    body = server.requests[0].body
    assert body["systemInstruction"]["parts"] == [{"text": "Rules."}]
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["generationConfig"]["temperature"] == 0.0


async def test_thought_parts_are_reasoning_and_thought_tokens_are_output(fast_retry: RetryPolicy) -> None:
    stream = gemini_stream(["42"], thoughts=["thinking"], output_tokens=5, thoughts_tokens=20)
    with FakeServer([stream]) as server:
        response = await complete(
            _provider(server, fast_retry), LLMRequest(model=MODEL, messages=[Message("user", "Hi")])
        )
    assert (response.text, response.reasoning) == ("42", "thinking")
    assert (response.usage.output_tokens, response.usage.reasoning_tokens) == (25, 20)


async def test_finish_reason_is_lower_case(fast_retry: RetryPolicy) -> None:
    with FakeServer([gemini_stream(["ok"], finish_reason="MAX_TOKENS")]) as server:
        response = await complete(
            _provider(server, fast_retry), LLMRequest(model=MODEL, messages=[Message("user", "Hi")])
        )
    assert response.finish_reason == "max_tokens"


def test_google_api_key_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    assert GeminiProvider().name == "gemini"


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(MissingAPIKeyError, match="GEMINI_API_KEY"):
        GeminiProvider()
