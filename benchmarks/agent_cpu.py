"""CPU time per agent run, for A/B comparisons of two builds on a noisy machine.

``agent_bench.py`` reports wall time against the anchors; this script measures what a change
does to our own loop: the CPU time (``time.process_time``, all threads) of one run of the
``single``, ``chain10`` and ``parallel20`` cases with the mock model, best of several batches.

    python benchmarks/agent_cpu.py --tool async
    python benchmarks/agent_cpu.py --tool async --against /tmp/old-venv/bin/python --rounds 5
    python benchmarks/agent_cpu.py --tool async --trace

``--new-agent`` builds the ``Agent`` (and its ``MockModel``) inside every run, so the figure
counts its construction too (see ``agent_bench.py``).

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = {"single": 300, "chain10": 60, "parallel20": 60}
"""Runs per batch of each case."""


async def _best_us(build: Callable[[], Any], prompt: str, runs: int, batches: int, new_agent: bool) -> float:
    best = float("inf")
    agent = build()
    for _ in range(batches):
        gc.collect()
        t0 = time.process_time()
        for _ in range(runs):
            if new_agent:
                await build().run(prompt)
            else:
                await agent.run(prompt)
                agent.model.reset()
        best = min(best, (time.process_time() - t0) / runs)
    return best * 1e6


async def measure(tool: str, new_agent: bool = False) -> dict[str, float]:
    """Best CPU microseconds per run of each case (after a warm-up batch)."""
    import agent_bench

    builds = {case: agent_bench.agent_factory(case, tool) for case in CASES}
    for build in builds.values():
        await _best_us(build, agent_bench.PROMPT, 30, 1, new_agent)
    prompt = agent_bench.PROMPT
    return {case: await _best_us(build, prompt, CASES[case], 7, new_agent) for case, build in builds.items()}


def _one_process(python: str, tool: str, new_agent: bool) -> dict[str, float]:
    extra = ["--new-agent"] if new_agent else []
    out = subprocess.run(
        [python, __file__, "--tool", tool, "--json", *extra], check=True, capture_output=True, text=True
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
    ap.add_argument("--new-agent", action="store_true", help="build the Agent inside every run")
    args = ap.parse_args()
    if args.trace:
        _instrument()
    if args.against is None:
        figures = asyncio.run(measure(args.tool, args.new_agent))
        if args.json:
            print(json.dumps(figures))
        else:
            print(" ".join(f"{case}={us:.0f}us" for case, us in figures.items()), f"({args.tool})")
        return
    ours: dict[str, float] = {}
    theirs: dict[str, float] = {}
    for _ in range(args.rounds):
        for python, best in ((sys.executable, ours), (args.against, theirs)):
            for case, us in _one_process(python, args.tool, args.new_agent).items():
                best[case] = min(best.get(case, float("inf")), us)
    built = ", Agent built per run" if args.new_agent else ""
    print(f"CPU µs per run, best of {args.rounds} processes each ({args.tool} gadget{built})")
    print(f"{'case':<11} {'this':>8} {'against':>8}  ratio")
    for case in CASES:
        print(f"{case:<11} {ours[case]:8.0f} {theirs[case]:8.0f}  {ours[case] / theirs[case]:.3f}")


if __name__ == "__main__":
    main()
