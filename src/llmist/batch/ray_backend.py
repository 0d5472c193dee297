"""The Ray backend: the same batch on a Ray cluster (``pip install 'llmist[ray]'``).

How the work is laid out:

- A few **worker actors** (one per CPU of the cluster unless told) each run many agents at
  once on their own event loop: each is an async Ray actor holding a
  :class:`~llmist.batch.engine.LocalEngine`, so there is no process or actor per agent.
- One **limiter actor** holds the batch's :class:`~llmist.batch.SharedLimits`; every model
  request of every worker waits on it, so the provider's quota holds for the whole cluster and a
  429 anywhere pauses every worker.
- The driver (the process that called ``run_batch``) sends each task to the least busy worker,
  receives each result as it comes, and writes the results file itself, with the same resume
  rule as the asyncio backend. Ray places the actors, restarts a worker that dies, and moves the data.

The agent (or its factory) and its gadgets travel to the workers by pickling: define them at the
top level of a module the workers can import. :class:`RayBackendError` says so when they cannot.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from typing import Any

from llmist.batch._agents import AgentFactory
from llmist.batch.engine import LocalEngine
from llmist.batch.limits import RateLimits, SharedLimits, limit_for
from llmist.batch.results import TaskResult
from llmist.batch.tasks import Task
from llmist.gadgets import LlmistError
from llmist.providers import RetryPolicy

__all__ = ["RayBackend", "RayBackendError"]

_SPARE_CALLS = 8
"""Calls an actor accepts beyond its share of runs (cancel, ready...), so they never wait behind runs."""


class RayBackendError(LlmistError):
    """The batch cannot run on Ray: Ray is missing, or the agent cannot reach the workers."""


class RayBackend:
    """Where and how wide to run a batch on Ray.

    Args:
        address: The cluster to join (``"auto"``, ``"ray://head:10001"``); ``None`` joins the one
            this process is already connected to, else starts a local one (``ray.init()``).
        workers: Worker actors (default: the cluster's CPUs).
        init_options: More keyword arguments for ``ray.init`` (``runtime_env``, ``num_cpus``...).
    """

    def __init__(
        self, *, address: str | None = None, workers: int | None = None, init_options: Mapping[str, Any] | None = None
    ) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.address = address
        self.workers = workers
        self.init_options = dict(init_options or {})

    def engine(
        self, agent_or_factory: Any | AgentFactory, rate_limits: RateLimits | None, retry: RetryPolicy, concurrency: int
    ) -> _RayEngine:
        """The engine a batch runs its tasks on (used by :func:`~llmist.batch.iter_batch`)."""
        return _RayEngine(self, agent_or_factory, rate_limits, retry, concurrency)


class _LimiterActor:
    """The cluster's one limiter: a :class:`SharedLimits` behind a Ray actor."""

    def __init__(self, rate_limits: RateLimits | None, retry: RetryPolicy) -> None:
        self._limits = SharedLimits(rate_limits, retry)

    async def acquire(self, key: str, tokens: int) -> None:
        await self._limits.acquire(key, tokens)

    async def record(self, key: str, tokens: int) -> None:
        self._limits.record(key, tokens)

    async def rate_limited(self, key: str, retry_after: float | None) -> None:
        self._limits.rate_limited(key, retry_after)

    async def succeeded(self, key: str) -> None:
        self._limits.succeeded(key)


class _RemoteLimits:
    """A worker's view of the limiter actor (the :class:`~llmist.batch.limits.BatchLimits` protocol).

    Only what the actor needs crosses to it: every request's ``acquire`` (the pause and the limits
    live there), usage only for a key with a tokens-per-minute limit, and a success only from a
    worker that saw a 429 on that key since (it ends the streak for the cluster).
    """

    def __init__(self, actor: Any, rate_limits: RateLimits | None) -> None:
        self._actor = actor
        self._rate_limits = rate_limits
        self._limited: set[str] = set()

    async def acquire(self, key: str, tokens: int) -> None:
        await self._actor.acquire.remote(key, tokens)

    def record(self, key: str, tokens: int) -> None:
        limit = limit_for(self._rate_limits, key)
        if limit is not None and limit.tokens_per_minute:
            self._actor.record.remote(key, tokens)

    def rate_limited(self, key: str, retry_after: float | None) -> None:
        self._limited.add(key)
        self._actor.rate_limited.remote(key, retry_after)

    def succeeded(self, key: str) -> None:
        if key in self._limited:
            self._limited.discard(key)
            self._actor.succeeded.remote(key)


class _WorkerActor:
    """Runs many tasks at once on its event loop, every model request going through the limiter actor."""

    def __init__(self, agent_or_factory: Any, limiter: Any, rate_limits: RateLimits | None, retry: RetryPolicy) -> None:
        self._engine = LocalEngine(agent_or_factory, _RemoteLimits(limiter, rate_limits), retry)

    async def ready(self) -> bool:
        return True

    async def run(self, task: Task) -> TaskResult:
        return await self._engine.run(task)

    async def cancel_all(self, reason: str) -> None:
        self._engine.cancel_all(reason)


class _RayEngine:
    """Sends tasks to the worker actors and awaits their results (the :class:`Engine` protocol)."""

    def __init__(
        self,
        backend: RayBackend,
        agent_or_factory: Any,
        rate_limits: RateLimits | None,
        retry: RetryPolicy,
        concurrency: int,
    ) -> None:
        self._backend = backend
        self._agent_or_factory = agent_or_factory
        self._rate_limits = rate_limits
        self._retry = retry
        self._concurrency = concurrency
        self._workers: list[Any] = []
        self._load: list[int] = []
        self._limiter: Any = None
        self._started_ray = False

    async def start(self) -> None:
        """Join or start the cluster, check the agent can travel, start the limiter and the workers."""
        ray = _import_ray()
        if not ray.is_initialized():
            ray.init(address=self._backend.address, **self._backend.init_options)
            self._started_ray = True
        _check_picklable(ray, self._agent_or_factory)
        count = self._backend.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        per_worker = math.ceil(self._concurrency / count) + _SPARE_CALLS
        limiter = ray.remote(num_cpus=0, max_concurrency=self._concurrency + _SPARE_CALLS)(_LimiterActor)
        self._limiter = limiter.remote(self._rate_limits, self._retry)
        worker = ray.remote(num_cpus=1, max_concurrency=per_worker, max_restarts=2, max_task_retries=2)(_WorkerActor)
        self._workers = [
            worker.remote(self._agent_or_factory, self._limiter, self._rate_limits, self._retry) for _ in range(count)
        ]
        self._load = [0] * count
        try:
            await asyncio.gather(*(w.ready.remote() for w in self._workers))
        except Exception as exc:
            await self.close()
            raise RayBackendError(
                f"the Ray workers could not load the agent: {exc}\n"
                "Every worker unpickles the agent (or factory) and imports the modules of its gadgets: define "
                "them at the top level of a module the workers can import (installed, or shipped with "
                "init_options={'runtime_env': {'working_dir': '.'}})."
            ) from None

    async def run(self, task: Task) -> TaskResult:
        """Run ``task`` on the least busy worker."""
        index = self._load.index(min(self._load))
        self._load[index] += 1
        try:
            result: TaskResult = await self._workers[index].run.remote(task)
            return result
        finally:
            self._load[index] -= 1

    def cancel_all(self, reason: str) -> None:
        """Ask every worker to cancel its runs."""
        for worker in self._workers:
            worker.cancel_all.remote(reason)

    async def close(self) -> None:
        """Stop the actors; shut Ray down when this batch started it."""
        ray = _import_ray()
        for actor in [*self._workers, self._limiter]:
            if actor is not None:
                ray.kill(actor)
        self._workers, self._limiter = [], None
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        from llmist._install import install_command

        raise RayBackendError(
            f"the Ray backend needs the 'ray' package; install it with: {install_command('ray')}"
        ) from None
    return ray


def _check_picklable(ray: Any, agent_or_factory: Any) -> None:
    """Fail before any worker starts when the agent or factory cannot be pickled for the workers."""
    try:
        ray.cloudpickle.dumps(agent_or_factory)
    except Exception as exc:
        raise RayBackendError(
            f"the agent (or factory) {_name(agent_or_factory)} cannot be sent to Ray workers: "
            f"{type(exc).__name__}: {exc}\n"
            "Ray pickles it: pass a factory function (or an Agent) whose model and gadgets hold no open "
            "connections, locks or threads, defined at the top level of an importable module."
        ) from None


def _name(obj: object) -> str:
    return str(getattr(obj, "__qualname__", None) or type(obj).__qualname__)
