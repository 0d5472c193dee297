"""A stdio MCP server and every process it starts end with the connection, and with the process
that connected, even when that process is killed with SIGKILL (Linux: llmist's launcher).

The SDK stops the server's process group only when the server outlives its grace period, and a
killed agent only closes the server's input: a server exits on that, but a helper it started (here
a ``sleep``, started by the shell that then becomes the toy server) was left running, and so was a
server busy in a blocking call.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llmist.mcp import MCPServerStdio
from tests.mcp.conftest import TOY_SERVER

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="llmist's process launcher is Linux only"),
]


def _live(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sleepers(tag: str) -> list[int]:
    """Live processes running ``sleep <tag>``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv[:2] == [b"sleep", tag.encode()] and _live(int(entry.name)):
                found.append(int(entry.name))
    return found


def _left_after(pids: list[int], within_s: float = 10.0) -> list[int]:
    """Which of ``pids`` still run after ``within_s`` (a hang detector, not a measure of speed);
    those are SIGKILLed, so that a failure leaves nothing running."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(_live(pid) for pid in pids):
        time.sleep(0.05)
    left = [pid for pid in pids if _live(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def _server_with_a_helper(tag: str) -> MCPServerStdio:
    """The toy server, started by a shell that first starts ``sleep <tag>`` in the background."""
    return MCPServerStdio("/bin/sh", ["-c", f"sleep {tag} & exec {sys.executable} {TOY_SERVER}"])


HOLDER = """
import asyncio, sys
from llmist.mcp import MCPServerStdio

async def main():
    async with MCPServerStdio("/bin/sh", ["-c", sys.argv[1]]) as server:
        print(await server.call_tool("pid", {}), flush=True)
        await asyncio.sleep(120)

asyncio.run(main())
"""


def test_an_agent_killed_with_sigkill_leaves_neither_its_server_nor_the_servers_helper() -> None:
    tag = str(4000 + secrets.randbelow(1000))
    command = _server_with_a_helper(tag).params.args[1]
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, command], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    server = int(holder.stdout.readline())
    helpers = _sleepers(tag)
    assert _live(server) and len(helpers) == 1
    holder.kill()
    assert holder.wait(timeout=30) == -signal.SIGKILL
    assert _left_after([server, *helpers]) == []


async def test_closing_the_connection_stops_what_the_server_started() -> None:
    tag = str(5000 + secrets.randbelow(1000))
    async with _server_with_a_helper(tag) as server:
        pid = int(await server.call_tool("pid", {}))
        helpers = _sleepers(tag)
        assert len(helpers) == 1
    assert await asyncio.to_thread(_left_after, [pid, *helpers]) == []


async def test_the_servers_parameters_stay_as_given() -> None:
    server = MCPServerStdio(sys.executable, [str(TOY_SERVER)])
    async with server:
        assert await server.call_tool("add", {"a": 1, "b": 2}) == "3"
    assert (server.params.command, server.params.args) == (sys.executable, [str(TOY_SERVER)])
