"""The session stores' SQL, written once for SQLite and for any SQLAlchemy database.

Both :class:`~llmist.agent.sessions.SQLiteSession` (the standard library's ``sqlite3``) and
:class:`~llmist.agent.sessions.sqlalchemy_session.SQLAlchemySession` (SQLAlchemy's asyncio API) keep the
same tables, migrate them the same way and run the same transactions. A transaction is a
*script*: a generator that yields ``(sql, parameters)`` statements and receives each one's
:class:`Rows`, and whose return value is the transaction's. Each store drives scripts with its
own connection (:func:`drive` for a blocking one), inside one transaction per script: a script
that raises has its transaction rolled back.

The tables (schema version :data:`SCHEMA_VERSION`)::

    llmist_meta      key -> value; 'schema_version'
    llmist_sessions  session_id -> version: every write adds one, and a write names the version
                     it follows, so a second writer of one session gets SessionConflictError
    llmist_messages  (session_id, seq) -> body: the messages one write added, from position
                     seq on (dumps_messages)
    llmist_pending   (session_id, invocation_id) -> the call that waits (PendingCall.to_json),
                     its decision, when it was decided and started, and its result
    llmist_claims    session_id -> which run holds the decided calls (is running them)

Statements use only what SQLite and PostgreSQL both read (``:name`` parameters,
``INSERT ... ON CONFLICT DO NOTHING``), so one text serves both.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

from llmist.agent.approvals import (
    AlreadyDecidedError,
    ApprovalConflictError,
    ApprovalsPendingError,
    Claimed,
    Decision,
    InvalidDecisionError,
    PendingCall,
    UnknownApprovalError,
    check_edit,
)
from llmist.agent.errors import SessionConflictError, SessionError
from llmist.agent.messages import GadgetResultMessage, json_text, loads_message

__all__ = [
    "SCHEMA_VERSION",
    "Rows",
    "Script",
    "SessionConflictError",
    "SessionError",
    "Stored",
    "claim",
    "decide",
    "delete",
    "drive",
    "ids",
    "mark",
    "new_owner",
    "owner_gone",
    "pending",
    "prepare",
    "read",
    "release",
    "write",
]

SCHEMA_VERSION = 2
"""Version of the tables the stores write (kept in ``llmist_meta``)."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Rows:
    """What one statement returned: its rows (none for a write) and how many rows it changed."""

    rows: list[tuple[Any, ...]]
    rowcount: int


Statement: TypeAlias = tuple[str, dict[str, Any]]
Script: TypeAlias = Generator[Statement, Rows, T]
"""A transaction: statements out, their rows in, the transaction's value returned."""


def drive(script: Script[T], execute: Callable[[str, dict[str, Any]], Rows]) -> T:
    """Run ``script`` with a blocking ``execute`` (the caller opens and ends the transaction)."""
    try:
        statement = next(script)
        while True:
            statement = script.send(execute(*statement))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


# --- the schema -------------------------------------------------------------------------------


def _tables(dialect: str) -> tuple[str, ...]:
    # SQLite keeps a table WITHOUT ROWID in its primary key's order: a conversation reads in one scan.
    clustered = " WITHOUT ROWID" if dialect == "sqlite" else ""
    return (
        "CREATE TABLE IF NOT EXISTS llmist_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS llmist_messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
        f"body TEXT NOT NULL, PRIMARY KEY (session_id, seq)){clustered}",
        *_added_in_2(dialect),
    )


def _added_in_2(dialect: str) -> tuple[str, ...]:
    clustered = " WITHOUT ROWID" if dialect == "sqlite" else ""
    return (
        "CREATE TABLE IF NOT EXISTS llmist_sessions (session_id TEXT PRIMARY KEY, version INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS llmist_pending (session_id TEXT NOT NULL, invocation_id TEXT NOT NULL, "
        "position INTEGER NOT NULL, waits_for TEXT, record TEXT NOT NULL, decision TEXT, decided_at TEXT, "
        f"started_at TEXT, result TEXT, PRIMARY KEY (session_id, invocation_id)){clustered}",
        "CREATE TABLE IF NOT EXISTS llmist_claims (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
        "claimed_at TEXT NOT NULL)",
    )


