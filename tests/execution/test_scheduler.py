"""GadgetScheduler: a streaming dependency DAG."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import sys
import threading
import time
import warnings
from typing import Any

import pytest

from llmist import (
    DependencySkipDecision,
    ExecutionContext,
    GadgetExecutionResult,
    GadgetExecutor,
    GadgetScheduler,
    gadget,
)
from llmist.execution import DependencySkipInfo
from llmist.syntax import ParsedCall

log: list[str] = []


@gadget
async def step(label: str) -> str:
    """Record that this step ran."""
    log.append(label)
    return label


@gadget
def fail(label: str) -> str:
    """Always fails."""
    raise RuntimeError(f"{label} broke")


@gadget
async def nap(seconds: float) -> str:
    """Sleep."""
    await asyncio.sleep(seconds)
    return "rested"


def call(call_id: str, *deps: str, name: str = "step", **params: Any) -> ParsedCall:
    return ParsedCall(name, call_id, "", params or {"label": call_id}, None, deps)


def scheduler(**kwargs: Any) -> GadgetScheduler:
    log.clear()
    return GadgetScheduler(GadgetExecutor([step, fail, nap]), **kwargs)


def by_id(results: list[GadgetExecutionResult]) -> dict[str, GadgetExecutionResult]:
    return {r.invocation_id: r for r in results}


async def test_diamond_runs_in_dependency_order() -> None:
    results = await scheduler().run([call("d", "b", "c"), call("b", "a"), call("c", "a"), call("a")])
    assert log[0] == "a" and log[-1] == "d" and set(log[1:3]) == {"b", "c"}
    assert [r.invocation_id for r in results] == log


async def test_dependency_may_arrive_later_in_the_response() -> None:
    s = scheduler()
    s.submit(call("b", "a"))
    s.submit(call("a"))
    s.close()
    assert [r.invocation_id async for r in s] == ["a", "b"]


async def test_results_stream_before_close() -> None:
    s = scheduler()
    s.submit(call("a"))
    iterator = aiter(s)
    first = await anext(iterator)
    assert first.invocation_id == "a"
    s.close()
    assert [r async for r in iterator] == []


async def test_failed_dependency_skips_dependents_transitively() -> None:
    results = by_id(await scheduler().run([call("a", name="fail"), call("b", "a"), call("c", "b")]))
    assert results["b"].status == "skipped" and results["c"].status == "skipped"
    assert results["b"].skip is not None
    assert (results["b"].skip.failed_dependency, results["b"].skip.failed_dependency_error) == (
        "a",
        "RuntimeError: a broke",
    )
    assert results["c"].skip is not None and results["c"].skip.failed_dependency == "b"
    assert log == []


async def test_controller_skip_keeps_default() -> None:
    s = scheduler(on_dependency_skipped=lambda info: DependencySkipDecision("skip"))
    results = by_id(await s.run([call("a", name="fail"), call("b", "a")]))
    assert results["b"].status == "skipped"


async def test_controller_execute_anyway_runs_the_call() -> None:
    seen: list[DependencySkipInfo] = []

    async def decide(info: DependencySkipInfo) -> DependencySkipDecision:
        seen.append(info)
        return DependencySkipDecision("execute_anyway")

    results = by_id(await scheduler(on_dependency_skipped=decide).run([call("a", name="fail"), call("b", "a")]))
    assert results["b"].result == "b" and seen[0].failed_dependency == "a"


async def test_controller_use_fallback_gives_fallback_result() -> None:
    s = scheduler(on_dependency_skipped=lambda info: DependencySkipDecision("use_fallback", "[]"))
    results = by_id(await s.run([call("a", name="fail"), call("b", "a"), call("c", "b")]))
    assert (results["b"].status, results["b"].result) == ("success", "[]")
    assert results["c"].result == "c"


async def test_unknown_dependency_is_an_error_after_close() -> None:
    results = by_id(await scheduler().run([call("a", "ghost")]))
    assert results["a"].error is not None and "depends on 'ghost', but no call has that id" in results["a"].error


async def test_on_missing_dependency_decides_whether_a_call_runs_without_it() -> None:
    asked: list[tuple[str, str]] = []

    def decide(c: ParsedCall, dep: str) -> bool:
        asked.append((c.invocation_id, dep))
        return dep == "ghost"

    s = scheduler(on_missing_dependency=decide)
    results = by_id(await s.run([call("a", "ghost"), call("b", "phantom"), call("c", "ghost", "a")]))
    assert results["a"].result == "a" and results["c"].result == "c"  # c waited for a, not for ghost
    assert results["b"].error is not None and "depends on 'phantom'" in results["b"].error
    assert sorted(asked) == [("a", "ghost"), ("b", "phantom"), ("c", "ghost")]


async def test_duplicate_id_is_an_error() -> None:
    results = await scheduler().run([call("a"), call("a")])
    assert sorted(r.status for r in results) == ["error", "success"]


async def test_cycle_fails_every_member() -> None:
    results = by_id(await scheduler().run([call("a", "b"), call("b", "a"), call("c", "a")]))
    assert results["a"].error is not None and results["a"].error.startswith("Dependency cycle: a -> b -> a")
    assert results["b"].status == "error" and results["c"].status == "skipped"


async def test_self_dependency_is_an_error() -> None:
    results = await scheduler().run([call("a", "a")])
    assert results[0].error is not None and "depends on itself" in results[0].error


async def test_dependency_on_previous_response_result() -> None:
    earlier = await scheduler().run([call("old")])
    s = scheduler(completed={r.invocation_id: r for r in earlier})
    assert [r.result for r in await s.run([call("new", "old")])] == ["new"]


async def test_hundred_independent_calls_run_concurrently() -> None:
    # Each call waits until all hundred are running, so calls run in any smaller groups would
    # time out: concurrency is proven without measuring time.
    running = 0
    all_running = asyncio.Event()

    @gadget
    async def meet(label: str) -> str:
        """Returns once every call is running."""
        nonlocal running
        running += 1
        if running == 100:
            all_running.set()
        await asyncio.wait_for(all_running.wait(), timeout=30)
        return label

    calls = [call(f"n{i}", name="meet") for i in range(100)]
    results = await GadgetScheduler(GadgetExecutor([meet])).run(calls)
    assert len(results) == 100 and all(r.ok for r in results)


async def test_max_concurrency_limits_running_calls() -> None:
    running = 0
    peak = 0

    @gadget
    async def track(i: int) -> str:
        """Track concurrency."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0)
        running -= 1
        return "ok"

    s = GadgetScheduler(GadgetExecutor([track]), max_concurrency=2)
    await s.run([ParsedCall("track", f"t{i}", "", {"i": i}, None, ()) for i in range(6)])
    assert peak == 2


