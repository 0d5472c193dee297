"""Sessions: a conversation that outlives a run, and a process.

``Agent(session=SQLiteSession("runs.db", "chat-42"))`` loads the stored conversation when a run
starts, continues it, and hands the whole conversation to the session after each completed
iteration (a response and all its calls' results). A crash loses at most the iteration in
flight; a new process resumes from the last saved point.

:class:`Session` is the protocol a store implements. :class:`SQLiteSession` is the built-in one,
on the standard library's ``sqlite3``: :meth:`~SQLiteSession.save` only puts the change on a
bounded queue (the run never waits for the disk unless the writer falls that far behind), and
one writer thread per database file commits the changes; queued writes are committed before
the interpreter exits.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import logging
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, TypeAlias, runtime_checkable

from llmist.agent.errors import MessageFormatError, SessionError
from llmist.agent.messages import dumps_messages, loads_messages
from llmist.providers.base import Message

__all__ = [
    "LINGER_S",
    "SCHEMA_VERSION",
    "SQLiteSession",
    "Session",
    "SessionError",
    "default_store_path",
    "flush_pending",
]

logger = logging.getLogger("llmist.agent.sessions")

SCHEMA_VERSION = 1
"""Version of the tables :class:`SQLiteSession` writes (kept in its ``llmist_meta`` table)."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # A row holds the messages one change added, from position ``seq`` on (``dumps_messages``).
    "CREATE TABLE IF NOT EXISTS llmist_messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "body TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID",
)


def default_store_path() -> Path:
    """Where ``llmist agent --session`` and ``llmist web`` keep conversations unless told:
    ``$LLMIST_SESSION_DB``, else ``$XDG_DATA_HOME/llmist/sessions.db`` (``~/.local/share``
    without it). The folder is not created here."""
    env = os.environ
    if env.get("LLMIST_SESSION_DB"):
        return Path(env["LLMIST_SESSION_DB"])
    base = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else Path.home() / ".local" / "share"
    return base / "llmist" / "sessions.db"


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

    Every session of one file in a process shares one connection and one writer thread.
    :meth:`save` puts the change on the writer's bounded queue and returns; the writer commits
    it at once when idle. When iterations end faster than that (a mock model, a cached one),
    the writer groups what came in the last ``linger_s`` into one transaction, so the store
    then trails the run by at most that long.

    Args:
        path: The database file.
        session_id: The conversation's name inside it.
    """

    def __init__(self, path: str | Path, session_id: str) -> None:
        self.path = Path(path)
        self.session_id = session_id
        self._saved: tuple[Message, ...] = ()
        """What the last save queued: the next one sends only what follows it."""
        self._opened: _Store | None = None

    def _store(self) -> _Store:
        if self._opened is None:
            self._opened = _store(self.path, self)
        return self._opened

    def __repr__(self) -> str:
        return f"SQLiteSession({str(self.path)!r}, {self.session_id!r})"

    async def load(self) -> list[Message]:
        """The stored conversation (empty for a new session); read on the calling thread (a
        local file, read once per run)."""
        store = self._store()
        await store.flush(self)
        try:
            messages = store.read(self.session_id)
        except MessageFormatError as exc:
            raise SessionError(f"{self!r}: stored conversation cannot be read: {exc}") from exc
        except sqlite3.Error as exc:
            raise _not_a_store(self, exc) from exc
        self._saved = tuple(messages)
        return messages

    async def save(self, messages: Sequence[Message]) -> None:
        """Queue the change since the last save (new messages, or all of them when earlier ones
        changed, as compaction does); waits only when the writer's queue is full."""
        saved = self._saved
        n = len(saved)
        snapshot = tuple(messages)
        start = n if snapshot[:n] == saved else 0  # tuple equality checks identity first: fast
        self._saved = snapshot
        if start < len(snapshot):
            op = (self.session_id, start, snapshot[start:])
            store = self._store()
            if not store.try_put(op, self):
                await asyncio.to_thread(store.put_blocking, op)

    async def flush(self) -> None:
        """Wait until every queued change is committed; raise if a write failed."""
        await self._store().flush(self)

    @classmethod
    async def list_ids(cls, path: str | Path) -> list[str]:
        """The ids of the conversations stored in ``path`` (sorted; writes queued in this
        process are committed first). A missing file holds none and is not created."""
        if not Path(path).exists():
            return []
        probe = cls(path, "")
        store = probe._store()
        await store.flush(probe)
        try:
            return store.ids()
        except sqlite3.Error as exc:  # our table's name on another program's table, say
            raise _not_a_store(probe, exc) from exc

    async def clear(self) -> None:
        """Delete this session's conversation from the store."""
        store = self._store()
        await store.flush(self)
        store.delete(self.session_id)
        self._saved = ()


