"""Fallback models as a feature: with ``model=[...]`` (a :class:`~llmist.providers.FallbackModel`)
each response is asked of the first model not cooling down, and the next one takes it over after
a model error.

The policy (what moves a request on, the cooldown, the error naming every failure) is
:mod:`llmist.providers.fallback`'s, applied by its :class:`~llmist.providers.fallback.FallbackRequest`.
This feature gives each model its own plan (:meth:`Fallback.plan`: its syntax, system prompt,
tools and prices, from the spec with that model) and gives the run a :class:`ModelSwitch`
(:meth:`Fallback.wrap`), which the loop asks for the plan of each response
(``llmist.agent._run.context.ModelChoice``). What the loop does when a model fails mid-response
(the calls it started are kept, the response starts over on the next model) is the loop's.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from llmist.agent._features import Feature
from llmist.agent._run.media import with_text
from llmist.agent._run.plan import RunPlan
from llmist.gadgets import Gadget, render_call
from llmist.models import ModelRegistry
from llmist.providers.base import Message, ToolCall
from llmist.providers.client import LLMClient
from llmist.providers.errors import ProviderError
from llmist.providers.fallback import FallbackModel, FallbackRequest

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent._run.hooks import RunHooks
    from llmist.agent.spec import AgentSpec

__all__ = ["Fallback", "ModelSwitch", "as_text_calls"]


class Fallback(Feature):
    """Fallback models: a plan per model, and a run that moves between them."""

    def plan(
        self, spec: AgentSpec, added: tuple[Gadget, ...], plan_of: Callable[[AgentSpec, tuple[Gadget, ...]], RunPlan]
    ) -> RunPlan | None:
        """With fallback models: the first model's plan, holding each model's own plan (from the
        spec with that model: its syntax, prompt, prices and the features' hooks made for it)."""
        chain = spec.model
        if not isinstance(chain, FallbackModel):
            return None
        members = tuple(plan_of(spec.changed(model=chain.resolve(i)), added) for i in range(len(chain.models)))
        if spec.gadget_settings.llm_client is None:  # gadgets' model calls fall back too
            registry = spec.model_registry if isinstance(spec.model_registry, ModelRegistry) else None
            client = LLMClient(model=chain, model_registry=registry)
            members = tuple(dataclasses.replace(m, llm_client=client) for m in members)
        return dataclasses.replace(members[0], chain=chain, members=members)

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """A run with fallback models asks them through a :class:`ModelSwitch`."""
        if isinstance(run.spec.model, FallbackModel):
            run.models = ModelSwitch(run)
        return events


class ModelSwitch:
    """One run's way through its models: :meth:`begin` each response, :meth:`failed` when the
    model asked fails (the next one's plan, or the error that ends the way), :meth:`answered`.

    It reads the run's plan when the first response begins, after the features outside this
    one changed it (an MCP server's tools)."""

    def __init__(self, run: RunContext) -> None:
        self._run = run
        self._plans: dict[int, tuple[RunPlan, RunHooks]] = {}
        self._way: FallbackRequest | None = None

    def begin(self) -> tuple[RunPlan, RunHooks]:
        """A new response: the plan of the first model not cooling down."""
        chain = self._run.plan.chain
        assert chain is not None
        self._way = chain.request()
        return self._plan(self._way.current)

    def failed(self, error: ProviderError) -> tuple[RunPlan, RunHooks]:
        """The model asked failed with ``error`` (its retries spent): the next model's plan.

        Raises ``error`` when the policy does not move the request on for it, and
        :class:`~llmist.providers.errors.AllModelsFailedError` when no model is left."""
        assert self._way is not None
        return self._plan(self._way.failed(error))

    def answered(self) -> None:
        """The model asked answered (its cooldown, if any, ends)."""
        if self._way is not None:
            self._way.succeeded()

    def adapt(self, messages: list[Message], before: RunPlan, after: RunPlan) -> None:
        """From a native model to a text one: the calls rewritten as text (:func:`as_text_calls`)."""
        if before.syntax == "native" and after.syntax != "native":
            as_text_calls(messages, after)

    def _plan(self, index: int) -> tuple[RunPlan, RunHooks]:
        chosen = self._plans.get(index)
        if chosen is None:
            plan = self._run.plan.members[index]
            chosen = self._plans[index] = (plan, self._run.hooks_for(plan))
        return chosen


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
