"""A run with fallback models: which model answers each response, and the plan it is asked with.

The policy (what moves a request on, the cooldown, the error naming every failure) is
:mod:`llmist.providers.fallback`'s, applied by its :class:`~llmist.providers.fallback.FallbackRequest`;
this module only gives the loop each model's plan (its own syntax, system prompt, tools and
prices, with the run's own hooks), response by response.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

from llmist.agent._run.media import with_text
from llmist.agent._run.plan import RunPlan
from llmist.gadgets import render_call
from llmist.providers.base import Message, ToolCall
from llmist.providers.errors import ProviderError
from llmist.providers.fallback import FallbackModel, FallbackRequest

__all__ = ["ModelSwitch", "as_text_calls"]


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


def as_text_calls(messages: list[Message], plan: RunPlan) -> None:
    """The conversation's native tool calls rewritten as calls in ``plan``'s text syntax, and their
    results as plain results: the next model, asked without tools, reads them as it reads its
    own (a provider refuses tool calls in a request that declares no tools)."""
    for i, m in enumerate(messages):
        if m.tool_calls:
            written = "\n".join(_written(plan, call) for call in m.tool_calls)
            content = with_text(m.content, written) if m.text else written
            messages[i] = dataclasses.replace(m, content=content, tool_calls=())
        elif m.tool_call_id is not None:
            messages[i] = dataclasses.replace(m, tool_call_id=None)


def _written(plan: RunPlan, call: ToolCall) -> str:
    """A native call as ``plan``'s model would write it (the block syntax where it cannot)."""
    try:
        params: Any = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        params = None
    gadget = plan.by_name.get(call.name)
    if gadget is None or not isinstance(params, dict):
        return f"{call.name}({call.arguments})"
    m = plan.markers
    markers = {"start_prefix": m.start, "end_prefix": m.end, "arg_prefix": m.arg}
    try:
        return render_call(gadget, params, "emoji" if plan.syntax == "emoji" else "block", **markers)
    except ValueError:  # a value the emoji syntax cannot hold
        return render_call(gadget, params, "block", **markers)
