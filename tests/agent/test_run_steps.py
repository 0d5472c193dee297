"""The run-steps seam (``llmist.agent.steps``) and ``ctx.idempotency_key``: a run inside
``run_steps`` opens each response and runs each call through the given steps, and names each
call by the steps' scope and its place in the run; outside, nothing changes and every call still
has a key of its own."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent, ExecutionContext, gadget
from llmist.agent.steps import current_steps, run_steps
from llmist.execution.steps import Invoke
from llmist.gadgets import Gadget
from llmist.providers.base import LLMChunk
from llmist.testing import MockModel, block_call

RESPONSES = [block_call("note", tag="a") + block_call("note", tag="b"), block_call("note", tag="c"), "done"]


def _agent(keys: list[str]) -> Agent[str]:
    @gadget
    def note(tag: str, ctx: ExecutionContext) -> str:
        """Note a tag."""
        keys.append(ctx.idempotency_key)
        return tag

    return Agent(model=MockModel(RESPONSES), gadgets=[note])


class Recording:
    """Steps that run everything, and count it."""

    scope = "wf-1"

    def __init__(self) -> None:
        self.responses = 0
        self.calls: list[str] = []

    def response(self, open_stream: Callable[[], AsyncIterable[LLMChunk]]) -> AsyncIterable[LLMChunk]:
        self.responses += 1
        return self._chunks(open_stream)

    async def _chunks(self, open_stream: Callable[[], AsyncIterable[LLMChunk]]) -> AsyncIterator[LLMChunk]:
        async for chunk in open_stream():
            yield chunk

    async def call(self, gadget: Gadget, ctx: ExecutionContext, invoke: Invoke) -> Any:
        self.calls.append(ctx.idempotency_key)
        return await invoke()


async def test_each_call_of_an_ordinary_run_has_its_own_key() -> None:
    keys: list[str] = []
    await _agent(keys).run("go")
    await _agent(keys).run("go")
    assert len(keys) == 6
    assert len(set(keys)) == 6  # unique within a run and across runs


async def test_a_runs_steps_see_every_response_and_every_call() -> None:
    keys: list[str] = []
    steps = Recording()
    with run_steps(steps):
        result = await _agent(keys).run("go")
    assert result.output == "done"
    assert steps.responses == 3
    assert steps.calls == keys
    assert sorted(keys) == ["wf-1:1.1", "wf-1:1.2", "wf-1:2.1"]  # scope, response, position


async def test_the_keys_in_steps_are_the_same_when_the_run_is_run_again() -> None:
    first: list[str] = []
    second: list[str] = []
    with run_steps(Recording()):
        await _agent(first).run("go")
        await _agent(second).run("go")  # invocation ids differ (gadget_<n> counts per process)
    assert sorted(first) == sorted(second)


def test_run_steps_is_undone_when_the_block_ends() -> None:
    with run_steps(Recording()):
        assert current_steps() is not None
    assert current_steps() is None


def test_a_context_made_by_hand_has_a_key() -> None:
    ctx = ExecutionContext(gadget_name="g")
    assert ctx.idempotency_key == ctx.idempotency_key != ExecutionContext(gadget_name="g").idempotency_key
    assert ExecutionContext(gadget_name="g", idempotency_key="k").idempotency_key == "k"


async def test_a_sync_gadget_runs_in_a_daemon_worker_thread_through_the_steps() -> None:
    threads: list[threading.Thread] = []

    @gadget
    def where() -> str:
        """Say where it runs."""
        threads.append(threading.current_thread())
        return "here"

    agent = Agent(model=MockModel([block_call("where"), "done"]), gadgets=[where])
    with run_steps(Recording()):
        await agent.run("go")
    (thread,) = threads
    assert (thread.name, thread.daemon) == ("llmist-gadget", True)  # the worker threads of any run


_ABANDONED = '''
import asyncio, threading
from llmist import Agent, gadget
from llmist.agent.steps import run_steps
from llmist.testing import MockModel, block_call

class Steps:
    scope = "wf-1"

    def response(self, open_stream):
        return open_stream()

    async def call(self, gadget, ctx, invoke):
        return await invoke()

@gadget(timeout_s=0.2)
def stuck() -> str:
    """Never returns, and ignores its signal."""
    threading.Event().wait()
    return "never"

async def main() -> None:
    with run_steps(Steps()):
        result = await Agent(model=MockModel([block_call("stuck"), "done"]), gadgets=[stuck]).run("go")
    print(result.output, result.gadget_results[0].status)

asyncio.run(main())
'''


@pytest.mark.slow
def test_a_sync_gadget_abandoned_through_the_steps_does_not_hold_up_exit(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(_ABANDONED, encoding="utf-8")
    # Under asyncio.run, whose end waits for every thread of the loop's default executor: the
    # abandoned gadget's thread is not one of them.
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert (proc.returncode, proc.stdout.strip()) == (0, "done timeout"), proc.stderr


@pytest.mark.parametrize("outside", [True, False])
async def test_a_wrapper_that_raises_is_the_calls_error(outside: bool) -> None:
    class Refusing(Recording):
        async def call(self, gadget: Gadget, ctx: ExecutionContext, invoke: Invoke) -> Any:
            if outside:
                raise RuntimeError("the engine refused")
            return await invoke()

    keys: list[str] = []
    with run_steps(Refusing()):
        result = await _agent(keys).run("go")
    errors = [r.error for r in result.gadget_results]
    assert all(e is not None and "the engine refused" in e for e in errors) if outside else errors == [None] * 3
