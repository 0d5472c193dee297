"""Sessions in a run: load the conversation first, save it after each iteration, flush at the end.

Built on the loop's public seams: the history a run starts from, the ``on_iteration`` observer
(whose context carries the conversation so far) and the ``before_llm_call`` controller. The run
ends once its conversation is stored: its last writes are flushed, and a write that failed
fails the run (``SessionError``) rather than losing the turn with only a log line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmist.agent._features import Feature
from llmist.agent.errors import SessionError
from llmist.agent.hooks import Controllers, Hooks, IterationContext, LLMCallContext, Observers
from llmist.agent.sessions import Session

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents

__all__ = ["Sessions", "session_hooks"]


class Sessions(Feature):
    """A session as a feature: the history loaded before the loop, the hooks that save (one
    run's: they keep whether a save failed), and the flush at the end."""

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run with a session continues what the session holds (unless given a ``history``)
        and ends once its conversation is stored."""
        session = run.spec.session
        if session is None:
            return events
        return _continued(run, session, events)


def session_hooks(session: Session) -> Hooks:
    """The observer that hands ``session`` the conversation after each completed iteration, and
    the controller that stops the run before its next model call once a save failed (a
    :class:`SessionError`: another run wrote the conversation, a store locked past its busy
    timeout). Observers' errors are only logged, so the failure is kept here and raised there."""
    failed: list[SessionError] = []

    async def save(ctx: IterationContext) -> None:
        try:
            await session.save(ctx.messages)
        except SessionError as exc:
            failed.append(exc)

    def stop_if_unsaved(ctx: LLMCallContext) -> None:
        if failed:
            raise failed[0]

    return Hooks(observers=Observers(on_iteration=save), controllers=Controllers(before_llm_call=stop_if_unsaved))


async def _continued(run: RunContext, session: Session, events: RunEvents) -> RunEvents:
    if run.history is None:
        run.history = await session.load()
    run.add_hooks(session_hooks(session))
    try:
        async for batch in events:
            yield batch
    finally:
        await events.aclose()
    await session.flush()
