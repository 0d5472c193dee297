"""Approvals that survive a restart: calls that wait for a person, and the person's decisions.

With ``Agent(..., approvals="defer")`` a call that needs approval does not run: the run ends
with ``stop_reason == "awaiting_approval"``, :attr:`AgentResult.pending` lists the calls as
:class:`PendingCall` records, and the session keeps them beside the conversation. Later, in
any process, a :class:`Decision` per call is stored with the session's ``decide``, and the next
run of the session runs the decided calls (once, however many processes try) and goes on.

The errors a decision or a resume can meet are ``ApprovalError`` and its kinds, in
:mod:`llmist.agent.errors` (importable from here too). ``PendingCall`` and ``Decision`` are records
a result, an event and a session carry: they live in :mod:`llmist.agent.records`, and import from
here as well.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llmist.agent.errors import (
    AlreadyDecidedError,
    ApprovalConflictError,
    ApprovalError,
    ApprovalsPendingError,
    InvalidDecisionError,
    UnknownApprovalError,
)
from llmist.agent.messages import GadgetResultMessage
from llmist.agent.records import Decision, PendingCall

__all__ = [
    "AlreadyDecidedError",
    "ApprovalConflictError",
    "ApprovalError",
    "ApprovalsPendingError",
    "Claimed",
    "Decision",
    "InvalidDecisionError",
    "PendingCall",
    "UnknownApprovalError",
    "check_edit",
    "denied_text",
    "edited_note",
]


@dataclass(frozen=True, slots=True)
class Claimed:
    """The decided calls of a session that a run now holds (it runs them; no other run can),
    with what an earlier holder that died recorded of them."""

    calls: list[PendingCall]
    """Every call that waited, in the order they were made, with its decision."""
    started: frozenset[str] = frozenset()
    """Calls an earlier holder started and never recorded a result for: whether they ran is unknown."""
    results: dict[str, GadgetResultMessage] = field(default_factory=dict)
    """Results an earlier holder recorded before it died, by invocation id."""


def check_edit(decision: Decision, invocation_id: str, gadget_name: str, parameters: Mapping[str, Any]) -> None:
    """Refuse a decision that edits parameters the call does not have (``parameters``: the call's
    own, every one with its default applied): validation would drop the unknown name, and the
    call would run as the model wrote it, which the person meant to change.

    Raises:
        InvalidDecisionError: naming the unknown parameters and the call's own.
    """
    unknown = sorted(set(decision.parameters or ()) - set(parameters))
    if unknown:
        raise InvalidDecisionError(
            f"call {invocation_id!r} ({gadget_name}) has no parameter {', '.join(repr(k) for k in unknown)}; "
            f"its parameters: {', '.join(parameters) or '(none)'}"
        )


def denied_text(gadget_name: str, reason: str = "") -> str:
    """What the model reads for a call a person denied."""
    why = f": {reason}" if reason else ""
    return f"Not run: the user declined this {gadget_name} call{why}."


def edited_note(parameters: dict[str, Any]) -> str:
    """The note before the result of a call a person edited before approving it."""
    edited = json.dumps(parameters, ensure_ascii=False, default=str)
    return f"(The user edited this call's parameters before approving it; it ran with {edited}.)\n"
