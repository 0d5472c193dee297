"""Where ``--session`` conversations live: an SQLite file, or a database named by a URL.

``--session-db PATH`` / ``session_db`` (also ``$LLMIST_SESSION_DB``) name an SQLite file;
``--session-url URL`` / ``session_url`` (also ``$LLMIST_SESSION_URL``) a database SQLAlchemy
reaches (``postgresql+asyncpg://...``; ``pip install 'llmist[postgres]'``). When both are set,
the one from the more specific place wins (a flag over the environment over a profile over a
file); set in one place, both is a mistake. With neither, the file is
:func:`~llmist.agent.sessions.default_store_path`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from llmist.agent.sessions import SQLiteSession, SQLStoreSession, default_store_path
from llmist.cli._common import CliError
from llmist.cli._config import SETTINGS, Config, Setting

__all__ = ["SessionDbOption", "SessionStore", "SessionUrlOption", "session_store"]

SessionDbOption = Annotated[
    Path | None,
    typer.Option(help="SQLite file of --session (default: $LLMIST_SESSION_DB, else the user data folder)."),
]
SessionUrlOption = Annotated[
    str | None,
    typer.Option(
        help="Database of --session instead of a file: postgresql+asyncpg://user@host/db (the postgres extra)."
    ),
]


@dataclass(frozen=True, slots=True)
class SessionStore:
    """The configured store: an SQLite file (``path``) or a database URL (``url``)."""

    path: Path | None = None
    url: str | None = None
    source: str = "default"
    """Where the setting came from (named in errors)."""

    def open(self, session_id: str) -> SQLStoreSession:
        """The session ``session_id`` of this store (a bad URL or a missing driver is a :class:`CliError`)."""
        if self.url is None:
            assert self.path is not None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return SQLiteSession(self.path, session_id)
        try:
            from llmist.agent.sqlalchemy_session import SQLAlchemySession
        except ImportError as exc:
            raise CliError(
                f"session_url (from {self.source}) needs the postgres extra ({exc.name} is missing): "
                "pip install 'llmist[postgres]'"
            ) from None
        from llmist.agent.sessions import SessionError

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
        path = Path(db.value) if db.value is not None else default_store_path()
        return SessionStore(path=path, source=db.source)
    if db.value is None or _rank(url.source) > _rank(db.source):
        return SessionStore(url=str(url.value), source=url.source)
    if _rank(db.source) > _rank(url.source):
        return SessionStore(path=Path(db.value), source=db.source)
    raise CliError(f"both session_db (from {db.source}) and session_url (from {url.source}) are set: set one of them")


def _rank(source: str) -> int:
    """How specific a setting's source is: a flag, the environment, a profile, a file."""
    if source.startswith("--"):
        return 4
    if source.startswith("env "):
        return 3
    if "[profiles." in source:
        return 2
    return 0 if source == "default" else 1
