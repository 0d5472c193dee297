"""A run with a session: load the conversation first, save it after each iteration, flush at the end.

Built on the loop's public seams: the history a run starts from, and the ``on_iteration``
observer (whose context carries the conversation so far).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence

from llmist.agent._loop import Events
from llmist.agent.hooks import Hooks, IterationContext, Observers
from llmist.agent.sessions import Session
from llmist.providers.base import Message

__all__ = ["run_with_session", "session_hooks"]


def session_hooks(session: Session) -> Hooks:
    """The observer that hands ``session`` the conversation after each completed iteration."""

    async def save(ctx: IterationContext) -> None:
        await session.save(ctx.messages)

    return Hooks(observers=Observers(on_iteration=save))


async def run_with_session(
    session: Session,
    history: Sequence[Message] | None,
    loop: Callable[[Sequence[Message]], AsyncGenerator[Events, None]],
) -> AsyncGenerator[Events, None]:
    """The events of ``loop`` started from ``history`` (default: what ``session`` holds).

    The run does not wait for the last writes when it ends: the session's writer finishes them
    while the caller goes on (``await session.flush()`` waits for them)."""
    start = await session.load() if history is None else history
    async for events in loop(start):
        yield events
