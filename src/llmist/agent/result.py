"""The outcome of an agent run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeAlias

from typing_extensions import TypeVar

from llmist.agent.approvals import PendingCall
from llmist.execution import GadgetExecutionResult
from llmist.providers.base import Message, Usage

__all__ = ["AgentResult", "OutputT", "StopReason"]

OutputT = TypeVar("OutputT", default=str)
"""The type of a run's final output: ``str`` unless the agent has an ``output_type``."""

StopReason: TypeAlias = Literal[
    "no_calls", "task_complete", "max_iterations", "budget", "cancelled", "awaiting_approval"
]
"""Why the loop stopped (``"awaiting_approval"``: calls wait for a person's decision, listed in
:attr:`AgentResult.pending`; the session keeps them, and a later run goes on once they are decided)."""


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
    pending: list[PendingCall] = field(default_factory=list)
    """With ``stop_reason == "awaiting_approval"``: the calls that wait (invocation id, gadget,
    parameters, why), in the order the model made them; see :doc:`approvals`."""

    @property
    def cost(self) -> float:
        """Total USD: model calls plus gadgets."""
        return self.llm_cost + self.gadget_cost
