"""The outcome of an agent run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeAlias

from typing_extensions import TypeVar

from llmist.agent.events import ModelFallbackEvent
from llmist.agent.records import GuardrailRecord, PendingCall
from llmist.execution import GadgetExecutionResult
from llmist.providers.base import Message, Usage

__all__ = ["AgentResult", "ModelUsage", "OutputT", "StopReason"]

OutputT = TypeVar("OutputT", default=str)
"""The type of a run's final output: ``str`` unless the agent has an ``output_type``."""

StopReason: TypeAlias = Literal[
    "no_calls", "task_complete", "max_iterations", "budget", "cancelled", "awaiting_approval", "guardrail"
]
"""Why the loop stopped (``"awaiting_approval"``: calls wait for a person's decision, listed in
:attr:`AgentResult.pending`; the session keeps them, and a later run goes on once they are decided;
``"guardrail"``: a guardrail's tripwire, see :attr:`AgentResult.tripwire`)."""


@dataclass(slots=True)
class ModelUsage:
    """What one model of a run did: its responses, tokens and cost."""

    responses: int = 0
    """Responses it wrote."""
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    """USD (0 when its price is unknown)."""
    iterations: list[int] = field(default_factory=list)
    """The responses it wrote, by iteration (1-based)."""

    def add(self, iteration: int, usage: Usage | None, cost: float) -> None:
        """Count one response."""
        self.responses += 1
        self.iterations.append(iteration)
        if usage is not None:
            self.usage = self.usage + usage
        self.cost += cost


@dataclass(slots=True)
class AgentResult(Generic[OutputT]):
    """Everything a run produced."""

    output: OutputT
    """The final answer: with an ``output_type``, the validated instance; else the last
    response's prose, or the ``TaskCompletionSignal`` summary."""
    gadget_results: list[GadgetExecutionResult]
    """Every gadget call of the run, in completion order (skipped calls included)."""
    usage: Usage
    """Token usage summed over all model calls."""
    llm_cost: float
    """USD spent on model calls (0 when prices are unknown)."""
    gadget_cost: float
    """USD reported by gadgets."""
    iterations: int
    """Model calls made (including ones a controller answered)."""
    stop_reason: StopReason
    messages: list[Message] = field(default_factory=list)
    """The whole conversation, system prompt first."""
    repairs: dict[str, int] = field(default_factory=dict)
    """Repairs the loop made of the model's mistakes, by kind (``"unknown_gadget"``,
    ``"gadget_name"``, ``"repeated_call"``, ``"invented_result"``); see :mod:`llmist.agent.repairs`."""
    guardrails: list[GuardrailRecord] = field(default_factory=list)
    """Every guardrail check of the run, in order (see :mod:`llmist.agent.guardrails`)."""
    tripwire: GuardrailRecord | None = None
    """The check that ended the run (``stop_reason == "guardrail"``), with its name, reason and data."""
    models: dict[str, ModelUsage] = field(default_factory=dict)
    """Per model (``provider:model``): the responses it wrote, its usage and cost; one entry
    unless the agent has fallback models."""
    fallbacks: list[ModelFallbackEvent] = field(default_factory=list)
    """Each time a model failed and the next took over."""
    pending: list[PendingCall] = field(default_factory=list)
    """With ``stop_reason == "awaiting_approval"``: the calls that wait (invocation id, gadget,
    parameters, why), in the order the model made them; see :doc:`approvals`."""

    @property
    def cost(self) -> float:
        """Total USD: model calls plus gadgets."""
        return self.llm_cost + self.gadget_cost
