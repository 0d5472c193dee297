"""Subagents in a run: gadgets that run an agent, their events merged into the calling run's.

Each call of a :class:`SubagentCall` gadget runs an agent on a task with its own conversation,
model and limits, and returns its final output. Its cost joins the calling run's gadget cost and
its token usage the calling run's usage. While it runs, its events reach the calling run's
stream as :class:`~llmist.agent.events.SubagentEvent`, tagged with the depth and the path
(``"Research:call_1"``, ...). Cancelling the calling run cancels it. ``max_depth`` stops runaway
recursion.

How a subagent's run starts is the public gadget's business
(:class:`llmist.agent.subagents.SubagentGadget`: through the assembler).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING, Any

from llmist.agent._features import Feature
from llmist.agent._run.context import RunScope
from llmist.agent.errors import GuardrailTripped
from llmist.agent.events import SubagentEvent
from llmist.gadgets import AbortSignal, ExecutionContext, Gadget, GadgetResult

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent.stream import AgentStream

__all__ = ["DelegatingGadget", "RunScope", "SubagentCall", "Subagents", "report_to_caller", "run_with_subagents"]


_current: contextvars.ContextVar[RunScope | None] = contextvars.ContextVar("llmist_run_scope", default=None)


class DelegatingGadget(Gadget):
    """A gadget that hands its call to another agent, here or remote, and may pass that agent's
    events to the calling run's stream (:func:`report_to_caller`): a run with one streams them."""


def report_to_caller(gadget_name: str, invocation_id: str, event: Any) -> bool:
    """Pass ``event`` of the agent a call delegated to (of ``gadget_name``, ``invocation_id``) to
    the calling run's stream as a :class:`SubagentEvent` one level below it; ``False`` (and
    nothing done) outside a run that streams them (a gadget called on its own, in a test)."""
    parent = _current.get()
    if parent is None:
        return False
    parent.emit(SubagentEvent(parent.depth + 1, (*parent.path, f"{gadget_name}:{invocation_id}"), event))
    return True


class SubagentCall(DelegatingGadget):
    """A gadget that runs an agent on the ``task`` it is given, below the calling run (see the
    module docstring); :meth:`start` says how its run starts."""

    max_depth: int

    def start(self, task: str, signal: AbortSignal, scope: RunScope) -> AgentStream[Any]:
        """The subagent's run on ``task``, cancelled by ``signal``, at ``scope`` in the tree."""
        raise NotImplementedError

    async def execute(self, params: Any, ctx: ExecutionContext) -> GadgetResult:
        """Run the agent on ``params.task``; its output is the result, its cost the call's cost."""
        parent = _current.get()
        depth = (parent.depth if parent is not None else 0) + 1
        if depth > self.max_depth:
            raise RuntimeError(
                f"subagent {self.name!r} would run at depth {depth}, past its max_depth of {self.max_depth}; "
                "do this part of the task yourself"
            )
        path = (*(parent.path if parent is not None else ()), f"{self.name}:{ctx.invocation_id}")
        signal = AbortSignal()
        ctx.signal.add_listener(signal.abort)
        if ctx.signal.aborted:
            signal.abort("the calling run was cancelled")
        stream = self.start(params.task, signal, RunScope(depth, path))
        try:
            async for event in stream:
                if parent is not None:
                    parent.emit(event if isinstance(event, SubagentEvent) else SubagentEvent(depth, path, event))
        finally:
            ctx.signal.remove_listener(signal.abort)
            if stream.result is None:  # cancelled or failed: stop the subagent's gadgets and model
                signal.abort("the calling run stopped")
                await stream.aclose()
        result = stream.result
        assert result is not None
        if parent is not None:
            parent.usage = parent.usage + result.usage
        if result.tripwire is not None:  # the calling model reads why the task was not done
            ctx.report_cost(result.cost)
            raise GuardrailTripped(result.tripwire, result)
        return GadgetResult(result=str(result.output), cost=result.cost)


class Subagents(Feature):
    """Subagents as a feature: their gadgets are the agent's own (``subagents=`` become gadgets
    of the agent); a run that has one merges their events into its stream."""

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run that may call subagents streams their events as they happen, and its usage counts theirs."""
        if not _calls_subagents(run.plan.gadgets):
            return events

        def add_usage(scope: RunScope) -> None:
            if run.result is not None:
                run.result.usage = run.result.usage + scope.usage

        return run_with_subagents(events, run.scope or RunScope(), add_usage)


def _calls_subagents(gadgets: Sequence[Gadget]) -> bool:
    for g in gadgets:  # noqa: SIM110 (asked at every run: a loop costs less than any() of a generator)
        if isinstance(g, DelegatingGadget):
            return True
    return False


async def run_with_subagents(
    inner: AsyncGenerator[list[Any], None], scope: RunScope, on_done: Callable[[RunScope], None]
) -> AsyncGenerator[list[Any], None]:
    """The batches of ``inner`` with its subagents' events merged in as they happen.

    Each step of ``inner`` runs as a task in a context that names ``scope`` (its gadget calls,
    started inside it, inherit it), so subagent events can be passed on while the step waits
    for the model or for a gadget. ``on_done`` gets the scope once the run ended.
    """
    ctx = contextvars.copy_context()
    ctx.run(_current.set, scope)
    step: asyncio.Task[list[Any] | None] | None = None
    try:
        while True:
            step = asyncio.create_task(_next(inner), context=ctx)
            while not step.done():
                waiter = asyncio.ensure_future(scope.ready.wait())
                await asyncio.wait((step, waiter), return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if scope.events:
                    yield scope.take()
            batch = step.result()
            step = None
            if batch is None:
                break
            yield batch
        if scope.events:
            yield scope.take()
        on_done(scope)
    finally:
        if step is not None and not step.done():
            step.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await step
        await inner.aclose()


async def _next(inner: AsyncGenerator[list[Any], None]) -> list[Any] | None:
    """The next batch, or ``None`` at the end."""
    try:
        return await inner.__anext__()
    except StopAsyncIteration:
        return None
