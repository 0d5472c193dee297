"""Eager tasks: a task whose first step runs right now, inside the caller.

An async gadget that never really suspends (compute, a cached lookup: most of them) then
finishes inside ``GadgetScheduler.submit``: its result is there before the model's next
chunk, without an event-loop turn. A gadget that does suspend goes on as an ordinary task.
Either way it is a real task from its first line (``current_task()``, ``asyncio.timeout()``
and cancellation see the right one) running in its own copy of the context.

Python 3.12+ offers this publicly (``eager_start=True``). On 3.11, and on a loop with a task
factory, the task is an ordinary one: it starts at the loop's next turn.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["start_task"]

T = TypeVar("T")


def start_task(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """A task running ``coro`` whose first step has run when this returns (Python 3.12+).

    Must be called on the loop's thread. The task may already be done.
    """
    if sys.version_info >= (3, 12) and loop.get_task_factory() is None:
        return asyncio.Task(coro, loop=loop, eager_start=True)
    return loop.create_task(coro)
