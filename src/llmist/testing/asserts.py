"""Assertions on what a run did: which gadgets were called, with what, and what came back."""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Any, TypeVar

from llmist.agent import AgentResult
from llmist.execution import GadgetExecutionResult

__all__ = ["assert_gadget_called", "assert_no_errors", "collect_events", "gadget_calls"]

E = TypeVar("E")


def gadget_calls(result: AgentResult, gadget_name: str | None = None) -> list[GadgetExecutionResult]:
    """The run's gadget results (completion order), optionally only those of ``gadget_name``."""
    return [r for r in result.gadget_results if gadget_name is None or r.gadget_name == gadget_name]


def assert_gadget_called(
    result: AgentResult, gadget_name: str, *, times: int | None = None, **params: Any
) -> GadgetExecutionResult:
    """Assert ``gadget_name`` ran (``times`` times, if given) and, if ``params`` are given, that
    one call had those parameter values. Returns the first matching call."""
    calls = gadget_calls(result, gadget_name)
    names = sorted({r.gadget_name for r in result.gadget_results})
    if not calls:
        raise AssertionError(f"{gadget_name} was never called; calls made: {names or 'none'}")
    if times is not None and len(calls) != times:
        raise AssertionError(f"{gadget_name} was called {len(calls)} time(s), expected {times}")
    if not params:
        return calls[0]
    for c in calls:
        got = c.parameters or {}
        if all(k in got and got[k] == v for k, v in params.items()):
            return c
    seen = [c.parameters for c in calls]
    raise AssertionError(f"no {gadget_name} call had {params}; calls had: {seen}")


def assert_no_errors(result: AgentResult) -> None:
    """Assert that no gadget call of the run failed or was skipped."""
    bad = [(r.gadget_name, r.invocation_id, r.error) for r in result.gadget_results if r.error is not None]
    if bad:
        raise AssertionError(f"{len(bad)} gadget call(s) failed: {bad}")


async def collect_events(stream: AsyncIterable[E]) -> list[E]:
    """Drain ``agent.stream(prompt)`` into a list."""
    return [event async for event in stream]
