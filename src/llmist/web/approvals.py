"""Approvals from the page: a call that needs one waits for a person's Approve, Edit or Deny.

The page's buttons post a :class:`Decision` (the agent's own, :class:`llmist.agent.Decision`).

Where the conversation's session can keep calls waiting (an :class:`~llmist.agent.ApprovalStore`:
the SQLite file ``llmist web`` uses, or a database), a call that needs approval waits *there*: the
run ends ``"awaiting_approval"``, a reloaded page or a restarted server shows the call from the
session, and a decision (``POST /api/threads/{thread}/approvals/{id}``) is stored in it and, once
no call waits for one, starts the run that goes on (see :doc:`approvals`).

Otherwise, or when ``to_asgi(approvals=...)`` is given, the run waits in this process: the
agent's ``before_gadget`` controller asks an :class:`Approvals` for the decision and turns it into
the agent's own actions (run, ``ReplaceParameters``, ``SkipGadget``). :class:`InProcessApprovals`,
the one built in, keeps each waiting call as a future; a server restart ends the wait with the
run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from llmist.agent.approvals import Decision, UnknownApprovalError, check_edit

__all__ = ["ApprovalRequest", "Approvals", "Decision", "InProcessApprovals", "UnknownApprovalError"]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call waiting for a person's decision."""

    thread_id: str
    """The conversation whose run made the call."""
    run_id: str
    """The run that waits."""
    invocation_id: str
    """The call (its AG-UI ``toolCallId``)."""
    gadget_name: str
    parameters: dict[str, Any]
    """The validated parameters the call would run with."""
    reason: str = "this gadget writes files or runs commands"
    """Why approval is needed, for the person."""


class Approvals(Protocol):
    """Where calls wait for decisions, and where the page's decisions arrive."""

    async def request(self, request: ApprovalRequest) -> Decision:
        """Wait for the decision on ``request`` (cancelled with the run)."""
        ...

    def decide(self, run_id: str, invocation_id: str, decision: Decision) -> ApprovalRequest:
        """Settle the waiting call ``invocation_id`` of run ``run_id``; the request it settled.

        Raises:
            UnknownApprovalError: no such call is waiting.
        """
        ...

    def pending(self, thread_id: str) -> list[ApprovalRequest]:
        """The calls of ``thread_id`` that wait now, oldest first (a reloaded page shows them)."""
        ...


@dataclass(slots=True)
class _Waiting:
    request: ApprovalRequest
    future: asyncio.Future[Decision]


@dataclass(slots=True)
class InProcessApprovals:
    """:class:`Approvals` kept in this process: each waiting call is a future the page settles."""

    _waiting: dict[tuple[str, str], _Waiting] = field(default_factory=dict)
    """By run id and invocation id (a model's explicit ids repeat across runs)."""

    async def request(self, request: ApprovalRequest) -> Decision:
        """Wait until :meth:`decide` settles ``request`` (or the run is cancelled)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        key = (request.run_id, request.invocation_id)
        self._waiting[key] = _Waiting(request, future)
        try:
            return await future
        finally:
            self._waiting.pop(key, None)

    def decide(self, run_id: str, invocation_id: str, decision: Decision) -> ApprovalRequest:
        """Settle the waiting call ``invocation_id`` of run ``run_id`` with ``decision``
        (``InvalidDecisionError``, and the call still waits, if it edits parameters the call lacks)."""
        waiting = self._waiting.get((run_id, invocation_id))
        if waiting is None or waiting.future.done():
            raise UnknownApprovalError(f"no call {invocation_id!r} of run {run_id!r} is waiting for approval")
        check_edit(decision, invocation_id, waiting.request.gadget_name, waiting.request.parameters)
        del self._waiting[(run_id, invocation_id)]
        waiting.future.set_result(decision)
        return waiting.request

    def pending(self, thread_id: str) -> list[ApprovalRequest]:
        """The calls of ``thread_id`` waiting now."""
        return [w.request for w in self._waiting.values() if w.request.thread_id == thread_id]
