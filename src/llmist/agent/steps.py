"""A seam for running a run's model responses and gadget calls as steps of something else.

A durable engine (``llmist.durable`` on DBOS) records each step's outcome so that a run
recovered after a crash replays what completed instead of doing it again. The agent knows
nothing of the engine: code that wants its runs' steps recorded sets a :class:`RunSteps` with
:func:`run_steps` around the runs it starts. A run reads it once, when its loop starts, and
then:

- opens each model response through :meth:`RunSteps.response` (it hands out the chunks the
  model streams, or chunks recorded before);
- runs each gadget call through :meth:`RunSteps.call` (the execution layer's ``around_call``,
  :mod:`llmist.execution.steps`);
- names each call's ``ctx.idempotency_key`` by :attr:`RunSteps.scope` and the call's place
  in the run (its response and its position there), which are the same when a recovered run
  parses the same responses again.

Without one (the default) a run streams from its model and calls its gadgets directly, and
its calls' keys are scoped by a fresh id: nothing else changes, and nothing is paid.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, Callable, Iterator
from contextvars import ContextVar
from typing import Any, Protocol

from llmist.execution.steps import Invoke
from llmist.gadgets import ExecutionContext, Gadget
from llmist.providers.base import LLMChunk

__all__ = ["RunSteps", "current_steps", "run_steps"]


class RunSteps(Protocol):
    """How the runs started inside :func:`run_steps` run their model responses and gadget calls."""

    @property
    def scope(self) -> str:
        """What the run's calls' idempotency keys start with (a durable run's workflow id):
        the same for the same run each time it is run again, different for every other run."""
        ...

    def response(self, open_stream: Callable[[], AsyncIterable[LLMChunk]]) -> AsyncIterable[LLMChunk]:
        """The chunks of one model response: those of ``open_stream()`` (the model's stream),
        or the same chunks recorded before."""
        ...

    async def call(self, gadget: Gadget, ctx: ExecutionContext, invoke: Invoke) -> Any:
        """The output of one gadget call: ``await invoke()``, or the output recorded before."""
        ...


_CURRENT: ContextVar[RunSteps | None] = ContextVar("llmist_run_steps", default=None)


@contextlib.contextmanager
def run_steps(steps: RunSteps | None) -> Iterator[None]:
    """Runs whose loop starts inside this block (in this task, or one it starts) run their
    steps through ``steps`` (``None``: directly, as outside any block)."""
    token = _CURRENT.set(steps)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_steps() -> RunSteps | None:
    """The :class:`RunSteps` a run starting here takes, or ``None``."""
    return _CURRENT.get()