async def test_gadget_max_concurrent_limits_that_gadget() -> None:
    running = 0
    peak = 0

    @gadget(max_concurrent=1)
    async def serial(i: int) -> str:
        """One at a time."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0)
        running -= 1
        return "ok"

    s = GadgetScheduler(GadgetExecutor([serial]))
    results = await s.run([ParsedCall("serial", f"s{i}", "", {"i": i}, None, ()) for i in range(4)])
    assert peak == 1 and len(results) == 4


async def test_exclusive_gadget_runs_alone_after_earlier_calls() -> None:
    events: list[str] = []

    @gadget
    async def work(i: int) -> str:
        """Work."""
        events.append(f"start{i}")
        await asyncio.sleep(0)
        events.append(f"end{i}")
        return "ok"

    @gadget(exclusive=True)
    async def finish() -> str:
        """Finish alone."""
        events.append("finish")
        await asyncio.sleep(0)
        events.append("finish-end")
        return "done"

    s = GadgetScheduler(GadgetExecutor([work, finish]))
    calls = [ParsedCall("work", "w1", "", {"i": 1}, None, ()), ParsedCall("finish", "f", "", {}, None, ())]
    calls.append(ParsedCall("work", "w2", "", {"i": 2}, None, ()))
    await s.run(calls)
    assert events == ["start1", "end1", "finish", "finish-end", "start2", "end2"]


async def test_cancel_signals_running_gadgets_and_ends_waiting_calls() -> None:
    started = asyncio.Event()
    reasons: list[object] = []

    @gadget
    async def long(ctx: ExecutionContext) -> str:
        """Long."""
        ctx.signal.add_listener(reasons.append)
        started.set()
        await asyncio.Event().wait()
        return "never"

    s = GadgetScheduler(GadgetExecutor([long, step]))
    s.submit(ParsedCall("long", "l", "", {}, None, ()))
    s.submit(call("after", "l"))
    await started.wait()
    s.cancel()
    results = by_id([r async for r in s])
    assert reasons == ["cancelled"]
    assert results["l"].status == "cancelled" and results["after"].status == "cancelled"


async def test_a_call_cancelled_while_running_reports_how_long_it_ran() -> None:
    started = asyncio.Event()

    @gadget
    async def long() -> str:
        """Long."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    s = GadgetScheduler(GadgetExecutor([long, step]))
    s.submit(ParsedCall("long", "l", "", {}, None, ()))
    s.submit(call("after", "l"))
    await started.wait()
    await asyncio.sleep(0.05)
    s.cancel()
    results = by_id([r async for r in s])
    assert results["l"].status == "cancelled" and results["l"].execution_time_ms >= 50
    assert results["after"].execution_time_ms == 0  # it never started


