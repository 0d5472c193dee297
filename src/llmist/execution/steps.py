"""A seam for running each gadget call inside something else, such as a durable engine's step.

:class:`~llmist.execution.GadgetExecutor` takes a :data:`CallWrapper` (``around_call=``). With one,
every call's gadget runs through it: the wrapper gets the gadget, the call's
:class:`~llmist.gadgets.ExecutionContext` and an ``invoke`` that runs the gadget (a sync one in a
worker thread) and returns its output. It may run ``invoke`` once and return what it returned,
or return an output recorded earlier without running it (``llmist.durable`` does: a call that
completed before a crash is not run again). Whatever it returns or raises is the gadget's
outcome, settled as usual (a ``TaskCompletionSignal`` raised ends the run, an error is the
call's error).

Without one (the default) nothing changes: the executor calls the gadget itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from llmist.execution._threads import run_in_thread
from llmist.gadgets import ExecutionContext, Gadget

__all__ = ["CallWrapper", "Invoke", "invoker"]

Invoke: TypeAlias = Callable[[], Awaitable[Any]]
"""Runs the gadget of one call with its parameters and context; its output (or what it raised)."""

CallWrapper: TypeAlias = Callable[[Gadget, ExecutionContext, Invoke], Awaitable[Any]]
"""``(gadget, ctx, invoke) -> output``: runs one call's gadget, through ``invoke`` or not."""


def invoker(gadget: Gadget, params: Any, ctx: ExecutionContext) -> Invoke:
    """The ``invoke`` of one call: an async gadget awaited, a sync one run in a worker thread
    (the wrapper is awaited on the event loop, which a sync gadget must not hold): one of the
    daemonic workers that run every sync gadget, so a call abandoned there holds up no exit."""
    invocation = gadget.invocation()
    if invocation.is_async:
        return lambda: invocation.call(params, ctx)
    return lambda: run_in_thread(invocation.call, params, ctx)
