"""What both SQL session stores share: :class:`SQLStoreSession`, the session's state and every
operation that is one transaction of ``llmist.agent.sessions._store_sql`` (load, the calls that wait,
their decisions and the hold on them), and :class:`Write`, one change to store.

:class:`~llmist.agent.sessions.SQLiteSession` and
:class:`~llmist.agent.sessions.sqlalchemy_session.SQLAlchemySession` subclass it, each saying how a
script runs on its connection, how a change is stored (queued for a writer), and how to wait
for what is queued.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from llmist.agent.approvals import Claimed, Decision, PendingCall
from llmist.agent.errors import ApprovalError, MessageFormatError, SessionError
from llmist.agent.messages import GadgetResultMessage, dumps_message, dumps_messages, loads_messages
from llmist.agent.sessions import _store_sql as sql
from llmist.providers.base import Message

__all__ = ["SQLStoreSession", "Write", "change_since", "messages_of_rows", "now"]

T = TypeVar("T")


def change_since(saved: tuple[Message, ...], messages: Sequence[Message]) -> tuple[int, tuple[Message, ...]]:
    """What to write after ``saved`` was stored and the conversation is now ``messages``: the
    position to write from (the stored end for new messages; 0 when earlier ones changed, as
    compaction does) and the conversation as a tuple."""
    n = len(saved)
    snapshot = tuple(messages)
    return (n if snapshot[:n] == saved else 0), snapshot  # tuple equality checks identity first: fast


def messages_of_rows(rows: Sequence[tuple[int, str]]) -> list[Message]:
    """The conversation stored in ``rows`` (each the messages one write added, from its position on).

    Raises:
        MessageFormatError: the rows do not join into one conversation.
    """
    messages: list[Message] = []
    for seq, body in rows:
        if seq != len(messages):
            raise MessageFormatError(f"the rows skip from message {len(messages)} to {seq} (damaged store)")
        messages += loads_messages(body)
    return messages


def now() -> str:
    """The time a decision or a claim is stored with (UTC, ISO 8601)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Write:
    """A change to store: the conversation from ``start`` on becomes ``messages``; with it, the
    calls that now wait (``pause``), or the end of the hold on decided calls (``claim``)."""

    session: SQLStoreSession
    start: int
    messages: tuple[Message, ...]
    append: bool
    """``start`` is where the stored messages end (nothing stored is replaced)."""
    pause: tuple[PendingCall, ...] = ()
    claim: str | None = None

    def after(self, later: Write) -> Write:
        """This change followed by ``later`` (of the same session) as one change."""
        if later.start >= self.start:  # keeps what this change wrote before ``later.start``
            start, messages = self.start, self.messages[: later.start - self.start] + later.messages
            append = self.append
        else:
            start, messages, append = later.start, later.messages, False
        return Write(self.session, start, messages, append, later.pause or self.pause, self.claim or later.claim)

    def script(self, expected: int | None, *, maybe_stored: bool = False) -> sql.Script[int]:
        """The transaction that stores this change after version ``expected`` (``maybe_stored``:
        an earlier attempt of it may have been committed; see ``_store_sql.write``)."""
        s = self.session
        body = dumps_messages(self.messages) if self.messages or self.start == 0 else None
        return sql.write(
            repr(s),
            s.session_id,
            expected,
            self.start,
            body,
            append=self.append,
            pause=self.pause,
            claim=self.claim,
            maybe_stored=maybe_stored,
        )


