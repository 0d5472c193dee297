"""A finished call's objects are freed when it ends, not left for the garbage collector.

Compiled with mypyc, a coroutine keeps its locals after it returns, and a closure's captured
variables form a cycle with it: the scheduler's callbacks and the async runner's timeout closures
made every call's context, result and task a reference cycle, freed only at the next collection
(a large result stayed in memory until then). The compiled suite runs this too (make test-compiled).
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterable, Iterator

import pytest
from pydantic import BaseModel

from llmist import Agent, ExecutionContext, Gadget, gadget
from llmist.testing import MockModel, block_call

CALL_OBJECTS = {"ExecutionContext", "PreparedCall", "GadgetExecutionResult", "Task", "AbortSignal"}


@gadget(description="Add two integers.")
async def add(a: int, b: int) -> int:
    await asyncio.sleep(0)  # suspends: the call runs as a task of its own, on every Python
    return a + b


@gadget(name="add", description="Add two integers.")
async def add_at_once(a: int, b: int) -> int:
    return a + b


@gadget(name="add", description="Add two integers.")
def add_in_thread(a: int, b: int) -> int:
    return a + b


@gadget(name="add", description="Add two integers.", inline=True)
def add_inline(a: int, b: int) -> int:
    return a + b


@gadget(name="add", description="Add two integers.")
async def add_failing(a: int, b: int) -> int:
    await asyncio.sleep(0)
    raise ValueError(f"cannot add {a} and {b}")


@gadget(name="add", description="Add two integers.")
def add_failing_in_thread(a: int, b: int) -> int:
    raise ValueError(f"cannot add {a} and {b}")


@gadget(name="add", description="Add two integers.", inline=True)
def add_failing_inline(a: int, b: int) -> int:
    raise ValueError(f"cannot add {a} and {b}")


@pytest.fixture
def saved_garbage() -> Iterator[Iterable[object]]:
    """The objects the collector finds unreachable while the test runs, kept for reading: only
    those made during the test. An earlier test's objects can still be reachable when this one
    starts and become garbage during it (an example run in-process, whose module and agent a
    worker thread still held, was collected here in CI), and they are not this test's calls."""
    gc.collect()
    earlier = {id(o) for o in gc.get_objects()}
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield _NewGarbage(earlier)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


class _NewGarbage:
    """``gc.garbage`` without the objects that existed before the test (by id: an id freed and
    reused during the test can only hide an object, never blame one)."""

    def __init__(self, earlier: set[int]) -> None:
        self._earlier = earlier

    def __iter__(self) -> Iterator[object]:
        return (o for o in gc.garbage if id(o) not in self._earlier)


@pytest.mark.parametrize(
    "tool",
    [add, add_at_once, add_in_thread, add_inline],
    ids=["suspends", "returns_at_once", "worker_thread", "inline"],
)
async def test_parallel_calls_leave_no_cycles_behind(tool: object, saved_garbage: Iterable[object]) -> None:
    calls = "".join(block_call("add", a=i, b=1) for i in range(5))
    agent = Agent(model=MockModel(lambda messages: calls if len(messages) < 3 else "done"), gadgets=[tool])
    result = await agent.run("Add.")
    # Worker threads end in any order.
    assert sorted(r.result or "" for r in result.gadget_results) == ["1", "2", "3", "4", "5"]
    gc.collect()
    left = sorted({type(o).__name__ for o in saved_garbage} & CALL_OBJECTS)
    assert left == [], f"a finished call's objects were freed only by the garbage collector: {left}"


class AddParams(BaseModel):
    a: int
    b: int


async def test_an_idle_worker_thread_keeps_nothing_of_its_last_call() -> None:
    # A worker keeps waiting for jobs after its call ends. Held there, a call's parameters and
    # context lived on until the worker's next job, in some later run, and a cycle among them
    # then became garbage in the middle of that run.
    seen: list[weakref.ref[AddParams]] = []

    class Add(Gadget):
        description = "Add two integers."
        Params = AddParams

        def execute(self, params: AddParams, ctx: ExecutionContext) -> str:
            seen.append(weakref.ref(params))
            return str(params.a + params.b)

    calls = "".join(block_call("Add", a=i, b=1) for i in range(5))
    agent = Agent(model=MockModel(lambda messages: calls if len(messages) < 3 else "done"), gadgets=[Add])
    gc.disable()
    try:
        result = await agent.run("Add.")
        assert sorted(r.result or "" for r in result.gadget_results) == ["1", "2", "3", "4", "5"]
        assert len(seen) == 5
        # A worker lets go of its job just after handing the result to the loop: give it a moment.
        for _ in range(200):
            if all(ref() is None for ref in seen):
                break
            await asyncio.sleep(0.01)
        assert [ref for ref in seen if ref() is not None] == []
    finally:
        gc.enable()


@pytest.mark.parametrize(
    "tool", [add_failing, add_failing_in_thread, add_failing_inline], ids=["suspends", "worker_thread", "inline"]
)
async def test_failed_calls_leave_no_cycles_behind(tool: object, saved_garbage: Iterable[object]) -> None:
    # A gadget's exception holds its traceback, and the traceback the frames it passed through.
    calls = "".join(block_call("add", a=i, b=1) for i in range(5))
    agent = Agent(model=MockModel(lambda messages: calls if len(messages) < 3 else "done"), gadgets=[tool])
    result = await agent.run("Add.")
    assert [r.error for r in result.gadget_results].count(None) == 0
    gc.collect()
    left = sorted({type(o).__name__ for o in saved_garbage} & (CALL_OBJECTS | {"ValueError"}))
    assert left == [], f"a failed call's objects were freed only by the garbage collector: {left}"
