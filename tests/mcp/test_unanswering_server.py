"""An MCP server that never answers cannot hang a run: connecting has a timeout, one Ctrl-C (or
SIGTERM) ends `llmist agent` at once, and the server's processes are stopped on every exit path."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llmist import Agent
from llmist.mcp import MCPServerError, MCPServerStdio
from llmist.testing import MockModel
from tests.cli.helpers import Terminal, clean_env

pytestmark = pytest.mark.slow


def _sleepers(tag: str) -> list[int]:
    """Processes running ``sleep <tag>`` (the never-answering servers of one test)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if argv[:2] == [b"sleep", tag.encode()] and state != "Z":
                found.append(int(entry.name))
    return found


def _gone(tag: str, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _sleepers(tag):
            return True
        time.sleep(0.1)
    return False


async def test_connecting_to_a_server_that_never_answers_times_out() -> None:
    server = MCPServerStdio("sleep", ["1001"], connect_timeout_s=0.5)
    started = time.monotonic()
    with pytest.raises(MCPServerError, match=r"did not answer within 0.5 s \(connect_timeout_s\)"):
        await asyncio.wait_for(server.connect(), 30)
    assert time.monotonic() - started < 10
    assert await asyncio.to_thread(_gone, "1001")


async def test_a_run_with_a_server_that_never_answers_fails_with_that_error() -> None:
    agent = Agent(model=MockModel(["never"]), mcp_servers=[MCPServerStdio("sleep", ["1002"], connect_timeout_s=0.5)])
    with pytest.raises(MCPServerError, match="did not answer"):
        await asyncio.wait_for(agent.run("hi"), 30)
    assert await asyncio.to_thread(_gone, "1002")


async def test_cancelling_a_run_stops_the_connection_at_once() -> None:
    agent = Agent(model=MockModel(["never"]), mcp_servers=[MCPServerStdio("sleep", ["1003"])])
    stream = agent.stream("hi")
    task = asyncio.create_task(stream.batches().__anext__())
    while not await asyncio.to_thread(_sleepers, "1003"):
        await asyncio.sleep(0.05)
    stream.cancel()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(task, 10)
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    assert await asyncio.to_thread(_gone, "1003")


def _config(tmp_path: Path, timeout_s: float) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text(f"mcp_timeout = {timeout_s}\n", encoding="utf-8")
    return {"LLMIST_CONFIG": str(config)}


def test_the_agent_command_names_a_server_that_never_answers(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "llmist.cli", "agent", "hi", "-m", "mock", "--mcp", "sleep 1004"],
        capture_output=True,
        text=True,
        env=clean_env(_config(tmp_path, 1)),
        timeout=60,
    )
    assert proc.returncode != 0
    assert "sleep 1004" in proc.stdout + proc.stderr and "did not answer within 1 s" in proc.stdout + proc.stderr
    assert _gone("1004")


def test_one_ctrl_c_ends_the_agent_command_while_it_connects(tmp_path: Path) -> None:
    term = Terminal("agent", "hi", "-m", "mock", "--mcp", "sleep 1005", env=_config(tmp_path, 300))
    deadline = time.monotonic() + 30
    while not _sleepers("1005") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sleepers("1005"), "the server never started"
    term.interrupt()
    assert term.wait(15) == 130
    assert _gone("1005")


def test_sigterm_ends_the_agent_command_and_its_server(tmp_path: Path) -> None:
    term = Terminal("agent", "hi", "-m", "mock", "--mcp", "sleep 1006", env=_config(tmp_path, 300))
    deadline = time.monotonic() + 30
    while not _sleepers("1006") and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(term.proc.pid, signal.SIGTERM)
    assert term.wait(15) != 0
    assert _gone("1006")


def test_a_second_ctrl_c_quits_at_once_and_still_stops_the_server(tmp_path: Path) -> None:
    term = Terminal("agent", "hi", "-m", "mock", "--mcp", "sleep 1007", env=_config(tmp_path, 300))
    deadline = time.monotonic() + 30
    while not _sleepers("1007") and time.monotonic() < deadline:
        time.sleep(0.05)
    term.interrupt()
    term.interrupt()
    assert term.wait(15) == 130
    assert _gone("1007")
