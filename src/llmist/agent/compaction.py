"""Compaction: keep a long conversation inside the model's context window.

``Agent(compaction=Compaction(SlidingWindow(keep_turns=8)))``: before each model call, when the
conversation's tokens pass ``threshold`` × the model's context window (from the model registry,
or ``Agent(context_window=...)``), the strategy shrinks it to about ``target`` × the window.

A conversation is a *head* (the system prompt and the task), perhaps a
:class:`~llmist.agent.messages.CompactionSummary` of turns compacted earlier, then *turns*: a
model response with the results of its calls (and the user message that prompted it, if any).
Strategies keep or drop whole turns, so a call's block and its result are never split.

Built in:

- :class:`SlidingWindow`: the head, a note saying how many turns were dropped, the last turns;
- :class:`Summarize`: the same, with the dropped turns summarised by a model (the agent's own or
  a cheaper one); what that call costs joins the run's cost.

A strategy is any object with a ``name`` and ``async compact(request) -> Compacted``
(:class:`CompactionStrategy`). Each compaction reaches the ``on_compaction`` observer as a
:class:`~llmist.agent.hooks.CompactionContext` with the tokens before and after.

Token counts: the provider's usage of the last response where known (its input and output, plus
an estimate of what came after it), else :func:`~llmist.agent.prompt.estimate_prompt_tokens`
(tiktoken when installed, else characters / 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from llmist.agent._run.models import default_registry, pricer, resolve_agent_model
from llmist.agent.guard import check_model_allowed
from llmist.agent.messages import AssistantMessage, CompactionSummary
from llmist.agent.prompt import estimate_prompt_tokens
from llmist.providers.base import ImagePart, LLMRequest, Message, Provider, Usage, complete

__all__ = [
    "Compacted",
    "Compaction",
    "CompactionRequest",
    "CompactionStrategy",
    "SlidingWindow",
    "Summarize",
    "count_tokens",
    "split_turns",
]

_IMAGE_TOKENS = 1_000
"""Tokens counted for an image when estimating (providers charge roughly this for a typical one)."""

SUMMARY_SYSTEM = (
    "You summarise the earlier part of a conversation between a user, an AI assistant and the tools "
    "(gadgets) it called, so that the assistant can continue the task from the summary alone. Keep "
    "facts, decisions, results of tool calls, open questions and what remains to be done. Be concise."
)
"""The system prompt of :class:`Summarize`'s model call."""


@dataclass(frozen=True, slots=True)
class CompactionRequest:
    """What a strategy is asked to compact."""

    messages: Sequence[Message]
    """The whole conversation."""
    target_tokens: int
    """Aim at or below this many tokens."""
    provider: Provider
    """The agent's model (a summarising strategy may use it)."""
    model_name: str
    registry: Any = None
    """The agent's model registry (prices a summarising call), if any."""


@dataclass(frozen=True, slots=True)
class Compacted:
    """A strategy's answer."""

    messages: list[Message]
    """The compacted conversation."""
    turns_dropped: int
    """Whole turns removed (or replaced by a summary)."""
    usage: Usage = field(default_factory=Usage)
    """Tokens the compaction itself used (a summarising call)."""
    cost: float = 0.0
    """USD the compaction itself cost."""


@runtime_checkable
class CompactionStrategy(Protocol):
    """Shrinks a conversation; see the module docstring."""

    name: str
    """Reported in :class:`~llmist.agent.hooks.CompactionContext`."""

    async def compact(self, request: CompactionRequest) -> Compacted:
        """The compacted conversation; keep whole turns, never split a call from its result."""
        ...


@dataclass(slots=True)
class Compaction:
    """When to compact, and how.

    Args:
        strategy: How (default: a sliding window of the last 8 turns).
        threshold: Compact when the conversation passes this share of the context window.
        target: Share of the context window a compaction aims at.
    """

    strategy: CompactionStrategy = field(default_factory=lambda: SlidingWindow())
    threshold: float = 0.8
    target: float = 0.5

    def __post_init__(self) -> None:
        if not 0 < self.target < self.threshold <= 1:
            raise ValueError(
                f"compaction needs 0 < target < threshold <= 1, got target={self.target}, threshold={self.threshold}"
            )


def as_compaction(option: Compaction | CompactionStrategy) -> Compaction:
    """The agent's ``compaction=`` option as a :class:`Compaction` (a bare strategy gets the defaults)."""
    if isinstance(option, Compaction):
        return option
    if isinstance(option, CompactionStrategy):
        return Compaction(option)
    raise TypeError(
        f"compaction must be a Compaction or a strategy (SlidingWindow, Summarize...), got {type(option).__name__}"
    )


def split_turns(messages: Sequence[Message]) -> tuple[list[Message], CompactionSummary | None, list[list[Message]]]:
    """``(head, summary, turns)``: the system prompt and the task, the summary of earlier
    compactions (or ``None``), and the turns after them, oldest first.

    A turn starts at a user message, or at a response when the turn so far has one already;
    results always join the turn of the response whose calls they answer.
    """
    head: list[Message] = []
    i = 0
    if i < len(messages) and messages[i].role == "system":
        head.append(messages[i])
        i += 1
    if i < len(messages) and messages[i].role == "user" and not isinstance(messages[i], CompactionSummary):
        head.append(messages[i])
        i += 1
    summary: CompactionSummary | None = None
    turns: list[list[Message]] = []
    current: list[Message] = []
    has_response = False
    for m in messages[i:]:
        if isinstance(m, CompactionSummary):
            summary = m
            continue
        if current and (m.role == "user" or (m.role == "assistant" and has_response)):
            turns.append(current)
            current, has_response = [], False
        current.append(m)
        has_response = has_response or m.role == "assistant"
    if current:
        turns.append(current)
    return head, summary, turns


