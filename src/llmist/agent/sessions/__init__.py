"""Sessions: a conversation that outlives a run, and a process.

``Agent(session=SQLiteSession("runs.db", "chat-42"))`` loads the stored conversation when a run
starts, continues it, and hands the whole conversation to the session after each completed
iteration (a response and all its calls' results). A crash loses at most the iteration in
flight; a new process resumes from the last saved point.

:class:`Session` is the protocol a store implements; :class:`ApprovalStore` adds what keeps
calls waiting for approval (``Agent(approvals="defer")``). :class:`SQLiteSession` is the
built-in store, on the standard library's ``sqlite3``: :meth:`~SQLiteSession.save` only puts
the change on a bounded queue (the run never waits for the disk unless the writer falls that
far behind), and one writer thread per database file commits the changes; queued writes are
committed before the interpreter exits. ``SQLAlchemySession`` (``llmist[postgres]``) keeps the
same tables in PostgreSQL or any SQLAlchemy database; both run the SQL of
``llmist.agent.sessions._store_sql``.

Every write names the version of the session it follows, so two writers of one session (two
processes, or two session objects) never overwrite each other: the second gets a
:class:`SessionConflictError` and nothing of the first is lost.

The package holds every store: this module (the protocols and SQLite), ``sqlalchemy_session``
(any SQLAlchemy database), ``_sql_session`` (what both do, one transaction each), ``_store_sql``
(the SQL) and ``_store_retry`` (retrying a database that went away). Of the agent it uses only the
run's records and the approvals' checks (``records``, ``messages``, ``errors``, ``approvals``); the
session and approvals features (``llmist.agent._features``) connect it to a run.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from llmist.agent.approvals import Claimed, Decision, PendingCall
from llmist.agent.errors import SessionConflictError, SessionError
from llmist.agent.messages import GadgetResultMessage
from llmist.agent.sessions import _store_sql as sql
from llmist.agent.sessions._sql_session import SQLStoreSession, Write
from llmist.agent.sessions._store_sql import SCHEMA_VERSION
from llmist.providers.base import Message

__all__ = [
    "LINGER_S",
    "SCHEMA_VERSION",
    "ApprovalStore",
    "SQLStoreSession",
    "SQLiteSession",
    "Session",
    "SessionConflictError",
    "SessionError",
    "default_store_path",
    "flush_pending",
]

logger = logging.getLogger("llmist.agent.sessions")
T = TypeVar("T")


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


@runtime_checkable
class ApprovalStore(Session, Protocol):
    """A :class:`Session` that also keeps calls waiting for approval, and their decisions
    (what ``Agent(approvals="defer")`` needs; both built-in stores are one).

    Decisions may come from any process; :meth:`claim` makes sure the decided calls run once.
    """

    async def pause(self, messages: Sequence[Message], calls: Sequence[PendingCall]) -> None:
        """Store ``messages`` (the whole conversation) and the ``calls`` that wait, in one
        transaction; return once both are stored."""
        ...

    async def pending(self) -> list[PendingCall]:
        """The calls that wait (none: the session is not paused), with their decisions so far."""
        ...

    async def decide(self, invocation_id: str, decision: Decision) -> PendingCall:
        """Store ``decision`` for a waiting call (of two deciders of a call, one succeeds).

        Raises:
            UnknownApprovalError: no such call waits for a decision.
            AlreadyDecidedError: it was decided before.
        """
        ...

    async def claim(self) -> Claimed | None:
        """Take the decided calls for this session object's run (``None``: none wait). The
        session's next write, which stores their results, ends the pause.

        Raises:
            ApprovalsPendingError: a call still waits for a decision.
            ApprovalConflictError: another live run holds them.
        """
        ...

    async def note_started(self, invocation_id: str) -> None:
        """A claimed call is about to run (stored first: a run that dies leaves it known)."""
        ...

    async def note_result(self, invocation_id: str, message: GadgetResultMessage) -> None:
        """A claimed call's result (stored at once: a run that dies does not lose it)."""
        ...

    async def release(self, *, force: bool = False) -> bool:
        """Let go of claimed calls without finishing them (``force``: whoever holds them, say a
        run that died on another machine); whether a hold ended."""
        ...


