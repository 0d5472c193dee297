"""A run with fallback models: which model answers each response, and the plan it is asked with.

The policy (what moves a request on, the cooldown, the error naming every failure) is
:mod:`llmist.providers.fallback`'s, applied by its :class:`~llmist.providers.fallback.FallbackRequest`;
this module only gives the loop each model's plan (its own syntax, system prompt, tools and
prices, with the run's own hooks), response by response.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llmist.agent._run.plan import RunPlan
from llmist.providers.errors import ProviderError
from llmist.providers.fallback import FallbackModel, FallbackRequest

__all__ = ["ModelSwitch"]


class ModelSwitch:
    """One run's way through its models: :meth:`begin` each response, :meth:`failed` when the
    model asked fails (the next one's plan, or the error that ends the way), :meth:`answered`."""

    def __init__(
        self, chain: FallbackModel, members: Sequence[RunPlan], with_run_hooks: Callable[[RunPlan], RunPlan]
    ) -> None:
        self._chain = chain
        self._members = members
        self._with_run_hooks = with_run_hooks
        self._plans: dict[int, RunPlan] = {}
        self._way: FallbackRequest | None = None

    def begin(self) -> RunPlan:
        """A new response: the plan of the first model not cooling down."""
        self._way = self._chain.request()
        return self._plan(self._way.current)

    def failed(self, error: ProviderError) -> RunPlan:
        """The model asked failed with ``error`` (its retries spent): the next model's plan.

        Raises ``error`` when the policy does not move the request on for it, and
        :class:`~llmist.providers.errors.AllModelsFailedError` when no model is left."""
        assert self._way is not None
        return self._plan(self._way.failed(error))

    def answered(self) -> None:
        """The model asked answered (its cooldown, if any, ends)."""
        if self._way is not None:
            self._way.succeeded()

    def _plan(self, index: int) -> RunPlan:
        plan = self._plans.get(index)
        if plan is None:
            plan = self._plans[index] = self._with_run_hooks(self._members[index])
        return plan
