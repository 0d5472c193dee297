"""Instructions one agent run executes, counted by valgrind, for A/B comparisons of two builds.

``agent_cpu.py`` times runs, and on this shared machine the same build's figure moves by a
quarter from one minute to the next, so a change of a few percent cannot be timed. The number of
instructions a run executes barely moves: repeated counts of one build agree within a few
instructions per run on a quiet machine. Count while nothing else runs: beside a test suite, the
event loop's turns (which depend on time) moved ``single`` by a tenth. This script counts them
for the cases of ``agent_bench.py`` (mock model, ``async def add``), so a change to the loop can
be compared with the build before it:

    python benchmarks/agent_instructions.py                                   # single, parallel20
    python benchmarks/agent_instructions.py --case chain10 --reused-agent
    python benchmarks/agent_instructions.py --against /tmp/before/bin/python

Each case runs the interpreter twice under ``valgrind --tool=callgrind``, once with ``--runs``
runs and once with three times as many (both after 20 warm-up runs); the difference divided by
the extra runs is one run, with import and warm-up taken out. By default an ``Agent`` is built
for every run (``--new-agent`` of the other scripts), as the anchors comparison counts it.
Instructions are not time (a cache miss costs many cycles and one instruction), so confirm a
gain with ``agent_cpu.py --against`` before quoting it. Compare venvs whose paths have the same
length (copy both builds under ``/tmp``, say): where a venv lies changes the memory layout, and
with it the interpreter's dict probes, by up to 1 % of ``parallel20`` (benchmarks/RESULTS.md,
seventeenth session), as much as a small change. Needs valgrind; a case takes 30-90 s.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from parser_instructions import callgrind_count  # noqa: E402

# The child runs a case of agent_bench.py: warm-up runs, then the counted ones.
CHILD = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
import agent_bench
case, runs, new_agent = sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
build = agent_bench.agent_factory(case, "async")
agent = build()

async def go():
    for _ in range(20):
        await build().run(agent_bench.PROMPT)
    for _ in range(runs):
        if new_agent:
            result = await build().run(agent_bench.PROMPT)
        else:
            result = await agent.run(agent_bench.PROMPT)
            agent.model.reset()
    agent_bench.check(case, result)

asyncio.run(go())
"""


def instructions(python: str, case: str, runs: int, new_agent: bool) -> int:
    """Instructions the child executes under callgrind with ``runs`` counted runs."""
    return callgrind_count(python, CHILD, [str(HERE), case, str(runs), "1" if new_agent else "0"])


def per_run(python: str, case: str, runs: int, new_agent: bool) -> int:
    """Instructions of one run: the difference of ``3 * runs`` and ``runs`` runs, per extra run."""
    few = instructions(python, case, runs, new_agent)
    many = instructions(python, case, 3 * runs, new_agent)
    return round((many - few) / (2 * runs))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", action="append", choices=["single", "chain10", "parallel20", "chain40"])
    ap.add_argument("--runs", type=int, default=50, help="counted runs of the shorter child (default 50)")
    ap.add_argument("--reused-agent", action="store_true", help="one Agent for every run instead of a new one")
    ap.add_argument("--python", default=sys.executable, help="the interpreter to count (default: this one)")
    ap.add_argument("--against", help="another interpreter to count the same cases with")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("agent_instructions: needs valgrind on PATH (apt install valgrind)")
    new_agent = not args.reused_agent
    for case in args.case or ["single", "parallel20"]:
        row: dict[str, object] = {"case": case, "new_agent": new_agent, "python": args.python}
        row["instructions_per_run"] = ours = per_run(args.python, case, args.runs, new_agent)
        if args.against:
            row["against"] = args.against
            row["against_instructions_per_run"] = theirs = per_run(args.against, case, args.runs, new_agent)
            row["ratio"] = round(ours / theirs, 4)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
