"""A run killed with SIGKILL mid-way resumes from its SQLite session in a new process.

The child runs ten steps, one gadget call per iteration. In the first process the gadget of
step ``KILL_AT`` waits for the session's writer to catch up, says so, and hangs; the test then
kills the process with SIGKILL, so the run dies in the middle of an iteration, as in a crash.
A second process continues the session without a new prompt: the steps done before the kill
are not run again, none is missing, and the iteration in flight is simply done again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llmist.agent import GadgetResultMessage, SQLiteSession

KILL_AT = 6

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from llmist import Agent, gadget
    from llmist.agent import SQLiteSession
    from llmist.testing import MockModel, block_call

    db, kill_at, prompt = sys.argv[1], int(sys.argv[2]), sys.argv[3] or None
    session = SQLiteSession(db, "job")

    @gadget
    async def step(n: int) -> str:
        '''Do step n.'''
        print(f"ran {n}", flush=True)
        if n == kill_at:
            await session.flush()
            print("in flight", flush=True)
            await asyncio.Event().wait()
        return f"step {n} done"

    def respond(messages):
        done = sum(1 for m in messages if m.role == "gadget_result")
        return block_call("step", n=done + 1) if done < 10 else "all ten done"

    agent = Agent(model=MockModel(respond), gadgets=[step], session=session, max_iterations=20)
    print("output:", asyncio.run(agent.run(prompt)).output, flush=True)
    """
)


def _child(tmp_path: Path, kill_at: int, prompt: str) -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    args = [sys.executable, str(script), str(tmp_path / "runs.db"), str(kill_at), prompt]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _steps_stored(db: Path) -> list[int]:
    import asyncio

    messages = asyncio.run(SQLiteSession(db, "job").load())
    return [int(m.parameters["n"]) for m in messages if isinstance(m, GadgetResultMessage) and m.parameters]


@pytest.mark.slow
def test_a_killed_run_resumes_in_a_new_process_without_losing_an_iteration(tmp_path: Path) -> None:
    first = _child(tmp_path, KILL_AT, "Do the ten steps.")
    assert first.stdout is not None
    lines = []
    for line in first.stdout:
        lines.append(line.strip())
        if line.strip() == "in flight":
            break
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    assert first.returncode == -signal.SIGKILL, lines
    assert _steps_stored(tmp_path / "runs.db") == list(range(1, KILL_AT))

    second = _child(tmp_path, 0, "")
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert [line for line in out.splitlines() if line.startswith("ran")] == [f"ran {n}" for n in range(KILL_AT, 11)]
    assert out.splitlines()[-1] == "output: all ten done"
    assert _steps_stored(tmp_path / "runs.db") == list(range(1, 11))
