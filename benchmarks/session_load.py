"""How long a 10,000-message conversation takes to load, in each session store.

The conversation is what a long run leaves: the prompt, then 4,999 iterations of a response
that calls a gadget (about 300 characters, block syntax) and the call's result (about 200),
each iteration saved as the loop saves it (one row per iteration). It is written once per
store; then each timed load is a new process that opens the store and loads the conversation
with a new session object, so the figure includes opening the store and checking its schema,
and the whole process (interpreter start and imports included) is timed too.

Stores: the SQLite file, PostgreSQL (a server this script starts from Debian's package, as the
tests do: ``tests/postgres.py``) and SQLite through SQLAlchemy (``aiosqlite``).

    python benchmarks/session_load.py [--messages 10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.postgres import find_bin_dir, postgres_server  # noqa: E402
from tests.sessions.stores import open_session  # noqa: E402

from llmist.agent import AssistantMessage, GadgetResultMessage  # noqa: E402
from llmist.providers.base import Message, Usage  # noqa: E402

_LOAD = """
import asyncio, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from tests.sessions.stores import open_session
async def main():
    session = open_session({spec!r}, "long")
    t1 = time.perf_counter()
    messages = await session.load()
    t2 = time.perf_counter()
    assert len(messages) == {n}, len(messages)
    print(t2 - t1, t2 - t0)
asyncio.run(main())
"""


def conversation(n: int) -> list[Message]:
    """``n`` messages: a prompt, then (response with a call, its result) pairs."""
    messages: list[Message] = [Message("system", "You are a careful agent."), Message("user", "Process every record.")]
    i = 0
    while len(messages) < n:
        i += 1
        call = f"Record {i} next.\n!!!GADGET_START:process:call_{i}\n!!!ARG:record\n{i}\n!!!ARG:note\n" + "x" * 200
        messages.append(AssistantMessage("assistant", call + "\n!!!GADGET_END", Usage(1200 + i, 90)))
        result = f"Result of process (id call_{i}):\nrecord {i} processed: " + "y" * 150
        messages.append(GadgetResultMessage("gadget_result", result, "process", f"call_{i}", {"record": i}))
    return messages[:n]


async def write(spec: str, messages: list[Message]) -> None:
    """Store ``messages`` as a run would: one save per iteration (two messages)."""
    session = open_session(spec, "long")
    await session.load()
    await session.save(messages[:2])
    for end in range(4, len(messages) + 1, 2):
        await session.save(messages[:end])
    await session.save(messages)
    await session.flush()


def timed_loads(spec: str, n: int, runs: int) -> tuple[list[float], list[float]]:
    """Seconds of ``load()`` and of the whole process, per new process."""
    loads, whole = [], []
    code = _LOAD.format(root=str(ROOT), spec=spec, n=n)
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        wall = time.perf_counter() - t0
        load_s, _inside = (float(x) for x in out.split())
        loads.append(load_s)
        whole.append(wall)
    return loads, whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    messages = conversation(args.messages)
    bin_dir = find_bin_dir()
    with tempfile.TemporaryDirectory() as folder:
        specs = {
            "sqlite": f"sqlite={folder}/runs.db",
            "sqlalchemy-sqlite": f"sqlalchemy-sqlite=sqlite+aiosqlite:///{folder}/sa.db",
        }
        server_cm = postgres_server(bin_dir) if bin_dir is not None else None
        server = server_cm.__enter__() if server_cm is not None else None
        try:
            if server is not None:
                specs["postgresql"] = f"postgresql={server.new_database()}"
            for kind, spec in specs.items():
                t0 = time.perf_counter()
                asyncio.run(write(spec, messages))
                written = time.perf_counter() - t0
                loads, whole = timed_loads(spec, len(messages), args.runs)
                record = {
                    "store": kind,
                    "messages": len(messages),
                    "write_s": round(written, 2),
                    "load_s_median": round(statistics.median(loads), 3),
                    "load_s_max": round(max(loads), 3),
                    "process_s_median": round(statistics.median(whole), 3),
                    "runs": args.runs,
                }
                print(json.dumps(record), flush=True)
        finally:
            if server_cm is not None:
                server_cm.__exit__(None, None, None)


if __name__ == "__main__":
    main()
