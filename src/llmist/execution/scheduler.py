"""``GadgetScheduler``: runs calls as a dependency DAG while they stream in.

Submit calls as the parser produces them, close when the response ended, and iterate
results in completion order. A call starts the moment its last dependency finished;
independent calls run concurrently within the configured limits. Bookkeeping is O(1) per
call and per dependency edge: no scans on completion.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Mapping
from functools import partial
from typing import Any, Final

from mypy_extensions import mypyc_attr

from llmist.execution._eager import start_task
from llmist.execution.controllers import DependencySkipDecision, OnDependencySkipped
from llmist.execution.executor import GadgetExecutor, ThreadCall
from llmist.execution.results import RUN_CANCELLED, GadgetDeferral, GadgetExecutionResult, GadgetSkip, call_result
from llmist.gadgets import Gadget
from llmist.syntax import ParsedCall

__all__ = ["GadgetScheduler"]

# A call's states. Final: the compiled build inlines them (a plain module global is a dict
# look-up there, read several times for every call).
_WAITING: Final = 0
_READY: Final = 1
_RUNNING: Final = 2
_DONE: Final = 3

_log = logging.getLogger("llmist.execution")


class _Node:
    __slots__ = ("call", "deferred", "dependents", "failed", "gadget", "pending", "run", "started", "state", "task")

    def __init__(self, call: ParsedCall, gadget: Gadget | None) -> None:
        self.call = call
        self.gadget = gadget
        self.pending = 0
        self.dependents: list[_Node] = []
        self.failed: GadgetExecutionResult | None = None
        self.deferred: GadgetExecutionResult | None = None
        """A dependency that was deferred: this call is deferred too (unless another failed)."""
        self.state = _WAITING
        self.run: Awaitable[GadgetExecutionResult] | None = None
        """The call's coroutine from its start until its task's first step takes it."""
        self.task: asyncio.Task[None] | None = None
        """The task running the call, once it has one that did not finish at once."""
        self.started = 0.0
        """``time.perf_counter()`` when the call started running."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled in the regular wheel; users may subclass
