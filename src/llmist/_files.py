"""Whether a command can write its results file, asked before the first task runs.

A root module (no layer): ``llmist batch`` (through :class:`llmist.batch.ResultsFile`) and
``llmist eval`` both write results after minutes of paid model calls, so both ask here first,
and a results file that cannot be written ends the command before any task, not after the last.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
from pathlib import Path

__all__ = ["unwritable_reason"]


def unwritable_reason(path: str | Path) -> str | None:
    """Why results cannot be written to ``path`` (a phrase that follows the path in a message, and
    says what to do), or ``None`` when they can.

    The file is opened for appending, as a write will, so a read-only folder, a file in a folder
    that does not exist, or a path under a file is found as the kernel would find it (``os.access``
    is not enough: it answers for the real user, and knows nothing of read-only mounts). Nothing
    is left behind: a file the probe created is removed, and an existing one is not changed.
    """
    path = Path(path)
    if path.is_dir():
        return "is a directory; give the path of a file"
    folder = path.parent
    if not folder.exists():
        mkdir = f"mkdir -p {shlex.quote(str(folder))}"
        return f"is in a folder that does not exist ({folder}); create it first ({mkdir}) or give another path"
    if not folder.is_dir():
        return f"is under {folder}, which is a file, not a folder; give a path in a folder"
    with contextlib.suppress(OSError):
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a device or a pipe (/dev/stdout, say): opening it to probe could block or consume
    existed = os.path.lexists(path)  # lexists: a probe through a dangling link must not delete the link
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc}); give a file in a folder you can write"
    if not existed:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return None
