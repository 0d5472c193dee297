"""The run's smallest records, at the floor of the agent package: what the rest is built on.

A call that waits for a person (:class:`PendingCall`) and the person's :class:`Decision`, one
guardrail check as it ended (:class:`GuardrailRecord`), one repair the loop made
(:class:`RepairEvent`, :data:`RepairKind`), and :func:`json_text`, the JSON form a session
stores them in. Each is also importable from the module that uses it (``approvals``,
``guardrails``, ``hooks``, ``repairs``, ``messages``): user code imports them from there or from
:mod:`llmist.agent`.

They live here, below the run machinery, so that the other records of a run (its events, its
result, its errors and its messages) can carry them while importing nothing of the agent but
this module and each other, the imports for type checking included (see "Where a run's records
live" in ``docs/agents.md``; ``tests/test_layers.py`` checks it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from llmist.syntax import ParsedCall

__all__ = [
    "Decision",
    "GuardrailKind",
    "GuardrailOutcome",
    "GuardrailRecord",
    "PendingCall",
    "RepairEvent",
    "RepairKind",
    "json_text",
]

# One encoder for every call (json.dumps with options builds a new one each time, which costs
# more than encoding a message); default=str: validated parameters may hold values JSON has no
# type for (a date, a path).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str, check_circular=False)
_ASCII_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), default=str, check_circular=False)


def json_text(data: Any) -> str:
    """``data`` as compact JSON text that any store can keep: UTF-8 as written, or, when the data
    holds a lone surrogate (a prompt read with ``surrogateescape``, a provider's split escape),
    which no UTF-8 store accepts, with every non-ASCII character escaped (it reads back the same)."""
    text = _ENCODER.encode(data)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return _ASCII_ENCODER.encode(data)
    return text


# --- approvals -------------------------------------------------------------------------------


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


# --- guardrails ------------------------------------------------------------------------------


GuardrailKind: TypeAlias = Literal["input", "tool_call", "tool_result", "output"]
"""What a guardrail guards."""

GuardrailOutcome: TypeAlias = Literal["pass", "tripwire", "refuse", "rewrite"]
"""How a check ended."""


@dataclass(frozen=True, slots=True)
class GuardrailRecord:
    """One check, as it ended: in ``AgentResult.guardrails``, a ``GuardrailEvent`` and a span."""

    name: str
    kind: GuardrailKind
    outcome: GuardrailOutcome
    reason: str = ""
    """The tripwire's or refusal's reason, or the rewrite's note (empty for a pass)."""
    data: Any = None
    """The verdict's data."""
    gadget: str | None = None
    """The call's gadget (tool guardrails)."""
    invocation_id: str | None = None
    """The call's id (tool guardrails)."""
    iteration: int = 0
    """The model response the check belongs to (0: before the first, for input guardrails)."""
    duration_ms: float = 0.0

    def describe(self) -> str:
        """One line: ``guardrail 'name' (kind) tripped: reason``."""
        verb = {"pass": "passed", "tripwire": "tripped", "refuse": "refused", "rewrite": "rewrote"}[self.outcome]
        call = f" {self.gadget}:{self.invocation_id}" if self.gadget else ""
        reason = f": {self.reason}" if self.reason else ""
        return f"guardrail {self.name!r} ({self.kind}{call}) {verb}{reason}"


# --- repairs ---------------------------------------------------------------------------------


RepairKind: TypeAlias = Literal[
    "gadget_name",
    "unknown_gadget",
    "parameter_name",
    "repeated_call",
    "invented_result",
    "body_as_prose",
    "json_call",
    "ignored_parameters",
    "name_as_argument",
    "extra_body",
    "first_word_name",
    "id_as_dependency",
    "dependency_by_name",
    "body_as_parameter",
    "values_in_order",
    "bare_parameter_names",
    "header_arguments",
    "numbered_parameters",
    "repeated_parameters",
    "value_as_list",
    "quoted_value",
    "null_value",
    "missing_dependency",
    "joined_words",
    "copied_prompt",
    "degenerate_response",
    "marker_spelling",
    "fused_argument",
    "code_fence",
    "missing_end",
]
"""What a repair fixed (the keys of ``AgentResult.repairs``)."""


@dataclass(frozen=True, slots=True)
class RepairEvent:
    """A repair the loop made (the ``on_repair`` observer's argument)."""

    type: ClassVar[str] = "repair"
    kind: RepairKind
    iteration: int
    """The model response (1-based) that needed it."""
    detail: str
    """What was wrong and what the loop did about it."""
    invocation_id: str | None = None
    """The call repaired, when the repair was about one call."""
