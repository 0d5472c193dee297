"""Sessions in a run: load the conversation first, save it after each iteration, and wait for the
last write at the end, so that a write that failed fails the run.

Built on the loop's public seams: the history a run starts from, and the ``on_iteration``
observer, whose context carries the conversation so far and the calls that wait for a decision.
An iteration whose calls wait is saved with them, in one transaction
(:meth:`~llmist.agent.sessions.ApprovalStore.pause`). A save that fails ends the run at its
next step with the store's error (nothing after it would be kept, so going on would only spend).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llmist.agent._features import Feature
from llmist.agent.approvals import PendingCall
from llmist.agent.errors import SessionError
from llmist.agent.hooks import Hooks, IterationContext, Observers
from llmist.agent.sessions import ApprovalStore, Session
from llmist.providers.base import Message

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents

__all__ = ["Sessions", "load_history", "save_or_pause"]


class Sessions(Feature):
    """A session as a feature: the history loaded before the loop, each iteration saved."""

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run with a session continues what the session holds (unless given a ``history``)."""
        session = run.spec.session
        if session is None:
            return events
        return _kept(self, run, session, events)


async def save_or_pause(session: Session, messages: Sequence[Message], pending: Sequence[PendingCall]) -> None:
    """Save ``messages``; with calls that wait, store them with the messages in one transaction."""
    if not pending:
        await session.save(messages)
    elif isinstance(session, ApprovalStore):
        await session.pause(messages, pending)
    else:
        raise SessionError(
            f"{session!r} cannot keep calls that wait for approval (it is no ApprovalStore); "
            "use SQLiteSession or SQLAlchemySession"
        )


async def load_history(run: RunContext) -> None:
    """The run continues its session's conversation, unless it was given a ``history`` (or
    it has no session). Features outside this one that read the history first call it."""
    session = run.spec.session
    if run.history is None and session is not None:
        run.history = await session.load()


async def _kept(feature: Sessions, run: RunContext, session: Session, events: RunEvents) -> RunEvents:
    await load_history(run)
    failed: list[Exception] = []

    async def save(ctx: IterationContext) -> None:
        try:
            await save_or_pause(session, ctx.messages, ctx.pending)
        except Exception as exc:  # raised by the run at its next step
            failed.append(exc)

    run.add_hooks(feature, Hooks(observers=Observers(on_iteration=save)))  # per run: its failures are its own
    try:
        async for batch in events:
            if failed:
                raise _failure(session, failed[0])
            yield batch
        if failed:
            raise _failure(session, failed[0])
        await session.flush()
    finally:
        await events.aclose()


def _failure(session: Session, exc: Exception) -> Exception:
    if isinstance(exc, SessionError):
        return exc
    return SessionError(f"{session!r}: saving the conversation failed: {type(exc).__name__}: {exc}")
