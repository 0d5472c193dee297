#!/usr/bin/env python3
"""Two or more builds of the parser, side by side: they alternate, each cell keeps its best CPU time.

    python benchmarks/build_compare.py                          # pure vs compiled, mixed-1mb, 5 rounds
    python benchmarks/build_compare.py --stream mixed-8mb --rounds 3
    python benchmarks/build_compare.py --build before=/tmp/old/bin/python --build now=.venv-compiled/bin/python

``--build NAME=PYTHON`` (repeatable) compares any interpreters with llmist installed, for example
the compiled wheels of two commits; the last row gives each build's time over the first's.

On a noisy machine two benchmark runs one after the other can land in different states of
the machine; alternating the builds (``.venv``: editable, pure; ``.venv-compiled``: the
compiled wheel, see ``make test-compiled``) and keeping the best of each makes their ratio
comparable. One parse: a fresh parser fed every chunk, every event consumed, ``finalize()``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHUNKS = (("whole", 15), (256, 9), (16, 5), (4, 3), (1, 2))
"""Chunk sizes and the parses timed per round (the small chunks take long)."""

_MEASURE = r"""
import json, sys, time
import llmist.syntax.block
from llmist.syntax import GadgetCallParser

text = open(sys.argv[1], encoding="utf-8", newline="").read()
best = {}
for chunk, reps in json.loads(sys.argv[2]):
    chunks = [text] if chunk == "whole" else [text[i : i + chunk] for i in range(0, len(text), chunk)]
    for _ in range(reps):
        parser = GadgetCallParser()
        t0 = time.process_time()
        for piece in chunks:
            for event in parser.feed(piece):
                event.type
        parser.finalize()
        best[str(chunk)] = min(best.get(str(chunk), 1e9), time.process_time() - t0)
print(json.dumps({"file": llmist.syntax.block.__file__, "best": best}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stream", default="mixed-1mb")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--build", action="append", default=[], metavar="NAME=PYTHON", help="a build to compare")
    ap.add_argument(
        "--streams-dir",
        default=os.path.join(os.environ.get("BENCH_WORK", os.path.expanduser("~/.cache/llmist-bench")), "streams"),
    )
    args = ap.parse_args()
    path = Path(args.streams_dir) / f"{args.stream}.txt"
    if not path.exists():
        raise SystemExit(f"build_compare: no stream {path} (parser_bench.py generates it)")
    builds = {"pure": ROOT / ".venv/bin/python", "compiled": ROOT / ".venv-compiled/bin/python"}
    if args.build:
        builds = {name: Path(python).absolute() for name, _, python in (b.partition("=") for b in args.build)}
    best: dict[str, dict[str, float]] = {name: {} for name in builds}
    for _ in range(args.rounds):
        for name, python in builds.items():
            # From a neutral directory, so that each interpreter imports its installed package.
            out = subprocess.run(
                [str(python), "-c", _MEASURE, str(path), json.dumps(CHUNKS)],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT / "benchmarks",
            )
            result = json.loads(out.stdout)
            if not args.build and str(result["file"]).endswith(".py") != (name == "pure"):
                raise SystemExit(f"build_compare: {python} loads {result['file']}, not the {name} build")
            for chunk, seconds in result["best"].items():
                best[name][chunk] = min(best[name].get(chunk, 1e9), seconds)
    cells = [str(chunk) for chunk, _ in CHUNKS]
    print(f"| {args.stream} | " + " | ".join(cells) + " |")
    print("|---|" + "---:|" * len(cells))
    for name in builds:
        print(f"| {name} (ms) | " + " | ".join(f"{best[name][c] * 1000:.2f}" for c in cells) + " |")
    first, *others = builds
    for name in others:
        ratios = [f"{best[name][c] / best[first][c]:.2f}×" for c in cells]
        print(f"| {name} / {first} (time) | " + " | ".join(ratios) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
