"""The three ways a gadget runs, behind one interface: ``runner(finisher, call, done) -> Started``.

- async gadgets: a coroutine, for the caller to run as a task; the deadline cancels that task,
  and when the gadget ignores that for longer than its grace period, ``done`` gets the timeout
  result and the task is left running (the caller stops waiting for it).
- inline sync gadgets (``run_inline = True``): called right away on the loop's thread; no
  deadline can interrupt a call that holds the thread, so none is set.
- other sync gadgets: a :class:`ThreadCall` already running in a worker thread, which hands its
  result to ``done`` from an event-loop callback; the deadline reports the timeout and abandons
  the thread.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeAlias

from llmist.execution._deadline import Deadline
from llmist.execution._threads import submit_to_thread
from llmist.execution.results import RUN_CANCELLED, GadgetExecutionResult, call_result
from llmist.execution.steps import CallWrapper, invoker
from llmist.gadgets import ExecutionContext, Gadget, GadgetTimeoutError, HumanInputRequired
from llmist.syntax import ParsedCall

__all__ = ["Done", "Finisher", "PreparedCall", "Runner", "Started", "ThreadCall", "runner_for"]

_log = logging.getLogger("llmist.execution")

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

    around_call: CallWrapper | None

    def context(self, prepared: PreparedCall, loop: asyncio.AbstractEventLoop) -> ExecutionContext: ...
    def timeout_s(self, gadget: Gadget) -> float | None: ...
    def cancel_grace_s(self, gadget: Gadget) -> float: ...
    def settle(
        self, prepared: PreparedCall, ctx: ExecutionContext, output: Any, exc: BaseException | None
    ) -> GadgetExecutionResult | HumanInputRequired: ...
    async def ask(
        self, prepared: PreparedCall, ctx: ExecutionContext, question: HumanInputRequired
    ) -> GadgetExecutionResult: ...
    def timed_out(
        self, prepared: PreparedCall, ctx: ExecutionContext, error: GadgetTimeoutError, left_running: bool = False
    ) -> GadgetExecutionResult: ...


Started: TypeAlias = "GadgetExecutionResult | Coroutine[Any, Any, GadgetExecutionResult] | ThreadCall"
"""The result (the call is over), a coroutine to run as a task, or a running worker-thread call."""
Runner: TypeAlias = Callable[[Finisher, PreparedCall, Done], Started]


def runner_for(gadget: Gadget, wrapped: bool = False) -> Runner:
    """The runner for ``gadget``'s kind (``wrapped``: every call goes through the executor's
    ``around_call``, which is awaited on the loop like an async gadget)."""
    if wrapped or gadget.invocation().is_async:
        return run_async
    return run_inline if gadget.run_inline else run_in_worker


def run_async(f: Finisher, prepared: PreparedCall, done: Done) -> Started:
    """An async gadget: a coroutine to run as its own task. If the gadget ignores its timeout's
    cancellation for longer than its grace period, ``done`` gets the timeout result and the
    task is left running (its eventual result is dropped)."""
    return _async_call(f, prepared, done)


class _Expiry:
    """What an async call's deadline does when it passes: cancel the call's task, and if the
    gadget ignores that for longer than its grace period, report the timeout and leave the task
    running.

    A class rather than closures, holding the task by a weak reference: compiled with mypyc, a
    coroutine keeps its locals after it returns, and closures over them (or the task itself in
    one) made reference cycles, so each call's objects lived until the next garbage collection.
    """

    __slots__ = ("_ctx", "_done", "_f", "_prepared", "_task", "grace")

    def __init__(
        self, f: Finisher, prepared: PreparedCall, ctx: ExecutionContext, done: Done, task: asyncio.Task[Any]
    ) -> None:
        self._f = f
        self._prepared = prepared
        self._ctx = ctx
        self._done = done
        self._task = weakref.ref(task)
        self.grace: asyncio.TimerHandle | None = None
        """The grace period's timer, once the deadline has passed."""

    def expire(self, error: GadgetTimeoutError) -> None:
        """The deadline passed: cancel the task and start the grace period."""
        task = self._task()
        if task is None:  # already gone: nothing left to stop
            return
        task.cancel()
        self.grace = task.get_loop().call_later(self._f.cancel_grace_s(self._prepared.gadget), self.give_up, error)

    def give_up(self, error: GadgetTimeoutError) -> None:
        """The grace period passed with the task still running: report the timeout now."""
        prepared = self._prepared
        name, invocation_id = prepared.gadget.name, prepared.call.invocation_id
        _log.warning("Gadget %s (%s) ignored its timeout; left running", name, invocation_id)
        self._done(self._f.timed_out(prepared, self._ctx, error, True))


