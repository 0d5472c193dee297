"""What ``Agent.stream()`` yields: the parser's events plus the loop's own.

Each event is a small frozen dataclass with a class-level ``type`` tag; :data:`AgentEvent` is
their union. From the syntax layer: ``TextEvent`` ("text"), ``ArgsPartialEvent``
("gadget_args_partial"), ``GadgetCallEvent`` ("gadget_call"). Added here:
``GadgetResultEvent`` ("gadget_result"), ``GadgetSkippedEvent`` ("gadget_skipped"),
``GadgetPendingEvent`` ("gadget_pending"),
``LLMResponseEndEvent`` ("llm_response_end"), ``ReasoningEvent`` ("reasoning"),
``SubagentEvent`` ("subagent"), ``GuardrailEvent`` ("guardrail") and ``ModelFallbackEvent``
("model_fallback").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from llmist.agent.records import GuardrailRecord, PendingCall
from llmist.execution import GadgetExecutionResult, GadgetSkip
from llmist.providers.base import Usage
from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, TextEvent
from llmist.syntax.frozen import fast_constructor

__all__ = [
    "AgentEvent",
    "GadgetPendingEvent",
    "GadgetResultEvent",
    "GadgetSkippedEvent",
    "GuardrailEvent",
    "LLMResponseEndEvent",
    "ModelFallbackEvent",
    "ReasoningEvent",
    "SubagentEvent",
]


@dataclass(frozen=True, slots=True)
class GadgetResultEvent:
    """A gadget call finished (successfully or with an error)."""

    type: ClassVar[str] = "gadget_result"
    result: GadgetExecutionResult


build_result_event = fast_constructor(GadgetResultEvent)
"""``GadgetResultEvent(result)`` without its frozen ``__init__``: how the loop makes the event of
every call's result (``llmist.syntax.frozen``)."""

GadgetSkippedEvent: TypeAlias = GadgetSkip
"""A call was not run because a call it depends on failed (type ``"gadget_skipped"``): the
execution layer's one skip record, yielded as it is."""


@dataclass(frozen=True, slots=True)
class GadgetPendingEvent:
    """A call did not run: it waits for a person's decision (``Agent(approvals="defer")``), or
    for a call it depends on that does. The run ends ``"awaiting_approval"`` after this response."""

    type: ClassVar[str] = "gadget_pending"
    pending: PendingCall


@dataclass(frozen=True, slots=True)
class LLMResponseEndEvent:
    """The model finished one response (its calls may still be running)."""

    type: ClassVar[str] = "llm_response_end"
    finish_reason: str | None
    usage: Usage | None
    model: str | None = None
    """The model that wrote the response (``provider:model``; a test double's name), or ``None``
    when a controller supplied it."""


@dataclass(frozen=True, slots=True)
class ReasoningEvent:
    """Thinking text a reasoning model streamed (where the provider sends it). It never reaches
    the call parser, the run's output or the conversation: it is for showing, not for acting on."""

    type: ClassVar[str] = "reasoning"
    content: str


@dataclass(frozen=True, slots=True)
class SubagentEvent:
    """An event of a subagent's run, as it reaches the calling run's stream (see :doc:`subagents`)."""

    type: ClassVar[str] = "subagent"
    depth: int
    """1 for a subagent of the top run, 2 for one of its subagents, ..."""
    path: tuple[str, ...]
    """``"gadget name:invocation id"`` of each subagent call from the top run down to this one."""
    event: AgentEvent
    """The subagent's own event (never itself a ``SubagentEvent``: deeper ones come tagged directly)."""


@dataclass(frozen=True, slots=True)
class GuardrailEvent:
    """A guardrail checked something (see :mod:`llmist.agent.guardrails`): passed, tripped,
    refused a call or rewrote what it guards. It comes before what its verdict decided (a
    refused call's result, the end of the run)."""

    type: ClassVar[str] = "guardrail"
    record: GuardrailRecord


@dataclass(frozen=True, slots=True)
class ModelFallbackEvent:
    """A model failed and the next one of the agent's models takes over the response (see
    :mod:`llmist.providers.fallback`).

    With ``restart`` the failed model's response had already streamed: the next model starts
    the response over, and the text shown since the response began is void. Calls of that
    response that had started (``kept_calls``) are not run again: they keep their results, which
    answer the same call written again and are otherwise reported to the next model."""

    type: ClassVar[str] = "model_fallback"
    iteration: int
    """The response (1-based) being answered."""
    failed: str
    """The model that failed (``provider:model``)."""
    model: str
    """The model that answers now."""
    error: str
    """What failed, as ``ErrorType: message``."""
    restart: bool = False
    """The response had begun streaming: it starts over."""
    kept_calls: tuple[str, ...] = ()
    """Invocation ids of the calls that had started before the restart."""


AgentEvent: TypeAlias = (
    TextEvent
    | ArgsPartialEvent
    | GadgetCallEvent
    | GadgetResultEvent
    | GadgetSkippedEvent
    | GadgetPendingEvent
    | LLMResponseEndEvent
    | ReasoningEvent
    | SubagentEvent
    | GuardrailEvent
    | ModelFallbackEvent
)
"""Any event ``Agent.stream()`` yields."""
