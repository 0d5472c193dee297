"""Where the runs of a batch happen: on this event loop, or elsewhere (the Ray backend).

An :class:`Engine` runs one task at a time when asked and can cancel all it is running; the
batch (:class:`~llmist.batch.run.BatchRun`) decides which task starts when, and writes results.
"""

from __future__ import annotations

from typing import Any, Protocol

from llmist.batch._agents import AgentFactory, AgentSource, run_task
from llmist.batch.limits import BatchLimits
from llmist.batch.results import TaskResult
from llmist.batch.tasks import Task
from llmist.gadgets import AbortSignal
from llmist.providers import RetryPolicy

__all__ = ["DEFAULT_RETRY", "Engine", "LocalEngine"]

DEFAULT_RETRY = RetryPolicy(max_attempts=10)
"""The batch's retry policy unless given one: patient, since a 429 should slow a batch, not fail its tasks."""


class Engine(Protocol):
    """Runs the tasks a batch hands it."""

    async def start(self) -> None:
        """Get ready (connect, start workers); raise with a clear message when it cannot."""
        ...

    async def run(self, task: Task) -> TaskResult:
        """Run ``task`` to its end (errors become the result's ``error``)."""
        ...

    def cancel_all(self, reason: str) -> None:
        """Cancel every run in progress; each still returns its (cancelled) result."""
        ...

    async def close(self) -> None:
        """Release what :meth:`start` took."""
        ...


class LocalEngine:
    """Runs every task on the current event loop, all sharing ``limits`` (and ``retry``).

    The asyncio backend gives it a :class:`~llmist.batch.SharedLimits`; each Ray worker runs one
    with a proxy of the cluster's limiter actor.
    """

    def __init__(self, agent_or_factory: Any | AgentFactory, limits: BatchLimits, retry: RetryPolicy) -> None:
        self._source = AgentSource(agent_or_factory, limits, retry)
        self._signals: set[AbortSignal] = set()

    async def start(self) -> None:
        """Nothing to start: the runs use this loop."""

    async def run(self, task: Task) -> TaskResult:
        """Run ``task`` here."""
        signal = AbortSignal()
        self._signals.add(signal)
        try:
            return await run_task(self._source, task, signal)
        finally:
            self._signals.discard(signal)

    def cancel_all(self, reason: str) -> None:
        """Abort the signal of every run in progress."""
        for signal in list(self._signals):
            signal.abort(reason)

    async def close(self) -> None:
        """Nothing to release."""
