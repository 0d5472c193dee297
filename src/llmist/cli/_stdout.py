"""Standard output kept for a command's own lines, while what gadgets print goes to standard error.

``llmist agent --json`` writes JSON lines on standard output, and a program reading them expects
nothing else there. A gadget runs in this process: its ``print()``, a C library it calls, or a
child process it starts all write to file descriptor 1. So while such a command runs, descriptor
1 points at standard error, and the command writes through a duplicate of the real standard
output. (``llmist mcp serve`` needs none of this: the MCP SDK's stdio server does the same.)
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TextIO

__all__ = ["stdout_kept"]


@contextlib.contextmanager
def stdout_kept() -> Iterator[TextIO]:
    """The real standard output, for the command's own lines; meanwhile descriptor 1 (and so
    ``print()`` and child processes) writes to standard error. Restored on exit."""
    sys.stdout.flush()
    saved = os.dup(1)
    ours = os.fdopen(saved, "w", encoding="utf-8", errors="replace", closefd=True)
    os.dup2(2, 1)
    try:
        yield ours
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        with contextlib.suppress(OSError, ValueError):
            ours.flush()
        os.dup2(saved, 1)
        ours.close()