async def _async_call(f: Finisher, prepared: PreparedCall, done: Done) -> GadgetExecutionResult:
    loop = asyncio.get_running_loop()
    ctx = f.context(prepared, loop)
    gadget = prepared.gadget
    timeout_s = f.timeout_s(gadget)
    # Without a timeout (the default) nothing can expire: no deadline, no expiry, no task lookup.
    expiry: _Expiry | None = None
    deadline: Deadline | None = None
    if timeout_s is not None:
        # The task is not kept in a local: it holds this coroutine, whose locals outlive it compiled.
        expiry = _Expiry(f, prepared, ctx, done, _running_task())
        deadline = Deadline(loop, timeout_s, ctx, expiry.expire)
    output: Any = None
    exc: BaseException | None = None
    try:
        around = f.around_call
        if around is None:
            output = await gadget.invocation().call(prepared.params, ctx)
        else:
            output = await around(gadget, ctx, invoker(gadget, prepared.params, ctx))
        if deadline is not None and deadline.error is not None:  # it swallowed its cancellation, then returned
            raise asyncio.CancelledError
    except asyncio.CancelledError:
        if deadline is not None and deadline.error is not None and _running_task().uncancel() == 0:
            return f.timed_out(prepared, ctx, deadline.error)
        ctx.signal.abort("cancelled")
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit, a BaseException of its own: the gadget's error
        exc = error
    finally:
        if deadline is not None:
            deadline.cancel()
        if expiry is not None and expiry.grace is not None:
            expiry.grace.cancel()
    settled = f.settle(prepared, ctx, output, exc)
    # Its traceback holds this frame, which holds it: a cycle that kept a failed call's
    # objects (parameters, context) until the garbage collector ran.
    exc = None
    if isinstance(settled, HumanInputRequired):
        return await f.ask(prepared, ctx, settled)
    return settled


def _running_task() -> asyncio.Task[Any]:
    """The task this async gadget runs in."""
    task = asyncio.current_task()
    assert task is not None, "an async gadget runs in a task"
    return task


def run_inline(f: Finisher, prepared: PreparedCall, done: Done) -> Started:
    """An opt-in ``run_inline`` sync gadget: called right here, on the event loop's thread."""
    ctx = f.context(prepared, asyncio.get_running_loop())
    output: Any = None
    exc: BaseException | None = None
    try:
        output = prepared.gadget.invocation().call(prepared.params, ctx)
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except BaseException as error:  # whatever the gadget raises is its error (see settle)
        exc = error
    settled = f.settle(prepared, ctx, output, exc)
    # Its traceback holds this frame, which holds it: a cycle that kept a failed call's
    # objects (parameters, context) until the garbage collector ran.
    exc = None
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
    result and the thread is abandoned). :meth:`cancel` fires the signal but still takes what
    the thread does (a thread cannot be stopped: its work happens); :meth:`abandon` stops waiting
    for it.
    """

    __slots__ = ("_cancelled", "_ctx", "_deadline", "_done", "_finisher", "_over", "_prepared", "task")

    def __init__(self, finisher: Finisher, prepared: PreparedCall, done: Done) -> None:
        loop = asyncio.get_running_loop()
        self._finisher = finisher
        self._prepared = prepared
        self._done = done
        self._over = False
        self._cancelled = False
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
        if isinstance(exc, KeyboardInterrupt):
            raise exc  # ends the program, as it would on the loop's thread
        settled = self._finisher.settle(self._prepared, self._ctx, output, exc)
        if isinstance(settled, HumanInputRequired):
            if self._cancelled:  # nobody is asked anything once the run was cancelled
                self._done(call_result(self._prepared.call, None, RUN_CANCELLED, "cancelled"))
                return
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

    def cancel(self) -> bool:
        """The run was cancelled: fire the gadget's signal (it may stop early) and stop its
        deadline, but go on taking its outcome, which ``done`` gets as usual. Returns ``False``
        when there is nothing left to wait for (it is over, or it was asking the input handler,
        which is cancelled): then :meth:`abandon` and report it cancelled now."""
        if self._over or self.task is not None:
            return False
        self._cancelled = True
        self._deadline.cancel()
        self._ctx.signal.abort("cancelled")
        return True

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
