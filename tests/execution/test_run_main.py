"""``run_main``: ``asyncio.run`` whose end does not wait forever for a task that swallows its
cancellation, and ``Agent.run_sync``, which runs on it (issue 40)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import llmist
from llmist import run_main

_HANG_S = 60
"""A child that has not exited by then hangs (these scripts once never exited)."""

_STUBBORN = '''
import asyncio
from llmist import Agent, gadget
from llmist.testing import MockModel, block_call

@gadget(timeout_s=1)
async def stubborn() -> str:
    """Ignores every cancellation."""
    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            continue

def agent() -> Agent:
    return Agent(model=MockModel([block_call("stubborn"), "done"]), gadgets=[stubborn])
'''


def _script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "script.py"
    path.write_text(_STUBBORN + textwrap.dedent(body), encoding="utf-8")
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=_HANG_S, check=False)


@pytest.mark.slow
def test_run_sync_returns_and_the_process_exits_after_a_gadget_that_swallows_its_cancellation(tmp_path: Path) -> None:
    proc = _script(
        tmp_path,
        """
        result = agent().run_sync("go")
        print(result.output)
        print(result.gadget_results[0].error)
        """,
    )
    assert proc.returncode == 0, proc.stderr
    output, error = proc.stdout.splitlines()
    assert output == "done"
    assert error == (
        "Gadget 'stubborn' timed out after 1 s; it did not stop within 1 s of being cancelled and was left running"
    )
    assert "were abandoned as the event loop closed" in proc.stderr  # said once, as a warning
    assert "Task was destroyed but it is pending" not in proc.stderr


@pytest.mark.slow
def test_a_script_run_by_run_main_in_place_of_asyncio_run_exits(tmp_path: Path) -> None:
    proc = _script(
        tmp_path,
        """
        import llmist

        async def main() -> str:
            return (await agent().run("go")).gadget_results[0].status

        print(llmist.run_main(main()))
        """,
    )
    assert (proc.returncode, proc.stdout.strip()) == (0, "timeout"), proc.stderr


def test_run_main_returns_what_main_returns() -> None:
    async def main() -> int:
        await asyncio.sleep(0)
        return 42

    assert run_main(main()) == 42


def test_run_main_raises_what_main_raises() -> None:
    async def main() -> None:
        raise KeyError("nope")

    with pytest.raises(KeyError, match="nope"):
        run_main(main())


def test_a_pending_task_that_stops_when_cancelled_gets_its_cleanup() -> None:
    cleaned: list[str] = []

    async def worker() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned.append("worker")

    async def main() -> None:
        asyncio.get_running_loop().create_task(worker(), name="worker")
        await asyncio.sleep(0)

    run_main(main())
    assert cleaned == ["worker"]


def test_a_task_that_swallows_its_cancellation_is_abandoned_and_named(caplog: pytest.LogCaptureFixture) -> None:
    cancels: list[int] = []

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancels.append(1)

    async def main() -> str:
        asyncio.get_running_loop().create_task(stubborn(), name="stubborn-check")
        await asyncio.sleep(0)
        return "over"

    with caplog.at_level(logging.WARNING, logger="llmist.execution"):
        assert run_main(main(), cancel_grace_s=0.05) == "over"
    assert cancels == [1]  # cancelled once, then left
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "llmist.execution"]
    assert "did not end within 0.05 s of being cancelled" in warning and "stubborn-check" in warning


def test_run_main_inside_a_running_loop_says_to_await_instead() -> None:
    async def main() -> None:
        return None

    async def outer() -> None:
        coro = main()
        with pytest.raises(RuntimeError, match="already running in this thread; `await` the coroutine"):
            run_main(coro)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the refused coroutine is closed: no "never awaited" warning
        asyncio.run(outer())


@pytest.mark.parametrize("grace", [-1.0, float("nan")])
def test_a_negative_grace_period_is_refused(grace: float) -> None:
    async def main() -> None:
        return None

    with pytest.raises(ValueError, match="cancel_grace_s must be 0 seconds or more"):
        run_main(main(), cancel_grace_s=grace)


def test_run_main_comes_from_the_root() -> None:
    assert "run_main" in llmist.__all__ and llmist.run_main is llmist.execution.run_main