class SQLiteSession(SQLStoreSession):
    """A :class:`Session` (and :class:`ApprovalStore`) in an SQLite file (created if missing;
    many sessions may share one).

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
        super().__init__(session_id)
        self.path = Path(path)
        self._opened: _Store | None = None

    def _store(self) -> _Store:
        if self._opened is None:
            self._opened = _store(self.path, self)
        return self._opened

    def __repr__(self) -> str:
        return f"SQLiteSession({str(self.path)!r}, {self.session_id!r})"

    async def _run(self, script: Callable[[], sql.Script[T]], *, write: bool = True, idempotent: bool = False) -> T:
        store = self._store()
        try:
            if write:  # a write may wait for another process's transaction: not on the event loop
                return await asyncio.to_thread(store.run, script(), True)
            return store.run(script(), False)  # a read of a local file: on the calling thread
        except sqlite3.Error as exc:
            if write:
                raise SessionError(f"{self!r}: the store failed: {exc}") from exc
            raise _not_a_store(self, exc) from exc

    async def _store_change(self, change: Write) -> None:
        store = self._store()
        if not store.try_put(change):
            await asyncio.to_thread(store.put_blocking, change)

    async def flush(self) -> None:
        """Wait until every queued change is committed; raise if a write failed."""
        await self._store().flush()
        self._raise_error()

    @classmethod
    async def list_ids(cls, path: str | Path) -> list[str]:
        """The ids of the conversations stored in ``path`` (sorted; writes queued in this
        process are committed first). A missing file holds none and is not created."""
        if not Path(path).exists():
            return []
        probe = cls(path, "")
        store = probe._store()
        await store.flush()
        return await probe._run(sql.ids, write=False)


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
        self.pending: collections.deque[Write] = collections.deque()
        self.cond = threading.Condition()
        """Guards ``pending`` and the writer's state; the writer waits on it when idle."""
        self.idle = True
        """The writer waits for work (a save must wake it); else it is writing or gathering."""
        self.writer: threading.Thread | None = None
        self.flushing = threading.Event()
        """Set by a flush: the writer stops gathering and commits at once."""
        self.in_flight = 0

    def try_put(self, op: Write) -> bool:
        """Queue ``op`` unless the queue is full (then ``False``: use :meth:`put_blocking`)."""
        with self.cond:
            if len(self.pending) >= _QUEUE_SIZE:
                return False
            self._add(op)
            return True

    def put_blocking(self, op: Write) -> None:
        """Queue ``op`` once there is room (on a worker thread: it may wait for the writer)."""
        with self.cond:
            self.cond.wait_for(lambda: len(self.pending) < _QUEUE_SIZE)
            self._add(op)

    def _add(self, op: Write) -> None:
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

    async def flush(self) -> None:
        if self.in_flight:
            self.flushing.set()
            await asyncio.to_thread(self._wait_flushed)

    def _wait_flushed(self) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.in_flight == 0)

    def run(self, script: sql.Script[T], write: bool) -> T:
        """``script`` as one transaction (``write``: taking the file's write lock at once)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                value = sql.drive(script, self._execute)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        return value

    def _execute(self, statement: str, args: dict[str, Any]) -> sql.Rows:
        cursor = self.conn.execute(statement, args)
        return sql.Rows(cursor.fetchall(), cursor.rowcount)

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

    def _commit(self, batch: list[Write]) -> None:
        """One transaction for the batch, each session's change in a savepoint of its own: a
        change that fails (a conflict, a value the file cannot hold) fails its session only."""
        changes = [c for c in _merged(batch) if c.session._error is None]
        versions: dict[int, int] = {}
        failed: dict[int, BaseException] = {}
        try:
            with self.lock:
                conn = self.conn
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for change in changes:
                        key = id(change.session)
                        if key in failed:
                            continue
                        conn.execute("SAVEPOINT change")
                        try:
                            script = change.script(versions.get(key, change.session._version))
                            versions[key] = sql.drive(script, self._execute)
                        except Exception as exc:
                            conn.execute("ROLLBACK TO change")
                            failed[key] = exc
                        conn.execute("RELEASE change")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        except Exception as exc:  # the whole transaction failed: every change of the batch did
            failed = {id(c.session): exc for c in changes}
            versions = {}
        for change in changes:
            session, key = change.session, id(change.session)
            if key in failed:
                logger.error("%r: write failed: %s", session, failed[key])
                session._error = failed[key]
            elif key in versions:
                session._version = versions[key]


def _merged(batch: list[Write]) -> list[Write]:
    """``batch`` with each session's successive changes made one (a run's iterations queued
    together become one delete and one insert)."""
    out: list[Write] = []
    last: dict[int, int] = {}
    for change in batch:
        i = last.get(id(change.session))
        if i is not None:
            out[i] = out[i].after(change)
            continue
        last[id(change.session)] = len(out)
        out.append(change)
    return out


def _not_a_store(session: SQLiteSession, exc: sqlite3.Error) -> SessionError:
    """A file whose tables are not ours (another program's, a damaged file) read as a store."""
    return SessionError(f"{session.path}: the file is not an llmist session store, or it is damaged ({exc})")


_SHOWN_TABLES = 5
"""Tables of another program's file named in the error (the rest are counted)."""


def _foreign(session: SQLiteSession, names: list[str]) -> SessionError:
    """An SQLite database of another program: named with some of its tables, and left as it was."""
    shown = ", ".join(repr(n[:60]) for n in names[:_SHOWN_TABLES])
    more = f" and {len(names) - _SHOWN_TABLES} more" if len(names) > _SHOWN_TABLES else ""
    return SessionError(
        f"{session.path}: the file is not an llmist session store: it is an SQLite database of another "
        f"program (its tables: {shown}{more}), and an llmist store is a new or empty file, or one with an "
        "llmist_meta table; nothing in it was changed"
    )


def _connect(path: Path, session: SQLiteSession) -> sqlite3.Connection:
    """A connection to ``path`` with the tables in place, their version checked (and older
    tables migrated).

    Nothing in a file that is not ours changes: the tables are looked at, and created or
    migrated, in one transaction in whatever journal mode the file has (a refusal rolls it
    back), and only a file that is then a store is switched to WAL, which stays with the file.
    """
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("BEGIN IMMEDIATE")
            found = conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
            ).fetchall()
            names = [str(row[0]) for row in found if not str(row[0]).startswith("sqlite_")]
            if names and "llmist_meta" not in names:
                raise _foreign(session, names)
            sql.drive(sql.prepare(repr(session), "sqlite"), lambda s, a: _rows(conn.execute(s, a)))
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            conn.close()  # rolls back what the transaction did: a refused file is left as it was
            raise
    except sqlite3.Error as exc:
        if "unable to open" in str(exc):
            raise SessionError(f"{session.path}: cannot open the store: {exc}") from exc
        raise _not_a_store(session, exc) from exc
    return conn


def _rows(cursor: sqlite3.Cursor) -> sql.Rows:
    return sql.Rows(cursor.fetchall(), cursor.rowcount)