class GadgetScheduler:
    """Runs a stream of calls through a :class:`GadgetExecutor` as a dependency DAG.

    Args:
        executor: runs each call (and holds the gadgets, hooks and timeouts).
        max_concurrency: at most this many calls run at once (``None``: no limit).
        on_dependency_skipped: decides what happens to a call whose dependency failed.
        completed: results of earlier responses, by invocation id; calls may depend on them.
        on_missing_dependency: asked at :meth:`close` about each call that waits for an id no
            call has (the call, the id): ``True`` runs the call without waiting for it; else
            (and without this) the call fails, saying so.

    Use::

        scheduler = GadgetScheduler(executor)
        scheduler.submit(call)            # as each call is parsed
        scheduler.close()                 # when the response ended
        async for result in scheduler:    # completion order
            ...

    A call's synchronous work (validation, sync hooks, an inline gadget) runs inside
    ``submit``; a sync gadget is handed to its worker thread there too, so nothing waits for
    an event-loop turn. :meth:`take_ready` collects results without waiting (say, between
    chunks of a model's stream); results it took are not yielded again by the iteration.
    """

    def __init__(
        self,
        executor: GadgetExecutor,
        *,
        max_concurrency: int | None = None,
        on_dependency_skipped: OnDependencySkipped | None = None,
        completed: Mapping[str, GadgetExecutionResult] | None = None,
        on_missing_dependency: Callable[[ParsedCall, str], bool] | None = None,
    ) -> None:
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
        self._executor = executor
        self._max = max_concurrency
        self._on_skipped = on_dependency_skipped
        self._on_missing = on_missing_dependency
        self._prior: Mapping[str, GadgetExecutionResult] = completed or {}
        self._nodes: dict[str, _Node] = {}
        self._results: dict[str, GadgetExecutionResult] = {}
        self._missing: dict[str, list[_Node]] = {}
        self._ready: deque[_Node] = deque()
        self._blocked: dict[str, deque[_Node]] = {}
        self._per_gadget: dict[str, int] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._threads: dict[str, ThreadCall] = {}
        self._pumping = False
        self._running = 0
        self._exclusive_running = False
        self._outstanding = 0
        self._closed = False
        self._cancelled = False
        self._grace = 0.0
        self._out: deque[GadgetExecutionResult] = deque()
        self._waiter: asyncio.Future[None] | None = None

    # --- input ------------------------------------------------------------------------------

    def submit(self, call: ParsedCall) -> None:
        """Add a call; it starts as soon as its dependencies finished (maybe right now)."""
        if self._closed:
            raise RuntimeError("submit() after close(): start a new GadgetScheduler for the next response")
        call_id = call.invocation_id
        self._outstanding += 1
        if call_id in self._nodes:
            self._emit(
                _error(
                    call,
                    f"Duplicate invocation id {call_id!r}: another call in this response already "
                    "uses it. Give every call its own id.",
                )
            )
            return
        node = _Node(call, self._executor.get(call.gadget_name))
        self._nodes[call_id] = node
        for dep in call.dependencies:
            if dep == call_id:
                self._finish(
                    node, _error(call, f"Call {call_id!r} depends on itself; remove {dep!r} from its dependencies.")
                )
                return
            prior = self._results.get(dep)
            if prior is None and dep not in self._nodes:
                prior = self._prior.get(dep)
            if prior is not None:
                _note_dependency(node, prior)
                continue
            node.pending += 1
            target = self._nodes.get(dep)
            if target is not None:
                target.dependents.append(node)
            else:
                self._missing.setdefault(dep, []).append(node)
        waiters = self._missing.pop(call_id, None)
        if waiters:
            node.dependents.extend(waiters)
        if node.pending == 0:
            self._dependencies_done(node)

    def close(self) -> None:
        """No more calls will come: fail calls whose dependencies can never finish (or run them
        without those, as ``on_missing_dependency`` decides)."""
        if self._closed:
            return
        self._closed = True
        for dep, waiters in list(self._missing.items()):
            for node in waiters:
                if node.state != _WAITING:
                    continue
                if self._on_missing is not None and self._on_missing(node.call, dep):
                    node.pending -= 1  # the call runs without waiting for what does not exist
                    if node.pending == 0:
                        self._dependencies_done(node)
                else:
                    self._finish(
                        node,
                        _error(
                            node.call,
                            f"Call {node.call.invocation_id!r} depends on {dep!r}, but no "
                            f"call has that id. Depend only on ids of calls you made.",
                        ),
                    )
        self._missing.clear()
        self._fail_cycles()
        self._wake()

    def cancel(self, reason: str = "cancelled") -> None:
        """Cancel the run: running gadgets are signalled and cancelled, waiting calls end cancelled.

        A running gadget gets its grace period (``GadgetExecutor.cancel_grace_s``): a sync one's
        thread cannot be stopped, so what it finishes within it is its result, marked
        ``finished_after_cancel`` (its work happened; the record must not say otherwise); an async
        one that returns instead of stopping, likewise. One still running past the grace period
        ends cancelled without it, saying it was left running."""
        self._closed = self._cancelled = True
        for task in list(self._tasks):
            task.cancel(reason)
        grace = 0.0
        for node in self._nodes.values():
            if node.state in (_WAITING, _READY):
                self._finish(node, call_result(node.call, None, f"Cancelled: {reason}", "cancelled"))
            elif node.run is not None:  # its task never took a step, so it never will: end it here
                _close(node.run)
                node.run = None
                self._done(node, call_result(node.call, None, RUN_CANCELLED, "cancelled"))
            elif node.state == _RUNNING and node.gadget is not None:
                grace = max(grace, self._executor.cancel_grace_s(node.gadget))
        for call_id, handle in list(self._threads.items()):
            if handle.cancel():
                continue  # its thread's outcome is still taken, within the grace period
            del self._threads[call_id]
            self._abandon(handle)
            self._done(self._nodes[call_id], call_result(self._nodes[call_id].call, None, RUN_CANCELLED, "cancelled"))
        self._ready.clear()
        self._blocked.clear()
        self._grace = grace
        if self._running:
            asyncio.get_running_loop().call_later(grace, self._give_up)
        self._wake()

    def _abandon(self, handle: ThreadCall) -> None:
        """Stop waiting for a worker-thread call; its input handler's task (if it was asking one)
        ends with the scheduler's other tasks."""
        handle.abandon()
        if handle.task is not None:
            self._tasks.add(handle.task)
            handle.task.add_done_callback(self._tasks.discard)

    def _give_up(self) -> None:
        """The grace period after a cancellation is over: calls still running are left behind."""
        threads, self._threads = self._threads, {}
        for handle in threads.values():
            self._abandon(handle)
        left = f"{RUN_CANCELLED}; it was still running {self._grace:g} s later and was left running"
        for node in self._nodes.values():
            if node.state == _RUNNING:
                _log.warning(
                    "Gadget %s (%s) ignored its cancellation; left running",
                    node.call.gadget_name,
                    node.call.invocation_id,
                )
                self._done(node, call_result(node.call, None, left, "cancelled"))

    # --- output -----------------------------------------------------------------------------

    def take_ready(self) -> list[GadgetExecutionResult]:
        """Results finished since the last take (completion order), without waiting; ``[]`` if none.

        Taken results are not yielded again when iterating the scheduler.
        """
        out = self._out
        if not out:
            return []
        taken = list(out)
        out.clear()
        return taken

    def __aiter__(self) -> AsyncIterator[GadgetExecutionResult]:
        return _Results(self)

    async def next_result(self) -> GadgetExecutionResult | None:
        """The next result in completion order, waiting for one if needed; ``None`` once the
        scheduler is closed and every call has finished (what ``async for`` iterates over)."""
        out = self._out
        while not out:
            if self._closed and self._outstanding == 0:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return out.popleft()

    async def run(self, calls: Iterable[ParsedCall]) -> list[GadgetExecutionResult]:
        """Submit ``calls``, close, and collect every result (completion order)."""
        for call in calls:
            self.submit(call)
        self.close()
        return [result async for result in self]

    @property
    def results(self) -> Mapping[str, GadgetExecutionResult]:
        """Results so far by invocation id (pass to the next response's scheduler as ``completed``)."""
        return self._results

    async def __aenter__(self) -> GadgetScheduler:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._outstanding:
            self.cancel("scheduler exited")
            if self._tasks:  # their cleanup, up to the grace period (a gadget may ignore its cancellation)
                await asyncio.wait(self._tasks, timeout=self._grace)

    # --- internals --------------------------------------------------------------------------

    def _dependencies_done(self, node: _Node) -> None:
        failed = node.failed
        if failed is None and node.deferred is not None:
            self._finish(node, _deferred(node.call, node.deferred))
        elif failed is None:
            node.state = _READY
            self._ready.append(node)
            self._pump()
        elif self._on_skipped is None:
            self._finish(node, _skipped(node.call, failed))
        else:
            node.state = _READY
            self._spawn(self._ask_controller(node, failed))

    async def _ask_controller(self, node: _Node, failed: GadgetExecutionResult) -> None:
        call = node.call
        assert self._on_skipped is not None
        info = _skip_record(call, failed)
        try:
            decision = self._on_skipped(info)
            if inspect.isawaitable(decision):
                decision = await decision
        except Exception as exc:
            self._finish(node, _error(call, f"on_dependency_skipped failed: {type(exc).__name__}: {exc}"))
            return
        if self._cancelled or node.state == _DONE:
            return
        if isinstance(decision, DependencySkipDecision) and decision.action == "execute_anyway":
            self._ready.append(node)
            self._pump()
        elif isinstance(decision, DependencySkipDecision) and decision.action == "use_fallback":
            self._finish(node, call_result(call, decision.fallback_result or "", None, "success"))
        else:
            self._finish(node, _skipped(call, failed))

    def _pump(self) -> None:
        if self._pumping:
            return  # called back from a call that finished inside _start: the outer loop goes on
        ready = self._ready
        while ready and not self._exclusive_running and (self._max is None or self._running < self._max):
            node = ready[0]
            gadget = node.gadget
            if gadget is not None:
                if gadget.exclusive:
                    if self._running:
                        return
                    self._exclusive_running = True
                limit = gadget.max_concurrent
                if limit is not None and self._per_gadget.get(gadget.name, 0) >= limit:
                    ready.popleft()
                    self._blocked.setdefault(gadget.name, deque()).append(node)
                    continue
                self._per_gadget[gadget.name] = self._per_gadget.get(gadget.name, 0) + 1
            ready.popleft()
            node.state = _RUNNING
            node.started = time.perf_counter()
            self._running += 1
            self._start(node)

    def _start(self, node: _Node) -> None:
        """Start a call now: its synchronous part runs here (it may finish at once)."""
        call = node.call
        self._pumping = True  # a call finishing here frees others: the running _pump loop takes them
        try:
            try:
                # partial, not a lambda: compiled, a lambda's captured variables form a reference
                # cycle with it, which kept each call's objects until the next garbage collection.
                started = self._executor.start(call, partial(self._reported, node))
            except Exception as exc:  # the executor never raises for a gadget; this is our bug, keep it contained
                started = _error(call, f"Internal error running the call: {type(exc).__name__}: {exc}")
            if isinstance(started, GadgetExecutionResult):
                self._done(node, started)
            elif isinstance(started, ThreadCall):
                self._threads[call.invocation_id] = started
            else:
                node.run = started
                self._spawn(self._execute(node), node)  # may finish here (3.12+)
        finally:
            self._pumping = False

    def _reported(self, node: _Node, result: GadgetExecutionResult) -> None:
        """A result handed over by the executor's ``done``: a worker thread's, or the timeout of
        an async gadget left running past its grace period."""
        self._threads.pop(node.call.invocation_id, None)
        if node.state == _DONE:
            return  # cancelled meanwhile: already reported
        self._done(node, self._after_cancel(result))
        if not self._cancelled:
            self._pump()

    def _spawn(self, coro: Coroutine[Any, Any, None], node: _Node | None = None) -> None:
        """Run ``coro`` as a task (for ``node``, when it runs that call); on 3.12+ its first step
        runs now."""
        task = start_task(asyncio.get_running_loop(), coro)
        if task.done():
            return
        self._tasks.add(task)
        if node is None:
            task.add_done_callback(self._tasks.discard)
        else:
            # A call's task leaves the set itself when it ends (see _execute), so no done callback
            # waits for the event loop to run it. One cancelled before its first step never runs
            # _execute: cancel() ends it, finding its coroutine still in node.run.
            node.task = task

    async def _execute(self, node: _Node) -> None:
        run, node.run = node.run, None
        assert run is not None, "a call's task takes its coroutine once"
        try:
            try:
                result = await run
            except asyncio.CancelledError:
                result = call_result(node.call, None, RUN_CANCELLED, "cancelled")
            except Exception as exc:  # the executor never raises for a gadget; this is our bug, keep it contained
                result = _error(node.call, f"Internal error running the call: {type(exc).__name__}: {exc}")
            if node.state == _DONE:
                return  # reported already (a timeout past the grace period, or the run's cancellation)
            self._done(node, self._after_cancel(result))
            if not self._cancelled:
                self._pump()
        finally:
            if node.task is not None:  # None when it ended within its first step (3.12+: not in the set)
                self._tasks.discard(node.task)
                node.task = None

    def _after_cancel(self, result: GadgetExecutionResult) -> GadgetExecutionResult:
        """``result``, marked when the call ended after the run's cancellation but did not end
        cancelled (it finished its work within the grace period)."""
        if not self._cancelled or result.status == "cancelled":
            return result
        return dataclasses.replace(result, finished_after_cancel=True)

    def _done(self, node: _Node, result: GadgetExecutionResult) -> None:
        """A started call ended: free its slots and record its result."""
        if result.status == "cancelled" and not result.execution_time_ms:
            # A cancellation's result is made without the call's timing (by whoever cancelled
            # it), yet the call ran until then: the record says for how long, not 0 ms.
            result = dataclasses.replace(result, execution_time_ms=(time.perf_counter() - node.started) * 1000.0)
        self._running -= 1
        gadget = node.gadget
        if gadget is not None:
            if gadget.exclusive:
                self._exclusive_running = False
            name = gadget.name
            self._per_gadget[name] -= 1
            blocked = self._blocked.get(name)
            if blocked:
                self._ready.appendleft(blocked.popleft())
        self._finish(node, result)

    def _finish(self, node: _Node, result: GadgetExecutionResult) -> None:
        if node.state == _DONE:
            return
        node.state = _DONE
        self._results[node.call.invocation_id] = result
        self._emit(result)
        for dependent in node.dependents:
            if dependent.state != _WAITING:
                continue
            _note_dependency(dependent, result)
            dependent.pending -= 1
            if dependent.pending == 0:
                self._dependencies_done(dependent)

    def _emit(self, result: GadgetExecutionResult) -> None:
        self._outstanding -= 1
        self._out.append(result)
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _fail_cycles(self) -> None:
        """After close every waiting call waits on a call that still runs or on a cycle; fail the cycles."""
        colour: dict[str, int] = {}  # 1 = on the DFS stack, 2 = explored
        for start in list(self._nodes.values()):
            if start.state != _WAITING or start.call.invocation_id in colour:
                continue
            stack: list[tuple[_Node, Iterable[str]]] = [(start, iter(start.call.dependencies))]
            path: list[_Node] = [start]
            colour[start.call.invocation_id] = 1
            while stack:
                node, deps = stack[-1]
                advanced = False
                for dep in deps:
                    target = self._nodes.get(dep)
                    if target is None or target.state != _WAITING:
                        continue
                    mark = colour.get(dep)
                    if mark == 1:
                        cycle = path[path.index(target) :]
                        names = " -> ".join(n.call.invocation_id for n in [*cycle, target])
                        for member in cycle:  # take them all out first, so none is merely "skipped"
                            member.state = _READY
                        for member in cycle:
                            self._finish(
                                member,
                                _error(
                                    member.call,
                                    f"Dependency cycle: {names}. Calls in a cycle "
                                    "can never run; remove one of the dependencies.",
                                ),
                            )
                        continue
                    if mark is None:
                        colour[dep] = 1
                        stack.append((target, iter(target.call.dependencies)))
                        path.append(target)
                        advanced = True
                        break
                if not advanced:
                    colour[node.call.invocation_id] = 2
                    stack.pop()
                    path.pop()


