"""Cancelling what may not stop: a grace period, then abandonment.

Python cannot force a coroutine to stop: a cancellation is an exception it may catch and ignore.
Whatever llmist cancels (a gadget at its timeout or at the run's end, a guardrail at its timeout,
the tasks left when a loop closes) gets the same treatment, from this module:

- :func:`stop_task` cancels a task and waits for it up to a grace period; past it the task is
  left running (abandoned), and the caller goes on.
- :func:`await_within` awaits with a timeout, then :func:`stop_task`; :class:`Overdue` says
  whether the task stopped or was left running.
- :func:`run_main` is ``asyncio.run`` whose shutdown does the same: ``asyncio.run`` cancels the
  tasks still pending when ``main`` returns and then waits for them without limit, so one task
  that swallows its cancellation keeps the program from ever ending.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

__all__ = ["DEFAULT_CANCEL_GRACE_S", "Overdue", "await_within", "run_main", "stop_task"]

T = TypeVar("T")

DEFAULT_CANCEL_GRACE_S = 1.0
"""Seconds a cancelled task (an async gadget, a guardrail, a task left when the loop closes) is
waited for before it is abandoned."""

_log = logging.getLogger("llmist.execution")


async def stop_task(task: asyncio.Future[Any], grace_s: float) -> bool:
    """Cancel ``task`` and wait up to ``grace_s`` seconds for it to end.

    Returns ``True`` when it ended, ``False`` when it ignored the cancellation and was left
    running (nothing waits for it any more). Whatever it ended with (a result, an error) is
    retrieved here, so asyncio does not report it as never retrieved. A cancellation of the
    caller during the grace period still goes to the caller: the wait is not shielded.
    """
    task.cancel()
    if not task.done():
        await asyncio.wait((task,), timeout=grace_s)
    if not task.done():
        return False
    if not task.cancelled():
        task.exception()  # marks it retrieved; the caller decides what an answer this late means
    return True


class Overdue(TimeoutError):
    """:func:`await_within`'s awaitable gave no answer within its timeout."""

    def __init__(self, timeout_s: float, grace_s: float, left_running: bool) -> None:
        self.timeout_s = timeout_s
        """The timeout that passed."""
        self.grace_s = grace_s
        """The grace period it had to stop in, once cancelled."""
        self.left_running = left_running
        """It did not stop within the grace period either: it was abandoned, still running."""
        stopped = f"; it did not stop within {grace_s:g} s of being cancelled and was left running"
        super().__init__(f"no answer within {timeout_s:g} s" + (stopped if left_running else ""))


async def await_within(awaitable: Awaitable[T], timeout_s: float | None, grace_s: float) -> T:
    """``await awaitable`` for up to ``timeout_s`` seconds (``None``: no limit).

    Past the timeout it is cancelled and given ``grace_s`` seconds to stop (:func:`stop_task`),
    then :class:`Overdue` is raised, whether or not it stopped (an answer given after its
    cancellation is not taken: it came too late). ``asyncio.wait_for`` would instead wait for the
    cancellation without limit, so an awaitable that ignores it would hang the caller. When the
    caller is cancelled meanwhile, the awaitable gets the same grace period, then the
    cancellation goes on.
    """
    task = asyncio.ensure_future(awaitable)
    cancelled: asyncio.CancelledError | None = None
    try:
        await asyncio.wait((task,), timeout=timeout_s)
    except asyncio.CancelledError as exc:
        cancelled = exc
    if cancelled is not None:
        # Awaited outside the handler: the compiled build (mypyc) crashed on an await inside an
        # ``except`` block followed by a bare ``raise`` (see executor._outcome).
        await stop_task(task, grace_s)
        raise cancelled
    if task.done():
        return task.result()
    assert timeout_s is not None, "without a timeout the wait ends only with the task"
    stopped = await stop_task(task, grace_s)
    raise Overdue(timeout_s, grace_s, left_running=not stopped)


def run_main(main: Coroutine[Any, Any, T], *, cancel_grace_s: float = DEFAULT_CANCEL_GRACE_S) -> T:
    """Run ``main`` in a new event loop and return its result, as ``asyncio.run(main)`` does,
    except at the end: tasks still pending when ``main`` returns (or raises) are cancelled and
    given ``cancel_grace_s`` seconds to stop; those that ignore it are abandoned, named in a
    warning on the ``llmist.execution`` logger, and the loop closes without them.

    ``asyncio.run`` would wait for them forever: an async gadget or a guardrail that swallows its
    cancellation (``except asyncio.CancelledError: pass`` in a loop), which a run already
    abandoned and reported, would keep the program from ever exiting. Use it in place of
    ``asyncio.run``::

        llmist.run_main(main())

    Worker threads of abandoned sync gadgets are daemons: they do not keep the process alive.
    Like ``asyncio.run`` it cannot be called while an event loop runs in this thread.
    """
    if not cancel_grace_s >= 0:  # NaN too
        main.close()
        raise ValueError(f"cancel_grace_s must be 0 seconds or more, got {cancel_grace_s}")
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass  # no loop running here: the expected case
    else:
        main.close()  # never awaited: close it, so Python does not warn about it
        raise RuntimeError(
            "cannot start an event loop here: one is already running in this thread; "
            "`await` the coroutine instead (for an agent: `await agent.run(...)`, not `run_sync`)"
        )
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            _stop_pending(loop, cancel_grace_s)
            loop.run_until_complete(loop.shutdown_asyncgens())
            # The default executor's threads (``asyncio.to_thread``) are waited for as
            # ``asyncio.run`` does, but within the grace period: one stuck in a call is left.
            executor = loop.create_task(loop.shutdown_default_executor())
            loop.run_until_complete(asyncio.wait((executor,), timeout=cancel_grace_s))
            if not executor.done():
                _abandon(loop, [executor], cancel_grace_s)
        finally:
            loop.close()


def _stop_pending(loop: asyncio.AbstractEventLoop, grace_s: float) -> None:
    """Cancel the tasks ``main`` left, wait up to ``grace_s`` for them, and abandon the rest."""
    pending = asyncio.all_tasks(loop)
    if not pending:
        return
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.wait(pending, timeout=grace_s))
    for task in pending:
        if task.done() and not task.cancelled() and task.exception() is not None:
            _log.debug("A task failed as the loop closed: %r", task, exc_info=task.exception())
    stuck = [task for task in pending if not task.done()]
    if stuck:
        _abandon(loop, stuck, grace_s)


def _abandon(loop: asyncio.AbstractEventLoop, stuck: list[asyncio.Task[Any]], grace_s: float) -> None:
    """Say which tasks are left behind as the loop closes."""
    _log.warning(
        "%d task(s) did not end within %g s of being cancelled and were abandoned as the event loop closed: %s",
        len(stuck),
        grace_s,
        ", ".join(sorted(task.get_name() for task in stuck)),
    )
    # Each will be destroyed still pending: expected now, and said once above, so asyncio's own
    # "Task was destroyed but it is pending!" report of it is not repeated as an error.
    loop.set_exception_handler(_quiet_about_abandoned_tasks)


def _quiet_about_abandoned_tasks(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The closed loop's exception handler: a pending task's destruction is an abandoned task's
    (every task left pending was); anything else is reported as asyncio would."""
    if str(context.get("message", "")).startswith("Task was destroyed but it is pending"):
        _log.debug("An abandoned task was destroyed: %r", context.get("task"))
        return
    loop.default_exception_handler(context)
