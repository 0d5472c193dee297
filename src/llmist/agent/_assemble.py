"""Where a run is put together: :func:`start_run`, the only place that does it, read top to bottom.

A run starts from an :class:`~llmist.agent.spec.AgentSpec`, the agent's options frozen when the
run starts (``Agent.stream``, ``Agent.run`` and a subagent's call all come here):

1. **The plan** (:func:`plan_of`): the spec's provider, system prompt, gadgets, pricing and
   hooks, built once and kept in ``spec.plans`` while the options it is built from stay the
   same, so a run pays a dictionary lookup for it. A feature may make it instead (fallback
   models: each model's own plan inside the first's). Its gadgets are the agent's, then each
   feature's ``gadgets(spec)`` in :data:`FEATURES` order, then those the run adds (an MCP
   server's tools), then the output viewer. Its hooks are the agent's own and each feature's
   ``hooks(spec, plan)``, merged by the one rule of ``llmist.agent._run.hooks``.
2. **The run** (:class:`~llmist.agent._run.context.RunContext`): the prompt as a message's
   content (images checked against the model), the history, the signal, the subagent scope.
3. **The loop** (:func:`~llmist.agent._run.loop.run_loop`), innermost. It reads the run when it
   starts: the history, the prompt and the plan as the features left them, the hooks a
   feature added for this run merged with the plan's (by the same rule), and the two seams
   features fill: the prelude (calls run before the first model call) and the model choice.
4. **The features**, each wrapped around what is inside it, from the last of :data:`FEATURES`
   to the first, so the first is the outermost::

       tracing     the run's span around all the rest; per-run observers make the child spans
       guardrails  the input checked first, calls and results by per-run controllers that
                   decide first, the (typed) output last; a tripwire stops the run (and
                   ``run()`` raises, with ``raise_on_tripwire``)
       output      the prompt says how to finish; failed answers counted; the result typed
       subagents   the subagents' events merged into the stream; their usage added
       session     the history loaded before the loop starts; each iteration saved (a per-run
                   observer: a failed save fails the run); the last write waited for
       approvals   calls that need approval deferred (a plan controller); a paused session's
                   decided calls claimed, for the loop to run first (the run's prelude)
       mcp         servers connected and their tools added to the plan; closed at the end
       compaction  nothing around the run: a plan controller compacts before a model call
       fallback    each model's plan (the plan step); the run's model choice, which the loop
                   asks for each response's model and moves on after a model error

5. **The stream** (:class:`~llmist.agent.stream.AgentStream`) hands out the outermost events;
   :func:`run_to_end` runs it to its result (``Agent.run``), which each feature's
   ``returning`` sees first.

A feature is one module with one :class:`~llmist.agent._features.Feature` (see
``llmist.agent._features``). A new one takes the place in :data:`FEATURES` where its wrap must
sit. ``approvals``, which stops a run and resumes it later, sits inside ``session``, which has
loaded the conversation it resumes and saves what it keeps. Guardrails sit inside ``tracing``,
so the span records their verdicts, and outside ``output``, so they see the typed result (and
the prompt before typed output adds its instruction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from llmist.agent._features import Feature
from llmist.agent._features.approvals import DeferredApprovals
from llmist.agent._features.compaction import Compacting
from llmist.agent._features.fallback import Fallback
from llmist.agent._features.guardrails import Guarding
from llmist.agent._features.mcp import MCPServers
from llmist.agent._features.output import TypedOutput
from llmist.agent._features.session import Sessions
from llmist.agent._features.subagents import RunScope, Subagents
from llmist.agent._features.tracing import Tracing
from llmist.agent._run.context import RunContext, RunEvents
from llmist.agent._run.hooks import RunHooks
from llmist.agent._run.loop import run_loop
from llmist.agent._run.media import UserPrompt, user_content
from llmist.agent._run.plan import RunPlan, build_plan
from llmist.agent.result import AgentResult
from llmist.agent.spec import AgentSpec
from llmist.agent.stream import AgentStream
from llmist.gadgets import AbortSignal, Gadget
from llmist.providers.base import Message
from llmist.providers.vision import check_images_accepted

__all__ = ["FEATURES", "plan_of", "run_to_end", "start_run"]

FEATURES: tuple[Feature, ...] = (
    Tracing(),
    Guarding(),
    TypedOutput(),
    Subagents(),
    Sessions(),
    DeferredApprovals(),
    MCPServers(),
    Compacting(),
    Fallback(),
)
"""Every feature, outermost first (see the module docstring for what each does where)."""

_PLANNING = tuple(f for f in FEATURES if type(f).plan is not Feature.plan)
"""The features that may make a plan of their own."""

_RETURNING = tuple(f for f in FEATURES if type(f).returning is not Feature.returning)
"""The features that see the result ``Agent.run`` returns."""


def start_run(
    spec: AgentSpec,
    prompt: UserPrompt | None,
    *,
    signal: AbortSignal | None = None,
    history: Sequence[Message] | None = None,
    scope: RunScope | None = None,
) -> AgentStream[Any]:
    """Start a run of ``spec`` on ``prompt`` (steps 1 to 5 of the module docstring); iterate
    the stream it returns to run it."""
    return AgentStream(*_assembled(spec, prompt, signal, history, scope))


async def run_to_end(
    spec: AgentSpec,
    prompt: UserPrompt | None,
    *,
    signal: AbortSignal | None = None,
    history: Sequence[Message] | None = None,
) -> AgentResult[Any]:
    """Run ``spec`` on ``prompt`` to its result (``Agent.run``), which each feature's
    ``returning`` sees before it is returned (and may raise instead)."""
    run, events = _assembled(spec, prompt, signal, history, None)
    async for _ in events:
        pass
    result = run.result
    assert result is not None
    for feature in _RETURNING:
        feature.returning(run, result)
    return result


def _assembled(
    spec: AgentSpec,
    prompt: UserPrompt | None,
    signal: AbortSignal | None,
    history: Sequence[Message] | None,
    scope: RunScope | None,
) -> tuple[RunContext, RunEvents]:
    plan = plan_of(spec)
    content = None if prompt is None else user_content(prompt)
    if content is not None and not isinstance(content, str):
        name = getattr(plan.provider, "name", "")
        check_images_accepted([Message("user", content)], plan.model_name, plan.vision, provider=name)
    run = RunContext(
        spec, plan, content, history, signal if signal is not None else AbortSignal(), plan_of, FEATURES, scope
    )
    events: RunEvents = run_loop(run)
    for feature in reversed(FEATURES):
        events = feature.wrap(run, events)
    return run, events


def plan_of(spec: AgentSpec, added: tuple[Gadget, ...] = ()) -> RunPlan:
    """The plan of ``spec`` with the gadgets a run ``added`` (step 1): kept in ``spec.plans``,
    built on the first call (for each ``added``: an MCP server's tools, compared by identity)."""
    plans = cast("dict[tuple[Gadget, ...], RunPlan]", spec.plans)  # the spec types them by a protocol
    plan = plans.get(added)
    if plan is None:
        plan = _build(spec, added)
        if added:  # one set of added gadgets kept beside the plain plan: a server's tools change
            for key in [key for key in plans if key]:
                del plans[key]
        plans[added] = plan
    return plan


def _build(spec: AgentSpec, added: tuple[Gadget, ...]) -> RunPlan:
    for feature in _PLANNING:
        made = feature.plan(spec, added, plan_of)
        if made is not None:
            return made
    from_features = [g for feature in FEATURES for g in feature.gadgets(spec)]
    gadgets = [*spec.gadgets, *from_features, *added]
    plan = build_plan(spec, gadgets, added="server" if added else "feature" if from_features else None)
    needed = [(i, h) for i, feature in enumerate(FEATURES) if (h := feature.hooks(spec, plan)) is not None]
    plan.hooks = RunHooks(spec.hooks, needed)
    return plan