class SQLStoreSession:
    """What both SQL stores share: the session's state, and every operation that is one
    transaction of ``llmist.agent.sessions._store_sql`` (a subclass says how a script runs, how a change
    is queued, and how to wait for queued changes)."""

    session_id: str

    def __init__(self, session_id: str) -> None:
        if not isinstance(session_id, str) or "\x00" in session_id:
            # PostgreSQL's text holds no NUL; refused by every store, so a name that works in one works in all.
            raise ValueError(f"a session id is text without NUL characters, got {session_id!r}")
        self.session_id = session_id
        self._saved: tuple[Message, ...] = ()
        """What the last save queued: the next one sends only what follows it."""
        self._version: int | None = None
        """The stored version this object follows (``None``: it never loaded the session, so its
        first write replaces what is stored)."""
        self._error: BaseException | None = None
        """A write of this session failed: later ones are not tried (they build on it)."""
        self._owner: str | None = None
        """The hold on decided calls this object's run has (its next write ends it)."""

    # --- what a store provides ------------------------------------------------------------

    async def _run(self, script: Callable[[], sql.Script[T]], *, write: bool = True, idempotent: bool = False) -> T:
        """Run the transaction ``script()`` makes (``write``: it changes the store). A store may
        call ``script`` again to run it again (a database whose connection dropped), even after a
        commit that may have landed when the script reads only or is ``idempotent``."""
        raise NotImplementedError

    async def _store_change(self, change: Write) -> None:
        """Store ``change``, or queue it for a writer that will (then :meth:`flush` waits for it)."""
        raise NotImplementedError

    async def flush(self) -> None:
        """Wait until every queued change is stored; raise if a write failed."""
        raise NotImplementedError

    # --- the session ----------------------------------------------------------------------

    def _raise_error(self) -> None:
        error = self._error
        if error is None:
            return
        if isinstance(error, SessionError | ApprovalError):  # it names the session; keep its kind (a conflict)
            raise type(error)(str(error)) from error
        raise SessionError(f"{self!r}: saving the conversation failed: {error}") from error

    async def load(self) -> list[Message]:
        """The stored conversation (empty for a new session); later writes follow its version."""
        await self.flush()
        stored = await self._run(lambda: sql.read(self.session_id), write=False)
        try:
            messages = messages_of_rows(stored.rows)
        except MessageFormatError as exc:
            raise SessionError(f"{self!r}: stored conversation cannot be read: {exc}") from exc
        self._saved, self._version = tuple(messages), stored.version
        return messages

    async def save(self, messages: Sequence[Message]) -> None:
        """Queue the change since the last save (new messages, or all of them when earlier ones
        changed, as compaction does); waits only when the writer's queue is full."""
        await self._change(messages)

    async def _change(self, messages: Sequence[Message], pause: Sequence[PendingCall] = ()) -> None:
        self._raise_error()
        stored = len(self._saved)
        start, snapshot = change_since(self._saved, messages)
        self._saved = snapshot
        if start < len(snapshot) or pause or self._owner is not None:
            change = Write(self, start, snapshot[start:], start == stored, tuple(pause), self._owner)
            self._owner = None  # the change ends the hold once stored (or fails the session)
            await self._store_change(change)

    async def clear(self) -> None:
        """Delete this session: its conversation and any calls that wait."""
        await self.flush()
        await self._run(lambda: sql.delete(self.session_id), idempotent=True)
        self._saved, self._version = (), 0

    # --- calls that wait (ApprovalStore) --------------------------------------------------

    async def pause(self, messages: Sequence[Message], calls: Sequence[PendingCall]) -> None:
        """Store ``messages`` and the ``calls`` that wait, in one transaction; return once stored."""
        await self._change(messages, calls)
        await self.flush()

    async def pending(self) -> list[PendingCall]:
        """The calls that wait, with their decisions so far (none: the session is not paused)."""
        return await self._run(lambda: sql.pending(self.session_id), write=False)

    async def decide(self, invocation_id: str, decision: Decision) -> PendingCall:
        """Store ``decision`` for the waiting call ``invocation_id``; the call, decided."""
        return await self._run(lambda: sql.decide(repr(self), self.session_id, invocation_id, decision, now()))

    async def claim(self) -> Claimed | None:
        """Take the decided calls for this object's run; its next write ends the pause."""
        await self.flush()
        owner = sql.new_owner()
        claimed = await self._run(lambda: sql.claim(repr(self), self.session_id, owner, now(), sql.owner_gone))
        if claimed is not None:
            self._owner = owner
        return claimed

    async def note_started(self, invocation_id: str) -> None:
        """A claimed call is about to run."""
        await self._run(lambda: sql.mark(self.session_id, invocation_id, started_at=now()), idempotent=True)

    async def note_result(self, invocation_id: str, message: GadgetResultMessage) -> None:
        """A claimed call's result, stored at once."""
        result = dumps_message(message)
        await self._run(lambda: sql.mark(self.session_id, invocation_id, result=result), idempotent=True)

    async def release(self, *, force: bool = False) -> bool:
        """Let go of claimed calls without finishing them (``force``: whoever holds them)."""
        owner, self._owner = self._owner, None
        if owner is None and not force:
            return False
        return await self._run(lambda: sql.release(self.session_id, None if force else owner))
