"""Sessions under real processes: two writers of one session, each in a process of its own."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llmist.providers.base import Message
from tests.sessions.stores import Store

ROOT = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, sys.argv[1])
    from llmist.agent.sessions import SessionConflictError
    from llmist.providers.base import Message
    from tests.sessions.stores import open_session

    async def main(spec, name):
        session = open_session(spec, "shared")
        messages = list(await session.load())
        print("loaded", flush=True)
        sys.stdin.readline()  # both have loaded: now both write
        try:
            for n in range(3):
                messages.append(Message("user", f"{name} {n}"))
                await session.save(messages)
            await session.flush()
        except SessionConflictError as exc:
            print("conflict:", exc, flush=True)
            return 1
        print("stored", flush=True)
        return 0

    sys.exit(asyncio.run(main(sys.argv[2], sys.argv[3])))
    """
)


@pytest.mark.slow
def test_of_two_processes_writing_one_session_one_is_stored_and_the_other_told(store: Store) -> None:
    asyncio.run(_seed(store))
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(ROOT), store.spec, name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("first", "second")
    ]
    for child in children:
        assert child.stdout is not None and child.stdout.readline().strip() == "loaded"
    outcomes = [child.communicate("go\n", timeout=60) for child in children]
    codes = [child.returncode for child in children]
    assert sorted(codes) == [0, 1], outcomes
    loser = outcomes[codes.index(1)][0]
    assert "another writer changed this session since it was loaded" in loser
    winner = ("first", "second")[codes.index(0)]
    stored = asyncio.run(store.session("shared").load())
    assert [m.text for m in stored] == ["seed", f"{winner} 0", f"{winner} 1", f"{winner} 2"]


async def _seed(store: Store) -> None:
    session = store.session("shared")
    await session.save([Message("user", "seed")])
    await session.flush()
