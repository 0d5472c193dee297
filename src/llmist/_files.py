"""Whether a command can write its results file, asked before the first task runs.

A root module (no layer): ``llmist batch`` (through :class:`llmist.batch.ResultsFile`) and
``llmist eval`` both write results after minutes of paid model calls, so both ask here first,
and a results file that cannot be written ends the command before any task, not after the last.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import tempfile
from pathlib import Path

__all__ = ["unwritable_reason"]


def unwritable_reason(path: str | Path) -> str | None:
    """Why results cannot be written to ``path`` (a phrase that follows the path in a message, and
    says what to do), or ``None`` when they can.

    The kernel is asked, not guessed at (``os.access`` answers for the real user and knows
    nothing of read-only mounts): an existing file is opened for appending, as a write will, which
    changes nothing in it; for a new file, a file of another name is made in its folder and
    removed at once, so the path itself is never created and then removed under another process
    that opened it meanwhile.
    """
    try:
        return _problem(Path(path))
    except OSError as exc:  # a read-only folder or file system, a folder that cannot be searched...
        if exc.errno == errno.ENAMETOOLONG:
            return "has a name (or folder name) too long for the file system; give a shorter one"
        return f"cannot be written ({exc.strerror or exc}); give a file in a folder you can write"
    except UnicodeEncodeError:
        return "has a name that cannot be a file name here (it does not encode); give another name"


def _problem(path: Path) -> str | None:
    """:func:`unwritable_reason`, but raising the ``OSError`` the kernel gave."""
    if path.is_dir():
        return "is a directory; give the path of a file"
    folder = path.parent
    if not folder.exists():
        mkdir = f"mkdir -p {shlex.quote(str(folder))}"
        return f"is in a folder that does not exist ({folder}); create it first ({mkdir}) or give another path"
    if not folder.is_dir():
        return f"is under {folder}, which is a file, not a folder; give a path in a folder"
    if path.exists() and not path.is_file():
        return None  # a device or a pipe (/dev/stdout, say): opening it to probe could block or consume
    if os.path.lexists(path):  # lexists: a dangling link is written through, as the write will
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
    else:
        _probe_folder(folder, path.name)
    return None


def _probe_folder(folder: Path, name: str) -> None:
    """Raise ``OSError`` when a file called ``name`` cannot be made in ``folder``."""
    longest = None
    with contextlib.suppress(OSError, ValueError):  # pathconf is not on every system and folder
        longest = os.pathconf(folder, "PC_NAME_MAX")
    if longest is not None and len(os.fsencode(name)) > longest:
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
    fd, probe = tempfile.mkstemp(dir=folder, prefix=".llmist-probe-")
    os.close(fd)
    os.unlink(probe)
