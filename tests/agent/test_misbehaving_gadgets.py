"""Every call ends with a result or an error, whatever the gadget returns or raises, and however
it ignores its timeout: the run never hangs on a gadget (sync in a worker thread, inline, or async)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from llmist import Agent, AgentResult, ExecutionContext, Gadget, GadgetResult, gadget
from llmist.execution import GadgetExecutor
from llmist.syntax import GadgetCallEvent, ParsedCall
from llmist.testing import MockModel, block_call

_BOUND_S = 20.0
"""A run that has not ended by then hangs (the misbehaviours below once hung forever)."""


class Stop(BaseException):
    """A custom BaseException subclass, as some libraries define for their own control flow."""


class _Unprintable:
    def __str__(self) -> str:
        raise ValueError("no text for you")


def _behaviours() -> dict[str, Callable[[], Any]]:
    def unprintable() -> Any:
        return _Unprintable()

    def unprintable_result() -> Any:
        return GadgetResult(result=_Unprintable())  # type: ignore[arg-type]

    def int_result() -> Any:
        return GadgetResult(result=42)  # type: ignore[arg-type]

    def base_exception() -> Any:
        raise Stop("custom control flow")

    def generator_exit() -> Any:
        raise GeneratorExit

    return {
        "int_result": int_result,
        "unprintable": unprintable,
        "unprintable_result": unprintable_result,
        "base_exception": base_exception,
        "generator_exit": generator_exit,
    }


BEHAVIOURS = _behaviours()


def _gadgets(behave: Callable[[], Any]) -> list[object]:
    @gadget(timeout_s=2)
    def in_thread(key: str) -> Any:
        """A sync gadget (worker thread)."""
        return behave()

    @gadget(timeout_s=2)
    async def on_loop(key: str) -> Any:
        """An async gadget."""
        return behave()

    class Inline(Gadget):
        """A sync gadget run on the loop's thread."""

        description = "inline"
        run_inline = True

        class Params(BaseModel):
            key: str

        def execute(self, params: Params, ctx: ExecutionContext) -> Any:
            return behave()

    return [in_thread, on_loop, Inline()]


async def _run(agent: Agent, prompt: str = "go") -> AgentResult:
    return await asyncio.wait_for(agent.run(prompt), _BOUND_S)


@pytest.mark.parametrize("kind", ["in_thread", "on_loop", "Inline"])
@pytest.mark.parametrize("behaviour", sorted(BEHAVIOURS))
async def test_a_call_ends_with_a_result_or_an_error_whatever_the_gadget_does(kind: str, behaviour: str) -> None:
    model = MockModel([block_call(kind, key="k"), "done"])
    result = await _run(Agent(model=model, gadgets=_gadgets(BEHAVIOURS[behaviour])))
    assert result.output == "done"
    (call,) = result.gadget_results
    if behaviour == "int_result":
        assert (call.result, call.error) == ("42", None)
    else:
        assert call.result is None and call.error
        assert call.error in model.requests[1].messages[-1].text


async def test_a_result_that_cannot_become_text_names_the_reason() -> None:
    model = MockModel([block_call("in_thread", key="k"), "done"])
    result = await _run(Agent(model=model, gadgets=_gadgets(BEHAVIOURS["unprintable"])))
    error = result.gadget_results[0].error or ""
    assert "could not be turned into text" in error and "ValueError: no text for you" in error


async def test_a_custom_base_exception_is_the_gadgets_error() -> None:
    model = MockModel([block_call("on_loop", key="k"), "done"])
    result = await _run(Agent(model=model, gadgets=_gadgets(BEHAVIOURS["base_exception"])))
    assert result.gadget_results[0].error == "Stop: custom control flow"


def test_the_executor_settles_a_call_with_an_int_result_under_its_timeout() -> None:
    executor = GadgetExecutor(_gadgets(BEHAVIOURS["int_result"]))

    async def main() -> str | None:
        call = ParsedCall("in_thread", "c1", "", {"key": "k"}, None, ())
        return (await asyncio.wait_for(executor.execute(call), _BOUND_S)).result

    assert asyncio.run(main()) == "42"


# --- an async gadget that swallows its cancellation ---------------------------------------


def _stubborn(release: threading.Event, timeout_s: float | None) -> Gadget:
    """An async gadget that ignores every cancellation until ``release`` is set (the test sets it
    at its end, so the event loop's own shutdown, which cancels what is left, can finish)."""

    @gadget(timeout_s=timeout_s)
    async def stubborn() -> str:
        """Ignores cancellation."""
        while not release.is_set():
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue
        return "late"

    stubborn.cancel_grace_s = 0.1
    return stubborn


async def test_an_async_gadget_that_swallows_its_cancellation_times_out_and_the_run_goes_on() -> None:
    release = threading.Event()
    model = MockModel([block_call("stubborn"), "done"])
    try:
        result = await _run(Agent(model=model, gadgets=[_stubborn(release, timeout_s=0.2)]))
    finally:
        release.set()
    (call,) = result.gadget_results
    assert call.status == "timeout"
    assert call.error == (
        "Gadget 'stubborn' timed out after 0.2 s; it did not stop within 0.1 s of being cancelled and was left running"
    )
    assert result.output == "done"


async def test_a_cancelled_run_does_not_wait_forever_for_a_gadget_that_ignores_cancellation() -> None:
    release = threading.Event()
    model = MockModel([block_call("stubborn"), "never"])
    stream = Agent(model=model, gadgets=[_stubborn(release, timeout_s=None)]).stream("go")
    try:
        async for event in stream:
            if isinstance(event, GadgetCallEvent):
                stream.cancel()
        assert stream.result is not None and stream.result.stop_reason == "cancelled"
    finally:
        release.set()
