"""The outcome of an agent run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from llmist.execution import GadgetExecutionResult
from llmist.providers.base import Message, Usage

__all__ = ["AgentResult", "StopReason"]

StopReason: TypeAlias = Literal["no_calls", "task_complete", "max_iterations", "budget", "cancelled"]
"""Why the loop stopped."""


@dataclass(slots=True)
class AgentResult:
    """Everything a run produced."""

    output: str
    """The final text: the last response's prose, or the ``TaskCompletionSignal`` summary."""
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

    @property
    def cost(self) -> float:
        """Total USD: model calls plus gadgets."""
        return self.llm_cost + self.gadget_cost
