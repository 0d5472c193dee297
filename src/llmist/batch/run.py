"""Run an agent over many tasks: bounded concurrency, results written as they come, resume, budget.

How a batch goes (:class:`BatchRun`):

- Tasks whose id already has a successful line in the results file are skipped (resume).
- Up to ``concurrency`` runs are in flight; the next task starts as soon as one ends.
- Each result is appended to the file the moment its run ends, then handed to the caller.
- The budget is checked before each run starts: once the batch has spent ``budget_usd`` (the
  cost of the runs finished by this batch), no new run starts (with ``budget_usd=0``, none
  does); the runs in flight finish (so the spend can pass the budget by what they cost), and
  the summary says the budget stopped it.
- :meth:`BatchRun.stop` (a first Ctrl-C) starts nothing new and lets the runs in flight finish;
  :meth:`BatchRun.cancel` (a second one) cancels them, and each still gets its line, marked
  cancelled, so the file stays whole and the next run with it picks those tasks up again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from llmist.agent import Agent
from llmist.batch._agents import AgentFactory
from llmist.batch.engine import DEFAULT_RETRY, Engine, LocalEngine
from llmist.batch.limits import RateLimits, SharedLimits
from llmist.batch.results import ResultsFile, TaskResult
from llmist.batch.tasks import Task, as_tasks
from llmist.providers import RetryPolicy
from llmist.providers.base import Usage

__all__ = [
    "DEFAULT_CONCURRENCY",
    "BatchRun",
    "BatchSummary",
    "StopReason",
    "arun_batch",
    "iter_batch",
    "run_batch",
    "sigint_stops",
]

logger = logging.getLogger("llmist.batch")

DEFAULT_CONCURRENCY = 100
"""Runs in flight at once unless told otherwise."""

StopReason: TypeAlias = Literal["completed", "budget", "stopped", "cancelled"]
"""Why a batch ended: every task ran, the budget was reached, ``stop()`` (Ctrl-C), ``cancel()`` (twice)."""

if TYPE_CHECKING:
    from llmist.batch.ray_backend import RayBackend

Backend: TypeAlias = "Literal['asyncio', 'ray'] | RayBackend"
"""Where the runs happen: this process's event loop, a Ray cluster (``ray.init()``), or a configured Ray backend."""

TaskInput: TypeAlias = "Iterable[str | Task | Mapping[str, Any]]"
"""Prompts, :class:`Task` records, or mappings with ``prompt`` (and ``id``, ``inputs``)."""


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What a batch did."""

    total: int
    """Tasks given."""
    skipped: int
    """Tasks already done in the results file (not run again)."""
    succeeded: int
    """Runs of this batch that ended without an error."""
    failed: int
    """Runs of this batch that raised or were cancelled (run again by the next batch with the file)."""
    not_started: int
    """Tasks left when the batch stopped early."""
    cost: float
    """USD spent by this batch's runs."""
    usage: Usage
    """Tokens used by this batch's runs."""
    duration_s: float
    """Wall-clock seconds of the batch."""
    stop_reason: StopReason
    """Why it ended."""
    message: str
    """One sentence saying how it ended and, when early, what to do."""
    out: Path
    """The results file."""


