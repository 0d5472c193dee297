"""Approvals from the page: a call that needs one waits for a person's Approve, Edit or Deny.

The page's buttons post a :class:`Decision`; the agent's ``before_gadget`` controller (installed
by :func:`llmist.web.to_asgi`) asks an :class:`Approvals` for it and turns it into the agent's
own actions (run, ``ReplaceParameters``, ``SkipGadget``).

:class:`Approvals` is the small interface between the two. :class:`InProcessApprovals`, the one
built in, keeps each pending call as a future in this process: the run waits while the page is
open, and a server restart loses the wait (the run it belonged to ends with the process). Approvals
that survive a restart (a run that ends waiting, and a decision that resumes it from any process)
plug in here as another implementation of the same interface.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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


@dataclass(frozen=True, slots=True)
class Decision:
    """A person's answer to an :class:`ApprovalRequest`."""

    action: Literal["approve", "edit", "deny"]
    parameters: dict[str, Any] | None = None
    """For ``edit``: the parameters to run the call with instead (validated again)."""
    reason: str = ""
    """For ``deny``: why, for the model to read."""

    def __post_init__(self) -> None:
        if self.action not in ("approve", "edit", "deny"):
            raise ValueError(f"a decision is 'approve', 'edit' or 'deny', got {self.action!r}")
        if self.action == "edit" and not isinstance(self.parameters, dict):
            raise ValueError("an 'edit' decision needs the edited parameters as a JSON object")


class UnknownApprovalError(LookupError):
    """A decision named a call that is not waiting (never was, or was decided already)."""


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
        """Settle the waiting call ``invocation_id`` of run ``run_id`` with ``decision``."""
        waiting = self._waiting.pop((run_id, invocation_id), None)
        if waiting is None or waiting.future.done():
            raise UnknownApprovalError(f"no call {invocation_id!r} of run {run_id!r} is waiting for approval")
        waiting.future.set_result(decision)
        return waiting.request

    def pending(self, thread_id: str) -> list[ApprovalRequest]:
        """The calls of ``thread_id`` waiting now."""
        return [w.request for w in self._waiting.values() if w.request.thread_id == thread_id]
