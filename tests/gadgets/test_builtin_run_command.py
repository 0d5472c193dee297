"""RunCommand runs a real subprocess, limits its output, and kills its process group on timeout or cancel."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.gadgets.processes import wait_dead

from llmist.gadgets import AbortSignal, ExecutionContext, GadgetError
from llmist.gadgets.builtins import RunCommand, builtin_gadgets
from llmist.gadgets.builtins.command import RunCommandParams
from llmist.testing import atest_gadget


async def test_output_and_exit_code_are_returned(tmp_path: Path) -> None:
    out = await atest_gadget(RunCommand(tmp_path), {"command": "echo out; echo err >&2; exit 3"})
    assert out.result == "$ echo out; echo err >&2; exit 3\nout\nerr\n[exit code 3]"


async def test_runs_in_the_sandbox_root(tmp_path: Path) -> None:
    out = await atest_gadget(RunCommand(tmp_path), {"command": "pwd"})
    assert out.result is not None and str(tmp_path.resolve()) in out.result


async def test_a_hanging_command_times_out_and_its_whole_group_is_killed(tmp_path: Path) -> None:
    gadget = RunCommand(tmp_path)
    started = time.monotonic()
    out = await atest_gadget(
        gadget, {"command": "sleep 60 & echo $! > child.pid; echo started; wait", "timeout_s": 0.5}
    )
    assert time.monotonic() - started < 5
    assert out.error is not None
    assert out.error.startswith(
        "GadgetError: The command timed out after 0.5 s and was killed: sleep 60 & echo $! > child.pid"
    )
    assert "Output before the timeout:\nstarted" in out.error
    assert await wait_dead(int((tmp_path / "child.pid").read_text()))


async def test_cancelling_the_call_kills_the_command(tmp_path: Path) -> None:
    gadget = RunCommand(tmp_path)
    ctx = ExecutionContext(gadget_name="RunCommand")
    task = asyncio.create_task(gadget.execute(RunCommandParams(command="echo $$ > shell.pid; sleep 60"), ctx))
    pid_file = tmp_path / "shell.pid"
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_dead(int(pid_file.read_text()))


async def test_long_output_is_cut_in_the_middle(tmp_path: Path) -> None:
    gadget = RunCommand(tmp_path, max_output_chars=100)
    out = await atest_gadget(gadget, {"command": "seq 1 1000"})
    assert out.result is not None
    assert out.result.startswith("$ seq 1 1000\n1\n2\n")
    assert "characters cut] ..." in out.result
    assert out.result.endswith("999\n1000\n[exit code 0]")


async def test_timeout_is_capped_by_the_gadget(tmp_path: Path) -> None:
    gadget = RunCommand(tmp_path, max_timeout_s=0.3)
    out = await atest_gadget(gadget, {"command": "sleep 5", "timeout_s": 100})
    assert out.error is not None and "timed out after 0.3 s" in out.error


async def test_an_empty_command_is_an_error(tmp_path: Path) -> None:
    out = await atest_gadget(RunCommand(tmp_path), {"command": "  "})
    assert out.error == "GadgetError: `command` is empty; give a shell command line such as 'ls -la'"


def test_builtin_gadgets_can_leave_commands_out(tmp_path: Path) -> None:
    assert [g.name for g in builtin_gadgets(tmp_path)] == [
        "ReadFile",
        "WriteFile",
        "EditFile",
        "ListDirectory",
        "RunCommand",
    ]
    assert "RunCommand" not in [g.name for g in builtin_gadgets(tmp_path, allow_commands=False)]


class _CountingSignal(AbortSignal):
    """A run's signal that counts the listeners still attached to it."""

    def __init__(self) -> None:
        super().__init__()
        self.attached = 0

    def add_listener(self, listener: Callable[[object], object]) -> None:
        self.attached += 1
        super().add_listener(listener)

    def remove_listener(self, listener: Callable[[object], object]) -> None:
        self.attached -= 1
        super().remove_listener(listener)


async def test_a_command_that_ended_is_not_signalled_when_the_run_is_aborted_later(tmp_path: Path) -> None:
    # Its process group id may belong to another process by then.
    run_signal = _CountingSignal()
    gadget = RunCommand(tmp_path)
    for command in ("true", "exit 3", "sleep 60"):
        ctx = ExecutionContext(gadget_name="RunCommand", signal=run_signal)
        with contextlib.suppress(GadgetError):
            await gadget.execute(RunCommandParams(command=command, timeout_s=0.2), ctx)
    assert run_signal.attached == 0
