"""CPU time per agent run, for A/B comparisons of two builds on a noisy machine.

``agent_bench.py`` reports wall time against the anchors; this script measures what a change
does to our own loop: the CPU time (``time.process_time``, all threads) of one run of the
``single``, ``chain10`` and ``parallel20`` cases with the mock model, best of several batches.

    python benchmarks/agent_cpu.py --tool async
    python benchmarks/agent_cpu.py --tool async --against /tmp/old-venv/bin/python --rounds 5
    python benchmarks/agent_cpu.py --tool async --trace

``--trace`` runs every agent instrumented (``llmist.instrument()``) with the OpenTelemetry SDK's
``TracerProvider`` and no exporter: the cost of making the spans, none of shipping them.

With ``--against``, both interpreters (each with its own llmist installed, say the compiled
build of two commits) run this script in alternating processes, ``--rounds`` times each, and
the table shows each case's best figure and their ratio (ours / theirs).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = {"single": 300, "chain10": 60, "parallel20": 60}
"""Runs per batch of each case."""


async def _best_us(agent: Any, prompt: str, runs: int, batches: int) -> float:
    best = float("inf")
    for _ in range(batches):
        gc.collect()
        t0 = time.process_time()
        for _ in range(runs):
            await agent.run(prompt)
            agent.model.reset()
        best = min(best, (time.process_time() - t0) / runs)
    return best * 1e6


async def measure(tool: str) -> dict[str, float]:
    """Best CPU microseconds per run of each case (after a warm-up batch)."""
    import agent_bench

    agents = {case: agent_bench.make_agent(case, tool) for case in CASES}
    for agent in agents.values():
        await _best_us(agent, agent_bench.PROMPT, 30, 1)
    return {case: await _best_us(agent, agent_bench.PROMPT, CASES[case], 7) for case, agent in agents.items()}


def _one_process(python: str, tool: str) -> dict[str, float]:
    out = subprocess.run(
        [python, __file__, "--tool", tool, "--json"], check=True, capture_output=True, text=True
    ).stdout
    return dict(json.loads(out))


def _instrument() -> None:
    from opentelemetry.sdk.trace import TracerProvider

    import llmist

    llmist.instrument(llmist.InstrumentationSettings(tracer_provider=TracerProvider()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", choices=("sync", "async", "inline"), default="async")
    ap.add_argument("--against", metavar="PYTHON", help="another interpreter to compare with, alternating")
    ap.add_argument("--rounds", type=int, default=4, help="processes per interpreter with --against")
    ap.add_argument("--json", action="store_true", help="print one JSON object (used by --against)")
    ap.add_argument("--trace", action="store_true", help="instrument the runs (OpenTelemetry SDK, no exporter)")
    args = ap.parse_args()
    if args.trace:
        _instrument()
    if args.against is None:
        figures = asyncio.run(measure(args.tool))
        if args.json:
            print(json.dumps(figures))
        else:
            print(" ".join(f"{case}={us:.0f}us" for case, us in figures.items()), f"({args.tool})")
        return
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    for _ in range(args.rounds):
        for python, best in ((sys.executable, ours), (args.against, theirs)):
            for case, us in _one_process(python, args.tool).items():
                best[case] = min(best.get(case, float("inf")), us)
    print(f"CPU µs per run, best of {args.rounds} processes each ({args.tool} gadget)")
    print(f"{'case':<11} {'this':>8} {'against':>8}  ratio")
    for case in CASES:
        print(f"{case:<11} {ours[case]:8.0f} {theirs[case]:8.0f}  {ours[case] / theirs[case]:.3f}")


if __name__ == "__main__":
    main()
