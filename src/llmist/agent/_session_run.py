"""A run with a session: load the conversation first, save it after each iteration, flush at the end.

Built on the loop's public seams: the history a run starts from, and the ``on_iteration``
observer (whose context carries the conversation so far).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence

from llmist.agent._loop import Events
from llmist.agent.hooks import Controllers, Hooks, IterationContext, LLMCallContext, Observers
from llmist.agent.sessions import Session, SessionError
from llmist.providers.base import Message

__all__ = ["run_with_session", "session_hooks"]


def session_hooks(session: Session) -> Hooks:
    """The observer that hands ``session`` the conversation after each completed iteration, and
    the controller that stops the run before its next model call once a save failed (a
    :class:`SessionError`: another writer, a store locked past its busy timeout). Observers'
    errors are only logged, so the failure is kept here and raised there."""
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


async def run_with_session(
    session: Session,
    history: Sequence[Message] | None,
    loop: Callable[[Sequence[Message]], AsyncGenerator[Events, None]],
) -> AsyncGenerator[Events, None]:
    """The events of ``loop`` started from ``history`` (default: what ``session`` holds).

    The run ends once its conversation is stored: its last writes are flushed, and a write that
    failed fails the run (``SessionError``) rather than losing the turn with only a log line."""
    start = await session.load() if history is None else history
    async for events in loop(start):
        yield events
    await session.flush()
