"""Whether a process a command started has ended, for the ``RunCommand`` tests."""

from __future__ import annotations

import asyncio
import os
import time


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, which still answers ``kill(0)``, has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:  # gone meanwhile: the read of an ended process's file raises ESRCH, not ENOENT
        return False


async def wait_dead(pid: int, within_s: float = 5.0) -> bool:
    """Whether ``pid`` ends within ``within_s`` (polled: it is not our child, nothing to await)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False
