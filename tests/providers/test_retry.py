"""Retry policy, Retry-After parsing, the stream guard and the rate limiter, without any server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from llmist.providers.base import LLMChunk, LLMRequest, Message, ToolCall, Usage
from llmist.providers.errors import (
    BadRequestError,
    EmptyResponseError,
    ProviderConnectionError,
    ServerNotListeningError,
    StreamInterruptedError,
)
from llmist.providers.retry import RateLimiter, RetryPolicy, parse_retry_after, reliable_stream

REQUEST = LLMRequest(model="m", messages=[Message("user", "x" * 400)])


def _script(*attempts: list[LLMChunk | Exception]) -> Callable[[], AsyncIterator[LLMChunk]]:
    remaining = list(attempts)

    async def attempt() -> AsyncIterator[LLMChunk]:
        for item in remaining.pop(0):
            if isinstance(item, Exception):
                raise item
            yield item

    return attempt


DONE = LLMChunk(usage=Usage(10, 5), finish_reason="stop")


async def _collect(attempt: Callable[[], AsyncIterator[LLMChunk]], policy: RetryPolicy) -> list[LLMChunk]:
    return [c async for c in reliable_stream(attempt, REQUEST, provider="p", policy=policy)]


async def test_a_refused_connection_is_retried_once_not_max_attempts_times() -> None:
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    refused = ServerNotListeningError("nothing listens", provider="p")
    policy = RetryPolicy(max_attempts=5, sleep=sleep)
    with pytest.raises(ServerNotListeningError) as caught:
        await _collect(_script([refused], [refused], [refused], [refused], [refused]), policy)
    assert caught.value.attempts == 2 and len(pauses) == 1


async def test_a_server_that_starts_during_the_one_retry_answers(fast_retry: RetryPolicy) -> None:
    refused = ServerNotListeningError("nothing listens", provider="p")
    chunks = await _collect(_script([refused], [LLMChunk(text="hi"), DONE]), fast_retry)
    assert "".join(c.text for c in chunks) == "hi"


def test_backoff_doubles_and_is_capped() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=0.0)
    assert [policy.delay(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]


def test_jitter_only_shortens_the_pause() -> None:
    policy = RetryPolicy(base_delay=2.0, jitter=0.5)
    assert all(1.0 <= policy.delay(1) <= 2.0 for _ in range(50))


def test_retry_after_wins_over_backoff_but_is_capped() -> None:
    policy = RetryPolicy(max_delay=30.0)
    assert (policy.delay(1, 12.0), policy.delay(1, 999.0)) == (12.0, 30.0)


def test_parse_retry_after_reads_seconds_millis_and_dates() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({}) is None


async def test_connection_error_before_text_is_retried(fast_retry: RetryPolicy) -> None:
    attempt = _script([ProviderConnectionError("down")], [LLMChunk(text="ok"), DONE])
    chunks = await _collect(attempt, fast_retry)
    assert "".join(c.text for c in chunks) == "ok"


async def test_error_after_text_raises_stream_interrupted_with_partial_text(fast_retry: RetryPolicy) -> None:
    attempt = _script([LLMChunk(text="Hel"), LLMChunk(reasoning="r"), ProviderConnectionError("reset")])
    with pytest.raises(StreamInterruptedError) as info:
        await _collect(attempt, fast_retry)
    assert (info.value.partial_text, info.value.partial_reasoning) == ("Hel", "r")


async def test_error_after_a_native_call_is_not_retried(fast_retry: RetryPolicy) -> None:
    call = ToolCall("call_1", "add", '{"a": 1}')
    attempt = _script([LLMChunk(tool_calls=(call,)), ProviderConnectionError("reset")], [DONE])
    with pytest.raises(StreamInterruptedError):
        await _collect(attempt, fast_retry)


async def test_empty_response_is_retried_until_attempts_run_out(fast_retry: RetryPolicy) -> None:
    attempt = _script([], [], [])
    with pytest.raises(EmptyResponseError) as info:
        await _collect(attempt, fast_retry)
    assert info.value.attempts == 3


async def test_non_retryable_errors_are_raised_at_once(fast_retry: RetryPolicy) -> None:
    attempt = _script([BadRequestError("bad")], [DONE])
    with pytest.raises(BadRequestError):
        await _collect(attempt, fast_retry)


async def test_empty_text_with_a_finish_reason_is_a_valid_answer(fast_retry: RetryPolicy) -> None:
    chunks = await _collect(_script([DONE]), fast_retry)
    assert chunks == [DONE]


class _Clock:
    """A fake clock whose sleep advances time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_rate_limiter_waits_for_the_window_when_requests_run_out() -> None:
    clock = _Clock()
    limiter = RateLimiter(requests_per_minute=2, clock=clock.time, sleep=clock.sleep)
    for _ in range(3):
        await limiter.acquire()
    assert clock.slept == [60.0]


async def test_rate_limiter_waits_when_tokens_run_out() -> None:
    clock = _Clock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock.time, sleep=clock.sleep)
    await limiter.acquire(800)
    clock.now = 10.0
    await limiter.acquire(300)
    assert clock.slept == [50.0]


async def test_rate_limiter_counts_recorded_usage() -> None:
    clock = _Clock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock.time, sleep=clock.sleep)
    await limiter.acquire(100)
    limiter.record(900)
    await limiter.acquire(100)
    assert clock.slept == [60.0]


async def test_rate_limiter_lets_a_lone_oversized_request_through() -> None:
    clock = _Clock()
    limiter = RateLimiter(tokens_per_minute=10, clock=clock.time, sleep=clock.sleep)
    await limiter.acquire(500)
    assert clock.slept == []


async def test_stream_uses_the_rate_limiter(fast_retry: RetryPolicy) -> None:
    clock = _Clock()
    limiter = RateLimiter(requests_per_minute=1, clock=clock.time, sleep=clock.sleep)
    for _ in range(2):
        chunks = reliable_stream(_script([DONE]), REQUEST, provider="p", policy=fast_retry, limiter=limiter)
        [c async for c in chunks]
    assert clock.slept == [60.0]
