"""An agent's options in four named groups, each a frozen dataclass that checks its own values.

- :class:`RunLimits`: when a run stops (iterations, cost, tokens, calls per response, no calls);
- :class:`ModelSettings`: what each model request asks for (temperature, reasoning, response
  length) and the model's context window;
- :class:`PromptSettings`: the system prompt (preamble, extra instructions, style, example
  exchanges, block markers);
- :class:`GadgetSettings`: how gadgets run (default timeout, output limiting, human input, the
  client lent to gadgets).

``Agent(limits=RunLimits(max_iterations=20))`` sets a group; ``agent.run(prompt,
limits=...)`` replaces one for a single run. The flat keywords of earlier versions
(``Agent(max_iterations=20)``, :class:`FlatOptions`) still work: each sets the field of a group
that the ``Agent`` attribute of the same name reads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypedDict

from llmist.agent.prompt import Markers, PromptStyle
from llmist.gadgets import DEFAULT_OUTPUT_LIMIT_PERCENT, ModelClient
from llmist.providers.base import Reasoning, ReasoningEffort

__all__ = [
    "CONSTRAINED_BY_DEFAULT",
    "DEFAULT_MAX_RESPONSE_TOKENS",
    "FlatOptions",
    "GadgetSettings",
    "HumanInputHandler",
    "ModelSettings",
    "OptionGroups",
    "PromptSettings",
    "RunLimits",
]

DEFAULT_MARKERS = Markers()
"""The block syntax's markers by default (frozen: every ``PromptSettings`` shares it)."""

DEFAULT_MAX_RESPONSE_TOKENS = 2048
"""Each response's cap (``max_response_tokens="auto"``) for a model the registry has no output
limit for: local models above all. A tool call, or an answer of a few paragraphs, takes a few
hundred tokens; 2,048 leave room for a call that writes a file of about 150 lines, and bound a
response that never stops (a small model that repeats itself until its context ends) to a minute or
two on a laptop's CPU instead of the whole context."""

CONSTRAINED_BY_DEFAULT: frozenset[str] = frozenset()
"""The providers (by id) whose requests carry the call grammar under ``constrained="auto"``. Candidates
are the servers that take a GBNF grammar (``"llamacpp"``, ``"vllm"``); one joins when constraining the
calls is measured to win on both Qwen models (issue 39; figures in docs/constrained.md). Until then
none does: ``constrained=True`` turns it on. One table: a server joins or leaves the default here."""

HumanInputHandler: TypeAlias = Callable[[str], "str | Awaitable[str]"]
"""Answers a gadget's ``HumanInputRequired`` question (sync or async)."""


@dataclass(frozen=True, slots=True)
class RunLimits:
    """When a run stops; the first limit reached ends it with its ``stop_reason``."""

    max_iterations: int = 10
    """Most model calls per run (``"max_iterations"``)."""
    max_cost: float | None = None
    """Stop once the run cost this many USD, model and gadgets (``"budget"``)."""
    max_tokens: int | None = None
    """Stop once the run used this many tokens, in and out (``"budget"``)."""
    max_gadgets_per_response: int | None = None
    """Most calls run per response; later ones are reported to the model as not run."""
    stop_on_no_calls: bool = True
    """End the run when a response makes no call (``"no_calls"``); else ask the model to go on."""

    def __post_init__(self) -> None:
        if self.max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, got {self.max_iterations}")


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """What each model request asks for, and how much the model can read."""

    temperature: float | None = 0.0
    """Sampling temperature (``None``: the provider's default)."""
    reasoning: Reasoning | None = None
    """How much a reasoning model thinks: an effort (``"low"``, ``"high"``...), a token budget
    (``8000``) or a :class:`~llmist.providers.Reasoning`; sent in the provider's own parameter."""
    max_response_tokens: int | Literal["auto"] | None = "auto"
    """Cap on each response's length, in tokens. ``"auto"`` (the default): the model registry's
    output limit for a model it knows, else :data:`DEFAULT_MAX_RESPONSE_TOKENS` (local and unknown
    models); ``None``: no cap from llmist (the provider's or server's own, which for llama.cpp is
    the end of the context)."""
    context_window: int | None = None
    """Tokens of the model's context (default: the model registry's, else 128k); output
    limiting and compaction are measured against it."""
    constrained: bool | Literal["auto"] = "auto"
    """Grammar-constrained calls: each request of a text syntax carries a grammar of the gadgets'
    calls (``llmist.syntax.grammar``), so the server samples only well-formed calls while prose
    stays free. ``True``: always (a provider that takes no grammar is an error); ``False``: never;
    ``"auto"``: for the providers in :data:`CONSTRAINED_BY_DEFAULT`. The native syntax needs none."""

    def __post_init__(self) -> None:
        if self.constrained not in (True, False, "auto") or not isinstance(self.constrained, bool | str):
            raise ValueError(f"constrained must be True, False or 'auto', got {self.constrained!r}")
        cap = self.max_response_tokens
        if cap is not None and cap != "auto" and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 1):
            raise ValueError(f"max_response_tokens must be a number of tokens (1 or more), 'auto' or None, got {cap!r}")
        reasoning: Reasoning | ReasoningEffort | int | None = self.reasoning
        if not isinstance(reasoning, Reasoning | None):
            object.__setattr__(self, "reasoning", Reasoning.of(reasoning))


