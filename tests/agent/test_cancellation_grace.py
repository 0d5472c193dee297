"""What a cancellation cannot stop (issue 40): a guardrail that swallows its cancellation gets a
gadget's grace period, then is left running and named; a sync gadget that finishes its work after
a tripwire reports that work, marked, instead of "Cancelled"."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent, AgentResult, ExecutionContext, gadget
from llmist.agent.guardrails import (
    GuardedResult,
    Guardrail,
    Tripwire,
    input_guardrail,
    output_guardrail,
    tool_call_guardrail,
    tool_result_guardrail,
)
from llmist.syntax import GadgetCallEvent
from llmist.testing import MockModel, block_call

_BOUND_S = 20.0
"""A run that has not ended by then hangs (these once hung forever)."""


@pytest.fixture
def release() -> threading.Event:
    """Set once the run ended (by :func:`_run`): lets what was left running finish, so the test's
    own event loop can close (pytest's loop, unlike ``run_main``, waits for every task)."""
    return threading.Event()


async def _run(agent: Agent[Any], release: threading.Event | None = None) -> AgentResult[Any]:
    # Not asyncio.wait_for: past its timeout it would wait for the run's cancellation, which a
    # swallowed cancellation kept from ever ending.
    run = asyncio.ensure_future(agent.run("q"))
    try:
        done, _ = await asyncio.wait((run,), timeout=_BOUND_S)
        assert done, f"the run did not end within {_BOUND_S:g} s"
        return run.result()
    finally:
        if release is not None:
            release.set()


@gadget
def note(text: str) -> str:
    """Write a note."""
    return f"noted {text}"


# --- a guardrail that swallows its cancellation --------------------------------------------


def _stubborn(kind: str, release: threading.Event, swallow: int | None = None) -> Guardrail:
    """An async guardrail that never answers and ignores its cancellations (all of them, or the
    first ``swallow``, after which it answers ``None``)."""
    seen = 0

    async def stubborn(guarded: Any) -> None:
        nonlocal seen
        while not release.is_set():
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                seen += 1
                if swallow is not None and seen > swallow:
                    raise
                if swallow is not None:
                    return None
        return None

    make = {
        "input": input_guardrail,
        "tool_call": tool_call_guardrail,
        "tool_result": tool_result_guardrail,
        "output": output_guardrail,
    }[kind]
    return make(timeout_s=0.2, cancel_grace_s=0.1)(stubborn)  # type: ignore[operator]


@pytest.mark.parametrize("kind", ["input", "tool_call", "tool_result", "output"])
async def test_a_guardrail_that_swallows_its_cancellation_is_left_running_and_the_run_ends(
    kind: str, release: threading.Event
) -> None:
    model = MockModel([block_call("note", text="x"), "the answer"])
    result = await _run(Agent(model=model, gadgets=[note], guardrails=[_stubborn(kind, release)]), release)
    assert result.stop_reason == "guardrail"
    tripwire = result.tripwire
    assert tripwire is not None and (tripwire.name, tripwire.kind, tripwire.outcome) == ("stubborn", kind, "tripwire")
    assert tripwire.reason == (
        "the guardrail gave no verdict within 0.2 s and did not stop within 0.1 s of being cancelled "
        "(it was left running), so the run stops"
    )
    assert tripwire.data == {"error": "TimeoutError", "timeout_s": 0.2, "left_running": True}
    assert result.guardrails[-1] == tripwire


async def test_a_guardrail_that_ends_within_its_grace_period_is_late_but_not_left_running(
    release: threading.Event,
) -> None:
    model = MockModel([block_call("note", text="x"), "never"])
    result = await _run(
        Agent(model=model, gadgets=[note], guardrails=[_stubborn("tool_call", release, swallow=1)]), release
    )
    assert result.tripwire is not None and result.tripwire.data["left_running"] is False
    assert result.tripwire.reason == "the guardrail gave no verdict within 0.2 s, so the run stops"
    assert [r.status for r in result.gadget_results] == ["skipped"]  # the call never ran


async def test_a_guardrails_grace_period_is_checked_when_it_is_made() -> None:
    async def check(guarded: Any) -> None:
        return None

    with pytest.raises(ValueError, match="guardrail 'check': cancel_grace_s must be 0 seconds or more, got -1"):
        tool_call_guardrail(cancel_grace_s=-1)(check)


# --- a sync gadget's work after a tripwire --------------------------------------------------


def _leak_guard(tripped: threading.Event) -> Guardrail:
    @tool_result_guardrail
    def leak(guarded: GuardedResult) -> Tripwire | None:
        if "sk-" not in (guarded.result or ""):
            return None
        tripped.set()
        return Tripwire("a key leaked")

    return leak


async def test_a_sync_gadget_that_finishes_after_a_tripwire_reports_what_it_did(tmp_path: Path) -> None:
    tripped = threading.Event()
    target = tmp_path / "out.txt"

    @gadget
    def slow_write(text: str, ctx: ExecutionContext) -> str:
        """Writes a file once the run was cancelled (the other call tripped the guardrail)."""
        assert ctx.signal.wait(_BOUND_S)
        target.write_text(text, encoding="utf-8")
        return f"wrote {len(text)} characters to out.txt"

    @gadget
    def env() -> str:
        """Show the environment."""
        return "OPENAI_API_KEY=sk-123"

    model = MockModel([block_call("slow_write", text="hello") + block_call("env"), "never"])
    agent = Agent(model=model, gadgets=[slow_write, env], guardrails=[_leak_guard(tripped)])
    result = await _run(agent)
    assert (result.stop_reason, model.calls) == ("guardrail", 1)
    assert target.read_text(encoding="utf-8") == "hello"  # the work happened ...
    (written,) = [r for r in result.gadget_results if r.gadget_name == "slow_write"]
    assert (written.status, written.result, written.error) == ("success", "wrote 5 characters to out.txt", None)
    assert written.finished_after_cancel  # ... and the record says so, marked as after the tripwire
    (leaked,) = [r for r in result.gadget_results if r.gadget_name == "env"]
    assert not leaked.finished_after_cancel


async def test_a_sync_gadget_still_running_past_its_grace_period_is_left_running_and_says_so(
    release: threading.Event,
) -> None:
    tripped = threading.Event()

    @gadget
    def stuck() -> str:
        """Blocks until the test ends."""
        release.wait(_BOUND_S)
        return "too late"

    stuck.cancel_grace_s = 0.1

    @gadget
    def env() -> str:
        """Show the environment."""
        return "sk-123"

    model = MockModel([block_call("stuck") + block_call("env"), "never"])
    started = time.monotonic()
    result = await _run(Agent(model=model, gadgets=[stuck, env], guardrails=[_leak_guard(tripped)]), release)
    assert time.monotonic() - started < _BOUND_S / 2  # did not wait for the thread
    (late,) = [r for r in result.gadget_results if r.gadget_name == "stuck"]
    assert late.status == "cancelled" and not late.finished_after_cancel
    assert late.error == "Cancelled: the run was cancelled; it was still running 0.1 s later and was left running"


async def test_a_sync_gadget_that_stops_on_its_signal_after_a_cancel_reports_how_far_it_got() -> None:
    @gadget
    def steps(ctx: ExecutionContext) -> str:
        """Works in steps until told to stop."""
        done = 0
        while not ctx.signal.aborted and done < 10_000:
            time.sleep(0.01)
            done += 1
        return f"stopped after {done} steps"

    stream = Agent(model=MockModel([block_call("steps"), "never"]), gadgets=[steps]).stream("go")
    async for event in stream:
        if isinstance(event, GadgetCallEvent):
            stream.cancel()
    result = stream.result
    assert result is not None and result.stop_reason == "cancelled"
    (call,) = result.gadget_results
    assert call.status == "success" and (call.result or "").startswith("stopped after ")
    assert call.finished_after_cancel


async def test_an_async_gadget_that_returns_instead_of_stopping_after_a_cancel_reports_it_marked() -> None:
    @gadget
    async def careful() -> str:
        """Finishes its current step when cancelled, and says so."""
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            return "saved the draft before stopping"
        return "never"

    stream = Agent(model=MockModel([block_call("careful"), "never"]), gadgets=[careful]).stream("go")
    async for event in stream:
        if isinstance(event, GadgetCallEvent):
            stream.cancel()
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    (call,) = stream.result.gadget_results
    assert (call.status, call.result, call.finished_after_cancel) == (
        "success",
        "saved the draft before stopping",
        True,
    )
