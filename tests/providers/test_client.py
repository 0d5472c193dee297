"""LLMClient and CostReportingClient against the OpenAI fake server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from llmist.providers.base import LLMChunk, LLMRequest, Message, Reasoning, ToolSpec, Usage
from llmist.providers.client import CostReportingClient, LLMClient
from tests.providers.fake_servers import FakeServer, openai_stream


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the OpenAI provider at whatever the test sets as OPENAI_BASE_URL."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _serve(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")


def test_client_is_constructible_without_arguments() -> None:
    assert LLMClient().cost == 0.0


async def test_complete_returns_text_and_accounts_usage_and_cost(
    openai_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer([openai_stream(["Hel", "lo"], prompt_tokens=1_000_000, completion_tokens=0)]) as server:
        _serve(server, monkeypatch)
        client = LLMClient()
        text = await client.complete("Hi", model="gpt-4o", system="Be brief.")
    assert text == "Hello"
    assert client.usage.input_tokens == 1_000_000
    assert client.cost == pytest.approx(2.5)
    assert server.requests[0].body["messages"][0] == {"role": "system", "content": "Be brief."}


async def test_stream_text_yields_only_text(openai_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer([openai_stream(["a", "b"], reasoning=["r"])]) as server:
        _serve(server, monkeypatch)
        pieces = [p async for p in LLMClient(model="openai:gpt-4o").stream_text("Hi")]
    assert pieces == ["a", "b"]


async def test_stream_accepts_a_request_whose_model_is_a_model_string(
    openai_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer([openai_stream(["ok"])]) as server:
        _serve(server, monkeypatch)
        request = LLMRequest(model="gpt-4o-mini", messages=[Message("user", "Hi")])
        chunks = [c async for c in LLMClient().stream(request)]
    assert chunks[-1].finish_reason == "stop"
    assert server.requests[0].body["model"] == "gpt-4o-mini"


async def test_stream_keeps_every_field_of_a_request_tools_and_reasoning_included(
    openai_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = ToolSpec("add", "Add.", {"type": "object", "properties": {}})
    with FakeServer([openai_stream(["ok"])]) as server:
        _serve(server, monkeypatch)
        request = LLMRequest(
            model="gpt-4o", messages=[Message("user", "Hi")], tools=(tool,), reasoning=Reasoning("low")
        )
        [c async for c in LLMClient().stream(request)]
    body = server.requests[0].body
    assert (body["tools"][0]["function"]["name"], body["reasoning_effort"]) == ("add", "low")


async def test_cost_reporting_client_reports_each_call_and_adds_to_the_parent(
    openai_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    reported: list[float] = []
    script = [openai_stream(["x"], prompt_tokens=1_000_000, completion_tokens=0)] * 2
    with FakeServer(script) as server:
        _serve(server, monkeypatch)
        parent = LLMClient(model="gpt-4o")
        child = CostReportingClient(parent, reported.append)
        await child.complete("one")
        await child.complete("two")
    assert reported == [pytest.approx(2.5), pytest.approx(2.5)]
    assert parent.cost == pytest.approx(5.0)


async def test_a_provider_instance_can_stand_in_for_a_model_string() -> None:
    class Scripted:
        name = "scripted"

        async def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
            yield LLMChunk(text="hi")
            yield LLMChunk(usage=Usage(3, 1), finish_reason="stop")

    client = LLMClient()
    assert await client.complete("Hi", model=Scripted()) == "hi"
    assert client.usage.total_tokens == 4
