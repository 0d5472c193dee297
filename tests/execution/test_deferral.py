"""Deferred calls: a ``before_gadget`` hook defers a call, and the calls that depend on it wait
with it (neither run nor skipped)."""

from __future__ import annotations

from typing import Any

from llmist import GadgetExecutor, GadgetScheduler, gadget
from llmist.execution import BeforeGadgetDecision, GadgetCallInfo
from llmist.syntax import ParsedCall

ran: list[str] = []


@gadget
def step(label: str) -> str:
    """Record that this step ran."""
    ran.append(label)
    return label


@gadget
def fail(label: str) -> str:
    """Always fails."""
    raise RuntimeError(f"{label} broke")


def call(call_id: str, *deps: str, name: str = "step") -> ParsedCall:
    return ParsedCall(name, call_id, "", {"label": call_id}, None, deps)


def defer_labels(*labels: str) -> Any:
    def decide(info: GadgetCallInfo) -> BeforeGadgetDecision | None:
        if info.parameters.get("label") in labels:
            return BeforeGadgetDecision("defer", "a person must approve it")
        return None

    return decide


async def run(calls: list[ParsedCall], *deferred: str) -> dict[str, Any]:
    ran.clear()
    executor = GadgetExecutor([step, fail], before_gadget=defer_labels(*deferred))
    return {r.invocation_id: r for r in await GadgetScheduler(executor).run(calls)}


async def test_a_deferred_call_does_not_run_and_says_why() -> None:
    results = await run([call("a")], "a")
    a = results["a"]
    assert ran == [] and a.status == "deferred" and not a.ok
    assert a.deferral is not None and a.deferral.reason == "a person must approve it" and a.deferral.waits_for is None
    assert a.deferral.call.invocation_id == "a" and a.parameters == {"label": "a"}


async def test_calls_that_do_not_depend_on_a_deferred_call_run() -> None:
    results = await run([call("a"), call("b")], "a")
    assert ran == ["b"] and results["b"].ok


async def test_a_call_that_depends_on_a_deferred_call_waits_with_it() -> None:
    results = await run([call("a"), call("b", "a"), call("c", "b")], "a")
    assert ran == []
    assert [(r.status, r.deferral.waits_for if r.deferral else None) for r in results.values()] == [
        ("deferred", None),
        ("deferred", "a"),
        ("deferred", "b"),
    ]
    assert results["b"].deferral is not None and "runs after a (step), which waits" in results["b"].deferral.reason


async def test_a_call_that_depends_on_a_deferred_call_written_later_waits_too() -> None:
    results = await run([call("b", "a"), call("a")], "a")
    assert results["b"].status == "deferred" and ran == []


async def test_a_failed_dependency_skips_a_call_even_when_another_is_deferred() -> None:
    results = await run([call("a"), call("x", name="fail"), call("b", "a", "x")], "a")
    assert results["b"].status == "skipped"