_Write: TypeAlias = "tuple[str, int, tuple[Message, ...]]"
"""A change: session id, first position, the messages from there on (earlier ones are kept)."""

_QUEUE_SIZE = 256
"""Changes that may wait for the writer before ``save`` waits too."""
LINGER_S = 0.005
"""After a write, how long the writer gathers further changes before committing them together."""
_EXIT_WAIT_S = 30.0
"""Longest wait at interpreter exit for a store's queued writes."""
_IDLE_S = 5.0
"""Seconds without writes after which a store's writer thread stops (the next save starts one)."""

_stores: dict[Path, _Store] = {}
_stores_lock = threading.Lock()


@atexit.register
def flush_pending(timeout_s: float = _EXIT_WAIT_S) -> None:
    """Block until every :class:`SQLiteSession` write queued in this process is committed (or
    ``timeout_s`` passed per file). Runs at interpreter exit (the writers are daemon threads:
    they would die with their queues); call it before ``os._exit``."""
    for store in list(_stores.values()):
        store.flushing.set()
        with store.cond:
            store.cond.wait_for(lambda s=store: s.in_flight == 0, timeout=timeout_s)  # type: ignore[misc]


def _store(path: Path, session: SQLiteSession) -> _Store:
    """The process's one store of ``path`` (opened, and its schema checked, on first use)."""
    key = path.resolve()
    store = _stores.get(key)
    if store is None:
        with _stores_lock:
            store = _stores.get(key)
            if store is None:
                store = _stores[key] = _Store(_connect(path, session), repr(session))
    return store


