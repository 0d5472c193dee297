"""The agent's features, each one module of one shape: a :class:`Feature`.

A feature is an add-on to runs: typed output, sessions, deferred approvals, compaction, MCP
servers, tracing, guardrails, subagents. Each says three things, the three methods of its class
(the defaults do nothing):

- ``gadgets(spec)``: the gadgets it adds to every run of ``spec`` (they join the plan, and so
  the system prompt and the native tools).
- ``hooks(spec, plan)``: the hooks it needs, made once per plan and merged with the agent's own
  (its controllers decide before the agent's; its observers and interceptors come after them).
  Hooks that keep state for one run are added in ``wrap`` with ``run.add_hooks`` instead
  (``first=True``: controllers that decide before the agent's own, as guardrails do).
- ``wrap(run, events)``: what it does around one run. It may change the run before the loop
  starts (``run.history``, ``run.prompt``, ``run.add_gadgets``, ``run.add_hooks``), watch or add
  to its events, and finish it (``run.result``). It returns ``events`` itself when it has
  nothing to do for this run, so a feature a run does not use costs it nothing.

``llmist.agent._assemble`` applies them, in the order of its ``FEATURES``, and is the only
place that does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llmist.agent._run.context import RunContext, RunEvents
    from llmist.agent._run.plan import RunPlan
    from llmist.agent.hooks import Hooks
    from llmist.agent.spec import AgentSpec
    from llmist.gadgets import Gadget

__all__ = ["Feature"]


class Feature:
    """The shape of a feature (see the package docstring); each method's default does nothing."""

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
