"""Eager tasks: a task whose first step runs right now, inside the caller.

An async gadget that never really suspends (compute, a cached lookup: most of them) then
finishes inside ``GadgetScheduler.submit``: its result is there before the model's next
chunk, without an event-loop turn. A gadget that does suspend goes on as an ordinary task.
Either way it is a real task from its first line (``current_task()``, ``asyncio.timeout()``
and cancellation see the right one) running in its own copy of the context.

Python 3.12+ does this itself (``eager_start=True``). On 3.11 the task is created as usual
and, on asyncio's own event loop, its first scheduled step is taken out of the ready queue
and run at once, with the calling task set aside meanwhile, as 3.12 does. Any other loop
(uvloop...) gets an ordinary task, and so does a loop with a task factory (from the factory).
"""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["start_task"]

T = TypeVar("T")

_enter = getattr(asyncio.tasks, "_enter_task", None)
_leave = getattr(asyncio.tasks, "_leave_task", None)


def start_task(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """A task running ``coro`` whose first step has run when this returns (where supported).

    Must be called on the loop's thread. The task may already be done.
    """
    if loop.get_task_factory() is not None:
        return loop.create_task(coro)  # the factory makes the task (an ordinary one)
    if sys.version_info >= (3, 12):
        return asyncio.Task(coro, loop=loop, eager_start=True)
    ready: Any = getattr(loop, "_ready", None)
    if _enter is None or _leave is None or not isinstance(ready, deque):
        return loop.create_task(coro)
    task = asyncio.Task(coro, loop=loop)  # what create_task does without a task factory
    step: Any = ready[-1] if ready else None
    if _is_step_of(step, task):  # else not the queue layout this relies on: leave the step where it is
        ready.pop()
        current = asyncio.current_task(loop)
        if current is not None:
            _leave(loop, current)
        try:
            # The task's own step, called as Handle._run would (a task step catches everything
            # itself); it enters the task as the current one.
            step._context.run(step._callback, *step._args)
        finally:
            if current is not None:
                _enter(loop, current)
    return task


def _is_step_of(handle: object, task: asyncio.Task[Any]) -> bool:
    return getattr(getattr(handle, "_callback", None), "__self__", None) is task
