"""What a durable run costs: the same mock-model runs with and without DBOS on a SQLite file.

Three cases (mock model, no delays, one chunk per response):

- ``short``: 2 responses without calls (``stop_on_no_calls=False``: the run goes on to its last
  response);
- ``responses``: ``--responses`` responses without calls; the extra time of a durable run over
  a plain one, less ``short``'s, divided by the responses added, is the cost of a response's
  step, and what is left of ``short``'s extra time is what a durable run pays once (the workflow's
  own rows, waiting for its result);
- ``calls``: ``--responses`` responses of ``--calls`` calls of a trivial gadget each; the extra
  time over ``responses``'s, divided by the calls, is the cost of a call's step.

Each durable run is a new workflow (a new id) on one system database file on the local disk,
started and awaited from the same process (``DBOSAgent.run``). Batches of the two variants
alternate, so that both see the same machine state; the medians are reported. Then one durable
run of the ``calls`` case is profiled, to say where the time goes (DBOS's writes to SQLite, the
rest of DBOS, llmist).

    python benchmarks/durable_bench.py [--runs 20] [--batches 5] [--responses 10] [--calls 4]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from dbos import DBOS

from llmist import Agent, gadget
from llmist.durable import DBOSAgent, launch
from llmist.testing import MockModel, block_call


@gadget(description="Echo a number")
def echo(n: int) -> str:
    return str(n)


def make_agent(responses: int, calls: int) -> Agent[str]:
    """A run of ``responses`` responses of ``calls`` calls each."""
    text = "".join(block_call("echo", n=i) for i in range(calls)) or "Nothing to call yet."
    model = MockModel(lambda messages: text)
    return Agent(model=model, gadgets=[echo], max_iterations=responses, stop_on_no_calls=False)


async def timed(agent: Agent[str], durable: DBOSAgent[str] | None, runs: int) -> float:
    """Seconds per run, over ``runs`` runs."""
    started = time.perf_counter()
    for _ in range(runs):
        if durable is None:
            result = await agent.run("go")
        else:
            result = await durable.run("go", workflow_id=uuid.uuid4().hex)
        assert result.stop_reason == "max_iterations", result.stop_reason
    return (time.perf_counter() - started) / runs


async def measure(args: argparse.Namespace, cases: dict[str, tuple[Agent[str], DBOSAgent[str]]]) -> dict[str, Any]:
    times: dict[str, list[float]] = {f"{case} {kind}": [] for case in cases for kind in ("plain", "dbos")}
    for _ in range(args.batches):
        for case, (agent, durable) in cases.items():
            times[f"{case} plain"].append(await timed(agent, None, args.runs))
            times[f"{case} dbos"].append(await timed(agent, durable, args.runs))
    medians = {key: statistics.median(values) for key, values in times.items()}
    extra = {case: medians[f"{case} dbos"] - medians[f"{case} plain"] for case in cases}
    per_response = (extra["responses"] - extra["short"]) / (args.responses - 2)
    per_call = (extra["calls"] - extra["responses"]) / (args.responses * args.calls)
    return {
        "per_run_ms": {key: round(value * 1000, 2) for key, value in medians.items()},
        "overhead_per_run_ms": round((extra["short"] - 2 * per_response) * 1000, 2),
        "overhead_per_response_ms": round(per_response * 1000, 3),
        "overhead_per_call_ms": round(per_call * 1000, 3),
        "plain_per_response_ms": round(medians["responses plain"] * 1000 / args.responses, 3),
        "plain_per_call_ms": round(
            (medians["calls plain"] - medians["responses plain"]) * 1000 / (args.responses * args.calls), 3
        ),
    }


async def profile(durable: DBOSAgent[str], runs: int) -> dict[str, Any]:
    """Where a durable run's time goes: milliseconds per run in each method of DBOS's system
    database (timed in whichever thread runs it), and the whole run's."""
    from dbos._sys_db import SystemDatabase

    spent: dict[str, float] = {}
    # Its public methods: what DBOS's core asks of the database (a method it calls is one of them).
    originals = {name: fn for name, fn in vars(SystemDatabase).items() if inspect.isfunction(fn) and name[0] != "_"}

    def timing(name: str, fn: Any) -> Any:
        def timed_method(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - started

        return timed_method

    for name, fn in originals.items():
        setattr(SystemDatabase, name, timing(name, fn))
    try:
        started = time.perf_counter()
        for _ in range(runs):
            await durable.run("go", workflow_id=uuid.uuid4().hex)
        whole = time.perf_counter() - started
    finally:
        for name, fn in originals.items():
            setattr(SystemDatabase, name, fn)
    top = sorted(spent.items(), key=lambda item: -item[1])[:6]
    return {
        "run_ms": round(whole * 1000 / runs, 2),
        "system_database_ms": {name: round(t * 1000 / runs, 2) for name, t in top},
    }


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cases = {}
        for case, responses, calls in (
            ("short", 2, 0),
            ("responses", args.responses, 0),
            ("calls", args.responses, args.calls),
        ):
            agent = make_agent(responses, calls)
            cases[case] = (agent, DBOSAgent(agent, name=f"bench-{case}"))
        await launch(f"sqlite:///{Path(folder) / 'system.sqlite'}")
        try:
            figures = await measure(args, cases)
            figures["where_the_time_goes"] = await profile(cases["calls"][1], args.runs)
        finally:
            DBOS.destroy()
    figures["setup"] = vars(args)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="runs per batch")
    parser.add_argument("--batches", type=int, default=5, help="alternating batches of each variant")
    parser.add_argument("--responses", type=int, default=10, help="model responses per run")
    parser.add_argument("--calls", type=int, default=4, help="gadget calls per response (the calls case)")
    asyncio.run(main(parser.parse_args(sys.argv[1:])))
