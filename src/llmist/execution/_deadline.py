"""``Deadline``: one gadget call's timeout, the same for every kind of gadget."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from llmist.gadgets import ExecutionContext, GadgetTimeoutError

__all__ = ["Deadline"]


class Deadline:
    """Fires once after ``timeout_s`` unless cancelled first.

    On expiry it records the :class:`GadgetTimeoutError`, aborts the call's signal (so the
    gadget's listeners run first and can clean up), then calls ``expire`` with the error, which
    ends the call its own way (cancel the task, or report the timeout for a worker thread).
    ``timeout_s=None``: never fires.
    """

    __slots__ = ("_timer", "error")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        timeout_s: float | None,
        ctx: ExecutionContext,
        expire: Callable[[GadgetTimeoutError], None],
    ) -> None:
        self.error: GadgetTimeoutError | None = None
        """Set once the deadline has passed."""
        self._timer = None if timeout_s is None else loop.call_later(timeout_s, self._fire, timeout_s, ctx, expire)

    def _fire(self, timeout_s: float, ctx: ExecutionContext, expire: Callable[[GadgetTimeoutError], None]) -> None:
        self.error = error = GadgetTimeoutError(ctx.gadget_name, timeout_s)
        ctx.signal.abort(error)
        expire(error)

    def cancel(self) -> None:
        """The call ended in time: the deadline will not fire."""
        if self._timer is not None:
            self._timer.cancel()
