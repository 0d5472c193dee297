"""``SQLAlchemySession``: conversations in a database server the team already runs.

``pip install 'llmist[postgres]'`` brings SQLAlchemy 2 (its asyncio API) and ``asyncpg``::

    session = SQLAlchemySession("postgresql+asyncpg://app@db.internal/agents", "chat-42")
    agent = Agent(model="sonnet", session=session, approvals="defer")

It keeps the same tables as :class:`~llmist.agent.sessions.SQLiteSession`, in the same
versioned message format, migrates them the same way and runs the same transactions (the SQL
of ``llmist.agent._store_sql``), so everything a session does (versioned writes that never
overwrite another writer, calls that wait for approval, their decisions) works alike in both.
PostgreSQL through ``asyncpg`` is what the tests run against (a real server); any SQLAlchemy
URL with an asyncio driver whose SQL takes ``INSERT ... ON CONFLICT DO NOTHING`` (SQLite
through ``aiosqlite``, say) works too.

:meth:`~SQLAlchemySession.save` hands the change to the session's writer (an asyncio task) and
returns; the writer stores what came meanwhile in one transaction. A run waits for it when it
ends (``flush``), so a failed write fails the run; a task dies with its event loop, so code
that saves by hand calls ``await session.flush()`` before ``asyncio.run`` returns.

With a URL, each transaction opens a connection of its own (no pool: an asyncio connection
belongs to the event loop that opened it, and a session may outlive one). An ``AsyncEngine``
you pass keeps its pool: connections are reused, for as long as its event loop lives.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from llmist.agent import _store_sql as sql
from llmist.agent._sql_session import SQLStoreSession, Write
from llmist.agent.errors import SessionError

__all__ = ["SQLAlchemySession"]

T = TypeVar("T")
logger = logging.getLogger("llmist.agent.sessions")

_engines: dict[str, AsyncEngine] = {}
_prepared: set[int] = set()
"""Engines whose tables were checked (by ``id``; the engines themselves stay in ``_engines``
or with their owner)."""
_lock = threading.Lock()


class SQLAlchemySession(SQLStoreSession):
    """A :class:`~llmist.agent.sessions.Session` (and ``ApprovalStore``) in any SQLAlchemy database.

    Args:
        url: An asyncio URL such as ``"postgresql+asyncpg://user@host/db"``, or an
            ``AsyncEngine`` you made (its pool is yours; with a URL each transaction opens its
            own connection, so sessions work across event loops and processes alike).
        session_id: The conversation's name in the database.
    """

    def __init__(self, url: str | AsyncEngine, session_id: str) -> None:
        super().__init__(session_id)
        self.engine = url if isinstance(url, AsyncEngine) else _engine(url)
        self._queued: list[Write] = []
        self._writer: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        shown = self.engine.url.render_as_string(hide_password=True)
        return f"SQLAlchemySession({shown!r}, {self.session_id!r})"

    async def _run(self, script: sql.Script[T], *, write: bool = True) -> T:
        await self._prepare()
        try:
            async with self.engine.begin() as conn:
                return await _drive(conn, script)
        except (SQLAlchemyError, OSError) as exc:
            raise SessionError(f"{self!r}: the database failed: {_reason(exc)}") from exc

    async def _prepare(self) -> None:
        """Create or check (and migrate) the tables, once per engine in this process."""
        if id(self.engine) in _prepared:
            return
        try:
            async with self.engine.begin() as conn:
                await _drive(conn, sql.prepare(repr(self), self.engine.dialect.name))
        except (SQLAlchemyError, OSError) as exc:
            raise SessionError(f"{self!r}: cannot open the store: {_reason(exc)}") from exc
        _prepared.add(id(self.engine))

    async def _store_change(self, change: Write) -> None:
        """Queue ``change`` for the session's writer task (started when none runs)."""
        self._queued.append(change)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_queued())

    async def _write_queued(self) -> None:
        """Store what is queued, everything that came meanwhile as one change, until none is left."""
        while self._queued:
            batch, self._queued = self._queued, []
            if self._error is not None:
                continue  # later changes build on the one that failed
            change = functools.reduce(Write.after, batch)
            try:
                self._version = await self._run(change.script(self._version))
            except Exception as exc:  # kept, and raised by the next save or flush
                logger.error("%r: write failed: %s", self, exc)
                self._error = exc

    async def flush(self) -> None:
        """Wait until every queued change is stored; raise if a write failed."""
        writer = self._writer
        if writer is not None and not writer.done():
            await asyncio.shield(writer)  # a cancelled flush leaves the writer writing
        self._raise_error()

    @classmethod
    async def list_ids(cls, url: str | AsyncEngine) -> list[str]:
        """The ids of the conversations stored in the database, sorted."""
        return await cls(url, "")._run(sql.ids(), write=False)


def _engine(url: str) -> AsyncEngine:
    """The process's engine for ``url`` (no pool: asyncio connections belong to one event loop)."""
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            try:
                make_url(url)
                engine = _engines[url] = create_async_engine(url, poolclass=NullPool)
            except (ArgumentError, ValueError) as exc:
                raise SessionError(
                    f"session URL {url!r} cannot be used: {exc}; expected an asyncio SQLAlchemy URL such as "
                    "'postgresql+asyncpg://user@host/database' or 'sqlite+aiosqlite:///runs.db'"
                ) from None
            except ImportError as exc:
                raise SessionError(
                    f"session URL {url!r} needs a driver that is not installed ({exc}); "
                    "pip install 'llmist[postgres]' for postgresql+asyncpg"
                ) from None
        return engine


async def _drive(conn: AsyncConnection, script: sql.Script[T]) -> T:
    """Run ``script`` on ``conn`` (inside its transaction)."""
    try:
        statement, args = next(script)
        while True:
            result = await conn.execute(text(statement), args)
            rows: list[tuple[Any, ...]] = [tuple(r) for r in result.fetchall()] if result.returns_rows else []
            statement, args = script.send(sql.Rows(rows, result.rowcount))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def _reason(exc: BaseException) -> str:
    """The driver's own message (SQLAlchemy's wraps it with a link and the statement)."""
    orig = getattr(exc, "orig", None)
    return f"{type(orig).__name__}: {orig}" if orig is not None else f"{type(exc).__name__}: {exc}"
