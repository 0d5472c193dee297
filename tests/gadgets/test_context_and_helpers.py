"""AbortSignal, ExecutionContext and the testing helpers."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from llmist import AbortSignal, ExecutionContext, GadgetResult, create_gadget, gadget, test_gadget
from llmist.gadgets import GadgetAbortedError
from llmist.testing import atest_gadget


def test_listener_runs_once_with_reason() -> None:
    signal = AbortSignal()
    seen: list[object] = []
    signal.add_listener(seen.append)
    signal.abort("stop")
    signal.abort("again")
    assert seen == ["stop"] and signal.aborted and signal.reason == "stop"


def test_listener_added_after_abort_runs_at_once() -> None:
    signal = AbortSignal()
    signal.abort("stop")
    seen: list[object] = []
    signal.add_listener(seen.append)
    assert seen == ["stop"]


def test_failing_listener_does_not_stop_others() -> None:
    signal = AbortSignal()
    seen: list[object] = []
    signal.add_listener(lambda reason: 1 / 0)
    signal.add_listener(seen.append)
    signal.abort("stop")
    assert seen == ["stop"]


def test_throw_if_aborted_raises_after_abort() -> None:
    signal = AbortSignal()
    signal.throw_if_aborted()
    signal.abort("stop")
    with pytest.raises(GadgetAbortedError, match="stop"):
        signal.throw_if_aborted()


def test_context_logger_is_named_for_gadget() -> None:
    assert ExecutionContext(gadget_name="Search").logger.name == "llmist.gadget.Search"


def test_report_cost_rejects_negative_amounts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        ExecutionContext(gadget_name="x").report_cost(-1)


class Pair(BaseModel):
    a: int
    b: int = 0


def test_test_gadget_applies_defaults_and_reports_cost() -> None:
    def add(params: Pair, ctx: ExecutionContext) -> GadgetResult:
        ctx.report_cost(0.5)
        return GadgetResult(str(params.a + params.b), cost=0.25)

    result = test_gadget(create_gadget(description="Add", schema=Pair, execute=add), {"a": 5})
    assert (result.result, result.validated_params, result.cost, result.error) == ("5", {"a": 5, "b": 0}, 0.75, None)


def test_test_gadget_reports_validation_error() -> None:
    result = test_gadget(create_gadget(description="Add", schema=Pair, execute=lambda p: "", name="add"), {})
    assert result.error is not None and "a: missing" in result.error and result.result is None


async def test_test_gadget_inside_a_loop_points_to_async_twin() -> None:
    @gadget
    def one() -> str:
        """One."""
        return "1"

    with pytest.raises(RuntimeError, match="atest_gadget"):
        test_gadget(one, {})
    assert (await atest_gadget(one, {})).result == "1"


def test_abort_signal_listeners_can_be_removed() -> None:
    from llmist.gadgets import AbortSignal

    signal = AbortSignal()
    heard: list[object] = []
    signal.add_listener(heard.append)
    signal.remove_listener(heard.append)
    signal.remove_listener(heard.append)  # not there any more: no error
    signal.add_listener(lambda reason: heard.append(("kept", reason)))
    signal.abort("stop")
    assert heard == [("kept", "stop")]
