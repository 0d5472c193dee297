"""Reliability: retries with backoff, a client-side rate limiter, and the stream guard.

How a failed call is handled (:func:`reliable_stream`):

- A :class:`~llmist.providers.errors.RetryableProviderError` (429, 529/503, other 5xx,
  connection failure or timeout, a 200 with no text and no finish reason) is retried
  with exponential backoff and jitter, honouring the provider's ``Retry-After``,
  up to ``RetryPolicy.max_attempts`` attempts in all. Then the last error is raised.
- A refused connection (:class:`~llmist.providers.errors.ServerNotListeningError`: nothing
  listens at the address, as when a local server is not running or the port is wrong) gets
  ``RetryPolicy.max_refused_attempts`` attempts in all (2: one retry, in case the server was
  just starting), not ``max_attempts``: a server that is not running is not started by a
  backoff, and the user should read the address and the variable that sets it at once, not
  after a minute of retries.
- A stream that breaks mid-way is retried like a connection error **only while nothing
  has reached the caller yet** (no text, reasoning or native tool call). Once something has
  been yielded, a retry would repeat or contradict what the caller already has (and run a
  tool call twice), so we raise
  :class:`~llmist.providers.errors.StreamInterruptedError` carrying the partial text.
- A stream that ends without a finish reason after some text is treated as a break, not
  as a complete answer: nothing is ever silently truncated.
- Other errors (bad key, bad request) are raised at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from llmist.providers.base import LLMChunk, LLMRequest, Message
from llmist.providers.errors import (
    EmptyResponseError,
    RetryableProviderError,
    ServerNotListeningError,
    StreamInterruptedError,
)

__all__ = ["RateLimiter", "RetryPolicy", "backoff_pause", "estimate_tokens", "parse_retry_after", "reliable_stream"]

logger = logging.getLogger("llmist.providers")

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to retry a failed call."""

    max_attempts: int = 5
    """Attempts in all, the first included (1 disables retries)."""
    max_refused_attempts: int = 2
    """Attempts in all while the connection is refused (nothing listens); at most ``max_attempts``."""
    base_delay: float = 1.0
    """Seconds before the first retry; doubled for each further one."""
    max_delay: float = 60.0
    """Upper bound of one pause, ``Retry-After`` included."""
    jitter: float = 0.5
    """Fraction of each backoff pause drawn at random (0 = none, 1 = full jitter)."""
    sleep: Sleep = field(default=asyncio.sleep, repr=False)
    """The coroutine used to wait (tests inject a fast one)."""

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        return backoff_pause(attempt, self.base_delay, self.max_delay, self.jitter)


def backoff_pause(attempt: int, base_delay: float, max_delay: float, jitter: float) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based): ``base_delay`` doubled
    for each attempt after the first, at most ``max_delay``, less up to ``jitter`` of it drawn at
    random (so that many clients do not retry in step). Shared by the providers' retries and the
    database sessions' (``llmist.agent.sessions._store_retry``)."""
    backoff = min(base_delay * 2.0 ** (attempt - 1), max_delay)
    return backoff * (1.0 - jitter * random.random())


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date), if present."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        with contextlib.suppress(ValueError):
            return float(millis) / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def estimate_tokens(messages: Sequence[Message]) -> int:
    """A rough token count of a conversation (4 characters per token), for the rate limiter."""
    return sum(len(m.text) for m in messages) // 4 + 1


