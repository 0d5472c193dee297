"""Several workers share one queue of durable runs; a worker that dies has its runs finished by
another. PostgreSQL is the system database for several machines; SQLite, one machine's file,
holds several processes too."""

from __future__ import annotations

import json

import pytest

from tests.durable.conftest import Children

pytestmark = pytest.mark.slow

RUNS = ["r1", "r2", "r3", "r4"]


def _results(out: str) -> dict[str, dict[str, object]]:
    return {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in out.strip().splitlines()}


def _held(children: Children) -> list[str]:
    """The runs whose ``hold`` call has started."""
    return sorted(p.name for p in children.work.glob("in_gadget_*"))


def test_two_workers_race_for_one_queue_within_its_limit(children: Children) -> None:
    a = children.start("worker", "worker-a", "--concurrency", "1")
    b = children.start("worker", "worker-b", "--concurrency", "1")
    children.wait_for("ready_worker-a", a)
    children.wait_for("ready_worker-b", b)
    client = children.start("enqueue", ",".join(RUNS))
    children.wait_for("in_gadget", client)
    # Each worker takes one run at a time: two runs hold, one in each worker, and no third.
    children.wait_until(lambda: len(_held(children)) >= 2, "two runs held, one in each worker")
    assert len(_held(children)) == 2
    children.release("release_gadget")
    results = _results(children.finish(client))
    assert sorted(results) == RUNS
    assert all(r["output"] == "Done: one, two and three are ticked." for r in results.values())
    calls = children.lines("calls.log")
    assert calls.count("tick one") == len(RUNS)  # each run's calls ran once, in one worker
    assert calls.count("hold three") == len(RUNS)


def test_a_dead_workers_run_is_recovered_by_another(children: Children) -> None:
    a = children.start("worker", "worker-a", "--concurrency", "1")
    children.wait_for("ready_worker-a", a)
    client = children.start("enqueue", "r1")
    children.wait_for(f"in_gadget_{b'r1'.hex()}", a)
    children.kill(a)
    children.release("release_gadget")
    b = children.start("worker", "worker-b", "--recover-from", "worker-a")
    children.wait_for("ready_worker-b", b)
    results = _results(children.finish(client))
    assert results["r1"]["output"] == "Done: one, two and three are ticked."
    calls = children.lines("calls.log")
    assert calls.count("tick one") == 1
    assert calls.count("hold three") == 2  # killed inside it: run again by worker-b
    assert len(children.lines("effects.log")) == 1  # its effect, keyed, happened once
