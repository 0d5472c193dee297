"""Agent-loop overhead with the mock model (no delays), on the cases of the shared agent anchors.

One run of each case (as in ``shared/bench/agents``):

- ``single``: 2 model calls and one ``add`` gadget call;
- ``chain10`` / ``chain40``: 10 / 40 rounds of one call each, then the answer (history growth);
- ``parallel20``: one response with 20 independent calls, then the answer.

Prints one JSON line per case with the fields of the anchors' ``bench_common.report``, plus the
import time of ``llmist`` (fresh interpreter, median of 5) and the process's peak RSS. With
``--anchors`` it also runs the anchor scripts (pydantic-ai, openai-agents, smolagents, each in
its own virtual environment, see ``shared/bench/agents/setup_venv.sh``) and prints a comparison.

    python benchmarks/agent_bench.py [--case single ...] [--runs N] [--tool sync|async|inline] [--new-agent]
        [--anchors] [--rounds N]

``--rounds N`` measures ours and the anchors N times, one after the other, and gives the ratio of
each round and their median: on a shared machine a figure can move by a third between minutes,
and our batches take seconds where an anchor's take twenty, so one round's ratio says little.

``--new-agent`` builds the ``Agent`` (and its ``MockModel``) inside every timed run, as an
application that makes one per request or per batch task does; the anchors build theirs once,
so the comparison then counts our construction against their runs alone.

``--tool sync`` (default) is ``def add`` in a worker thread, llmist's default for sync gadgets;
``--tool inline`` is the same function with the opt-in ``@gadget(inline=True)`` (called on the
event loop's thread, for gadgets that return in microseconds); report them under their labels.

The record's ``build`` says whether the parser is the mypyc-compiled one (what ``pip install``
gives where a C compiler exists; ``make bench-agent-compiled``) or pure Python (the editable dev
install, ``make bench-agent``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_t0 = time.perf_counter()
import llmist.syntax.block  # noqa: E402
from llmist import Agent, gadget  # noqa: E402
from llmist.providers.base import Message  # noqa: E402
from llmist.testing import MockModel, block_call  # noqa: E402

# A regular install compiles the parser with mypyc (docs/syntax.md); an editable one does not.
BUILD = "pure" if llmist.syntax.block.__file__.endswith(".py") else "compiled"

IMPORT_S_IN_PROCESS = time.perf_counter() - _t0

CASES = {"single": (1, 1), "chain10": (10, 1), "parallel20": (1, 20), "chain40": (40, 1)}
DEFAULT_RUNS = {"single": 3000, "chain10": 500, "parallel20": 500, "chain40": 150}
ANCHOR_SCRIPTS = {"pydantic-ai": "bench_pydantic_ai.py", "openai-agents": "bench_openai_agents.py",
                  "smolagents": "bench_smolagents.py"}  # fmt: skip
PROMPT = "What is 2 + 3? Use the add tool."


@gadget
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@gadget(name="add", inline=True)
def add_inline(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@gadget(name="add")
async def add_async(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def call_args(case: str, round_idx: int, j: int) -> dict[str, int]:
    if case == "single":
        return {"a": 2, "b": 3}
    return {"a": round_idx * CASES[case][1] + j, "b": 1}


def expected_outputs(case: str) -> list[int]:
    if case == "single":
        return [5]
    rounds, per = CASES[case]
    return [i + 1 for i in range(rounds * per)]


def make_agent(case: str, tool: str = "sync") -> Agent:
    """The agent, built once and reused across runs (as a server would)."""
    return agent_factory(case, tool)()


def agent_factory(case: str, tool: str = "sync") -> Callable[[], Agent]:
    """A function that builds the case's agent, with a new ``MockModel`` (the scripted answers
    are made once, here)."""
    rounds, per = CASES[case]
    responses = [
        "".join(block_call("add", invocation_id=f"call_{k}_{j:02d}", **call_args(case, k, j)) for j in range(per))
        for k in range(rounds)
    ]
    per_round = 1 + per  # assistant message + one result message per call

    def model(messages: Sequence[Message]) -> str:
        k = (len(messages) - 2) // per_round
        return responses[k] if k < rounds else "5"

    gadgets = [{"sync": add, "async": add_async, "inline": add_inline}[tool]]
    return lambda: Agent(model=MockModel(model), gadgets=gadgets, system="You add numbers.", max_iterations=rounds + 5)


def check(case: str, result: Any) -> None:
    assert result.output == "5", result.output
    got = sorted(int(r.result) for r in result.gadget_results)
    assert got == expected_outputs(case), got
    assert result.iterations == CASES[case][0] + 1


def rss_now_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def import_seconds(repeat: int = 5) -> float:
    """Median time of ``import llmist`` in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import llmist; print(time.perf_counter() - t)"
    times = [float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(repeat)]
    return statistics.median(times)