class BatchRun:
    """A batch in progress: iterate it for results as runs finish; read the counts for progress.

    Made by :func:`iter_batch`. Iterate it once; the summary is ready when the iteration ends.
    """

    def __init__(
        self, engine: Engine, tasks: list[Task], *, out: Path, concurrency: int, budget_usd: float | None
    ) -> None:
        self.total = len(tasks)
        """Tasks given."""
        self.skipped = 0
        """Tasks already done in the results file."""
        self.succeeded = 0
        """Runs finished without an error."""
        self.failed = 0
        """Runs finished with an error (or cancelled)."""
        self.running = 0
        """Runs in flight."""
        self.cost = 0.0
        """USD spent so far by this batch."""
        self.usage = Usage()
        """Tokens used so far by this batch."""
        self.summary: BatchSummary | None = None
        """Set when the iteration ends."""
        self._engine = engine
        self._tasks = tasks
        self._out = out
        self._concurrency = concurrency
        self._budget = budget_usd
        self._halt: StopReason | None = None
        self._started = 0
        self._pending = 0
        self._began = time.perf_counter()

    @property
    def stopping(self) -> bool:
        """No new run will start."""
        return self._halt is not None

    def stop(self) -> None:
        """Start no new run; let the runs in flight finish."""
        if self._halt is None:
            logger.warning("Batch stopping: no new runs; %d in flight will finish", self.running)
            self._halt = "stopped"

    def cancel(self) -> None:
        """Start no new run and cancel those in flight (each is written as cancelled)."""
        self._halt = "cancelled"
        self._engine.cancel_all("batch cancelled")

    def __aiter__(self) -> AsyncIterator[TaskResult]:
        return self._results()

    async def _results(self) -> AsyncIterator[TaskResult]:
        file = ResultsFile(self._out)
        pending = [t for t in self._tasks if t.id not in file.done]
        self.skipped = self.total - len(pending)
        self._pending = len(pending)
        queue: asyncio.Queue[TaskResult | None] = asyncio.Queue()
        try:
            await self._engine.start()
            dispatcher = asyncio.create_task(self._dispatch(pending, file, queue))
            try:
                while (result := await queue.get()) is not None:
                    yield result
            finally:
                if not dispatcher.done():
                    self.cancel()
                await dispatcher
        finally:
            file.close()
            await self._engine.close()
        self.summary = self._summarize()

    async def _dispatch(self, pending: list[Task], file: ResultsFile, queue: asyncio.Queue[TaskResult | None]) -> None:
        slots = asyncio.Semaphore(self._concurrency)
        running: set[asyncio.Task[None]] = set()
        try:
            for task in pending:
                await slots.acquire()
                self._check_budget()
                if self._halt is not None:
                    slots.release()
                    break
                self._started += 1
                run = asyncio.create_task(self._one(task, file, queue))
                running.add(run)
                run.add_done_callback(running.discard)
                run.add_done_callback(lambda _: slots.release())
            while running:
                await asyncio.wait(set(running))
        finally:
            queue.put_nowait(None)

    async def _one(self, task: Task, file: ResultsFile, queue: asyncio.Queue[TaskResult | None]) -> None:
        self.running += 1
        start = time.perf_counter()
        try:
            result = await self._engine.run(task)
        except Exception as exc:  # the engine itself failed (a worker lost for good): the task failed
            result = TaskResult(
                task.id, None, None, Usage(), 0.0, f"{type(exc).__name__}: {exc}", time.perf_counter() - start
            )
        finally:
            self.running -= 1
        try:
            file.append(result)
        except OSError as exc:  # a full disk, a lost mount: the task failed, loudly, and the batch goes on
            logger.error("Task %s: its result could not be written to %s: %s", task.id, file.path, exc)
            result = dataclasses.replace(result, error=f"the result could not be written to {file.path}: {exc}")
        self._count(result)
        queue.put_nowait(result)

    def _count(self, result: TaskResult) -> None:
        if result.ok:
            self.succeeded += 1
        else:
            self.failed += 1
        self.cost += result.cost
        self.usage = self.usage + result.usage

    def _check_budget(self) -> None:
        """Before a run starts: halt once what the batch spent reaches the budget."""
        # Costs are summed as floats: ten runs of $0.01 sum to $0.09999999999999999, which must
        # count as the $0.10 budget spent, or one more run starts than the budget pays for.
        if self._budget is not None and self.cost >= self._budget * (1 - 1e-9) and self._halt is None:
            logger.warning("Batch budget of $%.4f reached ($%.4f spent): no new runs start", self._budget, self.cost)
            self._halt = "budget"

    def _summarize(self) -> BatchSummary:
        reason: StopReason = self._halt or "completed"
        not_started = self._pending - self._started
        if not_started == 0 and reason in ("stopped", "budget"):
            reason = "completed"
        return BatchSummary(
            total=self.total,
            skipped=self.skipped,
            succeeded=self.succeeded,
            failed=self.failed,
            not_started=not_started,
            cost=self.cost,
            usage=self.usage,
            duration_s=time.perf_counter() - self._began,
            stop_reason=reason,
            message=_message(reason, not_started, self.failed, self.cost, self._budget, self._out, self._started == 0),
            out=self._out,
        )


def _message(
    reason: StopReason, not_started: int, failed: int, cost: float, budget: float | None, out: Path, nothing_ran: bool
) -> str:
    """The summary's sentence: how the batch ended and, when early, what to do."""
    rerun = f"run the batch again with the results file {out} to do the rest"
    if reason == "budget":
        return (
            f"Stopped by the budget: ${cost:.4f} spent of ${budget:.4f}; {not_started} task(s) not started. "
            f"Raise the budget and {rerun}."
        )
    if reason in ("stopped", "cancelled"):
        return f"Interrupted ({reason}): {not_started} task(s) not started, {failed} failed; {rerun}."
    if nothing_ran:
        return f"Nothing to do: every task is already done in {out}."
    if failed:
        return f"Every task ran; {failed} failed (their errors are in {out}); {rerun} (failed tasks run again)."
    return f"Every task ran; results in {out}."