class RateLimiter:
    """Keeps requests and tokens per minute under limits by waiting, never by failing.

    Share one instance between providers that draw on the same quota.
    """

    _WINDOW = 60.0

    def __init__(
        self,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._sleep = sleep
        self._log: deque[tuple[float, int, int]] = deque()
        self._lock = asyncio.Lock()

    async def acquire(self, tokens: int = 0) -> None:
        """Wait until one more request of about ``tokens`` tokens fits in the last minute, then count it."""
        async with self._lock:
            while True:
                now = self._clock()
                self._prune(now)
                wait = self._wait_needed(now, tokens)
                if wait <= 0:
                    self._log.append((now, 1, tokens))
                    return
                logger.info("Rate limiter: waiting %.2fs before the next request", wait)
                await self._sleep(wait)

    def record(self, tokens: int) -> None:
        """Count ``tokens`` more tokens (e.g. actual usage beyond the estimate) against the current minute."""
        if tokens > 0:
            self._log.append((self._clock(), 0, tokens))

    def _prune(self, now: float) -> None:
        while self._log and self._log[0][0] <= now - self._WINDOW:
            self._log.popleft()

    def _wait_needed(self, now: float, tokens: int) -> float:
        if not self._log:
            return 0.0
        requests = sum(r for _, r, _ in self._log)
        used = sum(t for _, _, t in self._log)
        over_requests = self.requests_per_minute is not None and requests + 1 > self.requests_per_minute
        over_tokens = self.tokens_per_minute is not None and used + tokens > self.tokens_per_minute
        if not (over_requests or over_tokens):
            return 0.0
        return self._log[0][0] + self._WINDOW - now


async def reliable_stream(
    attempt: Callable[[], AsyncIterator[LLMChunk]],
    request: LLMRequest,
    *,
    provider: str,
    policy: RetryPolicy,
    limiter: RateLimiter | None = None,
) -> AsyncIterator[LLMChunk]:
    """Run ``attempt`` (one streamed call) with the retry rules of this module; yield its chunks."""
    estimate = estimate_tokens(request.messages) if limiter is not None else 0
    number = 0
    while True:
        number += 1
        if limiter is not None:
            await limiter.acquire(estimate)
        received = _Received(provider)
        try:
            chunks = attempt()
            try:
                async for chunk in chunks:
                    received.add(chunk)
                    if chunk.usage is not None and limiter is not None:
                        limiter.record(chunk.usage.total_tokens - estimate)
                    yield chunk
            finally:
                await _close(chunks)
            received.check_finished()
            return
        except RetryableProviderError as error:
            if received.anything:  # the caller has seen part of it: a retry would repeat that part
                raise received.interrupted(f"The {provider} stream broke: {error}") from error
            await _pause_or_give_up(error, number, provider, policy)


class _Received:
    """What one attempt streamed so far, to tell an interrupted stream from one that never began."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls = False
        self._finished = False

    def add(self, chunk: LLMChunk) -> None:
        self._text.append(chunk.text)
        self._reasoning.append(chunk.reasoning)
        self._calls = self._calls or bool(chunk.tool_calls)
        self._finished = self._finished or chunk.finish_reason is not None

    @property
    def anything(self) -> bool:
        return self._calls or any(self._text) or any(self._reasoning)

    def interrupted(self, message: str) -> StreamInterruptedError:
        return StreamInterruptedError(
            message,
            provider=self._provider,
            partial_text="".join(self._text),
            partial_reasoning="".join(self._reasoning),
        )

    def check_finished(self) -> None:
        """Raise if the stream ended without a finish reason."""
        if self._finished:
            return
        if self.anything:
            raise self.interrupted(f"The {self._provider} stream ended without a finish reason")
        raise EmptyResponseError(
            f"The {self._provider} response had no text and no finish reason", provider=self._provider
        )


async def _pause_or_give_up(error: RetryableProviderError, number: int, provider: str, policy: RetryPolicy) -> None:
    """Wait before attempt ``number + 1``, or re-raise ``error`` when the policy's attempts are spent."""
    error.attempts = number
    limit = policy.max_attempts
    if isinstance(error, ServerNotListeningError):
        limit = min(limit, policy.max_refused_attempts)
    if number >= limit:
        raise error
    pause = policy.delay(number, error.retry_after)
    logger.warning("%s call failed (%s), attempt %d of %d; retrying in %.2fs", provider, error, number, limit, pause)
    await policy.sleep(pause)


async def _close(chunks: AsyncIterator[LLMChunk]) -> None:
    """Close an async generator early so the HTTP response behind it is released."""
    aclose = getattr(chunks, "aclose", None)
    if aclose is not None:
        await aclose()
