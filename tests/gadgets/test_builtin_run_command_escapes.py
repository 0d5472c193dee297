"""A command's processes cannot escape RunCommand's cleanup (Linux): not by leaving the process
group (``setsid``), not by dropping the ``LLMIST_COMMAND_ID`` marker (``env -i``, ``env -u``), not
by a double fork, not when the call times out or is cancelled, not even when the process running
the agent is killed in the middle. Each escapee carries a unique word in its command line, and
``/proc`` is polled for it: a process still there after the call is one that escaped."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from llmist.gadgets import ExecutionContext
from llmist.gadgets.builtins import RunCommand
from llmist.gadgets.builtins.command import RunCommandParams
from llmist.testing import atest_gadget

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux only"),
]


def _running(word: str) -> list[int]:
    """Live processes (not zombies) whose command line holds ``word``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if word.encode() not in (entry / "cmdline").read_bytes():
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] != "Z":
            found.append(int(entry.name))
    return found


def _gone(word: str, within_s: float = 10.0) -> bool:
    """Whether every process holding ``word`` ends within ``within_s`` (a hang detector, not a
    measure of speed)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _running(word):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def word() -> Iterator[str]:
    """A word unique to this test; whatever still holds it at the end is killed, so that a failing
    test leaves no ``sleep 300`` behind."""
    value = f"llmist-escapee-{secrets.token_hex(6)}"
    yield value
    for pid in _running(value):
        os.kill(pid, signal.SIGKILL)


def _escape(how: str, word: str) -> str:
    """A shell line that starts a process holding ``word`` which escapes the command as ``how`` says."""
    # A loop of short sleeps, not one long one: killing the word's holder ends it all quickly.
    inner = f"sh -c 'while :; do sleep 1; done' {word}"
    return {
        "env_i_setsid": f"env -i setsid {inner} > /dev/null 2>&1 &",
        "env_u_setsid": f"env -u LLMIST_COMMAND_ID setsid {inner} > /dev/null 2>&1 &",
        "double_fork": f"(env -i setsid {inner} > /dev/null 2>&1 &);",
        "nohup_daemon": f"(env -i nohup setsid {inner} > /dev/null 2>&1 < /dev/null &) &",
    }[how]


@pytest.mark.parametrize("how", ["env_i_setsid", "env_u_setsid", "double_fork", "nohup_daemon"])
async def test_an_escapee_is_stopped_when_the_command_ends(tmp_path: Path, word: str, how: str) -> None:
    out = await atest_gadget(RunCommand(tmp_path), {"command": f"{_escape(how, word)} sleep 0.3; echo ok"})
    assert out.result is not None, out.error
    assert "ok\n[exit code 0]" in out.result
    assert "still running and" in out.result and "stopped" in out.result
    assert _gone(word)


async def test_an_escapee_is_stopped_with_a_command_that_times_out(tmp_path: Path, word: str) -> None:
    command = f"{_escape('env_i_setsid', word)} sleep 100"
    out = await atest_gadget(RunCommand(tmp_path), {"command": command, "timeout_s": 1})
    assert out.error is not None and "timed out after 1 s" in out.error
    assert _gone(word)


async def test_an_escapee_is_stopped_when_the_call_is_cancelled(tmp_path: Path, word: str) -> None:
    ctx = ExecutionContext(gadget_name="RunCommand")
    command = f"{_escape('double_fork', word)} echo started > started; sleep 100"
    task = asyncio.create_task(RunCommand(tmp_path).execute(RunCommandParams(command=command), ctx))
    for _ in range(200):
        if (tmp_path / "started").exists() and _running(word):
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _gone(word)


async def test_a_command_stops_only_its_own_escapees(tmp_path: Path, word: str) -> None:
    # Two calls at once: the one that ends first must not reach the other's processes.
    other = f"llmist-escapee-{secrets.token_hex(6)}"  # not a prefix of ``word``, nor ``word`` of it
    try:
        slow = asyncio.create_task(
            atest_gadget(RunCommand(tmp_path), {"command": f"{_escape('env_i_setsid', other)} sleep 3; echo slow"})
        )
        for _ in range(200):
            if _running(other):
                break
            await asyncio.sleep(0.05)
        fast = await atest_gadget(RunCommand(tmp_path), {"command": f"{_escape('env_i_setsid', word)} echo fast"})
        assert fast.result is not None and "fast" in fast.result
        assert _gone(word)
        assert _running(other), "the other command's process was stopped by the first command's cleanup"
        done = await slow
        assert done.result is not None and "slow\n[exit code 0]" in done.result
        assert _gone(other)
    finally:
        for pid in _running(other):
            os.kill(pid, signal.SIGKILL)


_HOLDER = """
import asyncio, sys
from llmist.gadgets.builtins import RunCommand
from llmist.testing import atest_gadget

asyncio.run(atest_gadget(RunCommand(sys.argv[1]), {"command": sys.argv[2], "timeout_s": 300}))
"""


def test_an_escapee_is_stopped_when_the_agent_process_is_killed(tmp_path: Path, word: str) -> None:
    # SIGKILL leaves the agent no chance to clean up; what the command started must end anyway.
    command = f"{_escape('env_i_setsid', word)} sleep 0.2; echo ready > ready; sleep 300"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp_path), command])
    try:
        deadline = time.monotonic() + 60
        while not ((tmp_path / "ready").exists() and _running(word)):
            assert time.monotonic() < deadline, "the command never started"
            assert holder.poll() is None, "the agent process ended early"
            time.sleep(0.05)
        holder.kill()
        holder.wait(timeout=60)
        assert _gone(word)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=60)


async def test_the_command_still_gets_empty_input_and_its_own_exit_status(tmp_path: Path) -> None:
    out = await atest_gadget(RunCommand(tmp_path), {"command": "cat; echo read-nothing; exit 7"})
    assert out.result == "$ cat; echo read-nothing; exit 7\nread-nothing\n[exit code 7]"
    killed = await atest_gadget(RunCommand(tmp_path), {"command": "kill -9 $$"})
    assert killed.result == "$ kill -9 $$\n[exit code -9]"


async def test_without_a_subreaper_the_group_and_the_marker_still_reach_what_they_can(
    tmp_path: Path, word: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A frozen application cannot start the launcher, and falls back to what macOS gets: the
    # process group, and (Linux) the marker. A process that kept the marker is still stopped.
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    command = f"setsid sh -c 'while :; do sleep 1; done' {word} > /dev/null 2>&1 & sleep 0.2; echo ok; exit 4"
    out = await atest_gadget(RunCommand(tmp_path), {"command": command})
    assert out.result is not None and "ok\n[exit code 4]" in out.result
    assert _gone(word)
