"""Batch runs: one agent over thousands of tasks, with shared rate limits, a budget and resume.

::

    from llmist import Agent
    from llmist.batch import run_batch

    summary = run_batch(Agent(model="mock"), ["first prompt", "second prompt"], out="results.jsonl")
    print(summary.message)

``run_batch`` (sync), ``arun_batch`` (async) and ``iter_batch`` (results as runs finish) take the
same arguments; ``backend="ray"`` runs the same batch on a Ray cluster (``pip install 'llmist[ray]'``).
See docs/batch.md.
"""

from llmist.batch._agents import AgentFactory
from llmist.batch.engine import DEFAULT_RETRY
from llmist.batch.limits import RateLimit, RateLimits, SharedLimits
from llmist.batch.results import ResultsFile, TaskResult
from llmist.batch.run import (
    DEFAULT_CONCURRENCY,
    BatchRun,
    BatchSummary,
    StopReason,
    arun_batch,
    iter_batch,
    run_batch,
    sigint_stops,
)
from llmist.batch.tasks import BatchInputError, Task, as_tasks, load_tasks

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_RETRY",
    "AgentFactory",
    "BatchInputError",
    "BatchRun",
    "BatchSummary",
    "RateLimit",
    "RateLimits",
    "ResultsFile",
    "SharedLimits",
    "StopReason",
    "Task",
    "TaskResult",
    "arun_batch",
    "as_tasks",
    "iter_batch",
    "load_tasks",
    "run_batch",
    "sigint_stops",
]
