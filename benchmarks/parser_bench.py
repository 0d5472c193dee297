#!/usr/bin/env python3
"""Parser benchmark on the shared workload of ``../shared/bench`` (see its README.md).

    python benchmarks/parser_bench.py                       # block parser, standard matrix
    python benchmarks/parser_bench.py --node                # ... and the TypeScript reference, same run
    python benchmarks/parser_bench.py --parser emoji        # emoji parser on the same streams, converted
    python benchmarks/parser_bench.py --streams mixed-1mb --chunks whole,16 --baseline

Every cell prints one JSON line with the keys of the reference harness
(``impl, version, bytes, chunk, seconds, mb_per_s, events, calls, parse_errors, digest``,
then extras). Timing as the reference: read and split first; time only a fresh parser
fed every chunk with every event consumed, then ``finalize()``; 1 warm-up + 5 timed runs
(fewer once ``--budget-s`` is spent), median. ``--baseline`` adds, per stream, the time of
a bare ``str.find`` scan for the three markers over the whole text. ``--node`` runs
``node_parser_bench.mjs`` on the same stream and chunk right after ours (needs
``bash ../shared/bench/setup_llmist.sh`` once); cells predicted to take the reference
longer than ``--node-limit-s`` are skipped and reported with the prediction.
A summary table follows the JSON lines. The block parser runs with ``typescript_compat=True``
(the reference's cut of the last value), so its digests must equal the reference's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from itertools import chain
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:  # the installed package (an editable .venv, or the compiled wheel in .venv-compiled) ...
    import llmist
except ImportError:  # ... else the source tree
    sys.path.insert(0, str(ROOT / "src"))

import llmist.syntax.block  # noqa: E402
from llmist import __version__  # noqa: E402
from llmist.syntax import GadgetCallParser, ParsedCall  # noqa: E402

BUILD = "pure" if llmist.syntax.block.__file__.endswith(".py") else "compiled"
"""Which build of the parser runs: the mypyc-compiled modules of a wheel, or the Python source."""
OURS = "ours" if BUILD == "pure" else "ours-compiled"

try:
    from llmist.syntax import EmojiCallParser
except ImportError:
    EmojiCallParser = None  # type: ignore[assignment,misc]

STREAMS = {
    "mixed-1mb": ["--size-mb", "1"],
    "mixed-8mb": ["--size-mb", "8"],
    "bigbody-1mb": ["--big-body-mb", "1"],
    "bigbody-4mb": ["--big-body-mb", "4"],
    "bigbody-16mb": ["--big-body-mb", "16"],
}
AUTO_ID = re.compile(r"gadget_\d+")
MARKERS = ("!!!GADGET_START:", "!!!GADGET_END", "!!!ARG:")


def shared_bench_dir(arg: str | None) -> Path:
    path = Path(arg) if arg else ROOT.parent / "shared" / "bench"
    if not (path / "gen_stream.py").exists():
        sys.exit(f"parser_bench: no shared workload at {path} (pass --shared DIR)")
    return path


def ensure_stream(shared: Path, streams_dir: Path, name: str) -> Path:
    path = streams_dir / f"{name}.txt"
    if not path.exists():
        streams_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, str(shared / "gen_stream.py"), *STREAMS[name], "--seed", "42", "--out", str(path)],
            check=True,
            capture_output=True,
        )
    return path


def compat_parser() -> GadgetCallParser:
    """The block parser cutting values as the TypeScript reference does, so digests compare."""
    return GadgetCallParser(typescript_compat=True)


def to_emoji(text: str) -> str:
    """The same answer in emoji syntax: each block becomes ``🛠️[Name]`` + its parameters + end."""
    parser = GadgetCallParser()
    out: list[str] = []
    for event in [*parser.feed(text), *parser.finalize()]:
        if event.type == "text":
            out.append(event.content)
        elif event.type == "gadget_call":
            call = event.call
            out.append(f"\n🛠️[{call.gadget_name} {call.invocation_id}]\n{call.parameters_raw}\n🛠️[/end]\n")
    return "".join(out)


def run_once(make: Callable[[], Any], chunks: list[str]) -> tuple[float, dict[str, int], list[ParsedCall], list[str]]:
    parser = make()
    feed = parser.feed
    texts: list[str] = []
    calls: list[ParsedCall] = []
    partials = 0
    # map() is lazy: finalize() runs after the last feed, and one loop consumes both.
    batches = chain(map(feed, chunks), map(lambda _: parser.finalize(), (None,)))
    t0 = time.perf_counter_ns()
    for events in batches:
        for event in events:
            kind = event.type
            if kind == "text":
                texts.append(event.content)
            elif kind == "gadget_call":
                calls.append(event.call)
            else:
                partials += 1
    seconds = (time.perf_counter_ns() - t0) / 1e9
    counts = {"text": len(texts), "gadget_call": len(calls), "gadget_args_partial": partials}
    return seconds, counts, calls, texts


def digest_of(shared: Path, calls: list[ParsedCall], texts: list[str]) -> str:
    sys.path.insert(0, str(shared))
    from digest import call_record, stream_digest  # type: ignore[import-not-found]

    records = [
        call_record(
            c.gadget_name,
            c.invocation_id,
            bool(AUTO_ID.fullmatch(c.invocation_id)),
            c.dependencies,
            c.parameters,
            c.parse_error,
        )
        for c in calls
    ]
    return str(stream_digest(records, "".join(texts)))


def bench_cell(
    impl: str,
    make: Callable[[], Any],
    text: str,
    size: int,
    chunk: int | str,
    args: argparse.Namespace,
    shared: Path,
    stream: str,
) -> dict[str, Any]:
    chunks = [text] if chunk == "whole" else [text[i : i + int(chunk)] for i in range(0, len(text), int(chunk))]
    samples: list[float] = []
    reference: tuple[dict[str, int], int] | None = None
    digest = ""
    for rep in range(args.warmup + args.reps):
        seconds, counts, calls, texts = run_once(make, chunks)
        errors = sum(c.parse_error is not None for c in calls)
        if reference is None:
            reference = (counts, errors)
            digest = digest_of(shared, calls, texts)
        elif reference != (counts, errors):
            sys.exit(f"parser_bench: runs disagree on {stream} chunk {chunk}")
        if rep >= args.warmup:
            samples.append(seconds)
            if sum(samples) > args.budget_s:
                break
    assert reference is not None
    median = statistics.median(samples)
    return {
        "impl": impl,
        "version": __version__,
        "bytes": size,
        "chunk": chunk,
        "seconds": round(median, 6),
        "mb_per_s": round(size / 1048576 / median, 3),
        "events": reference[0],
        "calls": reference[0]["gadget_call"],
        "parse_errors": reference[1],
        "digest": digest,
        "stream": stream,
        "reps": len(samples),
        "warmup": args.warmup,
        "min_seconds": round(min(samples), 6),
        "max_seconds": round(max(samples), 6),
        "runtime": f"CPython {platform.python_version()}",
        "build": BUILD,
    }


def baseline(text: str, reps: int) -> float:
    """Median seconds of a bare ``str.find`` loop that locates every marker occurrence."""
    samples = []
    for _ in range(reps + 1):
        t0 = time.perf_counter_ns()
        for marker in MARKERS:
            find = text.find
            at = find(marker)
            while at >= 0:
                at = find(marker, at + len(marker))
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return statistics.median(samples[1:])


def run_node(shared: Path, path: Path, chunk: int | str, limit_s: float) -> dict[str, Any] | None:
    cmd = ["node", str(shared / "node_parser_bench.mjs"), str(path), str(chunk), "--budget-s", str(limit_s)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=max(150.0, 3 * limit_s))
    except subprocess.TimeoutExpired:
        print(f"node reference timed out on {path.name} chunk {chunk}", file=sys.stderr)
        return None
    if proc.returncode != 0:
        print(f"node reference failed on {path.name} chunk {chunk}: {proc.stderr.strip()[:300]}", file=sys.stderr)
        return None
    line: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return line


def parse_chunks(spec: str) -> list[int | str]:
    chunks: list[int | str] = [c if c == "whole" else int(c) for c in spec.split(",")]
    return sorted(chunks, key=lambda c: (0, 0) if c == "whole" else (1, -int(c)))


def table(rows: Iterable[dict[str, Any]]) -> str:
    rows = list(rows)
    lines = ["", "| impl | stream | chunk | MiB/s | seconds | calls | digest |", "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['impl']} | {r['stream']} | {r['chunk']} | skipped | ~{r['skipped']:.0f} | | |")
        else:
            lines.append(
                f"| {r['impl']} | {r['stream']} | {r['chunk']} | {r['mb_per_s']} | {r['seconds']} "
                f"| {r['calls']} | `{r['digest'][:12]}` |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", default=",".join(STREAMS))
    ap.add_argument("--chunks", default="whole,256,16,4,1")
    ap.add_argument("--parser", choices=["block", "emoji", "both"], default="block")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--budget-s", type=float, default=60.0)
    ap.add_argument("--shared", help="the shared bench folder (default: ../shared/bench beside the repo)")
    ap.add_argument(
        "--streams-dir",
        default=os.path.join(os.environ.get("BENCH_WORK", os.path.expanduser("~/.cache/llmist-bench")), "streams"),
    )
    ap.add_argument("--baseline", action="store_true", help="also time a bare str.find scan per stream")
    ap.add_argument("--node", action="store_true", help="also run the TypeScript reference on each cell")
    ap.add_argument("--node-limit-s", type=float, default=60.0)
    ap.add_argument("--out", help="append the JSON lines to this file")
    args = ap.parse_args(argv)

    shared = shared_bench_dir(args.shared)
    rows: list[dict[str, Any]] = []

    def emit(row: dict[str, Any]) -> None:
        rows.append(row)
        line = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        print(line, flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(line + "\n")

    node_seen: dict[tuple[str, float, int | str], float] = {}
    for stream in args.streams.split(","):
        path = ensure_stream(shared, Path(args.streams_dir), stream)
        size = path.stat().st_size
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        print(f"# {stream}: {size} bytes, sha256 {sha}...", file=sys.stderr, flush=True)
        if args.baseline:
            seconds = baseline(text, args.reps)
            emit(
                {
                    "impl": "bare-str.find",
                    "stream": stream,
                    "bytes": size,
                    "chunk": "whole",
                    "seconds": round(seconds, 6),
                    "mb_per_s": round(size / 1048576 / seconds, 3),
                    "calls": 0,
                    "digest": "-",
                }
            )
        node_prev: tuple[int | str, float] | None = None
        family, size_mb = stream.split("-")[0], float(stream.split("-")[1].removesuffix("mb"))
        for chunk in parse_chunks(args.chunks):
            if args.parser in ("block", "both"):
                emit(bench_cell(OURS, compat_parser, text, size, chunk, args, shared, stream))
            if args.parser in ("emoji", "both"):
                emoji_text = to_emoji(text)
                size_emoji = len(emoji_text.encode())
                emit(bench_cell(f"{OURS}-emoji", EmojiCallParser, emoji_text, size_emoji, chunk, args, shared, stream))
            if args.node:
                predicted = None
                if node_prev is not None and chunk != "whole" and node_prev[0] != "whole":
                    predicted = node_prev[1] * int(node_prev[0]) / int(chunk)
                smaller = [
                    (mb, sec)
                    for (fam, mb, c), sec in node_seen.items()
                    if fam == family and c == chunk and mb < size_mb
                ]
                if smaller and chunk != "whole":
                    mb, sec = max(smaller)
                    from_size = sec * (size_mb / mb) ** (2 if family == "bigbody" else 1)
                    predicted = max(predicted or 0.0, from_size)
                if predicted is not None and predicted > args.node_limit_s:
                    emit({"impl": "llmist-node", "stream": stream, "chunk": chunk, "skipped": predicted})
                    node_prev = (chunk, predicted)
                    continue
                line = run_node(shared, path, chunk, args.node_limit_s)
                if line is None:
                    emit({"impl": "llmist-node", "stream": stream, "chunk": chunk, "skipped": 3 * args.node_limit_s})
                    node_prev = (chunk, 3 * args.node_limit_s)
                    continue
                line["stream"] = stream
                emit(line)
                node_prev = (chunk, float(line["seconds"]))
                node_seen[(family, size_mb, chunk)] = float(line["seconds"])
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
