"""The three ways a gadget runs, behind one interface: ``runner(finisher, call, done) -> Started``.

- async gadgets: a coroutine, for the caller to run as a task; the deadline cancels that task.
- inline sync gadgets (``run_inline = True``): called right away on the loop's thread; no
  deadline can interrupt a call that holds the thread, so none is set.
- other sync gadgets: a :class:`ThreadCall` already running in a worker thread, which hands its
  result to ``done`` from an event-loop callback; the deadline reports the timeout and abandons
  the thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeAlias

from llmist.execution._deadline import Deadline
from llmist.execution._threads import submit_to_thread
from llmist.execution.results import RUN_CANCELLED, GadgetExecutionResult, call_result
from llmist.gadgets import ExecutionContext, Gadget, GadgetTimeoutError, HumanInputRequired
from llmist.syntax import ParsedCall

__all__ = ["Done", "Finisher", "PreparedCall", "Runner", "Started", "ThreadCall", "runner_for"]

Done: TypeAlias = Callable[[GadgetExecutionResult], None]


class PreparedCall:
    """A call that passed lookup, validation and ``before_gadget``: ready to run."""

    __slots__ = ("call", "dumped", "gadget", "params", "started")

    def __init__(self, gadget: Gadget, call: ParsedCall, params: Any, dumped: dict[str, Any], started: float) -> None:
        self.gadget = gadget
        self.call = call
        self.params = params
        self.dumped = dumped
        self.started = started


class Finisher(Protocol):
    """What a runner needs from the executor: the context, the timeout, and turning an
    outcome into a result."""

    def context(self, prepared: PreparedCall, loop: asyncio.AbstractEventLoop) -> ExecutionContext: ...
    def timeout_s(self, gadget: Gadget) -> float | None: ...
    def settle(
        self, prepared: PreparedCall, ctx: ExecutionContext, output: Any, exc: Exception | SystemExit | None
    ) -> GadgetExecutionResult | HumanInputRequired: ...
    async def ask(
        self, prepared: PreparedCall, ctx: ExecutionContext, question: HumanInputRequired
    ) -> GadgetExecutionResult: ...
    def timed_out(
        self, prepared: PreparedCall, ctx: ExecutionContext, error: GadgetTimeoutError
    ) -> GadgetExecutionResult: ...


Started: TypeAlias = "GadgetExecutionResult | Coroutine[Any, Any, GadgetExecutionResult] | ThreadCall"
"""The result (the call is over), a coroutine to run as a task, or a running worker-thread call."""
Runner: TypeAlias = Callable[[Finisher, PreparedCall, Done], Started]


def runner_for(gadget: Gadget) -> Runner:
    """The runner for ``gadget``'s kind."""
    if gadget.invocation().is_async:
        return run_async
    return run_inline if gadget.run_inline else run_in_worker


def run_async(f: Finisher, prepared: PreparedCall, done: Done) -> Started:
    """An async gadget: a coroutine to run as its own task."""
    return _async_call(f, prepared)


async def _async_call(f: Finisher, prepared: PreparedCall) -> GadgetExecutionResult:
    loop = asyncio.get_running_loop()
    ctx = f.context(prepared, loop)
    task = asyncio.current_task(loop)
    assert task is not None, "an async gadget runs in a task"

    def expire(_: GadgetTimeoutError) -> None:
        task.cancel()

    deadline = Deadline(loop, f.timeout_s(prepared.gadget), ctx, expire)
    output: Any = None
    exc: Exception | SystemExit | None = None
    try:
        output = await prepared.gadget.invocation().call(prepared.params, ctx)
        if deadline.error is not None:  # the gadget swallowed its cancellation
            raise asyncio.CancelledError
    except asyncio.CancelledError:
        if deadline.error is not None and task.uncancel() == 0:
            return f.timed_out(prepared, ctx, deadline.error)
        ctx.signal.abort("cancelled")
        raise
    except (Exception, SystemExit) as error:  # SystemExit: a library the gadget called quit
        exc = error
    finally:
        deadline.cancel()
    settled = f.settle(prepared, ctx, output, exc)
    if isinstance(settled, HumanInputRequired):
        return await f.ask(prepared, ctx, settled)
    return settled


def run_inline(f: Finisher, prepared: PreparedCall, done: Done) -> Started:
    """An opt-in ``run_inline`` sync gadget: called right here, on the event loop's thread."""
    ctx = f.context(prepared, asyncio.get_running_loop())
    output: Any = None
    exc: Exception | SystemExit | None = None
    try:
        output = prepared.gadget.invocation().call(prepared.params, ctx)
    except (Exception, SystemExit) as error:
        exc = error
    settled = f.settle(prepared, ctx, output, exc)
    if isinstance(settled, HumanInputRequired):
        return f.ask(prepared, ctx, settled)
    return settled


def run_in_worker(f: Finisher, prepared: PreparedCall, done: Done) -> Started:
    """A sync gadget: started in a worker thread now."""
    return ThreadCall(f, prepared, done)


class ThreadCall:
    """A sync gadget running in a worker thread (see :meth:`GadgetExecutor.start`).

    Its result reaches ``done`` from an event-loop callback: the gadget's return, its
    exception, or its timeout (the signal fires first, then the call ends with a timeout
    result and the thread is abandoned). :meth:`abandon` stops waiting for it (run cancelled).
    """

    __slots__ = ("_ctx", "_deadline", "_done", "_finisher", "_over", "_prepared", "task")

    def __init__(self, finisher: Finisher, prepared: PreparedCall, done: Done) -> None:
        loop = asyncio.get_running_loop()
        self._finisher = finisher
        self._prepared = prepared
        self._done = done
        self._over = False
        self.task: asyncio.Task[Any] | None = None
        """The task asking the input handler, once the gadget raised ``HumanInputRequired``."""
        self._ctx = ctx = finisher.context(prepared, loop)
        self._deadline = Deadline(loop, finisher.timeout_s(prepared.gadget), ctx, self._on_timeout)
        submit_to_thread(loop, self._complete, prepared.gadget.invocation().call, prepared.params, ctx)

    def _complete(self, output: Any, exc: BaseException | None) -> None:
        if self._over:
            return  # timed out or abandoned: the late result is dropped
        self._over = True
        self._deadline.cancel()
        if isinstance(exc, asyncio.CancelledError):
            self._ctx.signal.abort("cancelled")
            self._done(call_result(self._prepared.call, None, RUN_CANCELLED, "cancelled"))
            return
        if exc is not None and not isinstance(exc, (Exception, SystemExit)):
            raise exc  # KeyboardInterrupt and the like end the program, as they would on the loop
        settled = self._finisher.settle(self._prepared, self._ctx, output, exc)
        if isinstance(settled, HumanInputRequired):
            self.task = asyncio.get_running_loop().create_task(self._ask(settled))
            return
        self._done(settled)

    async def _ask(self, question: HumanInputRequired) -> None:
        try:
            result = await self._finisher.ask(self._prepared, self._ctx, question)
        except asyncio.CancelledError:
            return  # abandoned: the scheduler reported the call cancelled
        self._done(result)

    def _on_timeout(self, error: GadgetTimeoutError) -> None:
        if self._over:
            return
        self._over = True
        self._done(self._finisher.timed_out(self._prepared, self._ctx, error))

    def abandon(self) -> None:
        """Stop waiting (the run was cancelled): fire the gadget's signal and drop its result;
        ``done`` is not called. The worker thread runs on until the gadget returns."""
        if self.task is not None:
            self.task.cancel()
        if self._over:
            return
        self._over = True
        self._deadline.cancel()
        self._ctx.signal.abort("cancelled")
