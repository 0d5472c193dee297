"""The agent's errors, in one place (each also importable from the module that raises it)::

LlmistError
├── OutputValidationError    a run ended without a valid final answer of its output type
├── GuardrailTripped         a guardrail tripped and the agent asked for raise_on_tripwire=True
├── RepairRefused            strict mode: the model wrote something the loop would have repaired
├── SessionError             a session store could not be read or written
│   └── SessionConflictError another writer changed the session since it was loaded
├── MessageFormatError       a saved conversation cannot be read (also a ValueError)
├── ApprovalError            calls that wait for approval cannot be decided or resumed as asked
│   ├── UnknownApprovalError   no call of that id waits for a decision (also a LookupError)
│   ├── AlreadyDecidedError    the call was decided before (names how)
│   ├── InvalidDecisionError   edited parameters the call does not have (also a ValueError)
│   ├── ApprovalsPendingError  a new prompt while calls still wait for decisions
│   └── ApprovalConflictError  another run holds the decided calls (is running them)
└── RealModelRequestBlocked  a test reached for a real model inside block_real_models()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llmist.errors import LlmistError

if TYPE_CHECKING:
    from llmist.agent.records import GuardrailRecord, RepairEvent
    from llmist.agent.result import AgentResult

__all__ = [
    "AlreadyDecidedError",
    "ApprovalConflictError",
    "ApprovalError",
    "ApprovalsPendingError",
    "GuardrailTripped",
    "InvalidDecisionError",
    "MessageFormatError",
    "OutputValidationError",
    "RealModelRequestBlocked",
    "RepairRefused",
    "SessionConflictError",
    "SessionError",
    "UnknownApprovalError",
]


class OutputValidationError(LlmistError):
    """The run ended without a valid final answer of the requested output type."""

    def __init__(self, message: str, result: AgentResult[Any]) -> None:
        super().__init__(message)
        self.result = result
        """The run's result (``output`` is the last prose; ``gadget_results`` hold the failed answers)."""


class GuardrailTripped(LlmistError):
    """A guardrail tripped and the agent's guardrails say ``raise_on_tripwire=True``
    (see :mod:`llmist.agent.guardrails`)."""

    def __init__(self, record: GuardrailRecord, result: AgentResult[Any]) -> None:
        super().__init__(record.describe())
        self.record = record
        """The check that tripped."""
        self.result = result
        """The run's result (``stop_reason == "guardrail"``)."""


class RepairRefused(LlmistError):
    """``Agent(strict=True)``: the model wrote something the loop would have had to repair."""

    def __init__(self, event: RepairEvent) -> None:
        super().__init__(
            f"strict mode: response {event.iteration} needed a repair ({event.kind}): {event.detail}. "
            "Without strict=True the loop repairs this and counts it in AgentResult.repairs."
        )
        self.event = event


class SessionError(LlmistError):
    """A session store could not be read or written (names the store, the session and why)."""


class SessionConflictError(SessionError):
    """Another writer changed the session since this one loaded it; nothing was overwritten."""


class ApprovalError(LlmistError):
    """Approvals cannot be decided or resumed as asked (the message says why and what to do)."""


class UnknownApprovalError(ApprovalError, LookupError):
    """A decision named a call that does not wait for one (never did, or the session has none)."""


class AlreadyDecidedError(ApprovalError):
    """A decision for a call that was decided before: the first decision stands."""


class InvalidDecisionError(ApprovalError, ValueError):
    """A decision the call cannot take: it edits parameters the call does not have (a typo in a
    name would otherwise be dropped by validation, and the call run as the model wrote it)."""


class ApprovalsPendingError(ApprovalError):
    """A run was given a new prompt while calls of its session still wait for decisions."""


class ApprovalConflictError(ApprovalError):
    """Another run holds the session's decided calls: it is running them (or died doing so on
    another machine)."""


class MessageFormatError(LlmistError, ValueError):
    """A JSON conversation could not be read: names the message, what was wrong and what was expected."""


class RealModelRequestBlocked(LlmistError):
    """A real model was called while ``block_real_models()`` was active (inside a test)."""