def estimate_tokens(messages: Sequence[Message]) -> int:
    """Estimated tokens of ``messages`` (tiktoken or characters / 4; a fixed amount per image)."""
    total = 0
    for m in messages:
        total += estimate_prompt_tokens(m.text) + 4  # a few tokens of role and framing per message
        if not isinstance(m.content, str):
            total += _IMAGE_TOKENS * sum(isinstance(p, ImagePart) for p in m.content)
    return total


def count_tokens(messages: Sequence[Message]) -> int:
    """Tokens of the conversation: the provider's count for the last response (its input and
    output) plus an estimate of what followed, where that count is known and postdates the
    last compaction; else an estimate of the whole."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if isinstance(m, CompactionSummary):
            break
        if isinstance(m, AssistantMessage):
            usage = m.usage
            if usage is None or usage.input_tokens == 0:
                break
            return usage.input_tokens + usage.output_tokens + estimate_tokens(messages[i + 1 :])
    return estimate_tokens(messages)


def keep_last_turns(
    head: list[Message], turns: list[list[Message]], keep_turns: int, budget: int
) -> tuple[list[list[Message]], list[list[Message]]]:
    """``(dropped, kept)``: at most ``keep_turns`` of the last turns, fewer while head and kept
    turns pass ``budget`` tokens (the last turn is always kept)."""
    kept = turns[-keep_turns:] if keep_turns > 0 else []
    size = estimate_tokens(head) + sum(estimate_tokens(t) for t in kept)
    while len(kept) > 1 and size > budget:
        size -= estimate_tokens(kept[0])
        kept = kept[1:]
    if not kept and turns:
        kept = turns[-1:]
    return turns[: len(turns) - len(kept)], kept


@dataclass(slots=True)
class SlidingWindow:
    """Keep the system prompt, the task and the last ``keep_turns`` turns (fewer if they do not
    fit the target); a short note tells the model how many earlier turns were dropped."""

    keep_turns: int = 8
    name: str = "sliding_window"

    async def compact(self, request: CompactionRequest) -> Compacted:
        """Drop the oldest turns."""
        head, summary, turns = split_turns(request.messages)
        dropped, kept = keep_last_turns(head, turns, self.keep_turns, request.target_tokens - 50)
        if not dropped:
            return Compacted(list(request.messages), 0)
        total = len(dropped) + (summary.turns if summary is not None else 0)
        note = CompactionSummary(
            "user", f"[{total} earlier turns of this conversation were removed to fit the context window.]", total
        )
        return Compacted([*head, note, *(m for t in kept for m in t)], len(dropped))


@dataclass(slots=True)
class Summarize:
    """Keep the system prompt, the task and the last ``keep_turns`` turns; replace the turns
    before them (and any earlier summary) with a summary written by ``model``.

    Args:
        model: The summarising model (``"provider:model"``, an alias, or a provider); ``None``:
            the agent's own.
        keep_turns: Turns kept word for word.
        max_summary_tokens: Cap on the summary's length.
    """

    model: str | Provider | None = None
    keep_turns: int = 4
    max_summary_tokens: int = 1_000
    name: str = "summarize"

    async def compact(self, request: CompactionRequest) -> Compacted:
        """Summarise the oldest turns."""
        head, summary, turns = split_turns(request.messages)
        budget = request.target_tokens - self.max_summary_tokens
        dropped, kept = keep_last_turns(head, turns, self.keep_turns, budget)
        if not dropped:
            return Compacted(list(request.messages), 0)
        text, usage, cost = await summarise(self.model, request, summary, dropped, self.max_summary_tokens)
        total = len(dropped) + (summary.turns if summary is not None else 0)
        note = CompactionSummary("user", f"Summary of the {total} earlier turns of this conversation:\n{text}", total)
        return Compacted([*head, note, *(m for t in kept for m in t)], len(dropped), usage, cost)


async def summarise(
    model: str | Provider | None,
    request: CompactionRequest,
    summary: CompactionSummary | None,
    turns: list[list[Message]],
    max_tokens: int,
) -> tuple[str, Usage, float]:
    """``(summary text, usage, USD)`` of ``turns`` (and the earlier ``summary``) written by
    ``model`` (``None``: the agent's)."""
    if model is None:
        provider, name = request.provider, request.model_name
    else:
        provider, name = resolve_agent_model(model, request.registry)
    check_model_allowed(provider, name)
    transcript = "\n\n".join(f"[{m.role}]\n{m.text}" for turn in turns for m in turn)
    prior = f"Summary of what came before:\n{summary.text}\n\n" if summary is not None else ""
    prompt = f"{prior}Conversation to summarise:\n\n{transcript}"
    messages = (Message("system", SUMMARY_SYSTEM), Message("user", prompt))
    response = await complete(provider, LLMRequest(name, messages, max_tokens))
    cost = pricer(default_registry(request.registry, provider), provider, name)(response.usage)
    return response.text.strip(), response.usage, cost
