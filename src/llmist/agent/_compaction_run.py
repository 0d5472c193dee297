"""Compaction in a run: the ``transform_messages`` controller that compacts the conversation
before a model call once it nears the context window, and reports it to ``on_compaction``."""

from __future__ import annotations

import logging

from llmist.agent._config import RunConfig
from llmist.agent.compaction import Compaction, CompactionRequest, CompactionStrategy, count_tokens, estimate_tokens
from llmist.agent.hooks import (
    CompactionContext,
    Controllers,
    Hooks,
    LLMCallContext,
    ReplaceMessages,
    call_observer,
)

__all__ = ["as_compaction", "compaction_hooks"]

logger = logging.getLogger("llmist.agent.compaction")


def as_compaction(option: Compaction | CompactionStrategy) -> Compaction:
    """The agent's ``compaction=`` option as a :class:`Compaction` (a bare strategy gets the defaults)."""
    if isinstance(option, Compaction):
        return option
    if isinstance(option, CompactionStrategy):
        return Compaction(option)
    raise TypeError(
        f"compaction must be a Compaction or a strategy (SlidingWindow, Summarize...), got {type(option).__name__}"
    )


def compaction_hooks(compaction: Compaction, cfg: RunConfig) -> Hooks:
    """The controller that compacts ``cfg``'s conversations past ``compaction.threshold`` of the window."""
    window = cfg.context_window
    limit, target = int(window * compaction.threshold), int(window * compaction.target)
    strategy = compaction.strategy

    async def compact(ctx: LLMCallContext) -> ReplaceMessages | None:
        before = count_tokens(ctx.messages)
        if before <= limit:
            return None
        request = CompactionRequest(ctx.messages, target, cfg.provider, cfg.model_name, cfg.registry)
        done = await strategy.compact(request)
        if done.turns_dropped == 0:
            return None
        after = estimate_tokens(done.messages)
        logger.info(
            "compacted with %s: %d -> %d tokens, %d turns dropped", strategy.name, before, after, done.turns_dropped
        )
        obs = cfg.observers
        if obs is not None and obs.on_compaction is not None:
            report = CompactionContext(
                ctx.iteration, strategy.name, before, after, len(ctx.messages), len(done.messages),
                done.turns_dropped, done.usage, done.cost,
            )  # fmt: skip
            await call_observer(obs.on_compaction, report)
        return ReplaceMessages(done.messages, done.usage, done.cost)

    return Hooks(controllers=Controllers(transform_messages=compact))