async def time_case(case: str, tool: str, runs: int, batches: int, warmup: int, new_agent: bool = False) -> list[float]:
    build = agent_factory(case, tool)
    agent = build()
    model = agent.model
    assert isinstance(model, MockModel)
    for _ in range(warmup):
        check(case, await agent.run(PROMPT))
        model.reset()
    per_run = []
    for _ in range(batches):
        gc.collect()
        t0 = time.perf_counter()
        if new_agent:
            for _ in range(runs):
                await build().run(PROMPT)
        else:
            for _ in range(runs):
                await agent.run(PROMPT)
                model.reset()  # the mock records requests; keep memory flat
        per_run.append((time.perf_counter() - t0) / runs)
    return per_run


def report(
    case: str,
    tool: str,
    runs: int,
    per_run: list[float],
    import_s: float | None,
    rss_after_import: float,
    new_agent: bool = False,
) -> dict[str, Any]:
    rounds, per = CASES[case]
    med = statistics.median(per_run)
    from llmist import __version__

    rec: dict[str, Any] = {
        "lib": "llmist",
        "version": __version__,
        "runs": runs,
        "seconds_per_run": round(med, 7),
        "us_per_model_request": round(med / (rounds + 1) * 1e6, 1),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "case": case,
        "mode": {"sync": "async", "async": "async, --tool async", "inline": "async, --tool inline (opt-in)"}[tool]
        + (", --new-agent" if new_agent else ""),
        "batches": len(per_run),
        "batch_seconds_per_run": [round(x, 7) for x in per_run],
        "model_requests_per_run": rounds + 1,
        "tool_calls_per_run": rounds * per,
        "rss_after_import_mb": round(rss_after_import, 1),
        "import_s": round(import_s, 3) if import_s is not None else None,
        "python": platform.python_version(),
        "build": BUILD,
        "nproc": os.cpu_count(),
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    sys.stdout.write(json.dumps(rec) + "\n")
    sys.stdout.flush()
    return rec


def anchors_dir() -> Path | None:
    here = Path(__file__).resolve().parent.parent
    for candidate in (
        os.environ.get("AGENT_ANCHORS_DIR"),
        here.parent / "shared/bench/agents",
        "/work/shared/bench/agents",
    ):
        if candidate and (Path(candidate) / "bench_common.py").is_file():
            return Path(candidate)
    return None


def run_anchors(cases: list[str], runs_scale: float, tool: str) -> list[dict[str, Any]]:
    folder = anchors_dir()
    python = os.environ.get("AGENT_ANCHORS_PY", os.path.expanduser("~/.cache/agent-anchors-venv/bin/python"))
    if folder is None or not os.path.exists(python):
        sys.stderr.write("anchors not available: run shared/bench/agents/setup_venv.sh (or set AGENT_ANCHORS_*)\n")
        return []
    out = []
    for case in cases:
        for lib, script in ANCHOR_SCRIPTS.items():
            cmd = [python, script, "--case", case]
            if tool == "async" and lib != "smolagents":  # inline is ours only: anchors run their sync tool
                cmd += ["--tool", "async"]
            if runs_scale != 1.0:
                cmd += ["--runs", str(max(5, int(_anchor_default_runs(case) * runs_scale)))]
            line = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False).stdout.strip()
            if not line:
                sys.stderr.write(f"anchor {lib} {case} printed nothing\n")
                continue
            rec = json.loads(line.splitlines()[-1])
            rec["anchor"] = lib
            sys.stdout.write(json.dumps(rec) + "\n")
            out.append(rec)
    return out