async def test_cancel_before_a_calls_first_step_ends_it_cancelled_without_a_warning() -> None:
    ran: list[str] = []

    @gadget
    async def never_started(label: str) -> str:
        """Records that it ran."""
        ran.append(label)
        await asyncio.Event().wait()
        return label

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # A long grace period: calls that never started must not wait for it.
        s = GadgetScheduler(GadgetExecutor([never_started], cancel_grace_s=60.0))
        s.submit(ParsedCall("never_started", "n1", "", {"label": "n1"}, None, ()))
        s.submit(ParsedCall("never_started", "n2", "", {"label": "n2"}, None, ()))
        s.cancel("stopped")  # no event-loop turn since submit: on 3.11 no task has taken a step
        async with asyncio.timeout(10):
            results = by_id([r async for r in s])
            await s.__aexit__(None, None, None)
        del s
        gc.collect()
    assert {r.status for r in results.values()} == {"cancelled"} and set(results) == {"n1", "n2"}
    if sys.version_info < (3, 12):  # 3.12+ starts each call eagerly, inside submit
        assert ran == []
    assert not [w for w in caught if "never awaited" in str(w.message)]


@gadget(inline=True)
def quick(label: str) -> str:
    """Runs on the loop's thread (opt-in)."""
    log.append(f"{label}@{threading.current_thread() is threading.main_thread()}")
    return label


async def test_take_ready_returns_finished_results_without_waiting() -> None:
    sched = GadgetScheduler(GadgetExecutor([quick, step]))
    assert sched.take_ready() == []
    log.clear()
    sched.submit(ParsedCall("quick", "q1", "", {"label": "q1"}, None, ()))
    taken = sched.take_ready()  # an inline gadget finished inside submit
    assert [r.invocation_id for r in taken] == ["q1"] and sched.take_ready() == []
    sched.submit(call("s1"))
    sched.close()
    rest = [r async for r in sched]  # taken results are not yielded again
    assert [r.invocation_id for r in rest] == ["s1"]


async def test_inline_gadget_runs_on_the_loop_thread_and_sync_default_does_not() -> None:
    @gadget
    def threaded(label: str) -> str:
        """Default sync gadget."""
        log.append(f"{label}@{threading.current_thread() is threading.main_thread()}")
        return label

    log.clear()
    results = await GadgetScheduler(GadgetExecutor([quick, threaded])).run(
        [
            ParsedCall("quick", "a", "", {"label": "a"}, None, ()),
            ParsedCall("threaded", "b", "", {"label": "b"}, None, ("a",)),
        ]
    )
    assert sorted(log) == ["a@True", "b@False"]
    assert [r.result for r in results] == ["a", "b"]
    assert quick.run_inline and not threaded.run_inline

    log.clear()  # GadgetExecutor.execute, without a scheduler, keeps to the same rule
    executor = GadgetExecutor([quick, threaded])
    await executor.execute(ParsedCall("quick", "c", "", {"label": "c"}, None, ()))
    await executor.execute(ParsedCall("threaded", "d", "", {"label": "d"}, None, ()))
    assert log == ["c@True", "d@False"]


