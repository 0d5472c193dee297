"""Instructions the block parser executes on the shared workload, counted by valgrind.

On a shared machine, the time of one parse swings by 20 % or more from one run to the next,
so a 5 % change cannot be timed. The number of instructions a parse executes barely moves
(under 0.1 % here). This script counts them, so a change to the parser can be compared with
the build before it:

    python benchmarks/parser_instructions.py                         # mixed-1mb at chunks 256, 16
    python benchmarks/parser_instructions.py --chunks whole,256,16,4 --streams mixed-1mb,bigbody-1mb
    python benchmarks/parser_instructions.py --against /tmp/before/bin/python

Each cell runs the interpreter twice under ``valgrind --tool=callgrind``: once to read and
split the stream, once to do that and parse it, every event consumed. The difference is the
parse. ``--against`` counts the same cells with another interpreter (a venv with another build
of llmist) and prints the ratio. Instructions are not time: a copy of a long string is few
instructions but many cycles, so confirm a gain with ``parser_bench.py`` before quoting it.
Needs valgrind (``apt install valgrind``); a cell takes 10-60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from parser_bench import STREAMS, ensure_stream, parse_chunks, shared_bench_dir

# The child reads and splits the stream as parser_bench does, then (if asked) parses it.
CHILD = """
import sys
from llmist.syntax import GadgetCallParser
path, chunk, parse = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
with open(path, encoding="utf-8") as f:
    text = f.read()
size = len(text) if chunk == "whole" else int(chunk)
chunks = [text[i : i + size] for i in range(0, len(text), size)]
if parse:
    parser = GadgetCallParser()
    for piece in chunks:
        for _event in parser.feed(piece):
            pass
    for _event in parser.finalize():
        pass
"""
COLLECTED = re.compile(r"Collected : (\d+)")


def callgrind_count(python: str, child: str, args: list[str]) -> int:
    """Instructions ``python -c child *args`` executes under callgrind (``agent_instructions.py``
    counts with it too)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same dict layouts in every run
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", child]
    done = subprocess.run([*command, *args], capture_output=True, text=True, env=env, check=False)
    found = COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"{Path(sys.argv[0]).name}: {python} failed under valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def instructions(python: str, path: Path, chunk: int | str, parse: bool) -> int:
    """Instructions one run of the child executes under callgrind."""
    return callgrind_count(python, CHILD, [str(path), str(chunk), "1" if parse else "0"])


def parse_cost(python: str, path: Path, chunk: int | str) -> int:
    """Instructions of the parse alone: with it, minus without it."""
    return instructions(python, path, chunk, True) - instructions(python, path, chunk, False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", default="mixed-1mb", help=f"comma-separated, of: {', '.join(STREAMS)}")
    ap.add_argument("--chunks", default="256,16")
    ap.add_argument("--python", default=sys.executable, help="the interpreter to count (default: this one)")
    ap.add_argument("--against", help="another interpreter to count the same cells with")
    ap.add_argument("--shared", help="the shared bench folder (default: ../shared/bench beside the repo)")
    ap.add_argument(
        "--streams-dir",
        default=os.path.join(os.environ.get("BENCH_WORK", os.path.expanduser("~/.cache/llmist-bench")), "streams"),
    )
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("parser_instructions: needs valgrind on PATH (apt install valgrind)")
    shared = shared_bench_dir(args.shared)
    for stream in args.streams.split(","):
        path = ensure_stream(shared, Path(args.streams_dir), stream)
        size = path.stat().st_size
        for chunk in parse_chunks(args.chunks):
            row: dict[str, object] = {"stream": stream, "chunk": chunk, "python": args.python}
            row["instructions"] = ours = parse_cost(args.python, path, chunk)
            row["instructions_per_byte"] = round(ours / size, 2)
            if args.against:
                row["against"] = args.against
                row["against_instructions"] = theirs = parse_cost(args.against, path, chunk)
                row["ratio"] = round(ours / theirs, 4)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