def _migrations(dialect: str) -> dict[int, tuple[str, ...]]:
    """The statements that take the tables from a version to the next, by the version they start from."""
    return {
        1: (
            *_added_in_2(dialect),
            # Every stored conversation gets a version, so its next writer can name it. (SQLite reads
            # ON CONFLICT after a SELECT only when the SELECT has a WHERE.)
            "INSERT INTO llmist_sessions (session_id, version) "
            "SELECT DISTINCT session_id, 1 FROM llmist_messages WHERE true ON CONFLICT DO NOTHING",
        ),
    }


def prepare(name: str, dialect: str) -> Script[None]:
    """Create the tables of a new store, or check an existing store's version and migrate it.

    Raises:
        SessionError: the store was written by a newer llmist, or has a version this one
            cannot upgrade; nothing was changed.
    """
    if dialect == "postgresql":  # CREATE TABLE IF NOT EXISTS races with itself in PostgreSQL
        yield ("SELECT pg_advisory_xact_lock(7078031985)", {})
    for statement in _tables(dialect)[:2]:
        yield (statement, {})
    found = yield ("SELECT value FROM llmist_meta WHERE key = 'schema_version'", {})
    # A table of that name from another program (or a damaged store) fails here, before a write.
    yield ("SELECT session_id, seq, body FROM llmist_messages WHERE 1 = 0", {})
    if not found.rows:
        for statement in _tables(dialect)[2:]:
            yield (statement, {})
        yield (
            "INSERT INTO llmist_meta (key, value) VALUES ('schema_version', :v) ON CONFLICT DO NOTHING",
            {"v": str(SCHEMA_VERSION)},
        )
        return
    raw = found.rows[0][0]
    version = int(raw) if str(raw).isdigit() else -1
    migrations = _migrations(dialect)
    if version > SCHEMA_VERSION:
        hint = "it was written by a newer llmist: upgrade llmist to read it"
    elif version == SCHEMA_VERSION or version in migrations:
        while version < SCHEMA_VERSION:
            for statement in migrations[version]:
                yield (statement, {})
            version += 1
        yield ("UPDATE llmist_meta SET value = :v WHERE key = 'schema_version'", {"v": str(version)})
        return
    else:
        hint = "no upgrade path exists from that version: move the file (or database) aside to start afresh"
    raise SessionError(
        f"{name}: the store has schema version {raw!r}, this llmist reads version {SCHEMA_VERSION}; {hint}"
    )


# --- conversations ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stored:
    """A session as stored: its version (0: none yet) and its rows of messages, in order."""

    version: int
    rows: list[tuple[int, str]]


_VERSION = "SELECT version FROM llmist_sessions WHERE session_id = :sid"


def read(session_id: str) -> Script[Stored]:
    """The session's version and messages. Read again when a write landed in between, so the
    two always match (PostgreSQL reads each statement at its own moment)."""
    args = {"sid": session_id}
    while True:
        before = yield (_VERSION, args)
        rows = yield ("SELECT seq, body FROM llmist_messages WHERE session_id = :sid ORDER BY seq", args)
        after = yield (_VERSION, args)
        if before.rows == after.rows:
            version = int(after.rows[0][0]) if after.rows else 0
            return Stored(version, [(int(seq), str(body)) for seq, body in rows.rows])


