"""``--session`` and ``--session-db``: the store's file, opened and checked before a run starts, so
that a wrong file or a missing session is one line naming it (exit 2), not a traceback mid-run."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from llmist.agent.sessions import SessionError, SQLiteSession, default_store_path
from llmist.cli._common import CliError

__all__ = ["open_session", "session_store_path"]


def session_store_path(path: Path | None) -> Path:
    """The sessions' SQLite file: the flag, else :func:`~llmist.agent.sessions.default_store_path`
    (``$LLMIST_SESSION_DB``, else the user data directory); its folder is created."""
    source = "--session-db"
    if path is None:
        path = default_store_path()
        source = "LLMIST_SESSION_DB" if os.environ.get("LLMIST_SESSION_DB") else "the default session store"
    if path.is_dir():
        raise CliError(f"{source} {path} is a directory; give the path of a file (it is created if missing)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(
            f"{source} {path}: cannot create its folder ({exc.strerror or exc}); give a file in a folder you can write"
        ) from None
    return path


def open_session(path: Path, name: str, *, must_exist: bool) -> SQLiteSession:
    """The session ``name`` of the store at ``path``, its file checked now; ``must_exist``: a run
    with no prompt continues a session, so one that is not stored is an error listing those that are."""
    try:
        stored = asyncio.run(SQLiteSession.list_ids(path))  # opens an existing file: no database fails here
    except SessionError as exc:
        raise CliError(f"{exc}; give another file with --session-db, or move {path} aside") from None
    if must_exist and name not in stored:
        existing = ", ".join(stored) if stored else "none yet"
        raise CliError(
            f"no session named {name!r} in {path} (sessions there: {existing}); "
            "give a PROMPT to start it, or name an existing one"
        )
    return SQLiteSession(path, name)
