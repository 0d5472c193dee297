"""``SQLAlchemySession``: conversations in a database server the team already runs.

``pip install 'llmist[postgres]'`` brings SQLAlchemy 2 (its asyncio API) and ``asyncpg``::

    session = SQLAlchemySession("postgresql+asyncpg://app@db.internal/agents", "chat-42")
    agent = Agent(model="sonnet", session=session, approvals="defer")

It keeps the same tables as :class:`~llmist.agent.sessions.SQLiteSession`, in the same
versioned message format, migrates them the same way and runs the same transactions (the SQL
of ``llmist.agent.sessions._store_sql``), so everything a session does (versioned writes that never
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

A transaction whose connection drops (a database restart, an ended connection) is retried,
bounded and with backoff, as ``llmist.agent.sessions._store_retry`` says (:class:`SessionRetry`, the
``retry=`` argument): a run survives a database restart of a few seconds.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from llmist._install import install_command
from llmist.agent.errors import SessionError
from llmist.agent.sessions import _store_sql as sql
from llmist.agent.sessions._sql_session import SQLStoreSession, Write
from llmist.agent.sessions._store_retry import Attempt, SessionRetry, driver_message, retrying

__all__ = ["SQLAlchemySession", "SessionRetry"]

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
        retry: How a transaction whose connection dropped is retried (default:
            ``SessionRetry()``, up to 10 attempts within 30 s; ``SessionRetry(max_attempts=1)``
            retries nothing).
    """

    def __init__(self, url: str | AsyncEngine, session_id: str, *, retry: SessionRetry | None = None) -> None:
        super().__init__(session_id)
        if retry is not None and not isinstance(retry, SessionRetry):
            raise TypeError(f"retry must be a SessionRetry, got {type(retry).__name__}")
        self.engine = url if isinstance(url, AsyncEngine) else _engine(url)
        self.retry = retry if retry is not None else SessionRetry()
        self._queued: list[Write] = []
        self._writer: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        shown = self.engine.url.render_as_string(hide_password=True)
        return f"SQLAlchemySession({shown!r}, {self.session_id!r})"

    async def _run(self, script: Callable[[], sql.Script[T]], *, write: bool = True, idempotent: bool = False) -> T:
        await self._prepare()
        return await self._transact(lambda _: script(), rerun_unknown=idempotent or not write)

    async def _transact(
        self,
        script: Callable[[bool], sql.Script[T]],
        *,
        rerun_unknown: bool,
        failed: str = "the database failed",
        retry: SessionRetry | None = None,
    ) -> T:
        """Run ``script(maybe_stored)`` as one transaction on a connection of its own, retried
        when the connection drops (``maybe_stored``: an earlier attempt dropped while committing).

        Raises:
            SessionError: ``failed`` (the retries spent, or another error of the database).
        """

        async def attempt(state: Attempt) -> T:
            async with self.engine.connect() as conn:
                await conn.begin()
                value = await _drive(conn, script(state.unknown))
                state.committing = True
                await conn.commit()
                return value

        try:
            return await retrying(
                attempt,
                dropped=_dropped,
                policy=retry or self.retry,
                store=repr(self),
                failed=failed,
                rerun_unknown=rerun_unknown,
            )
        except (SQLAlchemyError, OSError) as exc:
            raise SessionError(f"{self!r}: {failed}: {driver_message(exc)}") from exc

    async def _prepare(self) -> None:
        """Create or check (and migrate) the tables, once per engine in this process (retried
        like any transaction: it only creates what is missing)."""
        if id(self.engine) in _prepared:
            return
        await self._transact(
            lambda _: sql.prepare(repr(self), self.engine.dialect.name),
            rerun_unknown=True,
            failed="cannot open the store",
            retry=self.retry.first_contact(),
        )
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
            change, version = functools.reduce(Write.after, batch), self._version
            try:
                await self._prepare()
                self._version = await self._transact(
                    functools.partial(_write_script, change, version), rerun_unknown=True
                )
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
        return await cls(url, "")._run(sql.ids, write=False)


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
                    f"session URL {url!r} needs a driver that is not installed ({exc}); for "
                    f"postgresql+asyncpg, install it with:\n    {install_command('postgres')}"
                ) from None
        return engine


def _write_script(change: Write, version: int | None, maybe_stored: bool) -> sql.Script[int]:
    return change.script(version, maybe_stored=maybe_stored)


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


_DROPPED_STATES = ("08", "57P01", "57P02", "57P03")
"""SQLSTATEs of a connection that dropped: connection exceptions (class 08), and the server
shutting down (an administrator's or a crash's) or not yet taking connections."""


def _dropped(exc: BaseException) -> bool:
    """Whether ``exc`` says the connection dropped (retry the transaction), rather than the
    database refusing the transaction (an SQL error, a value it cannot hold: do not)."""
    if isinstance(exc, DBAPIError):
        if exc.connection_invalidated:  # SQLAlchemy's dialect read it as a disconnect
            return True
        exc = exc.orig if exc.orig is not None else exc
    state = getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)
    if isinstance(state, str) and state.startswith(_DROPPED_STATES):
        return True
    # Refused, reset or timed out before the server said anything (no SQLSTATE then).
    return isinstance(exc, OSError | TimeoutError) or isinstance(exc.__cause__, OSError | TimeoutError)
