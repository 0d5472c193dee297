"""Attacks on durable runs: the same run started twice at once, a gadget that raises, a model
that writes garbage, unicode in the workflow id; each crashed and recovered as in
``test_crash_recovery``."""

from __future__ import annotations

import json

import pytest

from tests.durable.conftest import Children

pytestmark = pytest.mark.slow


def _crash_and_recover(children: Children, workflow_id: str, *extra: str) -> dict[str, object]:
    """The run killed inside ``hold``, then recovered to its end by a second process."""
    first = children.start("run", workflow_id, *extra)
    children.wait_for("in_gadget", first)
    children.kill(first)
    children.release("release_gadget")
    second = children.start("recover", workflow_id, *extra)
    result: dict[str, object] = json.loads(children.finish(second).strip().splitlines()[-1])
    return result


def test_the_same_run_started_by_two_processes_at_once_runs_once(children: Children) -> None:
    children.release("release_gadget")
    # Two live processes, so two executor ids. Under one (both ``local``), the second's launch
    # would take the first's PENDING run for its own, left by a crash, and run it again at the
    # same time (DBOS's recovery at launch): a restart, not this test; it failed when the second
    # happened to launch while the first was running (a response asked twice, a call run twice).
    one = children.start("run", "twice", "--executor", "one")
    two = children.start("run", "twice", "--executor", "two")
    first, second = children.finish(one), children.finish(two)
    assert first.strip().splitlines()[-1] == second.strip().splitlines()[-1]
    calls = children.lines("calls.log")
    assert sorted(calls) == ["hold three", "tick one", "tick two"]
    assert children.lines("requests.log") == ["request 0", "request 1", "request 2"]


def test_a_gadget_that_raised_raises_again_when_replayed_and_is_not_run_again(children: Children) -> None:
    result = _crash_and_recover(children, "failing", "--script", "fail")
    assert "tick fail failed" in str(result["results"])
    assert children.lines("calls.log").count("tick fail") == 1


def test_garbage_from_the_model_is_replayed_as_it_was_parsed(children: Children) -> None:
    result = _crash_and_recover(children, "garbage", "--script", "garbage")
    assert result["output"] == "Done: one, two and three are ticked."
    assert children.lines("requests.log").count("request 0") == 1
    calls = children.lines("calls.log")
    assert calls.count("hold three") == 2
    assert len([c for c in calls if c.startswith("tick")]) == len(set(c for c in calls if c.startswith("tick")))


def test_a_unicode_workflow_id_is_recovered_and_keys_its_calls(children: Children) -> None:
    workflow_id = "jöb ✓ 日本/1"
    result = _crash_and_recover(children, workflow_id)
    assert result == {
        "output": "Done: one, two and three are ticked.",
        "stop": "no_calls",
        "results": result["results"],
    }
    assert sorted(result["results"]) == ["held three", "ticked one", "ticked two"]  # type: ignore[call-overload]
    assert children.lines("calls.log").count("hold three") == 2
    (effect,) = children.lines("effects.log")
    assert effect.startswith(f"three {workflow_id}:")
