"""One run as the assembler puts it together: what it was given, what the features add to it,
and its result. The loop starts from it and hands its result back to it."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from llmist.agent.events import AgentEvent
from llmist.agent.hooks import Hooks
from llmist.agent.result import AgentResult
from llmist.gadgets import AbortSignal, Gadget
from llmist.providers.base import ContentPart, Message

if TYPE_CHECKING:
    from llmist.agent._features.subagents import RunScope
    from llmist.agent._run.plan import RunPlan
    from llmist.agent._run.resume import Resumption
    from llmist.agent.spec import AgentSpec

__all__ = ["Events", "RunContext", "RunEvents"]

Events: TypeAlias = list[AgentEvent]
"""The events one step of a run produced, in order."""

RunEvents: TypeAlias = AsyncGenerator[Events, None]
"""A run's events, step by step: the loop's, or a feature's wrapped around them."""


@dataclass(slots=True)
class RunContext:
    """One run: its spec and plan, its input, its signal, and (once it ended) its result.

    Features change it before the loop starts (a session sets ``history``, approvals set
    ``resume``, typed output adds
    to ``prompt``, an MCP server's tools join through :meth:`add_gadgets`, tracing adds hooks
    through :meth:`add_hooks`) and read ``result`` after it ended."""

    spec: AgentSpec
    plan: RunPlan
    """The spec's plan (with the gadgets :meth:`add_gadgets` added, once it was called)."""
    prompt: str | tuple[ContentPart, ...] | None
    history: Sequence[Message] | None
    """The conversation the run continues (``None``: a new one, or the session's)."""
    signal: AbortSignal
    replan: Callable[[AgentSpec, tuple[Gadget, ...]], RunPlan]
    """The plan of a spec with gadgets added (the assembler's, cached)."""
    scope: RunScope | None = None
    """Where the run sits in a tree of subagent runs (``None``: at the top)."""
    hooks: list[Hooks] | None = None
    """Hooks of this run only (features that keep state per run), after the plan's."""
    leading: list[Hooks] | None = None
    """Hooks of this run only whose controllers decide before the plan's (guardrails)."""
    resume: Resumption | None = None
    """Decided calls of a paused run, which the loop runs before its first model call."""
    result: AgentResult[Any] | None = None

    def add_gadgets(self, gadgets: Sequence[Gadget]) -> None:
        """Gadgets known only once the run started (an MCP server's tools) join this run."""
        self.plan = self.replan(self.spec, tuple(gadgets))

    def add_hooks(self, hooks: Hooks, *, first: bool = False) -> None:
        """Hooks for this run only, after the plan's and those added before; with ``first``,
        before the plan's (controllers that decide before the agent's own: a person is not asked
        to approve a call a guardrail refuses)."""
        if first:
            if self.leading is None:
                self.leading = []
            self.leading.append(hooks)
            return
        if self.hooks is None:
            self.hooks = []
        self.hooks.append(hooks)

    def loop_plan(self) -> RunPlan:
        """The plan the loop runs with: the plan, with this run's own hooks when it has any."""
        return self.with_run_hooks(self.plan)

    def with_run_hooks(self, plan: RunPlan) -> RunPlan:
        """``plan`` with this run's own hooks (``plan`` itself when it has none): the run's plan,
        or one of its fallback models' plans."""
        if not self.hooks and not self.leading:
            return plan
        return plan.with_hooks(self.hooks or (), before=self.leading or ())
