"""``--session`` and ``--session-db``: the store's file, opened and checked before a run starts, so
that a wrong file or a missing session is one line naming it (exit 2), not a traceback mid-run."""

from __future__ import annotations

import os
from pathlib import Path

from llmist.agent.sessions import SessionError, SQLiteSession
from llmist.cli._common import CliError

__all__ = ["open_session", "session_db"]


def session_db(path: Path | None) -> Path:
    """The sessions' SQLite file: the flag, else ``$LLMIST_SESSION_DB``, else
    ``$XDG_DATA_HOME/llmist/sessions.db`` (``~/.local/share`` without it); its folder is created."""
    source = "--session-db"
    if path is None:
        env = os.environ
        if env.get("LLMIST_SESSION_DB"):
            path, source = Path(env["LLMIST_SESSION_DB"]), "LLMIST_SESSION_DB"
        else:
            base = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else Path.home() / ".local" / "share"
            path, source = base / "llmist" / "sessions.db", "the default session store"
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
    session = SQLiteSession(path, name)
    try:
        stored = session.stored_ids()
    except SessionError as exc:
        raise CliError(f"{exc}; give another file with --session-db, or move {path} aside") from None
    if must_exist and name not in stored:
        existing = ", ".join(stored) if stored else "none yet"
        raise CliError(
            f"no session named {name!r} in {path} (sessions there: {existing}); "
            "give a PROMPT to start it, or name an existing one"
        )
    return session
