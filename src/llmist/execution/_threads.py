"""Worker threads for sync gadgets and sync input handlers: reused, daemonic (an abandoned
gadget never blocks exit). One mechanism: :func:`submit_to_thread`; :func:`run_in_thread` awaits it."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["run_in_thread", "submit_to_thread"]

_IDLE_EXIT_S = 30.0


class _DaemonPool:
    """Unbounded pool: a job starts at once on an idle worker or a new one."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
        self._jobs.put(job)
        if spawn:
            threading.Thread(target=self._work, name="llmist-gadget", daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=_IDLE_EXIT_S)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # nobody reserved us: leave
                        self._idle -= 1
                        return
                continue  # a submitter reserved this worker: its job is coming
            job()
            # An idle worker must not keep its last call (context, parameters, result) alive:
            # that call's objects would be freed only when the worker takes its next job, maybe
            # in another run, 30 s later, or never.
            del job
            with self._lock:
                self._idle += 1


_pool = _DaemonPool()


def submit_to_thread(
    loop: asyncio.AbstractEventLoop,
    complete: Callable[[Any, BaseException | None], None],
    fn: Callable[..., Any],
    *args: Any,
) -> None:
    """Start ``fn(*args)`` in a worker thread now (in a copy of the current context); when it
    returns or raises, ``complete(value, None)`` or ``complete(None, exc)`` runs as a callback on
    ``loop``. No future, no task: one thread hop and one loop callback."""
    context = contextvars.copy_context()

    def job() -> None:
        try:
            value = context.run(fn, *args)
        except BaseException as exc:
            post(complete, None, exc)
        else:
            post(complete, value, None)

    def post(cb: Callable[[Any, BaseException | None], None], value: Any, exc: BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # loop closed: the call was abandoned long ago
            loop.call_soon_threadsafe(cb, value, exc)

    _pool.submit(job)


async def run_in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """Await ``fn(*args)`` run in a worker thread (through :func:`submit_to_thread`); cancelling
    the await abandons (does not stop) it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def complete(value: Any, exc: BaseException | None) -> None:
        if future.done():
            return  # abandoned
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(value)

    submit_to_thread(loop, complete, fn, *args)
    return await future