def write(
    name: str,
    session_id: str,
    expected: int | None,
    start: int,
    body: str | None,
    *,
    append: bool = False,
    pause: Sequence[PendingCall] = (),
    claim: str | None = None,
    maybe_stored: bool = False,
) -> Script[int]:
    """Store a change: the messages from position ``start`` on become ``body`` (those before
    it are kept); the session's new version.

    ``expected`` is the version the writer loaded (or last wrote); ``None`` for a writer that
    never loaded the session (it replaces what is stored, ``start`` being 0). ``append``: the
    change only adds messages after those stored (``start`` is the stored end: nothing to
    delete). ``pause``: the calls that wait, stored with the change. ``claim``: the owner of
    the decided calls this change answers; their records go with it. ``maybe_stored``: an
    earlier attempt lost its connection while committing; if it landed (the version after
    ``expected`` holds ``body`` from ``start`` on), that version is returned, nothing written.

    Raises:
        SessionConflictError: another writer changed the session since ``expected``, or took
            over ``claim``.
        SessionError: ``maybe_stored``, no ``body``, and the session moved on (by this change?).
    """
    args: dict[str, Any] = {"sid": session_id}
    if maybe_stored and body is not None:
        landed = yield from _landed(args, expected, start, body)
        if landed is not None:
            return landed
    current = yield from _next_version(name, args, expected, unknown=maybe_stored and body is None)
    if body is not None:
        if not append or expected is None:
            yield ("DELETE FROM llmist_messages WHERE session_id = :sid AND seq >= :start", {**args, "start": start})
        yield (
            "INSERT INTO llmist_messages (session_id, seq, body) VALUES (:sid, :start, :body)",
            {**args, "start": start, "body": body},
        )
    if claim is not None:
        ended = yield ("DELETE FROM llmist_claims WHERE session_id = :sid AND owner = :owner", {**args, "owner": claim})
        if ended.rowcount != 1:
            raise ApprovalConflictError(
                f"{name}: another run took over the decided calls this run was running (it thought this "
                "one had died); this run's results were not stored"
            )
        yield ("DELETE FROM llmist_pending WHERE session_id = :sid", args)
    for position, call in enumerate(pause):
        yield (
            "INSERT INTO llmist_pending (session_id, invocation_id, position, waits_for, record) "
            "VALUES (:sid, :iid, :pos, :waits, :record)",
            {**args, "iid": call.invocation_id, "pos": position, "waits": call.waits_for, "record": call.to_json()},
        )
    return current + 1


def _landed(args: dict[str, Any], expected: int | None, start: int, body: str) -> Script[int | None]:
    """The version a write of ``body`` from ``start`` after ``expected`` made, when the store
    holds it now (``None``: it does not, so that write never landed or was replaced since)."""
    found = yield (_VERSION, args)
    if not found.rows or (expected is not None and int(found.rows[0][0]) != expected + 1):
        return None
    rows = yield (
        "SELECT seq, body FROM llmist_messages WHERE session_id = :sid AND seq >= :start ORDER BY seq",
        {**args, "start": start},
    )
    return int(found.rows[0][0]) if [(int(q), str(b)) for q, b in rows.rows] == [(start, body)] else None


def _next_version(name: str, args: dict[str, Any], expected: int | None, *, unknown: bool = False) -> Script[int]:
    """Take the session's next version; the one it follows. ``expected`` ``None``: whatever
    is stored (a writer that never loaded the session).

    Raises:
        SessionConflictError: the stored version is not ``expected`` (another writer's change
            made this one stale), or another writer took the next one in between.
        SessionError: instead, when ``unknown``: an earlier attempt of this change may be what
            moved the version on.
    """
    if expected is None:
        found = yield (_VERSION, args)
        current = int(found.rows[0][0]) if found.rows else 0
    else:
        current = expected
    if current == 0:
        done = yield (
            "INSERT INTO llmist_sessions (session_id, version) VALUES (:sid, 1) ON CONFLICT DO NOTHING",
            args,
        )
    else:
        done = yield (
            "UPDATE llmist_sessions SET version = :new WHERE session_id = :sid AND version = :old",
            {**args, "new": current + 1, "old": current},
        )
    if done.rowcount != 1:
        if unknown:
            raise SessionError(
                f"{name}: the database connection dropped while a change was being committed, and the "
                "session has moved on since: whether that change was stored is unknown"
            )
        found = yield (_VERSION, args)
        raise _conflict(name, current, int(found.rows[0][0]) if found.rows else 0)
    return current


