"""The agent's features, each one module of one shape: a :class:`Feature`.

A feature is an add-on to runs: tracing, guardrails, typed output, subagents, sessions, deferred
approvals, MCP servers, compaction, fallback models. Each says up to five things, the methods of
its class (the defaults do nothing):

- ``plan(spec, added, plan_of)``: a plan of its own making for ``spec``, instead of the usual
  one (fallback: the first model's, holding each model's own). The first feature that makes
  one wins; most make none.
- ``gadgets(spec)``: the gadgets it adds to every run of ``spec`` (they join the plan, and so
  the system prompt and the native tools).
- ``hooks(spec, plan)``: the hooks it needs, made once per plan. Hooks that keep state for one
  run are added in ``wrap`` with ``run.add_hooks(self, hooks)`` instead. Both are merged with
  the agent's own by the one rule of ``llmist.agent._run.hooks`` (controllers first, observers
  and interceptors after the agent's, features in the order of ``FEATURES``).
- ``wrap(run, events)``: what it does around one run. It may change the run before the loop
  starts (``run.history``, ``run.prompt``, ``run.add_gadgets``, ``run.add_hooks``, and the
  loop's two seams: ``run.prelude``, calls run before the first model call, and
  ``run.models``, which model answers each response), watch or add to its events, and finish
  it (``run.result``). It returns ``events`` itself when it has nothing to do for this run, so
  a feature a run does not use costs it nothing.
- ``returning(run, result)``: what it does when ``Agent.run`` returns ``result`` (a stream
  ends without it): it may raise instead (guardrails' ``raise_on_tripwire``).

``llmist.agent._assemble`` applies them, in the order of its ``FEATURES``, and is the only
place that does. A new feature is its module and its place in ``FEATURES``; nothing else
changes (not ``Agent``, ``AgentSpec`` or the builder, beyond the option it reads).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent._run.plan import RunPlan
    from llmist.agent.hooks import Hooks
    from llmist.agent.result import AgentResult
    from llmist.agent.spec import AgentSpec
    from llmist.gadgets import Gadget

__all__ = ["Feature"]


class Feature:
    """The shape of a feature (see the package docstring); each method's default does nothing."""

    def plan(
        self, spec: AgentSpec, added: tuple[Gadget, ...], plan_of: Callable[[AgentSpec, tuple[Gadget, ...]], RunPlan]
    ) -> RunPlan | None:
        """A plan of the feature's own making for ``spec`` with the gadgets a run ``added``
        (``plan_of`` makes, and keeps, the plan of another spec); ``None``: the usual one."""
        return None

    def gadgets(self, spec: AgentSpec) -> Sequence[Gadget]:
        """The gadgets the feature adds to every run of ``spec``."""
        return ()

    def hooks(self, spec: AgentSpec, plan: RunPlan) -> Hooks | None:
        """The hooks the feature needs, made once per plan (``plan``'s own hooks are not set yet)."""
        return None

    def wrap(self, run: RunContext, events: RunEvents) -> RunEvents:
        """``events`` (the run's, with the features after this one applied) as this feature
        runs them; ``events`` itself when it does nothing for ``run``."""
        return events

    def returning(self, run: RunContext, result: AgentResult[Any]) -> None:
        """``Agent.run`` is about to return ``result``, the result of ``run``; raise to raise instead."""
        return None