def _note_dependency(node: _Node, result: GadgetExecutionResult) -> None:
    """``node`` depends on the call that ended with ``result``: a failure skips it, a deferral
    defers it (the first of each is kept)."""
    if result.status == "deferred":
        if node.deferred is None:
            node.deferred = result
    elif not result.ok and node.failed is None:
        node.failed = result


def _deferred(call: ParsedCall, waited: GadgetExecutionResult) -> GadgetExecutionResult:
    """The result of ``call``, deferred because the call it depends on (``waited``) was."""
    reason = f"runs after {waited.invocation_id} ({waited.gadget_name}), which waits"
    return GadgetExecutionResult(
        call.gadget_name,
        call.invocation_id,
        dict(call.parameters or {}),
        None,
        f"Not run yet: {reason}",
        0.0,
        status="deferred",
        deferral=GadgetDeferral(reason, call, waited.invocation_id),
    )


def _close(run: Awaitable[Any]) -> None:
    """Close a call's coroutine that never started, so Python does not warn it was never awaited."""
    if inspect.iscoroutine(run):
        run.close()


def _error(call: ParsedCall, message: str) -> GadgetExecutionResult:
    return call_result(call, None, message, "error")


def _skip_record(call: ParsedCall, failed: GadgetExecutionResult) -> GadgetSkip:
    return GadgetSkip(
        gadget_name=call.gadget_name,
        invocation_id=call.invocation_id,
        parameters=dict(call.parameters or {}),
        failed_dependency=failed.invocation_id,
        failed_dependency_error=failed.error or failed.status,
        call=call,
    )


def _skipped(call: ParsedCall, failed: GadgetExecutionResult) -> GadgetExecutionResult:
    skip = _skip_record(call, failed)
    return GadgetExecutionResult(
        call.gadget_name,
        call.invocation_id,
        skip.parameters,
        None,
        f"Skipped: dependency {failed.invocation_id!r} ({failed.gadget_name}) failed: {skip.failed_dependency_error}",
        0.0,
        status="skipped",
        skip=skip,
    )


class _Results:
    """``async for`` over a scheduler: :meth:`GadgetScheduler.next_result` until it says ``None``.

    A class rather than an async generator, so the compiled build can compile the module.
    """

    __slots__ = ("_scheduler",)

    def __init__(self, scheduler: GadgetScheduler) -> None:
        self._scheduler = scheduler

    def __aiter__(self) -> _Results:
        return self

    async def __anext__(self) -> GadgetExecutionResult:
        result = await self._scheduler.next_result()
        if result is None:
            raise StopAsyncIteration
        return result
