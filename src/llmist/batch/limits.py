"""One rate limiter for a whole batch, per provider and model.

How the runs of a batch share a provider's quota (:class:`SharedLimits`):

- Each provider and model (``"openai:gpt-4o"``) has one gate. Before every model request a run
  waits at its gate until the request fits in the :class:`RateLimit` (requests and tokens per
  minute, counted by :class:`~llmist.providers.RateLimiter`); it waits, it never fails.
- A 429 from the provider pauses the gate for **every** run, not only the one that got it: the
  quota is shared, so the other runs would only collect 429s of their own. The pause is the
  provider's ``Retry-After`` when it sent one, else the retry policy's backoff for the number of
  429s in a row (doubling, with jitter). The first request that succeeds ends the streak.
- The failed request itself is retried by :func:`~llmist.providers.retry.reliable_stream` under the
  batch's :class:`~llmist.providers.RetryPolicy`; its retry waits at the gate like any request.

The Ray backend runs one :class:`SharedLimits` inside a Ray actor, so the same rules hold across
a cluster.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from llmist.providers import RateLimiter, RetryPolicy

__all__ = ["BatchLimits", "RateLimit", "RateLimits", "SharedLimits", "limit_for"]

logger = logging.getLogger("llmist.batch")

_Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The quota of one provider and model."""

    requests_per_minute: int | None = None
    """Most requests started in any minute (``None``: no limit)."""
    tokens_per_minute: int | None = None
    """Most tokens (estimated before a request, corrected by its usage) in any minute."""
    window_s: float = 60.0
    """The span the limits count over: a minute for provider quotas; tests shorten it."""


RateLimits: TypeAlias = "RateLimit | Mapping[str, RateLimit]"
"""What ``rate_limits=`` takes: one limit for each provider and model, or limits by
``"provider:model"`` or ``"provider"`` (the longer key wins; unnamed models have no limit)."""


class BatchLimits(Protocol):
    """What a run of a batch asks of the shared limiter (local, or a Ray actor's proxy)."""

    async def acquire(self, key: str, tokens: int) -> None:
        """Wait until a request of about ``tokens`` tokens to ``key`` may start, and count it."""
        ...

    def record(self, key: str, tokens: int) -> None:
        """Count ``tokens`` more (actual usage beyond the estimate) against ``key``."""
        ...

    def rate_limited(self, key: str, retry_after: float | None) -> None:
        """``key`` answered 429: pause it for every run."""
        ...

    def succeeded(self, key: str) -> None:
        """A request to ``key`` went through: the streak of 429s is over."""
        ...


class _Gate:
    """The limits of one provider and model, plus the pause after a 429."""

    def __init__(self, limit: RateLimit | None, clock: Callable[[], float], sleep: _Sleep) -> None:
        self.limiter: RateLimiter | None = None
        if limit is not None and (limit.requests_per_minute or limit.tokens_per_minute):
            scale = 60.0 / limit.window_s  # RateLimiter counts minutes: run its clock faster for a shorter window
            self.limiter = RateLimiter(
                limit.requests_per_minute,
                limit.tokens_per_minute,
                clock=lambda: clock() * scale,
                sleep=lambda seconds: sleep(seconds / scale),
            )
        self.paused_until = 0.0
        self.streak = 0


class SharedLimits:
    """The batch's limiter: one gate per provider and model (see the module docstring)."""

    def __init__(
        self,
        rate_limits: RateLimits | None = None,
        policy: RetryPolicy | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: _Sleep = asyncio.sleep,
    ) -> None:
        self._limits = rate_limits
        self._policy = policy or RetryPolicy()
        self._clock = clock
        self._sleep = sleep
        self._gates: dict[str, _Gate] = {}

    def _gate(self, key: str) -> _Gate:
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gates[key] = _Gate(limit_for(self._limits, key), self._clock, self._sleep)
        return gate

    async def acquire(self, key: str, tokens: int) -> None:
        """Wait out a pause after a 429, then the rate limit; count the request."""
        gate = self._gate(key)
        while (wait := gate.paused_until - self._clock()) > 0:
            await self._sleep(wait)
        if gate.limiter is not None:
            await gate.limiter.acquire(tokens)

    def record(self, key: str, tokens: int) -> None:
        """Count ``tokens`` more against ``key``'s tokens per minute."""
        gate = self._gate(key)
        if gate.limiter is not None:
            gate.limiter.record(tokens)

    def rate_limited(self, key: str, retry_after: float | None) -> None:
        """Pause ``key`` for all runs: ``retry_after``, else the policy's backoff for the streak."""
        gate = self._gate(key)
        gate.streak += 1
        pause = self._policy.delay(gate.streak, retry_after)
        until = self._clock() + pause
        if until > gate.paused_until:
            gate.paused_until = until
            logger.warning(
                "%s answered 429 (%d in a row): the batch pauses its requests for %.2fs", key, gate.streak, pause
            )

    def succeeded(self, key: str) -> None:
        """End ``key``'s streak of 429s."""
        self._gate(key).streak = 0


def limit_for(limits: RateLimits | None, key: str) -> RateLimit | None:
    """The limit of ``key`` (``"provider:model"``): its own, else its provider's, else the one for all."""
    if limits is None or isinstance(limits, RateLimit):
        return limits
    return limits.get(key) or limits.get(key.partition(":")[0])
