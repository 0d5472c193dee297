"""Approvals that survive a restart: calls that wait for a person, and the person's decisions.

With ``Agent(..., approvals="defer")`` a call that needs approval does not run: the run ends
with ``stop_reason == "awaiting_approval"``, :attr:`AgentResult.pending` lists the calls as
:class:`PendingCall` records, and the session keeps them beside the conversation. Later, in
any process, a :class:`Decision` per call is stored with the session's ``decide``, and the next
run of the session runs the decided calls (once, however many processes try) and goes on.

The errors a decision or a resume can meet are ``ApprovalError`` and its kinds, in
:mod:`llmist.agent.errors` (importable from here too).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from llmist.agent.errors import (
    AlreadyDecidedError,
    ApprovalConflictError,
    ApprovalError,
    ApprovalsPendingError,
    InvalidDecisionError,
    UnknownApprovalError,
)
from llmist.agent.messages import GadgetResultMessage, json_text
from llmist.syntax import ParsedCall

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
class Decision:
    """A person's answer to a call that waits: approve it, approve it with edited parameters, or
    deny it with a reason the model reads."""

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

    @classmethod
    def approve(cls, parameters: dict[str, Any] | None = None) -> Decision:
        """Run the call; with ``parameters``, run it with those instead (an ``edit``)."""
        return cls("approve") if parameters is None else cls("edit", dict(parameters))

    @classmethod
    def deny(cls, reason: str = "") -> Decision:
        """Do not run the call; the model reads that the user declined it, and ``reason``."""
        return cls("deny", reason=reason)

    def to_json(self) -> dict[str, Any]:
        """The decision as a JSON-ready dict."""
        out: dict[str, Any] = {"action": self.action}
        if self.parameters is not None:
            out["parameters"] = self.parameters
        if self.reason:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, data: Any) -> Decision:
        """A decision from :meth:`to_json`'s dict (``ValueError`` names what is wrong)."""
        if not isinstance(data, dict):
            raise ValueError(f"a decision is an object with an 'action', got {type(data).__name__}")
        return cls(data.get("action"), data.get("parameters"), str(data.get("reason") or ""))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call the run did not make: it waits for a decision, or for a call it depends on that
    waits for one."""

    invocation_id: str
    gadget_name: str
    parameters: dict[str, Any]
    """The parameters it would run with (validated, defaults applied; as parsed for a call that
    waits for another)."""
    reason: str
    """Why it waits, for a person: why approval is needed, or which call it runs after."""
    waits_for: str | None = None
    """Set when the call needs no decision itself: the invocation id of the call it runs after.
    If it needs approval, it is asked for when that call has been decided and has run."""
    decision: Decision | None = None
    """The decision, once one was made."""
    call: ParsedCall | None = field(default=None, compare=False, repr=False)
    """The call as the model wrote it (what a resumed run runs)."""

    @property
    def needs_decision(self) -> bool:
        """Whether a person must decide this call (else it runs after the call it waits for)."""
        return self.waits_for is None

    def to_json(self) -> str:
        """The record as a JSON string (what a session stores; its decision is kept apart)."""
        data: dict[str, Any] = {
            "invocation_id": self.invocation_id,
            "gadget_name": self.gadget_name,
            "parameters": self.parameters,
            "reason": self.reason,
        }
        if self.waits_for is not None:
            data["waits_for"] = self.waits_for
        if self.call is not None:
            data["call"] = _call_to_json(self.call)
        return json_text(data)

    @classmethod
    def from_json(cls, text: str, decision: Decision | None = None) -> PendingCall:
        """A record from :meth:`to_json`'s string, with ``decision`` (``ValueError`` if damaged)."""
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("invocation_id"), str):
            raise ValueError("a pending call record is an object with an 'invocation_id'")
        call = data.get("call")
        return cls(
            data["invocation_id"],
            str(data.get("gadget_name", "")),
            dict(data.get("parameters") or {}),
            str(data.get("reason", "")),
            data.get("waits_for"),
            decision,
            _call_from_json(call) if isinstance(call, dict) else None,
        )


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


def _call_to_json(call: ParsedCall) -> dict[str, Any]:
    return {
        "gadget_name": call.gadget_name,
        "invocation_id": call.invocation_id,
        "parameters_raw": call.parameters_raw,
        "parameters": call.parameters,
        "parse_error": call.parse_error,
        "dependencies": list(call.dependencies),
        "syntax": call.syntax,
        "raw_args": call.raw_args,
        "body": call.body,
    }


def _call_from_json(data: dict[str, Any]) -> ParsedCall:
    return ParsedCall(
        gadget_name=str(data["gadget_name"]),
        invocation_id=str(data["invocation_id"]),
        parameters_raw=str(data.get("parameters_raw", "")),
        parameters=data.get("parameters"),
        parse_error=data.get("parse_error"),
        dependencies=tuple(data.get("dependencies") or ()),
        syntax=data.get("syntax", "block"),
        raw_args=data.get("raw_args"),
        body=data.get("body"),
    )
