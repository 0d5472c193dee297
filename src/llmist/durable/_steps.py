"""A durable run's steps: each model response and each gadget call checkpointed by DBOS.

:class:`DBOSSteps` is the agent's :class:`~llmist.agent.steps.RunSteps` for one workflow. DBOS
numbers a workflow's steps in the order they start and, when the workflow runs again after a
crash, hands each step the outcome recorded under its number instead of running it. The loop
starts a response's step before any of its calls, and each call's step as the call starts,
which the same recorded responses repeat; the steps are named (``llmist.response``,
``llmist.gadget.<Name>``) so that a run whose order changed fails loudly (DBOS's
``DBOSUnexpectedStepError``) rather than hand one call another's result.

A response's calls start their steps once the response's own step is recorded, not while it
streams as in a run that is not durable: a call recorded before the response that made it would,
after a crash in between, belong to a response asked again, which a real model may answer
otherwise.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from dbos import DBOS

from llmist.agent.steps import run_steps
from llmist.execution.steps import Invoke
from llmist.gadgets import ExecutionContext, Gadget
from llmist.providers.base import LLMChunk

__all__ = ["DBOSSteps"]

RESPONSE_STEP = "llmist.response"
"""The name of a model response's step."""


@dataclass(frozen=True, slots=True)
class _CallOutcome:
    """What a gadget call's step records: its output and the cost it reported on the way (a
    replayed call reports it again, so the run's cost is the same)."""

    output: Any
    cost: float


class DBOSSteps:
    """The steps of one durable run (the workflow running now)."""

    __slots__ = ("_recorded", "_scope")

    def __init__(self, scope: str) -> None:
        self._scope = scope
        self._recorded: asyncio.Event | None = None
        """Set once the current response's step has ended (recorded, or failed)."""

    @property
    def scope(self) -> str:
        """The run's workflow id (and its segment, for a run resumed after approvals)."""
        return self._scope

    def response(self, open_stream: Callable[[], AsyncIterable[LLMChunk]]) -> AsyncIterable[LLMChunk]:
        """One model response as a step: the model's chunks as they stream, recorded together
        when the response ends; a replayed response's recorded chunks."""
        self._recorded = recorded = asyncio.Event()
        return _recorded_response(open_stream, recorded)

    async def call(self, gadget: Gadget, ctx: ExecutionContext, invoke: Invoke) -> Any:
        """One gadget call as a step: its output (or what it raised), recorded when it ends."""

        async def run_call() -> _CallOutcome:
            # A run inside the call (a subagent) is part of this step, not steps of its own.
            with run_steps(None):
                output = await invoke()
            return _CallOutcome(output, ctx.cost)

        if self._recorded is not None:
            await self._recorded.wait()  # the response first (see the module docstring)
        outcome = await DBOS.run_step_async({"name": f"llmist.gadget.{gadget.name}"}, run_call)
        unreported = outcome.cost - ctx.cost  # the whole cost when replayed, else nothing
        if unreported > 0:
            ctx.report_cost(unreported)
        return outcome.output


async def _recorded_response(
    open_stream: Callable[[], AsyncIterable[LLMChunk]], recorded: asyncio.Event
) -> AsyncIterator[LLMChunk]:
    """The chunks of a response step: handed out as the model streams them (the step runs in a
    task beside this generator), or all at once when DBOS returns the recorded ones; ``recorded``
    is set when the step ends."""
    live: asyncio.Queue[LLMChunk | None] = asyncio.Queue()

    async def respond() -> list[LLMChunk]:
        chunks: list[LLMChunk] = []
        async for chunk in open_stream():
            chunks.append(chunk)
            live.put_nowait(chunk)
        return chunks

    # The step takes its number when its task starts, at the next turn of the loop: before any
    # call of this response can start one (none is parsed until a chunk arrives).
    task = asyncio.ensure_future(DBOS.run_step_async({"name": RESPONSE_STEP}, respond))

    def ended(_: object) -> None:
        live.put_nowait(None)
        recorded.set()

    task.add_done_callback(ended)
    seen = 0
    try:
        while (chunk := await live.get()) is not None:
            seen += 1
            yield chunk
        for chunk in task.result()[seen:]:  # a replayed step streamed nothing live
            yield chunk
    finally:
        if not task.done():  # the run stopped reading (cancelled): the step is not recorded
            task.cancel()
