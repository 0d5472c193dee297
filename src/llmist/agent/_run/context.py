"""One run as the assembler puts it together: what it was given, what the features add to it,
and its result. The loop starts from it and hands its result back to it."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from llmist.agent._run.hooks import RunHooks
from llmist.agent.events import AgentEvent, SubagentEvent
from llmist.agent.hooks import Hooks
from llmist.agent.result import AgentResult
from llmist.gadgets import AbortSignal, Gadget
from llmist.providers.base import ContentPart, Message, Usage

if TYPE_CHECKING:
    from llmist.agent._run.calls import ResponseCalls
    from llmist.agent._run.plan import RunPlan
    from llmist.agent.messages import GadgetResultMessage
    from llmist.agent.spec import AgentSpec
    from llmist.execution import GadgetExecutionResult
    from llmist.providers.errors import ProviderError

__all__ = ["Events", "MessageOf", "ModelChoice", "Prelude", "RunContext", "RunEvents", "RunScope"]

Events: TypeAlias = list[AgentEvent]
"""The events one step of a run produced, in order."""

RunEvents: TypeAlias = AsyncGenerator[Events, None]
"""A run's events, step by step: the loop's, or a feature's wrapped around them."""

MessageOf: TypeAlias = "Callable[[GadgetExecutionResult, bool], GadgetResultMessage]"
"""How the loop turns a result into the message the model reads (``bool``: the response made
native tool calls); the same for a prelude's calls as for any other."""


class Prelude(Protocol):
    """Calls a run runs before its first model call, as the step of a response that already
    happened (the approvals feature's: a paused run's decided calls). The loop runs it, then
    tells the ``on_iteration`` observer (iteration 0), then goes on with the run's prompt."""

    @property
    def size(self) -> int:
        """How many calls it runs (for ``on_iteration``)."""
        ...

    @property
    def invocation_ids(self) -> Sequence[str]:
        """Its calls' ids (the run's own calls are numbered after them)."""
        ...

    def run(self, calls: ResponseCalls, messages: list[Message], message_of: MessageOf) -> RunEvents:
        """Run the calls through ``calls`` (the run's) and add their results to ``messages``."""
        ...


class ModelChoice(Protocol):
    """Which model answers each response, when a run has several (the fallback feature's)."""

    def begin(self) -> tuple[RunPlan, RunHooks]:
        """A new response: the plan to ask (and its hooks with the run's own)."""
        ...

    def failed(self, error: ProviderError) -> tuple[RunPlan, RunHooks]:
        """The model asked failed with ``error``: the next one's plan, or ``error`` raised."""
        ...

    def answered(self) -> None:
        """The model asked answered."""
        ...

    def adapt(self, messages: list[Message], before: RunPlan, after: RunPlan) -> None:
        """``messages`` (written for ``before``'s model) made readable to ``after``'s."""
        ...


@dataclass(slots=True)
class RunScope:
    """Where one run sits in a subagent tree, and what its subagents hand back to it."""

    depth: int = 0
    path: tuple[str, ...] = ()
    events: collections.deque[SubagentEvent] = field(default_factory=collections.deque)
    """Subagent events not yet passed to the stream."""
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    usage: Usage = field(default_factory=Usage)
    """Token usage of the run's subagents (their own subagents included)."""

    def emit(self, event: SubagentEvent) -> None:
        """Pass a subagent's event on to this run's stream."""
        self.events.append(event)
        self.ready.set()

    def take(self) -> list[Any]:
        """The events waiting, oldest first."""
        out = list(self.events)
        self.events.clear()
        self.ready.clear()
        return out


@dataclass(slots=True)
class RunContext:
    """One run: its spec and plan, its input, its signal, and (once it ended) its result.

    Features change it before the loop starts (a session sets ``history``, approvals set
    ``prelude``, fallback sets ``models``, typed output adds to ``prompt``, an MCP server's
    tools join through :meth:`add_gadgets`, tracing adds hooks through :meth:`add_hooks`) and
    read ``result`` after it ended."""

    spec: AgentSpec
    plan: RunPlan
    """The spec's plan (with the gadgets :meth:`add_gadgets` added, once it was called)."""
    prompt: str | tuple[ContentPart, ...] | None
    history: Sequence[Message] | None
    """The conversation the run continues (``None``: a new one, or the session's)."""
    signal: AbortSignal
    replan: Callable[[AgentSpec, tuple[Gadget, ...]], RunPlan]
    """The plan of a spec with gadgets added (the assembler's, cached)."""
    features: Sequence[object] = ()
    """The features, in the assembler's order (a feature's hooks are merged at its place)."""
    scope: RunScope | None = None
    """Where the run sits in a tree of subagent runs (``None``: at the top)."""
    added: list[tuple[int, Hooks]] | None = None
    """Hooks of this run only (features that keep state per run), with their features' ranks."""
    prelude: Prelude | None = None
    """Calls the loop runs before its first model call (a paused run's decided calls)."""
    models: ModelChoice | None = None
    """Which model answers each response (``None``: the plan's, always)."""
    result: AgentResult[Any] | None = None

    def add_gadgets(self, gadgets: Sequence[Gadget]) -> None:
        """Gadgets known only once the run started (an MCP server's tools) join this run."""
        self.plan = self.replan(self.spec, tuple(gadgets))

    def add_hooks(self, feature: object, hooks: Hooks) -> None:
        """``feature``'s hooks for this run only, merged with the plan's by the one rule
        (``llmist.agent._run.hooks``): as if the feature had made them for the plan."""
        if self.added is None:
            self.added = []
        self.added.append((self.features.index(feature), hooks))

    def hooks_for(self, plan: RunPlan) -> RunHooks:
        """The hooks a run of ``plan`` calls (the run's plan, or a fallback model's): the plan's,
        with this run's own merged in when it has any (the plan itself is not copied)."""
        added = self.added
        return plan.hooks.merged(added) if added else plan.hooks
