"""Sessions: a conversation that outlives a run, and a process.

``Agent(session=SQLiteSession("runs.db", "chat-42"))`` loads the stored conversation when a run
starts, continues it, and hands the whole conversation to the session after each completed
iteration (a response and all its calls' results). A crash loses at most the iteration in
flight; a new process resumes from the last saved point.

:class:`Session` is the protocol a store implements. :class:`SQLiteSession` is the built-in one,
on the standard library's ``sqlite3``: :meth:`~SQLiteSession.save` only puts the change on a
bounded queue (the run never waits for the disk unless the writer falls that far behind), and
one writer thread per session commits each iteration in one transaction.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, TypeAlias, runtime_checkable

from llmist.agent.messages import MessageFormatError, dumps_message, loads_message
from llmist.gadgets import LlmistError
from llmist.providers.base import Message

__all__ = ["SCHEMA_VERSION", "SQLiteSession", "Session", "SessionError"]

logger = logging.getLogger("llmist.agent.sessions")

SCHEMA_VERSION = 1
"""Version of the tables :class:`SQLiteSession` writes (kept in its ``llmist_meta`` table)."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS llmist_messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "body TEXT NOT NULL, PRIMARY KEY (session_id, seq))",
)

_Op: TypeAlias = "tuple[int, tuple[Message, ...]] | None"
"""A write: (first position, messages from there on; earlier ones kept) or ``None`` to stop."""


class SessionError(LlmistError):
    """A session store could not be read or written (names the store, the session and why)."""


@runtime_checkable
class Session(Protocol):
    """Where an agent keeps its conversation between runs.

    The agent calls :meth:`load` when a run starts (unless given ``history=``), :meth:`save`
    after each completed iteration, and :meth:`flush` when the run ends.
    """

    session_id: str
    """Which conversation of the store this is."""

    async def load(self) -> list[Message]:
        """The stored conversation (empty for a new session)."""
        ...

    async def save(self, messages: Sequence[Message]) -> None:
        """Store ``messages``, the whole conversation so far. Called on the loop's hot path:
        return quickly (queue the write) and copy ``messages``, which keeps changing."""
        ...

    async def flush(self) -> None:
        """Wait until everything saved so far is stored; raise if a write failed."""
        ...


class SQLiteSession:
    """A :class:`Session` in an SQLite file (created if missing; many sessions may share one).

    Args:
        path: The database file.
        session_id: The conversation's name inside it.
        queue_size: Iterations that may wait for the writer before ``save`` waits too.
    """

    def __init__(self, path: str | Path, session_id: str, *, queue_size: int = 64) -> None:
        if queue_size < 1:
            raise ValueError(f"queue_size must be at least 1, got {queue_size}")
        self.path = Path(path)
        self.session_id = session_id
        self._queue: queue.Queue[_Op] = queue.Queue(queue_size)
        self._saved: tuple[Message, ...] = ()
        """What the last save queued: the next one sends only what follows it."""
        self._writer: threading.Thread | None = None
        self._error: BaseException | None = None

    def __repr__(self) -> str:
        return f"SQLiteSession({str(self.path)!r}, {self.session_id!r})"

    async def load(self) -> list[Message]:
        """The stored conversation (empty for a new session)."""
        await self.flush()
        messages = await asyncio.to_thread(self._read)
        self._saved = tuple(messages)
        return messages

    async def save(self, messages: Sequence[Message]) -> None:
        """Queue the change since the last save (new messages, or all of them when earlier ones
        changed, as compaction does); waits only when the queue is full."""
        self._raise_error()
        saved = self._saved
        n = len(saved)
        start = n if len(messages) >= n and all(a is b or a == b for a, b in zip(saved, messages, strict=False)) else 0
        snapshot = tuple(messages)
        self._saved = snapshot
        if start == len(snapshot):
            return
        op = (start, snapshot[start:])
        self._start_writer()
        try:
            self._queue.put_nowait(op)
        except queue.Full:
            await asyncio.to_thread(self._queue.put, op)

    async def flush(self) -> None:
        """Wait until every queued iteration is committed; raise the writer's error if one failed."""
        if self._writer is not None and self._queue.unfinished_tasks:
            await asyncio.to_thread(self._queue.join)
        self._raise_error()

    async def close(self) -> None:
        """Flush and stop the writer thread (a later save starts a new one)."""
        writer = self._writer
        if writer is None:
            return
        self._queue.put(None)
        await asyncio.to_thread(writer.join)
        self._writer = None
        self._raise_error()

    async def clear(self) -> None:
        """Delete this session's conversation from the store."""
        await self.flush()
        await asyncio.to_thread(self._delete)
        self._saved = ()

    # --- the store, on worker threads --------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                conn.execute(statement)
            _check_version(conn, self)
        except sqlite3.Error as exc:
            raise SessionError(f"{self!r}: cannot open the store: {exc}") from exc
        return conn

    def _read(self) -> list[Message]:
        conn = self._connect()
        try:
            rows = conn.execute(
                "SELECT seq, body FROM llmist_messages WHERE session_id = ? ORDER BY seq", (self.session_id,)
            ).fetchall()
        finally:
            conn.close()
        try:
            return [loads_message(body, seq) for seq, body in rows]
        except MessageFormatError as exc:
            raise SessionError(f"{self!r}: stored conversation cannot be read: {exc}") from exc

    def _delete(self) -> None:
        conn = self._connect()
        try:
            conn.execute("DELETE FROM llmist_messages WHERE session_id = ?", (self.session_id,))
        finally:
            conn.close()

    def _start_writer(self) -> None:
        if self._writer is None:
            self._writer = threading.Thread(
                target=self._write_all, name=f"llmist-session-{self.session_id}", daemon=True
            )
            self._writer.start()

    def _write_all(self) -> None:
        """The writer thread: commit each queued change in its own transaction, until ``None``."""
        conn: sqlite3.Connection | None = None
        try:
            while True:
                op = self._queue.get()
                try:
                    if op is None:
                        return
                    if conn is None:
                        conn = self._connect()
                    if self._error is None:
                        self._write(conn, *op)
                except BaseException as exc:  # kept and raised to the run at its next save or flush
                    logger.error("%r: write failed: %s", self, exc)
                    self._error = exc
                finally:
                    self._queue.task_done()
        finally:
            if conn is not None:
                conn.close()

    def _write(self, conn: sqlite3.Connection, start: int, messages: tuple[Message, ...]) -> None:
        rows = [(self.session_id, start + i, dumps_message(m)) for i, m in enumerate(messages)]
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("DELETE FROM llmist_messages WHERE session_id = ? AND seq >= ?", (self.session_id, start))
            conn.executemany("INSERT INTO llmist_messages (session_id, seq, body) VALUES (?, ?, ?)", rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _raise_error(self) -> None:
        if self._error is not None:
            exc = self._error
            raise SessionError(f"{self!r}: saving the conversation failed: {exc}") from exc


def _check_version(conn: sqlite3.Connection, session: SQLiteSession) -> None:
    """Stamp a new store with :data:`SCHEMA_VERSION`; refuse one written with another version."""
    row = conn.execute("SELECT value FROM llmist_meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        conn.execute("INSERT OR IGNORE INTO llmist_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        return
    try:
        version = int(row[0])
    except ValueError:
        version = -1
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        hint = "it was written by a newer llmist: upgrade llmist to read it"
    else:
        hint = "no upgrade path exists from that version: move the file aside to start afresh"
    raise SessionError(
        f"{session!r}: the store has schema version {row[0]!r}, this llmist reads version {SCHEMA_VERSION}; {hint}"
    )
