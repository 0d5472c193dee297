"""Compaction in a run: the ``transform_messages`` controller that compacts the conversation
before a model call once it nears the context window, and reports it to ``on_compaction``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from llmist.agent._features import Feature
from llmist.agent.compaction import Compaction, CompactionRequest, as_compaction, count_tokens, estimate_tokens
from llmist.agent.hooks import (
    CompactionContext,
    Controllers,
    Hooks,
    LLMCallContext,
    ReplaceMessages,
    call_observer,
)

if TYPE_CHECKING:
    from llmist.agent._run.plan import RunPlan
    from llmist.agent.spec import AgentSpec

__all__ = ["Compacting", "as_compaction", "compaction_hooks"]

logger = logging.getLogger("llmist.agent.compaction")


class Compacting(Feature):
    """Compaction as a feature: a controller alone, nothing around the run."""

    def hooks(self, spec: AgentSpec, plan: RunPlan) -> Hooks | None:
        """The compacting controller, when the spec compacts."""
        return compaction_hooks(as_compaction(spec.compaction), plan) if spec.compaction is not None else None


def compaction_hooks(compaction: Compaction, plan: RunPlan) -> Hooks:
    """The controller that compacts ``plan``'s conversations past ``compaction.threshold`` of the
    window, and reports each compaction to the plan's ``on_compaction`` observer."""
    window = plan.context_window
    limit, target = int(window * compaction.threshold), int(window * compaction.target)
    strategy = compaction.strategy

    async def compact(ctx: LLMCallContext) -> ReplaceMessages | None:
        before = count_tokens(ctx.messages)
        if before <= limit:
            return None
        request = CompactionRequest(ctx.messages, target, plan.provider, plan.model_name, plan.registry)
        done = await strategy.compact(request)
        if done.turns_dropped == 0:
            return None
        after = estimate_tokens(done.messages)
        logger.info(
            "compacted with %s: %d -> %d tokens, %d turns dropped", strategy.name, before, after, done.turns_dropped
        )
        obs = plan.hooks.observers
        if obs is not None and obs.on_compaction is not None:
            report = CompactionContext(
                ctx.iteration, strategy.name, before, after, len(ctx.messages), len(done.messages),
                done.turns_dropped, done.usage, done.cost,
            )  # fmt: skip
            await call_observer(obs.on_compaction, report)
        return ReplaceMessages(done.messages, done.usage, done.cost)

    return Hooks(controllers=Controllers(transform_messages=compact))