@dataclass(frozen=True, slots=True)
class PromptSettings:
    """The system prompt and what is sent before the task."""

    system: str | None = None
    """Replaces the default preamble (the syntax rules and the gadgets stay)."""
    system_extra: str | None = None
    """Added after the preamble."""
    style: PromptStyle = "full"
    """``"full"`` (every rule and parameter detail) or ``"compact"`` (one call form and one line
    per gadget: for small models)."""
    few_shot: int = 0
    """Example exchanges (task, call, result, answer) sent before the task, made from the first
    ``GadgetExample`` with an ``output`` of up to this many gadgets."""
    markers: Markers = DEFAULT_MARKERS
    """The block syntax's markers (``!!!GADGET_START:``, ``!!!GADGET_END``, ``!!!ARG:``)."""

    def __post_init__(self) -> None:
        if self.style not in ("full", "compact"):
            raise ValueError(f"prompt_style (PromptSettings.style) must be 'full' or 'compact', got {self.style!r}")
        if self.few_shot < 0:
            raise ValueError(f"few_shot must be 0 or more, got {self.few_shot}")


@dataclass(frozen=True, slots=True)
class GadgetSettings:
    """How the agent's gadgets run."""

    timeout_s: float | None = None
    """Default timeout of gadgets without their own ``timeout_s``."""
    output_limit: bool = True
    """Store outputs too large for the context and give the model ``GadgetOutputViewer`` to read them."""
    output_limit_percent: float = DEFAULT_OUTPUT_LIMIT_PERCENT
    """Share of the context window one output may take."""
    on_human_input: HumanInputHandler | None = None
    """Answers ``HumanInputRequired`` from gadgets (sync or async ``question -> answer``)."""
    llm_client: ModelClient | None = None
    """Lent to gadgets as ``ctx.llm`` (default: a client of the agent's model and registry); each
    call a gadget makes adds its cost to the gadget's."""


class OptionGroups(TypedDict, total=False):
    """The groups a single run may replace (``agent.run(prompt, limits=...)``)."""

    limits: RunLimits | None
    model_settings: ModelSettings | None
    prompt_settings: PromptSettings | None
    gadget_settings: GadgetSettings | None


class FlatOptions(TypedDict, total=False):
    """The flat keywords ``Agent`` still takes, each a field of a group (see the ``Agent``
    attribute of the same name; the three markers' are ``PromptSettings.markers``)."""

    system: str | None
    system_extra: str | None
    prompt_style: PromptStyle
    few_shot: int
    gadget_start_prefix: str
    gadget_end_prefix: str
    gadget_arg_prefix: str
    max_iterations: int
    max_cost: float | None
    max_tokens: int | None
    max_gadgets_per_response: int | None
    stop_on_no_calls: bool
    temperature: float | None
    reasoning: Reasoning | ReasoningEffort | int | None
    max_response_tokens: int | Literal["auto"] | None
    context_window: int | None
    constrained: bool | Literal["auto"]
    gadget_timeout_s: float | None
    gadget_output_limit: bool
    gadget_output_limit_percent: float
    on_human_input: HumanInputHandler | None
    llm_client: ModelClient | None
