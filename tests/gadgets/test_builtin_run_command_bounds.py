"""RunCommand holds a bounded head and tail of the output (counting what it dropped) and stops a
command past its byte limit; a command that leaves processes behind (``sleep 100 &``, even
``setsid``) ends when its shell does, says what it stopped, and every process it started is
killed, on timeout too."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Coroutine
from pathlib import Path

import pytest
from tests.gadgets.processes import wait_dead

from llmist.gadgets.builtins import RunCommand
from llmist.testing import atest_gadget

pytestmark = pytest.mark.slow


def _pid(path: Path) -> int:
    for _ in range(100):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


_MEMORY = """
import re, sys
from pathlib import Path
from llmist.gadgets.builtins import RunCommand
from llmist.testing import test_gadget

command = "head -c 200000000 /dev/zero | tr '\\\\0' x; echo; echo end"
out = test_gadget(RunCommand(sys.argv[1], max_output_bytes=10**9), {"command": command, "timeout_s": 60})
# This process's peak, VmHWM: getrusage's ru_maxrss keeps the peak of the process that forked
# it (Linux carries it across exec), here pytest, large after a whole suite.
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())[1]) // 1024)
print(out.result if out.result is not None else out.error)
"""


def test_a_command_writing_200_mb_is_held_as_a_bounded_head_and_tail(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", _MEMORY, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    peak_mb, result = proc.stdout.split("\n", 1)
    assert int(peak_mb) < 150, f"peak RSS {peak_mb} MB"
    assert result.startswith("$ head -c 200000000")
    assert "bytes cut] ..." in result and "199,9" in result
    assert result.rstrip().endswith("end\n[exit code 0]")


async def test_a_command_past_its_byte_limit_is_stopped(tmp_path: Path) -> None:
    started = time.monotonic()
    out = await atest_gadget(RunCommand(tmp_path, max_output_bytes=1_000_000), {"command": "yes", "timeout_s": 60})
    assert time.monotonic() - started < 20
    assert out.error is not None
    assert "stopped after writing more than 1,000,000 bytes of output (RunCommand max_output_bytes)" in out.error
    assert "y\ny\ny" in out.error


async def test_a_background_job_does_not_make_the_call_time_out(tmp_path: Path) -> None:
    started = time.monotonic()
    out = await atest_gadget(
        RunCommand(tmp_path), {"command": "sleep 100 & echo $! > bg.pid; echo started", "timeout_s": 5}
    )
    assert time.monotonic() - started < 4
    assert out.error is None, out.error
    assert out.result is not None and out.result.startswith("$ sleep 100 & echo $! > bg.pid; echo started\nstarted\n")
    assert "[exit code 0]" in out.result
    assert "1 process it started was still running and was stopped (sleep)" in out.result
    assert await wait_dead(_pid(tmp_path / "bg.pid"))


async def test_a_setsid_child_left_behind_is_killed_when_the_command_ends(tmp_path: Path) -> None:
    out = await atest_gadget(
        RunCommand(tmp_path), {"command": "setsid sleep 100 > /dev/null 2>&1 & echo $! > s.pid; echo ok"}
    )
    assert out.result is not None and "ok\n[exit code 0]" in out.result
    # Named as it was when stopped: the shell may end before `setsid` has become `sleep`.
    assert "was stopped (sleep)" in out.result or "was stopped (setsid)" in out.result
    assert await wait_dead(_pid(tmp_path / "s.pid"))


async def test_a_setsid_child_is_killed_with_a_command_that_times_out(tmp_path: Path) -> None:
    out = await atest_gadget(
        RunCommand(tmp_path), {"command": "setsid sleep 100 & echo $! > s.pid; sleep 100", "timeout_s": 0.5}
    )
    assert out.error is not None and "timed out after 0.5 s and was killed" in out.error
    assert await wait_dead(_pid(tmp_path / "s.pid"))


async def test_a_command_that_ends_cleanly_reports_nothing_more(tmp_path: Path) -> None:
    out = await atest_gadget(RunCommand(tmp_path), {"command": "echo hi"})
    assert out.result == "$ echo hi\nhi\n[exit code 0]"
    assert os.environ.get("LLMIST_COMMAND_ID") is None


async def _cancelled_call(root: Path) -> None:
    task = asyncio.create_task(atest_gadget(RunCommand(root), {"command": "echo started; sleep 60"}))
    await asyncio.sleep(0.3)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@pytest.mark.parametrize(
    "call",
    [
        lambda root: atest_gadget(RunCommand(root, max_output_bytes=1_000_000), {"command": "yes", "timeout_s": 60}),
        lambda root: atest_gadget(RunCommand(root), {"command": "echo started; sleep 60", "timeout_s": 0.3}),
        lambda root: atest_gadget(RunCommand(root), {"command": "sleep 60 & echo started"}),
        _cancelled_call,
    ],
    ids=["byte_limit", "timeout", "left_running", "cancelled"],
)
def test_a_call_leaves_nothing_open_once_it_returns(
    tmp_path: Path, call: Callable[[Path], Coroutine[object, object, object]]
) -> None:
    # asyncio.run closes its loop as the call returns, as a program does at its end. A pipe left
    # open was closed by the garbage collector instead, after the loop ("Event loop is closed").
    gc.collect()
    gc.disable()
    try:
        before = _open_descriptors()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            asyncio.run(call(tmp_path))
            after = _open_descriptors()
            gc.collect()
    finally:
        gc.enable()
    assert after == before
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def _open_descriptors() -> list[str]:
    return sorted(os.listdir("/proc/self/fd"))
