"""An llmist agent behind a2a-sdk's ``AgentExecutor``: one run per A2A message.

- **Conversations.** Each A2A context is one llmist session (an :class:`~llmist.agent.SQLiteSession`
  keyed by the context id), so a second message in the same context continues the conversation,
  and the calls that wait for approval wait there, with the conversation, in one transaction.
- **Events.** A task is created (``submitted``), then ``working`` with a status message for each
  gadget call as it starts and as it ends; the answer is one artifact named ``answer``, then the
  task is ``completed``. A run that raises leaves the task ``failed`` with the error as its message.
- **Approvals.** Runs use ``approvals="defer"``: a call that needs approval does not run, the run
  ends ``"awaiting_approval"`` and the task waits in ``input-required``, its message naming the
  calls and what to reply. The next message on that task is the decision (``approve``, or
  ``deny`` and a reason) for every waiting call; the run that resumes runs them, exactly once.
- **Cancellation.** ``tasks/cancel`` cancels the run (its gadgets get their signal) and the task
  ends ``canceled``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, TaskState

from llmist.agent import Agent, AgentStream, Decision, PendingCall, SQLiteSession
from llmist.agent.events import GadgetPendingEvent, GadgetResultEvent
from llmist.syntax import GadgetCallEvent

__all__ = ["LlmistExecutor", "parse_decision"]

logger = logging.getLogger("llmist.a2a")

_SHOWN_RESULT_CHARS = 500
"""How much of a gadget's result a status message quotes (the answer carries the rest)."""

_APPROVE = frozenset({"approve", "approved", "yes", "y", "ok"})
_DENY = frozenset({"deny", "denied", "no", "n", "reject"})


def parse_decision(text: str) -> Decision | None:
    """The decision a reply states: ``approve`` (or yes/ok), or ``deny`` (or no/reject) and an
    optional reason after it; ``None`` for any other text."""
    word, _, rest = text.strip().partition(" ")
    word = word.strip(".,:;!").lower()
    if word in _APPROVE:
        return Decision.approve()
    if word in _DENY:
        return Decision.deny(rest.strip())
    return None


class LlmistExecutor(AgentExecutor):
    """Runs ``agent`` for each A2A message; ``open_session`` gives a context id's session."""

    def __init__(self, agent: Agent[Any], open_session: Callable[[str], SQLiteSession]) -> None:
        self.agent = agent
        self.open_session = open_session
        self._live: dict[str, AgentStream[Any]] = {}
        """The run of each task that runs now (``tasks/cancel`` cancels it)."""
        self._turns: dict[str, asyncio.Lock] = {}
        """One lock per context: two messages of one conversation at once run one after the other
        (two runs on one session would each continue the history the other has not saved yet)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Run the agent on the message (or resume it with the decision the message states)."""
        assert context.task_id is not None and context.context_id is not None  # the SDK sets both
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None and context.message is not None:
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        async with self._turns.setdefault(context.context_id, asyncio.Lock()):
            await self._answer(context, updater)

    async def _answer(self, context: RequestContext, updater: TaskUpdater) -> None:
        assert context.context_id is not None
        session = self.open_session(context.context_id)
        text = context.get_user_input()
        waiting = [c for c in await session.pending() if c.needs_decision and c.decision is None]
        prompt: str | None = text
        if waiting:
            decision = parse_decision(text)
            if decision is None:
                await updater.requires_input(_agent_message(updater, _waiting_text(waiting, unclear=True)))
                return
            for call in waiting:
                await session.decide(call.invocation_id, decision)
            prompt = None  # the run resumes the conversation: the decided calls run first
        await self._run(updater, session, prompt)

    async def _run(self, updater: TaskUpdater, session: SQLiteSession, prompt: str | None) -> None:
        await updater.start_work()
        stream = self.agent.stream(prompt, session=session, approvals="defer")
        self._live[updater.task_id] = stream
        try:
            async for event in stream:
                note = _progress(event)
                if note is not None:
                    await updater.update_status(
                        TaskState.TASK_STATE_WORKING, _agent_message(updater, note[0]), metadata={"llmist": note[1]}
                    )
        except asyncio.CancelledError:
            stream.cancel()
            raise
        except Exception as exc:
            logger.exception("A2A task %s failed", updater.task_id)
            await updater.failed(_agent_message(updater, f"the agent failed: {type(exc).__name__}: {exc}"))
            return
        finally:
            self._live.pop(updater.task_id, None)
        result = stream.result
        assert result is not None  # the stream ended without raising
        if result.stop_reason == "awaiting_approval":
            calls = [c for c in result.pending if c.needs_decision]
            await updater.requires_input(_agent_message(updater, _waiting_text(calls)))
            return
        if result.stop_reason == "cancelled":
            await updater.cancel(_agent_message(updater, "the run was cancelled"))
            return
        await updater.add_artifact([new_text_part(result.output)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Cancel the task's run; the task ends ``canceled``."""
        assert context.task_id is not None and context.context_id is not None
        stream = self._live.pop(context.task_id, None)
        if stream is not None:
            stream.cancel()
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def _agent_message(updater: TaskUpdater, text: str) -> Message:
    return updater.new_agent_message([new_text_part(text)])


def _progress(event: object) -> tuple[str, dict[str, Any]] | None:
    """A status line and its machine-readable form for an event a caller wants to see, or ``None``."""
    if isinstance(event, GadgetCallEvent):
        call = event.call
        return f"calling {call.gadget_name}", {
            "event": "gadget_call",
            "gadget": call.gadget_name,
            "invocation_id": call.invocation_id,
        }
    if isinstance(event, GadgetResultEvent):
        r = event.result
        outcome = f"failed: {r.error}" if r.error is not None else (r.result or "")
        return f"{r.gadget_name} {'' if r.error is not None else 'returned: '}{outcome[:_SHOWN_RESULT_CHARS]}", {
            "event": "gadget_result",
            "gadget": r.gadget_name,
            "invocation_id": r.invocation_id,
            "ok": r.error is None,
        }
    if isinstance(event, GadgetPendingEvent):
        p = event.pending
        return f"{p.gadget_name} waits: {p.reason}", {
            "event": "gadget_pending",
            "gadget": p.gadget_name,
            "invocation_id": p.invocation_id,
        }
    return None


def _waiting_text(calls: list[PendingCall], *, unclear: bool = False) -> str:
    listed = "; ".join(f"{c.gadget_name} {c.parameters} ({c.reason})" for c in calls)
    ask = "Reply 'approve' to run them, or 'deny' and a reason to refuse them."
    head = "That reply is neither 'approve' nor 'deny'. " if unclear else ""
    return f"{head}Waiting for approval: {listed}. {ask}"