def _anchor_default_runs(case: str) -> int:
    return {"single": 700, "chain10": 100, "parallel20": 200, "chain40": 20}[case]


def summarize_rounds(rounds: list[tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]]) -> None:
    """Each round's ratio to the fastest anchor of that round, per case, and their median."""
    lines = ["", f"llmist build: {BUILD}, {len(rounds)} rounds"]
    lines.append("case        ratio per round (ours / fastest anchor)   median")
    for case in rounds[0][0]:
        ratios = []
        for ours, anchors in rounds:
            theirs = [a["seconds_per_run"] for a in anchors if a["case"] == case]
            if theirs:
                ratios.append(ours[case]["seconds_per_run"] / min(theirs))
        if ratios:
            each = " ".join(f"{r:.3f}" for r in ratios)
            median = statistics.median(ratios)
            lines.append(f"{case:<11} {each:<40} {median:.3f} (1/{1 / median:.1f})")
    sys.stderr.write("\n".join(lines) + "\n")


def summarize(ours: dict[str, dict[str, Any]], anchors: list[dict[str, Any]]) -> None:
    lines = ["", f"llmist build: {BUILD}", "case        llmist ms/run   fastest anchor ms/run (lib)   ratio"]
    for case, rec in ours.items():
        theirs = [a for a in anchors if a["case"] == case]
        if not theirs:
            lines.append(f"{case:<11} {rec['seconds_per_run'] * 1e3:>12.3f}")
            continue
        best = min(theirs, key=lambda a: a["seconds_per_run"])
        ratio = rec["seconds_per_run"] / best["seconds_per_run"]
        lines.append(f"{case:<11} {rec['seconds_per_run'] * 1e3:>12.3f}   {best['seconds_per_run'] * 1e3:>12.3f} "
                     f"({best['anchor']})   1/{1 / ratio:.0f}")  # fmt: skip
    if "chain10" in ours and "chain40" in ours and "single" in ours:
        s, c10, c40 = (ours[k]["seconds_per_run"] for k in ("single", "chain10", "chain40"))
        lines.append(
            f"per round: rounds 2-10 {(c10 - s) / 9 * 1e6:.0f} us, rounds 11-40 {(c40 - c10) / 30 * 1e6:.0f} us"
        )
    sys.stderr.write("\n".join(lines) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", choices=list(CASES), action="append", help="default: all four")
    p.add_argument("--runs", type=int, default=None, help="runs per batch (default per case)")
    p.add_argument("--batches", type=int, default=3)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument(
        "--tool",
        choices=["sync", "async", "inline"],
        default="sync",
        help="def add (worker thread, the default), async def add, or def add with the opt-in inline=True "
        "(runs on the loop's thread; anchors then run their sync tool)",
    )
    p.add_argument("--new-agent", action="store_true", help="build the Agent inside every timed run")
    p.add_argument("--anchors", action="store_true", help="also run the anchor libraries' scripts")
    p.add_argument("--anchor-runs-scale", type=float, default=1.0, help="scale the anchors' default runs")
    p.add_argument("--rounds", type=int, default=1, help="measure ours and the anchors this many times in turn")
    args = p.parse_args()
    cases = args.case or list(CASES)
    rss_after_import = rss_now_mb()
    import_s = import_seconds()
    rounds = []
    for _ in range(max(1, args.rounds)):
        ours = {}
        for case in cases:
            runs = args.runs or DEFAULT_RUNS[case]
            per_run = asyncio.run(time_case(case, args.tool, runs, args.batches, args.warmup, args.new_agent))
            ours[case] = report(case, args.tool, runs, per_run, import_s, rss_after_import, args.new_agent)
        anchors = run_anchors(cases, args.anchor_runs_scale, args.tool) if args.anchors else []
        summarize(ours, anchors)
        rounds.append((ours, anchors))
    if len(rounds) > 1 and args.anchors:
        summarize_rounds(rounds)


if __name__ == "__main__":
    main()