class _Store:
    """One database file: its connection (used under a lock), its queue and its writer thread."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self.lock = threading.Lock()
        """Held for each use of the connection."""
        self.pending: collections.deque[_Write] = collections.deque()
        self.cond = threading.Condition()
        """Guards ``pending`` and the writer's state; the writer waits on it when idle."""
        self.idle = True
        """The writer waits for work (a save must wake it); else it is writing or gathering."""
        self.writer: threading.Thread | None = None
        self.flushing = threading.Event()
        """Set by a flush: the writer stops gathering and commits at once."""
        self.in_flight = 0
        self.error: BaseException | None = None

    def try_put(self, op: _Write, session: SQLiteSession) -> bool:
        """Queue ``op`` unless the queue is full (then ``False``: use :meth:`put_blocking`)."""
        self.raise_error(session)
        with self.cond:
            if len(self.pending) >= _QUEUE_SIZE:
                return False
            self._add(op)
            return True

    def put_blocking(self, op: _Write) -> None:
        """Queue ``op`` once there is room (on a worker thread: it may wait for the writer)."""
        with self.cond:
            self.cond.wait_for(lambda: len(self.pending) < _QUEUE_SIZE)
            self._add(op)

    def _add(self, op: _Write) -> None:
        """Under ``cond``: queue ``op``, waking the writer only if it waits (a wake per
        iteration would cost a fast loop more than the write itself)."""
        self.pending.append(op)
        self.in_flight += 1
        if self.writer is None:
            self.writer = threading.Thread(
                target=self._write_loop, name=f"llmist-session-writer {self.name}", daemon=True
            )
            self.idle = False
            self.writer.start()
        elif self.idle:
            self.idle = False
            self.cond.notify()

    async def flush(self, session: SQLiteSession) -> None:
        if self.in_flight:
            self.flushing.set()
            await asyncio.to_thread(self._wait_flushed)
        self.raise_error(session)

    def _wait_flushed(self) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.in_flight == 0)

    def raise_error(self, session: SQLiteSession) -> None:
        if self.error is not None:
            raise SessionError(f"{session!r}: saving the conversation failed: {self.error}") from self.error

    def read(self, session_id: str) -> list[Message]:
        with self.lock:
            rows = self.conn.execute(
                "SELECT seq, body FROM llmist_messages WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        messages: list[Message] = []
        for seq, body in rows:
            if seq != len(messages):
                raise MessageFormatError(f"the rows skip from message {len(messages)} to {seq} (damaged store)")
            messages += loads_messages(body)
        return messages

    def ids(self) -> list[str]:
        with self.lock:
            rows = self.conn.execute("SELECT DISTINCT session_id FROM llmist_messages ORDER BY session_id").fetchall()
        return [row[0] for row in rows]

    def delete(self, session_id: str) -> None:
        with self.lock:
            self.conn.execute("DELETE FROM llmist_messages WHERE session_id = ?", (session_id,))

    # --- the writer thread ------------------------------------------------------------------

    def _write_loop(self) -> None:
        """Commit queued changes, a batch per transaction; gather for ``LINGER_S`` after each
        write; stop after ``_IDLE_S`` without work."""
        while True:
            with self.cond:
                if not self.pending:
                    self.idle = True
                    self.cond.notify_all()  # flushes waiting for in_flight == 0
                    if not self.cond.wait_for(lambda: bool(self.pending), _IDLE_S):
                        self.writer = None
                        return
                    self.idle = False
                batch = list(self.pending)
                self.pending.clear()
            self._commit(batch)
            with self.cond:
                self.in_flight -= len(batch)
                self.cond.notify_all()
            if not self.flushing.is_set():
                self.flushing.wait(LINGER_S)
            self.flushing.clear()

    def _commit(self, batch: list[_Write]) -> None:
        """One transaction for the batch; per session in order: drop the tail the change
        replaces, write the new one."""
        if self.error is not None:
            return
        try:
            changes = [(sid, start, dumps_messages(ms)) for sid, start, ms in _merged(batch)]
            with self.lock:
                conn = self.conn
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for sid, start, body in changes:
                        # A change starts at the stored end (new messages) or at 0 (all replaced):
                        # never inside a row.
                        conn.execute("DELETE FROM llmist_messages WHERE session_id = ? AND seq >= ?", (sid, start))
                        conn.execute("INSERT INTO llmist_messages VALUES (?, ?, ?)", (sid, start, body))
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        except Exception as exc:  # kept, and raised to the runs at their next save or flush
            logger.error("%s: write failed: %s", self.name, exc)
            self.error = exc


def _merged(batch: list[_Write]) -> list[_Write]:
    """``batch`` with each session's successive changes made one (a run's iterations queued
    together become one delete and one insert)."""
    out: list[_Write] = []
    last: dict[str, int] = {}
    for sid, start, ms in batch:
        i = last.get(sid)
        if i is not None:
            _, prev_start, prev = out[i]
            if start >= prev_start:  # keeps what the earlier change wrote before ``start``
                out[i] = (sid, prev_start, prev[: start - prev_start] + ms)
            else:
                out[i] = (sid, start, ms)
            continue
        last[sid] = len(out)
        out.append((sid, start, ms))
    return out


def _not_a_store(session: SQLiteSession, exc: sqlite3.Error) -> SessionError:
    """A file whose tables are not ours (another program's, a damaged file) read as a store."""
    return SessionError(f"{session.path}: the file is not an llmist session store, or it is damaged ({exc})")


def _connect(path: Path, session: SQLiteSession) -> sqlite3.Connection:
    """A connection to ``path`` with the tables in place and the schema version checked."""
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        for statement in _SCHEMA:
            conn.execute(statement)
        _check_version(conn, session)
    except sqlite3.Error as exc:
        raise SessionError(f"{session.path}: cannot open the store: {exc}") from exc
    return conn


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
