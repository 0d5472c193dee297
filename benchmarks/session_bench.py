"""The loop's per-round cost with a session attached, against the same runs without one.

The ``chain10`` and ``chain40`` cases of ``agent_bench.py`` (10 / 40 rounds of one ``add`` call,
then the answer; mock model, no delays), run in alternating batches with and without an
``SQLiteSession`` (a new session id per run, in one database file on the local disk), so that
both variants see the same machine state. Per round is ``agent_bench``'s definition, rounds
11-40: (chain40 - chain10) / 30 per run, which leaves out what a run pays once (loading the
session, the writer's first wake). Prints one JSON line per variant and case, then the ratios
of the medians: per round, and whole chain40 runs.

    python benchmarks/session_bench.py [--runs 30] [--batches 7]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_bench import BUILD, CASES, PROMPT, check, make_agent

from llmist.agent import SQLiteSession
from llmist.testing import MockModel


async def batch(case: str, runs: int, db: Path | None, ids: itertools.count[int]) -> tuple[float, float]:
    """Wall and CPU seconds per run over ``runs`` runs (a fresh session per run when ``db`` is
    given; the batch ends when the session's writer has committed every run's conversation)."""
    agent = make_agent(case)
    model = agent.model
    assert isinstance(model, MockModel)
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(runs):
        if db is not None:
            agent.session = SQLiteSession(db, f"run-{next(ids)}")
        await agent.run(PROMPT)
        model.reset()
    if agent.session is not None:
        await agent.session.flush()
    return (time.perf_counter() - t0) / runs, (time.process_time() - c0) / runs


_CASES = ("chain10", "chain40")


async def measure(runs: int, batches: int, db: Path) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """Wall and CPU seconds per run of each (variant, case), one pair per batch."""
    ids = itertools.count()
    for case in _CASES:
        for variant in (None, db):  # warm-up, and the results are right in both variants
            agent = make_agent(case)
            if variant is not None:
                agent.session = SQLiteSession(variant, f"warmup-{case}")
            check(case, await agent.run(PROMPT))
    out: dict[tuple[str, str], list[tuple[float, float]]] = {(v, c): [] for v in ("without", "with") for c in _CASES}
    for _ in range(batches):
        for case in _CASES:
            out["without", case].append(await batch(case, runs, None, ids))
            out["with", case].append(await batch(case, runs, db, ids))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=30, help="runs per batch")
    p.add_argument("--batches", type=int, default=7)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        per_run = asyncio.run(measure(args.runs, args.batches, Path(tmp) / "bench.db"))
    medians: dict[tuple[str, str, str], float] = {}
    for (variant, case), values in per_run.items():
        rounds = CASES[case][0] + 1
        rec: dict[str, object] = {"case": case, "session": variant, "runs": args.runs, "batches": args.batches}
        for clock, idx in (("wall", 0), ("cpu", 1)):
            med = medians[variant, case, clock] = statistics.median(v[idx] for v in values)
            rec[f"{clock}_seconds_per_run"] = round(med, 7)
            rec[f"{clock}_us_per_request"] = round(med / rounds * 1e6, 1)
            rec[f"{clock}_batches"] = [round(v[idx], 7) for v in values]
        rec.update(build=BUILD, utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        sys.stdout.write(json.dumps(rec) + "\n")
    for clock in ("wall", "cpu"):
        slope = {v: (medians[v, "chain40", clock] - medians[v, "chain10", clock]) / 30 for v in ("without", "with")}
        whole = medians["with", "chain40", clock] / medians["without", "chain40", clock]
        sys.stderr.write(
            f"{clock}: per round (rounds 11-40) without {slope['without'] * 1e6:.1f} us, with "
            f"{slope['with'] * 1e6:.1f} us, ratio {slope['with'] / slope['without']:.3f}; "
            f"whole chain40 runs ratio {whole:.3f}\n"
        )


if __name__ == "__main__":
    main()