def _conflict(name: str, expected: int, found: int) -> SessionConflictError:
    return SessionConflictError(
        f"{name}: another writer changed this session since it was loaded (version {expected} was loaded, "
        f"the store holds {found}); nothing was overwritten. Two runs of one session at once cannot both "
        "be kept: load the session again (start a new run) to continue from what is stored"
    )


def ids() -> Script[list[str]]:
    """The ids of the stored conversations, sorted."""
    found = yield ("SELECT session_id FROM llmist_sessions ORDER BY session_id", {})
    return [str(row[0]) for row in found.rows]


def delete(session_id: str) -> Script[None]:
    """Delete the session: its messages, waiting calls and version."""
    for table in ("llmist_messages", "llmist_pending", "llmist_claims", "llmist_sessions"):
        yield (f"DELETE FROM {table} WHERE session_id = :sid", {"sid": session_id})


# --- calls that wait --------------------------------------------------------------------------


_PENDING = (
    "SELECT invocation_id, record, decision, decided_at, started_at, result FROM llmist_pending "
    "WHERE session_id = :sid ORDER BY position"
)


def _calls(found: Rows) -> list[PendingCall]:
    return [
        PendingCall.from_json(record, Decision.from_json(json.loads(decision)) if decision is not None else None)
        for _iid, record, decision, *_ in found.rows
    ]


def pending(session_id: str) -> Script[list[PendingCall]]:
    """The session's calls that wait, in the order they were made, with their decisions."""
    found = yield (_PENDING, {"sid": session_id})
    return _calls(found)


def decide(name: str, session_id: str, invocation_id: str, decision: Decision, at: str) -> Script[PendingCall]:
    """Store ``decision`` for the waiting call ``invocation_id``; the call, decided. Of two
    deciders of one call, exactly one succeeds.

    Raises:
        UnknownApprovalError: no such call waits for a decision.
        AlreadyDecidedError: it was decided before.
        InvalidDecisionError: it edits parameters the call does not have.
    """
    args = {"sid": session_id, "iid": invocation_id}
    if decision.parameters is not None:
        waiting = yield ("SELECT record FROM llmist_pending WHERE session_id = :sid AND invocation_id = :iid", args)
        if waiting.rows:
            call = PendingCall.from_json(waiting.rows[0][0])
            try:
                check_edit(decision, invocation_id, call.gadget_name, call.parameters)
            except InvalidDecisionError as exc:
                raise InvalidDecisionError(f"{name}: {exc}") from None
    done = yield (
        "UPDATE llmist_pending SET decision = :decision, decided_at = :at WHERE session_id = :sid AND "
        "invocation_id = :iid AND decision IS NULL AND waits_for IS NULL",
        {**args, "decision": json_text(decision.to_json()), "at": at},
    )
    found = yield (
        "SELECT invocation_id, record, decision, decided_at, waits_for FROM llmist_pending "
        "WHERE session_id = :sid AND invocation_id = :iid",
        args,
    )
    if not found.rows:
        waiting = yield (
            "SELECT invocation_id FROM llmist_pending WHERE session_id = :sid AND decision IS NULL "
            "AND waits_for IS NULL ORDER BY position",
            args,
        )
        names = ", ".join(str(r[0]) for r in waiting.rows)
        raise UnknownApprovalError(
            f"{name}: no call {invocation_id!r} waits for a decision; "
            + (f"the calls that do: {names}" if names else "none does (the session waits for no decision)")
        )
    _iid, record, stored, decided_at, waits_for = found.rows[0]
    if done.rowcount == 1:
        return PendingCall.from_json(record, decision)
    if waits_for is not None:
        raise UnknownApprovalError(
            f"{name}: call {invocation_id!r} needs no decision: it runs after {waits_for!r}, once that call is decided"
        )
    first = Decision.from_json(json.loads(stored))
    raise AlreadyDecidedError(
        f"{name}: call {invocation_id!r} was already decided ({_described(first)}, at {decided_at}); "
        "the first decision stands"
    )


