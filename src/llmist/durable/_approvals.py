"""Approvals in a durable run: the run pauses, the workflow waits durably for the decisions.

With ``approvals="defer"`` a call that needs approval does not run: the agent's run ends
``"awaiting_approval"``. Inside a workflow that pause keeps nothing in a process: the workflow
publishes the waiting calls (``DBOS.set_event``, read by :func:`pending_calls`), then waits for
decisions with ``DBOS.recv``, which DBOS keeps in its system database however long it takes and
across restarts. A decision is a message (:func:`send_decision`); once every waiting call has
one, the run goes on with them.

Each run of the agent inside the workflow keeps its conversation and its waiting calls in a
:class:`RunApprovals`, an approval store in memory that the workflow builds again, the same,
from recorded outcomes, when it is recovered: nothing outside DBOS is written that a replay
would write twice.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

from dbos import DBOS

from llmist.agent.approvals import AlreadyDecidedError, Claimed, Decision, PendingCall, UnknownApprovalError
from llmist.agent.messages import GadgetResultMessage
from llmist.providers.base import Message

__all__ = [
    "DECISION_TOPIC",
    "PENDING_EVENT",
    "Messenger",
    "RunApprovals",
    "pending_calls",
    "send_decision",
    "wait_for_decisions",
]

logger = logging.getLogger("llmist.durable")

DECISION_TOPIC = "llmist.decision"
"""The topic of the messages that carry decisions to a waiting run."""

PENDING_EVENT = "llmist.pending"
"""The workflow event that lists the calls waiting for a decision (JSON; ``[]``: none waits)."""

WAIT_S = 86_400.0
"""How long one ``recv`` waits before the workflow waits again: a decision may take days."""


class RunApprovals:
    """The approval store of one run of the agent inside a workflow, in memory (see the module
    docstring): the conversation, the calls that wait, their decisions."""

    def __init__(self, session_id: str, messages: Sequence[Message] = (), calls: Sequence[PendingCall] = ()) -> None:
        self.session_id = session_id
        """The run's workflow id."""
        self.messages = list(messages)
        """The conversation so far."""
        self.calls = list(calls)
        """The calls that wait, with their decisions once given."""

    async def load(self) -> list[Message]:
        """The conversation."""
        return list(self.messages)

    async def save(self, messages: Sequence[Message]) -> None:
        """Keep ``messages``; a run that took the decided calls ends the pause with its first save."""
        self.messages = list(messages)
        self.calls = []

    async def flush(self) -> None:
        """Nothing to wait for: writes are done when made."""

    async def pause(self, messages: Sequence[Message], calls: Sequence[PendingCall]) -> None:
        """Keep the conversation and the calls that wait."""
        self.messages, self.calls = list(messages), list(calls)

    async def pending(self) -> list[PendingCall]:
        """The calls that wait, with their decisions so far."""
        return list(self.calls)

    async def decide(self, invocation_id: str, decision: Decision) -> PendingCall:
        """Record ``decision`` for the waiting call ``invocation_id``."""
        self.calls = decided(self.calls, invocation_id, decision)
        return next(c for c in self.calls if c.invocation_id == invocation_id)

    async def claim(self) -> Claimed | None:
        """The decided calls, for the run to run first (one run per store: no other claims them)."""
        return Claimed(list(self.calls)) if self.calls else None

    async def note_started(self, invocation_id: str) -> None:
        """Nothing to note: the call's step records whether it ran."""

    async def note_result(self, invocation_id: str, message: GadgetResultMessage) -> None:
        """Nothing to note: the call's step records its result."""

    async def release(self, *, force: bool = False) -> bool:
        """Nothing is held outside the run."""
        return False


def decided(calls: Sequence[PendingCall], invocation_id: str, decision: Decision) -> list[PendingCall]:
    """``calls`` with ``decision`` given to ``invocation_id``.

    Raises:
        UnknownApprovalError: no such call waits for a decision.
        AlreadyDecidedError: it was decided before.
    """
    call = next((c for c in calls if c.invocation_id == invocation_id and c.needs_decision), None)
    if call is None:
        waiting = ", ".join(c.invocation_id for c in calls if c.needs_decision) or "none"
        raise UnknownApprovalError(f"no call {invocation_id!r} waits for a decision (waiting: {waiting})")
    if call.decision is not None:
        raise AlreadyDecidedError(f"call {invocation_id!r} ({call.gadget_name}) was decided already")
    return [replace(c, decision=decision) if c is call else c for c in calls]


async def wait_for_decisions(calls: Sequence[PendingCall]) -> list[PendingCall]:
    """Inside the workflow: publish ``calls`` (the run's waiting ones), wait for a decision on
    each, and return them decided. The wait is DBOS's: no process holds it, and a recovered
    workflow replays the decisions that came before its crash."""
    waiting = list(calls)
    await DBOS.set_event_async(PENDING_EVENT, _as_json(waiting))
    while any(c.needs_decision and c.decision is None for c in waiting):
        message = await DBOS.recv_async(DECISION_TOPIC, timeout_seconds=WAIT_S)
        if message is None:  # the day passed without a decision: wait again
            continue
        try:
            waiting = decided(waiting, str(message["invocation_id"]), Decision(**message["decision"]))
        except Exception as error:  # a second decision for a call, say: the first one holds
            logger.warning("decision ignored: %s", error)
    await DBOS.set_event_async(PENDING_EVENT, "[]")
    return waiting


class Messenger(Protocol):
    """What reads a run's events and sends it messages: ``DBOS`` itself in a launched process,
    a ``DBOSClient`` in one that only talks to the system database."""

    async def get_event_async(self, workflow_id: str, key: str, timeout_seconds: float = 60) -> Any: ...
    async def send_async(self, destination_id: str, message: Any, topic: str | None = None) -> None: ...


async def pending_calls(workflow_id: str, via: Messenger) -> list[PendingCall]:
    """The calls durable run ``workflow_id`` waits for decisions on (none: it does not wait)."""
    text = await via.get_event_async(workflow_id, PENDING_EVENT, timeout_seconds=0)
    return [PendingCall.from_json(json.dumps(item)) for item in json.loads(text or "[]")]


async def send_decision(workflow_id: str, invocation_id: str, decision: Decision, via: Messenger) -> PendingCall:
    """Give durable run ``workflow_id`` the ``decision`` on its waiting call ``invocation_id``.

    Raises:
        UnknownApprovalError: the run does not wait for a decision on that call (now).
    """
    calls = await pending_calls(workflow_id, via)
    call = next((c for c in calls if c.invocation_id == invocation_id and c.needs_decision), None)
    if call is None:
        waiting = ", ".join(c.invocation_id for c in calls if c.needs_decision) or "none"
        raise UnknownApprovalError(
            f"durable run {workflow_id!r} waits for no decision on call {invocation_id!r} (waiting: {waiting})"
        )
    message: dict[str, Any] = {"invocation_id": invocation_id, "decision": decision.to_json()}
    await via.send_async(workflow_id, message, DECISION_TOPIC)
    return replace(call, decision=decision)


def _as_json(calls: Sequence[PendingCall]) -> str:
    return "[" + ",".join(c.to_json() for c in calls) + "]"
