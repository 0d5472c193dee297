"""A durable run killed with SIGKILL, mid-gadget and then mid-response, ends as if nothing happened.

Three processes on one system database (SQLite, then PostgreSQL): the first runs and is killed
inside the ``hold`` gadget; the second launches DBOS, which recovers the run, and is killed
half-way through the model's last response; the third recovers it again and finishes it. The
child's logs count what really happened (see ``tests/durable/child.py``).
"""

from __future__ import annotations

import json

import pytest

from tests.durable.conftest import Children

pytestmark = pytest.mark.slow

UNCRASHED = {
    "output": "Done: one, two and three are ticked.",
    "stop": "no_calls",
    "results": ["held three", "ticked one", "ticked two"],
}
"""What the same run gives without a crash (results sorted: the two ticks run at once)."""


def _crash_twice(children: Children) -> dict[str, object]:
    first = children.start("run", "job-1")
    children.wait_for("in_gadget", first)
    children.kill(first)
    (children.work / "in_gadget").unlink()
    children.release("release_gadget")
    second = children.start("recover", "job-1", "--hold-response", "2")
    children.wait_for("in_response", second)
    children.kill(second)
    children.release("release_response")
    third = children.start("recover", "job-1")
    result: dict[str, object] = json.loads(children.finish(third).strip().splitlines()[-1])
    return result


def test_a_run_killed_mid_gadget_and_mid_response_ends_with_the_uncrashed_result(children: Children) -> None:
    result = _crash_twice(children)
    assert {**result, "results": sorted(result["results"])} == UNCRASHED  # type: ignore[arg-type]


def test_completed_calls_and_responses_are_not_done_again(children: Children) -> None:
    _crash_twice(children)
    calls = children.lines("calls.log")
    assert calls.count("tick one") == 1
    assert calls.count("tick two") == 1
    assert calls.count("hold three") == 2  # killed inside it once: DBOS runs a step at least once
    requests = children.lines("requests.log")
    assert requests.count("request 0") == 1
    assert requests.count("request 1") == 1
    assert requests.count("request 2") == 2  # killed while it streamed: asked again


def test_a_gadget_with_the_idempotency_key_has_its_effect_once(children: Children) -> None:
    _crash_twice(children)
    effects = children.lines("effects.log")
    assert len(effects) == 1
    assert effects[0].startswith("three job-1:")


def test_a_recovered_runs_events_say_it_was_recovered(children: Children) -> None:
    _crash_twice(children)
    opened = [line for line in children.lines("events.log") if line.startswith("durable_run")]
    assert opened == ["durable_run new", "durable_run recovered", "durable_run recovered"]
    events = children.lines("events.log")
    assert events[-1] == "llm_response_end"  # the recovering process streamed the run to its end
