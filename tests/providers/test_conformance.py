"""Every provider, end to end through its real SDK against a local server speaking its wire format."""

from __future__ import annotations

import json

import pytest

from llmist.models import ModelRegistry
from llmist.providers.base import LLMRequest, Message, Provider, complete
from llmist.providers.errors import (
    AuthenticationError,
    ProviderServerError,
    RateLimitError,
    StreamInterruptedError,
)
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer
from tests.providers.kits import KITS, ProviderKit
from tests.providers.tool_script import CALL_ADD, CALL_PLOT, TOOLS

GADGET_PIECES = ["Let me add.\n!!!GAD", "GET_START:add\n!!!ARG:a\n", "2\n!!!A", "RG:b\n3\n!!!GADGET", "_END\n"]


@pytest.fixture(params=KITS, ids=[k.name for k in KITS])
def kit(request: pytest.FixtureRequest) -> ProviderKit:
    """Each provider in turn."""
    value: ProviderKit = request.param
    return value


def _request(kit: ProviderKit) -> LLMRequest:
    return LLMRequest(model=kit.model, messages=[Message("system", "Be brief."), Message("user", "Hi")])


def _provider(kit: ProviderKit, server: FakeServer, retry: RetryPolicy) -> Provider:
    return kit.make(server.base_url, retry)


async def test_streams_plain_text_then_usage_and_finish_reason(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.text(["Hel", "lo"], input_tokens=12, output_tokens=2)]) as server:
        chunks = [c async for c in _provider(kit, server, fast_retry).stream(_request(kit))]
    assert "".join(c.text for c in chunks) == "Hello"
    assert chunks[-1].finish_reason is not None
    assert chunks[-1].usage is not None
    assert (chunks[-1].usage.input_tokens, chunks[-1].usage.output_tokens) == (12, 2)


async def test_usage_prices_to_the_registry_cost(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.text(["ok"], input_tokens=100_000, output_tokens=10_000)]) as server:
        response = await complete(_provider(kit, server, fast_retry), _request(kit))
    registry = ModelRegistry()
    spec = registry.get(kit.model, kit.name)
    expected = 0.0 if spec is None else (spec.input_price or 0) / 10 + (spec.output_price or 0) / 100
    assert registry.cost(kit.model, response.usage, kit.name) == pytest.approx(expected)


async def test_gadget_block_split_across_events_arrives_intact(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.text(GADGET_PIECES)]) as server:
        response = await complete(_provider(kit, server, fast_retry), _request(kit))
    assert response.text == "".join(GADGET_PIECES)


async def test_rate_limit_then_success_honours_retry_after(kit: ProviderKit) -> None:
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    retry = RetryPolicy(max_attempts=3, sleep=record)
    script = [kit.error(429, "slow down", headers={"retry-after": "7"}), kit.text(["ok"])]
    with FakeServer(script) as server:
        response = await complete(_provider(kit, server, retry), _request(kit))
    assert response.text == "ok"
    assert waits == [7.0]


async def test_rate_limit_every_time_raises_after_all_attempts(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.error(429, "slow down")] * 3) as server, pytest.raises(RateLimitError) as info:
        await complete(_provider(kit, server, fast_retry), _request(kit))
    assert info.value.attempts == 3


async def test_server_error_is_retried_then_succeeds(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.error(500, "boom"), kit.text(["ok"])]) as server:
        response = await complete(_provider(kit, server, fast_retry), _request(kit))
    assert response.text == "ok"
    assert len(server.requests) == 2


async def test_server_error_every_time_raises_server_error(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.error(500, "boom")] * 3) as server, pytest.raises(ProviderServerError, match="500"):
        await complete(_provider(kit, server, fast_retry), _request(kit))


async def test_stream_cut_before_any_text_is_retried(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    script = [kit.text(["a", "b"], cut_after=kit.preamble), kit.text(["ok"])]
    with FakeServer(script) as server:
        response = await complete(_provider(kit, server, fast_retry), _request(kit))
    assert response.text == "ok"


async def test_stream_cut_after_text_raises_with_the_partial_text(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    script = [kit.text(["Hel", "lo", " world"], cut_after=kit.preamble + 2)]
    with FakeServer(script) as server, pytest.raises(StreamInterruptedError) as info:
        await complete(_provider(kit, server, fast_retry), _request(kit))
    assert info.value.partial_text == "Hello"
    assert len(server.requests) == 1


async def test_empty_response_without_finish_reason_is_retried(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.text([], finished=False), kit.text(["ok"])]) as server:
        response = await complete(_provider(kit, server, fast_retry), _request(kit))
    assert response.text == "ok"


async def test_text_without_finish_reason_is_reported_not_truncated(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    script = [kit.text(["Hel", "lo"], finished=False)]
    with FakeServer(script) as server, pytest.raises(StreamInterruptedError) as info:
        await complete(_provider(kit, server, fast_retry), _request(kit))
    assert info.value.partial_text == "Hello"


async def test_invalid_key_names_the_env_var_and_is_not_retried(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([kit.auth_error()]) as server, pytest.raises(AuthenticationError) as info:
        await complete(_provider(kit, server, fast_retry), _request(kit))
    assert kit.env_var in str(info.value)
    assert len(server.requests) == 1


async def test_native_tool_calls_stream_out_whole_and_in_order(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    calls = (CALL_ADD, CALL_PLOT)
    with FakeServer([kit.calls(calls)]) as server:
        request = LLMRequest(model=kit.model, messages=[Message("user", "Hi")], tools=TOOLS)
        chunks = [c async for c in _provider(kit, server, fast_retry).stream(request)]
    received = [call for c in chunks for call in c.tool_calls]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in received] == [
        (c.id, c.name, json.loads(c.arguments)) for c in calls
    ]
    assert len([c for c in chunks if c.tool_calls]) == 2
    assert chunks[-1].finish_reason is not None