def iter_batch(
    agent_or_factory: Agent[Any] | AgentFactory,
    tasks: TaskInput,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    out: str | Path = "results.jsonl",
    budget_usd: float | None = None,
    rate_limits: RateLimits | None = None,
    retry: RetryPolicy | None = None,
    backend: Backend = "asyncio",
) -> BatchRun:
    """A batch to iterate: ``async for result in iter_batch(agent, prompts): ...`` yields each
    :class:`TaskResult` as its run ends (already written to ``out``). See :func:`run_batch` for the arguments."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if budget_usd is not None and budget_usd < 0:
        raise ValueError(f"budget_usd must be 0 or more, got {budget_usd}")
    engine = _engine(backend, agent_or_factory, rate_limits, retry or DEFAULT_RETRY, concurrency)
    return BatchRun(engine, as_tasks(tasks), out=Path(out), concurrency=concurrency, budget_usd=budget_usd)


def _engine(
    backend: Backend, agent_or_factory: Any, rate_limits: RateLimits | None, retry: RetryPolicy, concurrency: int
) -> Engine:
    if backend == "asyncio":
        return LocalEngine(agent_or_factory, SharedLimits(rate_limits, retry), retry)
    if backend == "ray":
        from llmist.batch.ray_backend import RayBackend

        backend = RayBackend()
    make = getattr(backend, "engine", None)
    if make is None:
        raise ValueError(f"backend must be 'asyncio', 'ray' or a RayBackend(...), got {backend!r}")
    engine: Engine = make(agent_or_factory, rate_limits, retry, concurrency)
    return engine


async def arun_batch(
    agent_or_factory: Agent[Any] | AgentFactory,
    tasks: TaskInput,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    out: str | Path = "results.jsonl",
    budget_usd: float | None = None,
    rate_limits: RateLimits | None = None,
    retry: RetryPolicy | None = None,
    backend: Backend = "asyncio",
    on_result: Callable[[BatchRun, TaskResult], object] | None = None,
    handle_sigint: bool = True,
) -> BatchSummary:
    """:func:`run_batch` for code with an event loop. ``on_result(batch, result)`` is called as each run ends."""
    batch = iter_batch(
        agent_or_factory,
        tasks,
        concurrency=concurrency,
        out=out,
        budget_usd=budget_usd,
        rate_limits=rate_limits,
        retry=retry,
        backend=backend,
    )
    with sigint_stops(batch) if handle_sigint else contextlib.nullcontext():
        async for result in batch:
            if on_result is not None:
                on_result(batch, result)
    assert batch.summary is not None
    return batch.summary


def run_batch(
    agent_or_factory: Agent[Any] | AgentFactory,
    tasks: TaskInput,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    out: str | Path = "results.jsonl",
    budget_usd: float | None = None,
    rate_limits: RateLimits | None = None,
    retry: RetryPolicy | None = None,
    backend: Backend = "asyncio",
) -> BatchSummary:
    """Run an agent over every task and write one result line per run to ``out``.

    Args:
        agent_or_factory: One :class:`~llmist.Agent` for every task (its runs share it), or a
            function making each task's agent (given the :class:`Task`, or nothing).
        tasks: Prompts (id = position), :class:`Task` records, or mappings with ``prompt``,
            optional ``id`` and ``inputs``.
        concurrency: Most runs in flight at once.
        out: The results file (JSON lines). Ids already done there are skipped.
        budget_usd: Start no run once this batch has spent this much.
        rate_limits: A :class:`RateLimit` for each provider and model, or limits by
            ``"provider:model"`` / ``"provider"``. Shared by every run (and, with Ray, every worker).
        retry: The retry policy of every model request (default: :data:`DEFAULT_RETRY`).
        backend: ``"asyncio"`` (this process), ``"ray"`` or a :class:`~llmist.batch.RayBackend`.

    Ctrl-C once stops starting runs; twice cancels the runs in flight. Returns the :class:`BatchSummary`.
    """
    return asyncio.run(
        arun_batch(
            agent_or_factory,
            tasks,
            concurrency=concurrency,
            out=out,
            budget_usd=budget_usd,
            rate_limits=rate_limits,
            retry=retry,
            backend=backend,
        )
    )


@contextlib.contextmanager
def sigint_stops(batch: BatchRun) -> Iterator[None]:
    """While inside: a first Ctrl-C stops ``batch`` (no new runs), a second cancels its runs.

    Does nothing outside the main thread (signals reach only it).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()

    def on_sigint() -> None:
        if batch.stopping:
            batch.cancel()
        else:
            batch.stop()

    loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
