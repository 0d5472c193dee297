"""Retrying a database session store's transaction when its connection drops.

How a transaction of :class:`~llmist.agent.sessions.sqlalchemy_session.SQLAlchemySession` (its load,
its writes, the calls that wait and their decisions) is retried (:func:`retrying`):

- A dropped connection (the server restarted or ended it, refused a new one while it was down
  or starting up, reset it, or the connection timed out) is retried with exponential backoff:
  a pause of ``SessionRetry.base_delay`` (0.25 s) after the first failure, doubled after each
  further one up to ``max_delay`` (4 s), with up to ``jitter`` (half) of each pause drawn at
  random so that many runs do not reconnect in step; at most ``max_attempts`` (10) attempts
  in all, and no pause that would end past ``max_total_s`` (30 s) after the first attempt
  began. So a database restart of a few seconds is survived, and a database that stays away
  fails the run within about half a minute, naming the store and the last error.
- A database this process has not reached yet gets ``first_contact_attempts`` (2) attempts
  only: nothing listening at a URL is far more often a wrong address than a restart, and the
  user should read it at once, not after half a minute of retries.
- A transaction whose connection dropped before its ``COMMIT`` was sent was rolled back by the
  server: it runs again from the start, and reads the store as it is then.
- One whose connection dropped while it was committing may or may not be stored. A read is run
  again. A session write is too, and its script first checks whether the lost attempt landed
  (the stored version is the one after the version it followed, and its messages are there):
  then it is done, not a conflict with itself. Versioned writes make this safe: a write never
  replaces a version it did not follow. Any other change (a decision, a claim on decided calls,
  a release) is not run twice: it fails with a :class:`SessionError` saying that whether it was
  stored is unknown.
- Everything else fails at once, untried again: a version conflict (another writer), an
  approval error, an SQL error, a value the database refuses.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from llmist.agent.errors import SessionError
from llmist.providers.retry import backoff_pause

__all__ = ["Attempt", "SessionRetry", "driver_message", "retrying"]

logger = logging.getLogger("llmist.agent.sessions")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SessionRetry:
    """How a database session store retries a transaction whose connection dropped (the
    policy is the docstring of ``llmist.agent.sessions._store_retry``; ``SessionRetry(max_attempts=1)``
    retries nothing)."""

    max_attempts: int = 10
    """Attempts in all, the first included."""
    base_delay: float = 0.25
    """Seconds before the first retry; doubled for each further one."""
    max_delay: float = 4.0
    """Upper bound of one pause, in seconds."""
    max_total_s: float = 30.0
    """No retry starts past this many seconds after the first attempt began."""
    first_contact_attempts: int = 2
    """Attempts in all (at most ``max_attempts``) while the process has not reached the database yet."""
    jitter: float = 0.5
    """Fraction of each pause drawn at random (0: none, 1: anything from 0 to the full pause)."""
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    """The coroutine used to wait (tests inject a fake one)."""
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    """Seconds, for ``max_total_s`` (tests inject a fake one)."""

    def __post_init__(self) -> None:
        for name in ("max_attempts", "first_contact_attempts"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"SessionRetry.{name} must be a whole number of at least 1, got {value!r}")
        for name in ("base_delay", "max_delay", "max_total_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < float("inf"):
                raise ValueError(f"SessionRetry.{name} must be a finite number of seconds, 0 or more, got {value!r}")
        if not isinstance(self.jitter, int | float) or not 0 <= self.jitter <= 1:
            raise ValueError(f"SessionRetry.jitter must be a fraction from 0 to 1, got {self.jitter!r}")

    def first_contact(self) -> SessionRetry:
        """This policy for a database the process has not reached yet (``first_contact_attempts``)."""
        return dataclasses.replace(self, max_attempts=min(self.max_attempts, self.first_contact_attempts))

    def pause(self, attempt: int, elapsed: float) -> float | None:
        """Seconds to wait after failed attempt number ``attempt`` (1-based), ``elapsed`` seconds
        after the first began; ``None`` when the retries are spent."""
        if attempt >= self.max_attempts:
            return None
        pause = backoff_pause(attempt, self.base_delay, self.max_delay, self.jitter)
        return None if elapsed + pause > self.max_total_s else pause


@dataclass(slots=True)
class Attempt:
    """What one attempt of a transaction tells :func:`retrying`, and is told by it."""

    unknown: bool = False
    """An earlier attempt's connection dropped while it was committing: it may be stored."""
    committing: bool = False
    """Set by the attempt just before it commits (a drop from then on leaves its outcome unknown)."""


async def retrying(
    attempt: Callable[[Attempt], Awaitable[T]],
    *,
    dropped: Callable[[BaseException], bool],
    policy: SessionRetry,
    store: str,
    failed: str,
    rerun_unknown: bool,
) -> T:
    """Run ``attempt`` until it succeeds, retrying it when ``dropped`` says its connection
    dropped, as the module's policy says. ``rerun_unknown``: the transaction may run again
    after a drop while it committed (a read, or a write that checks whether it landed).
    Errors begin with ``store`` (who failed) and ``failed`` (what); a retry is logged as a warning.

    Raises:
        SessionError: the retries are spent (naming the store, the attempts and the last
            error, which is its cause), or a change that is not run twice may or may not
            have been stored.
    """
    state = Attempt()
    start = policy.clock()
    number = 0
    while True:
        number += 1
        state.committing = False
        try:
            return await attempt(state)
        except Exception as exc:
            if not dropped(exc):
                raise
            if state.committing:
                if not rerun_unknown:
                    raise SessionError(
                        f"{store}: {failed}: the connection dropped while a change was being committed "
                        f"({driver_message(exc)}); whether it was stored is unknown, and it is not made twice: "
                        "look at the session (llmist approvals SESSION) before trying again"
                    ) from exc
                state.unknown = True
            elapsed = policy.clock() - start
            pause = policy.pause(number, elapsed)
            if pause is None:
                raise SessionError(
                    f"{store}: {failed}: {driver_message(exc)} (the connection dropped; gave up after "
                    f"{number} attempt{'s' if number > 1 else ''} over {elapsed:.1f} s)"
                ) from exc
            logger.warning(
                "%s: the connection dropped (%s), attempt %d of %d; retrying in %.2f s",
                store,
                driver_message(exc),
                number,
                policy.max_attempts,
                pause,
            )
            await policy.sleep(pause)


def driver_message(exc: BaseException) -> str:
    """The driver's own message (SQLAlchemy's wraps it with a link and the statement)."""
    orig = getattr(exc, "orig", None)
    return f"{type(orig).__name__}: {orig}" if orig is not None else f"{type(exc).__name__}: {exc}"
