"""Scheduler overhead per call: trivial gadgets, so the time measured is ours.

Runs 1,000 and 10,000 calls, independent and as one chain (each depends on the previous),
through GadgetScheduler + GadgetExecutor (binding, validation, context, result), and prints
one JSON line per case plus a readable summary. Usage: ``python benchmarks/scheduler_bench.py``.
"""

from __future__ import annotations

import asyncio
import json
import time

from pydantic import BaseModel

from llmist import ExecutionContext, Gadget, GadgetExecutor, GadgetScheduler
from llmist.syntax import ParsedCall


class Noop(Gadget):
    """Returns its input at once."""

    description = "Return n"

    class Params(BaseModel):
        n: int

    async def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return "ok"


def _calls(count: int, chained: bool) -> list[ParsedCall]:
    return [
        ParsedCall("Noop", f"c{i}", "", {"n": i}, None, (f"c{i - 1}",) if chained and i else ()) for i in range(count)
    ]


async def _measure(count: int, chained: bool) -> float:
    calls = _calls(count, chained)
    scheduler = GadgetScheduler(GadgetExecutor([Noop]))
    started = time.perf_counter()
    results = await scheduler.run(calls)
    elapsed = time.perf_counter() - started
    assert len(results) == count and all(r.ok for r in results)
    return elapsed


async def main() -> None:
    await _measure(200, False)  # warm up caches (schema, loggers)
    rows = []
    for count in (1_000, 10_000):
        for chained in (False, True):
            best = min([await _measure(count, chained) for _ in range(3)])
            rows.append(
                {"calls": count, "shape": "chain" if chained else "independent", "us_per_call": best / count * 1e6}
            )
    for row in rows:
        print(
            json.dumps(
                {"bench": "scheduler", **{k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}}
            )
        )
    for row in rows:
        print(f"{row['calls']:>6} calls, {row['shape']:<11}: {row['us_per_call']:6.1f} µs per call")


if __name__ == "__main__":
    asyncio.run(main())
