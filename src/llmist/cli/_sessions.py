"""Where ``--session`` conversations live: an SQLite file, or a database named by a URL; opened
and checked before a run starts, so that a wrong store or a missing session is one line naming
it (exit 2), not a traceback mid-run.

``--session-db FILE`` / ``session_db`` (also ``$LLMIST_SESSION_DB``) name an SQLite file;
``--session-url URL`` / ``session_url`` (also ``$LLMIST_SESSION_URL``) a database SQLAlchemy
reaches (``postgresql+asyncpg://...``; ``pip install 'llmist[postgres]'``). When both are set,
the one from the more specific place wins (a flag over the environment over a profile over a
file); set in one place, both is a mistake. With neither, the file is
:func:`~llmist.agent.sessions.default_store_path`.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from llmist._install import install_command
from llmist.agent.sessions import SessionError, SQLiteSession, SQLStoreSession, default_store_path
from llmist.cli._common import CliError
from llmist.cli._config import SETTINGS, Config, Setting

if TYPE_CHECKING:
    from llmist.agent.sqlalchemy_session import SQLAlchemySession

__all__ = [
    "SessionDbOption",
    "SessionStore",
    "SessionUrlOption",
    "open_session",
    "session_store",
    "session_store_path",
]

SessionDbOption = Annotated[
    Path | None,
    typer.Option(
        "--session-db",
        metavar="FILE",
        help="SQLite file of --session (default: $LLMIST_SESSION_DB, else the user data directory).",
    ),
]
SessionUrlOption = Annotated[
    str | None,
    typer.Option(
        "--session-url",
        metavar="URL",
        help="Database of --session instead of a file: postgresql+asyncpg://user@host/db (the postgres extra).",
    ),
]


@dataclass(frozen=True, slots=True)
class SessionStore:
    """The configured store: an SQLite file (``path``) or a database URL (``url``)."""

    path: Path | None = None
    url: str | None = None
    source: str = "default"
    """Where the setting came from (named in errors)."""

    def open(self, session_id: str, *, must_exist: bool = False) -> SQLStoreSession:
        """The session ``session_id`` of this store, the store checked now; ``must_exist``: a
        run with no prompt continues a session, so one that is not stored is an error listing
        those that are. Problems are a :class:`CliError`."""
        if self.url is None:
            assert self.path is not None
            return open_session(session_store_path(self.path, self.source), session_id, must_exist=must_exist)
        session = self._database_session(session_id)
        try:
            stored = asyncio.run(session.list_ids(self.url))
        except SessionError as exc:
            raise CliError(f"{exc} (session_url from {self.source})") from None
        _check_exists(session_id, stored, self.describe(), must_exist)
        return session

    def _database_session(self, session_id: str) -> SQLAlchemySession:
        assert self.url is not None
        try:
            from llmist.agent.sqlalchemy_session import SQLAlchemySession
        except ImportError as exc:
            raise CliError(
                f"session_url (from {self.source}) needs the postgres extra ({exc.name} is missing). "
                f"Install it with:\n    {install_command('postgres')}"
            ) from None
        try:
            return SQLAlchemySession(self.url, session_id)
        except SessionError as exc:
            raise CliError(f"{exc} (session_url from {self.source})") from None

    def describe(self) -> str:
        """The store for a person: the file, or the URL without its password."""
        if self.url is None:
            return str(self.path)
        from sqlalchemy.engine import make_url

        return make_url(self.url).render_as_string(hide_password=True)


def session_store(config: Config) -> SessionStore:
    """The store ``config`` names (see the module docstring)."""
    db: Setting = config.values["session_db"]
    url: Setting = config.values["session_url"]
    if url.value is not None and url.source.startswith("--"):  # files and the environment are checked on reading
        problem = SETTINGS["session_url"].check(url.value)
        if problem is not None:
            raise CliError(f"{url.source} must be {problem}, got {url.value!r}")
    if url.value is None:
        if db.value is not None:
            return SessionStore(path=Path(db.value), source=db.source)
        return SessionStore(path=default_store_path(), source=_default_source())
    if db.value is None or _rank(url.source) > _rank(db.source):
        return SessionStore(url=str(url.value), source=url.source)
    if _rank(db.source) > _rank(url.source):
        return SessionStore(path=Path(db.value), source=db.source)
    raise CliError(f"both session_db (from {db.source}) and session_url (from {url.source}) are set: set one of them")


def session_store_path(path: Path | None, source: str = "--session-db") -> Path:
    """The sessions' SQLite file: ``path`` (from ``source``), else
    :func:`~llmist.agent.sessions.default_store_path` (``$LLMIST_SESSION_DB``, else the user data
    directory); its folder is created."""
    if path is None:
        path, source = default_store_path(), _default_source()
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
    """The session ``name`` of the SQLite store at ``path``, its file checked now (see
    :meth:`SessionStore.open`)."""
    try:
        stored = asyncio.run(SQLiteSession.list_ids(path))  # opens an existing file: no database fails here
    except SessionError as exc:
        raise CliError(f"{exc}; give another file with --session-db, or move {path} aside") from None
    _check_exists(name, stored, str(path), must_exist)
    return SQLiteSession(path, name)


def _check_exists(name: str, stored: list[str], where: str, must_exist: bool) -> None:
    if must_exist and name not in stored:
        existing = ", ".join(stored) if stored else "none yet"
        raise CliError(
            f"no session named {name!r} in {where} (sessions there: {existing}); "
            "give a PROMPT to start it, or name an existing one"
        )


def _default_source() -> str:
    return "LLMIST_SESSION_DB" if os.environ.get("LLMIST_SESSION_DB") else "the default session store"


def _rank(source: str) -> int:
    """How specific a setting's source is: a flag, the environment, a profile, a file."""
    if source.startswith("--"):
        return 4
    if source.startswith("env "):
        return 3
    if "[profiles." in source:
        return 2
    return 0 if source == "default" else 1
