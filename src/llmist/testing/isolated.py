"""Run one gadget in isolation, through the same executor the agent loop uses.

A gadget therefore behaves here exactly as in a run: its ``timeout_s`` is enforced, its
output is limited (and stored) past the agent's default limit, a ``SystemExit`` it raises is
an error, and sync gadgets run in the same worker threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llmist.execution import GadgetExecutor
from llmist.gadgets import (
    GadgetMedia,
    GadgetOutputStore,
    ModelClient,
    as_gadget,
    output_char_limit,
    validate_gadget_params,
)
from llmist.syntax import ParsedCall

__all__ = ["DEFAULT_TEST_OUTPUT_LIMIT", "TestGadgetResult", "atest_gadget", "test_gadget"]

DEFAULT_TEST_OUTPUT_LIMIT = output_char_limit(128_000)
"""The output limit an agent applies by default (its default context window of 128K tokens)."""


@dataclass(frozen=True, slots=True)
class TestGadgetResult:
    """Outcome of :func:`test_gadget`."""

    __test__ = False

    result: str | None = None
    """The gadget's output when it succeeded (a ``TaskCompletionSignal`` summary counts)."""
    error: str | None = None
    """Why validation or execution failed (a timeout names the gadget and its limit)."""
    validated_params: dict[str, Any] | None = None
    """The parameters after validation, defaults applied."""
    cost: float = 0.0
    """USD reported by the gadget (context plus returned ``GadgetResult.cost``)."""
    media: tuple[GadgetMedia, ...] = ()
    """Media the gadget returned (``GadgetResult.media``)."""


async def atest_gadget(
    gadget: Any,
    params: Mapping[str, Any],
    *,
    llm_client: ModelClient | None = None,
    output_limit: int | None = DEFAULT_TEST_OUTPUT_LIMIT,
) -> TestGadgetResult:
    """Validate ``params`` (defaults applied) and run ``gadget`` once, as an agent would;
    never raises for the gadget's fault. ``output_limit=None`` turns output limiting off."""
    g = as_gadget(gadget)
    checked = validate_gadget_params(g, params)  # what the gadget would get, or why not
    if not checked.success:
        return TestGadgetResult(error=checked.error)
    store = None if output_limit is None else GadgetOutputStore(output_limit)
    executor = GadgetExecutor([g], llm_client=llm_client, output_store=store)
    call = ParsedCall(g.name, "test", "", dict(params), None, ())
    outcome = await executor.execute(call)
    return TestGadgetResult(
        result=outcome.result,
        error=outcome.error,
        validated_params=outcome.parameters,
        cost=outcome.cost,
        media=tuple(outcome.media),
    )


def test_gadget(
    gadget: Any,
    params: Mapping[str, Any],
    *,
    llm_client: ModelClient | None = None,
    output_limit: int | None = DEFAULT_TEST_OUTPUT_LIMIT,
) -> TestGadgetResult:
    """Sync twin of :func:`atest_gadget`, for code outside an event loop (inside one, await ``atest_gadget``)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(atest_gadget(gadget, params, llm_client=llm_client, output_limit=output_limit))
    raise RuntimeError("test_gadget() cannot run inside an event loop; use `await atest_gadget(...)` instead")


test_gadget.__test__ = False  # type: ignore[attr-defined]
