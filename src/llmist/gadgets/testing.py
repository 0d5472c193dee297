"""Testing helpers: run or validate one gadget in isolation."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llmist.gadgets.base import GadgetResult, as_gadget
from llmist.gadgets.binding import prepare_params, validate_params
from llmist.gadgets.context import ExecutionContext, LLMClient
from llmist.gadgets.errors import InvalidParametersError, TaskCompletionSignal

__all__ = ["TestGadgetResult", "atest_gadget", "test_gadget"]


@dataclass(frozen=True, slots=True)
class TestGadgetResult:
    """Outcome of :func:`test_gadget`."""

    __test__ = False

    result: str | None = None
    """The gadget's output when it succeeded (a ``TaskCompletionSignal`` summary counts)."""
    error: str | None = None
    """Why validation or execution failed."""
    validated_params: dict[str, Any] | None = None
    """The parameters after validation, defaults applied."""
    cost: float = 0.0
    """USD reported by the gadget (context plus returned ``GadgetResult.cost``)."""


async def atest_gadget(
    gadget: Any, params: Mapping[str, Any], *, llm_client: LLMClient | None = None
) -> TestGadgetResult:
    """Validate ``params`` (defaults applied) and run ``gadget`` once; never raises for the gadget's fault."""
    g = as_gadget(gadget)
    try:
        model = validate_params(g, prepare_params(g, params))
    except InvalidParametersError as exc:
        return TestGadgetResult(error=str(exc))
    validated = model.model_dump()
    ctx = ExecutionContext(
        gadget_name=g.name, invocation_id="test", llm_client=llm_client, loop=asyncio.get_running_loop()
    )
    invocation = g._invocation()
    try:
        if invocation.is_async:
            output = await invocation.call(model, ctx)
        else:
            output = await asyncio.to_thread(invocation.call, model, ctx)
    except TaskCompletionSignal as exc:
        return TestGadgetResult(result=exc.summary, validated_params=validated, cost=ctx.cost)
    except Exception as exc:
        return TestGadgetResult(error=f"{type(exc).__name__}: {exc}", validated_params=validated, cost=ctx.cost)
    if isinstance(output, GadgetResult):
        return TestGadgetResult(result=output.result, validated_params=validated, cost=ctx.cost + output.cost)
    return TestGadgetResult(result=str(output), validated_params=validated, cost=ctx.cost)


def test_gadget(gadget: Any, params: Mapping[str, Any], *, llm_client: LLMClient | None = None) -> TestGadgetResult:
    """Sync twin of :func:`atest_gadget`, for code outside an event loop (inside one, await ``atest_gadget``)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(atest_gadget(gadget, params, llm_client=llm_client))
    raise RuntimeError("test_gadget() cannot run inside an event loop; use `await atest_gadget(...)` instead")


test_gadget.__test__ = False  # type: ignore[attr-defined]