def _described(decision: Decision) -> str:
    if decision.action == "deny":
        return "denied" + (f": {decision.reason!r}" if decision.reason else "")
    return "approved with edited parameters" if decision.action == "edit" else "approved"


def claim(name: str, session_id: str, owner: str, at: str, gone: Callable[[str], bool]) -> Script[Claimed | None]:
    """Take the session's decided calls for the run ``owner`` (``None`` when none wait): of two
    runs that try at once, one gets them. A holder that ``gone`` says has died is replaced.

    Raises:
        ApprovalsPendingError: a call still waits for its decision.
        ApprovalConflictError: a live run holds them.
    """
    args = {"sid": session_id}
    found = yield (_PENDING, args)
    if not found.rows:
        return None
    calls = _calls(found)
    undecided = [c.invocation_id for c in calls if c.needs_decision and c.decision is None]
    if undecided:
        raise ApprovalsPendingError(f"{name}: calls still wait for a decision: {', '.join(undecided)}")
    took = yield (
        "INSERT INTO llmist_claims (session_id, owner, claimed_at) VALUES (:sid, :owner, :at) ON CONFLICT DO NOTHING",
        {**args, "owner": owner, "at": at},
    )
    if took.rowcount != 1:
        holder = yield ("SELECT owner, claimed_at FROM llmist_claims WHERE session_id = :sid", args)
        old, since = holder.rows[0] if holder.rows else ("", "")
        took_over = Rows([], 0)
        if holder.rows and gone(str(old)):
            took_over = yield (
                "UPDATE llmist_claims SET owner = :owner, claimed_at = :at WHERE session_id = :sid AND owner = :old",
                {**args, "owner": owner, "at": at, "old": old},
            )
        if took_over.rowcount != 1:
            raise ApprovalConflictError(
                f"{name}: another run ({old}, since {since}) is running the decided calls; each runs once. "
                "Wait for it to end; if it died on another machine, release its hold with "
                "`llmist approvals SESSION --release`"
            )
    started = frozenset(str(r[0]) for r in found.rows if r[4] is not None)
    results = {str(r[0]): _result(str(r[5])) for r in found.rows if r[5] is not None}
    return Claimed(calls, started, results)


def _result(text: str) -> GadgetResultMessage:
    message = loads_message(text)
    if not isinstance(message, GadgetResultMessage):
        raise SessionError(f"a recorded result is a {type(message).__name__}, not a gadget result (damaged store)")
    return message


def new_owner() -> str:
    """A name for a run that holds decided calls: this machine, this process, and a token of its own."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def owner_gone(owner: str) -> bool:
    """Whether the process named in ``owner`` has ended (known only for a process on this
    machine: one elsewhere counts as alive)."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def mark(
    session_id: str, invocation_id: str, *, started_at: str | None = None, result: str | None = None
) -> Script[None]:
    """Note that a held call started (``started_at``), or store its result (a message as JSON)."""
    args = {"sid": session_id, "iid": invocation_id}
    if started_at is not None:
        yield (
            "UPDATE llmist_pending SET started_at = :at WHERE session_id = :sid AND invocation_id = :iid",
            {**args, "at": started_at},
        )
    if result is not None:
        yield (
            "UPDATE llmist_pending SET result = :result WHERE session_id = :sid AND invocation_id = :iid",
            {**args, "result": result},
        )


def release(session_id: str, owner: str | None) -> Script[bool]:
    """Let go of the decided calls (``owner`` ``None``: whoever holds them); whether a hold ended."""
    if owner is None:
        done = yield ("DELETE FROM llmist_claims WHERE session_id = :sid", {"sid": session_id})
    else:
        done = yield (
            "DELETE FROM llmist_claims WHERE session_id = :sid AND owner = :owner",
            {"sid": session_id, "owner": owner},
        )
    return done.rowcount > 0
