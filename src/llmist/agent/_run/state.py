"""The running totals of one run: iteration count, token usage, costs and finished calls."""

from __future__ import annotations

import time

from llmist.agent.events import ModelFallbackEvent
from llmist.agent.result import ModelUsage
from llmist.execution import GadgetExecutionResult
from llmist.providers.base import Usage

__all__ = ["RunState"]


class RunState:
    """Mutable totals of one run (the loop and the run's calls both add to them)."""

    __slots__ = (
        "fallbacks",
        "gadget_cost",
        "iteration",
        "llm_cost",
        "models",
        "repairs",
        "results",
        "started",
        "usage",
    )

    def __init__(self) -> None:
        self.iteration = 0
        self.usage = Usage()
        self.llm_cost = 0.0
        self.gadget_cost = 0.0
        self.results: list[GadgetExecutionResult] = []
        """Every finished call of the run, in completion order."""
        self.started = time.perf_counter()
        self.repairs: dict[str, int] = {}
        """Repairs made, by kind."""
        self.models: dict[str, ModelUsage] = {}
        """What each model that answered did (``provider:model`` -> its responses, usage, cost)."""
        self.fallbacks: list[ModelFallbackEvent] = []
        """Each time a model failed and the next took over."""

    def model_usage(self, model: str) -> ModelUsage:
        """The record of ``model`` (made on its first response)."""
        found = self.models.get(model)
        if found is None:
            found = self.models[model] = ModelUsage()
        return found
