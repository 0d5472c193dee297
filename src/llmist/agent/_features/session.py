"""Sessions in a run: load the conversation first, save it after each iteration.

Built on the loop's public seams: the history a run starts from, and the ``on_iteration``
observer (whose context carries the conversation so far). The run does not wait for the last
writes when it ends: the session's writer finishes them while the caller goes on (``await
session.flush()`` waits for them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llmist.agent._features import Feature
from llmist.agent.hooks import Hooks, IterationContext, Observers
from llmist.agent.sessions import Session

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent._run.plan import RunPlan
    from llmist.agent.spec import AgentSpec

__all__ = ["Sessions", "load_history", "session_hooks"]


class Sessions(Feature):
    """A session as a feature: the observer that saves, and the history loaded before the loop."""

    def hooks(self, spec: AgentSpec, plan: RunPlan) -> Hooks | None:
        """The observer that saves the conversation after each completed iteration."""
        return session_hooks(spec.session) if spec.session is not None else None

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run with a session continues what the session holds (unless given a ``history``)."""
        session = run.spec.session
        if session is None:
            return events
        return _continued(run, session, events)


def session_hooks(session: Session) -> Hooks:
    """The observer that hands ``session`` the conversation after each completed iteration."""

    async def save(ctx: IterationContext) -> None:
        await session.save(ctx.messages)

    return Hooks(observers=Observers(on_iteration=save))


async def load_history(run: RunContext) -> None:
    """The run continues its session's conversation, unless it was given a ``history`` (or
    it has no session). Features outside this one that read the history first call it."""
    session = run.spec.session
    if run.history is None and session is not None:
        run.history = await session.load()


async def _continued(run: RunContext, session: Session, events: RunEvents) -> RunEvents:
    await load_history(run)
    try:
        async for batch in events:
            yield batch
    finally:
        await events.aclose()
