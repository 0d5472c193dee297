"""Every process a command started, found again to be stopped: its process group, and what left it.

A command (``RunCommand``'s shell, an MCP server over stdio) runs in a new session and process
group, and with a marker in its environment (:data:`MARKER`, a fresh value per command) that its
descendants inherit. ``killpg`` reaches the group; a process that left it (``setsid``, a daemon)
still carries the marker, so on Linux ``/proc`` finds it: :func:`leftovers` lists every live
process in the group or with the marker. Elsewhere only the group is reached.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MARKER", "Leftover", "kill", "leftovers", "new_marker"]

MARKER = "LLMIST_COMMAND_ID"
"""The environment variable that marks a command's processes."""

_PROC = Path("/proc")


@dataclass(frozen=True, slots=True)
class Leftover:
    """A live process the command started."""

    pid: int
    name: str
    """Its command name (``/proc/PID/comm``)."""


def new_marker() -> str:
    """A fresh value of :data:`MARKER` for one command."""
    return secrets.token_hex(12)


def leftovers(group: int | None, marker: str) -> list[Leftover]:
    """Live processes in process group ``group`` (``None``: no group) or whose environment holds
    ``MARKER=marker`` (zombies and this process excluded); ``[]`` where ``/proc`` is missing."""
    if not _PROC.is_dir():
        return []
    needle = f"{MARKER}={marker}".encode()
    own = os.getpid()
    found: list[Leftover] = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
            name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
            if rest[0] == "Z":
                continue
            if int(rest[2]) != group and needle not in (entry / "environ").read_bytes().split(b"\0"):
                continue
        except (OSError, ValueError, IndexError):  # gone meanwhile, or not ours to read
            continue
        found.append(Leftover(int(entry.name), name))
    return found


def kill(group: int | None, marker: str, sig: signal.Signals) -> list[Leftover]:
    """Send ``sig`` to process group ``group`` (``None``: no group) and to every other process of
    the command; the processes it reached (beyond the group, only where ``/proc`` exists)."""
    reached = leftovers(group, marker)  # first: a process that the signal ends is gone from /proc
    if group is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
    for process in reached:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(process.pid, sig)
    return reached