async def test_sync_gadget_timeout_fires_signal_then_abandons_thread() -> None:
    release = threading.Event()
    order: list[str] = []

    @gadget(timeout_s=0.05)
    def stuck(ctx: ExecutionContext) -> str:
        """Blocks until released."""
        ctx.signal.add_listener(lambda reason: order.append("signal"))
        release.wait(5)
        return "late"

    started = time.perf_counter()
    results = await GadgetScheduler(GadgetExecutor([stuck])).run([ParsedCall("stuck", "s", "", {}, None, ())])
    release.set()
    assert results[0].status == "timeout" and order == ["signal"]
    assert time.perf_counter() - started < 2


@pytest.mark.skipif(sys.version_info < (3, 12), reason="eager tasks are public from Python 3.12 (make test-py312)")
async def test_async_gadget_that_does_not_suspend_finishes_inside_submit_as_its_own_task() -> None:
    seen: dict[str, Any] = {}
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="caller")

    @gadget
    async def probe() -> str:
        """Reports the task it runs in."""
        seen["task"] = asyncio.current_task()
        marker.set("gadget")
        return "ok"

    sched = GadgetScheduler(GadgetExecutor([probe]))
    sched.submit(ParsedCall("probe", "p", "", {}, None, ()))
    taken = sched.take_ready()  # no event-loop turn happened in between
    assert [r.result for r in taken] == ["ok"]
    assert seen["task"] is not None and seen["task"] is not asyncio.current_task()
    assert marker.get() == "caller"  # the gadget ran in its own copy of the context


async def test_a_loop_task_factory_still_makes_the_gadget_tasks() -> None:
    loop = asyncio.get_running_loop()
    made: list[str] = []

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        made.append(type(coro).__name__)
        return asyncio.Task(coro, loop=loop, **kwargs)

    loop.set_task_factory(factory)
    try:
        results = await scheduler().run([call("a"), call("n", name="nap", seconds=0.001)])
    finally:
        loop.set_task_factory(None)
    assert sorted(str(r.result) for r in results) == ["a", "rested"]
    assert len(made) == 2  # one task per async gadget, both from the factory


async def test_eagerly_started_gadget_keeps_its_own_timeout_and_cancellation() -> None:
    @gadget
    async def bounded() -> str:
        """Times itself out with asyncio.timeout (which cancels the current task)."""
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(5)
        except TimeoutError:
            return "timed out inside"
        return "slept"

    results = await GadgetScheduler(GadgetExecutor([bounded, nap])).run([ParsedCall("bounded", "b", "", {}, None, ())])
    assert [r.result for r in results] == ["timed out inside"]
    assert not asyncio.current_task().cancelling()  # type: ignore[union-attr]  # the caller was never hit

    sched = GadgetScheduler(GadgetExecutor([nap]))
    sched.submit(ParsedCall("nap", "n", "", {"seconds": 5}, None, ()))
    sched.cancel("stop")
    results = [r async for r in sched]
    assert [r.status for r in results] == ["cancelled"]


async def test_long_chain_submitted_dependents_first_runs_without_deep_recursion() -> None:
    n = 3000
    sched = scheduler()
    for i in range(n - 1, 0, -1):
        sched.submit(call(f"c{i}", f"c{i - 1}"))
    sched.submit(call("c0"))  # finishing it releases the whole chain, one call after another
    sched.close()
    results = [r async for r in sched]
    assert len(results) == n and all(r.ok for r in results)
    assert log == [f"c{i}" for i in range(n)]


async def test_next_result_waits_for_each_result_then_says_none() -> None:
    sched = scheduler()
    sched.submit(call("slow", name="nap", seconds=0.02))
    sched.submit(call("after", "slow"))
    waiting = asyncio.ensure_future(sched.next_result())
    await asyncio.sleep(0)
    assert not waiting.done()  # nothing finished yet: it waits
    first = await waiting
    assert first is not None and first.invocation_id == "slow"
    sched.close()
    second = await sched.next_result()
    assert second is not None and second.invocation_id == "after"
    assert await sched.next_result() is None
    assert await sched.next_result() is None  # and keeps saying so
