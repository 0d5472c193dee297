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

Each option is declared once, here: a field of its group, with its type, default, docstring and
check. Its flat name is the field's (``max_iterations``) unless the field's metadata gives another
(``"flat": "prompt_style"`` for ``PromptSettings.style``, whose name alone would say too little).
:data:`OPTIONS` is built from those fields, and every other surface follows from it or is checked
against it by ``tests/agent/test_option_table.py``: the flat keywords ``Agent`` folds into the groups
and its attributes, :class:`FlatOptions` (static, for type checkers), the builder's ``with_*``
methods, and the command line's configuration keys (their defaults and help texts).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import itertools
import re
import textwrap
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias, TypedDict

from llmist.agent.prompt import Markers, PromptStyle
from llmist.gadgets import DEFAULT_OUTPUT_LIMIT_PERCENT, ModelClient
from llmist.providers.base import Reasoning, ReasoningEffort

__all__ = [
    "CONSTRAINED_BY_DEFAULT",
    "DEFAULT_MAX_RESPONSE_TOKENS",
    "GROUPS",
    "OPTIONS",
    "AgentOption",
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
    """Most model calls per run. A run that reaches it ends with ``"max_iterations"``."""
    max_cost: float | None = None
    """Stop once the run cost this many USD, model and gadgets. The run ends with ``"budget"``."""
    max_tokens: int | None = None
    """Stop once the run used this many tokens, in and out. The run ends with ``"budget"``."""
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
    # Given as an effort or a number of tokens too (made a Reasoning below): "takes" is what the
    # flat keyword accepts.
    reasoning: Reasoning | None = field(default=None, metadata={"takes": Reasoning | ReasoningEffort | int | None})
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
    """Replaces the default preamble of the system prompt (the syntax rules and the gadgets stay)."""
    system_extra: str | None = None
    """Added after the preamble."""
    style: PromptStyle = field(default="full", metadata={"flat": "prompt_style"})
    """``"full"`` (every rule and parameter detail) or ``"compact"`` (one call form and one line
    per gadget: for small models)."""
    few_shot: int = 0
    """Example exchanges (task, call, result, answer) sent before the task, made from the first
    ``GadgetExample`` with an ``output`` of up to this many gadgets."""
    markers: Markers = field(
        default=DEFAULT_MARKERS,
        metadata={"parts": {"start": "gadget_start_prefix", "end": "gadget_end_prefix", "arg": "gadget_arg_prefix"}},
    )
    """The block syntax's markers (``!!!GADGET_START:``, ``!!!GADGET_END``, ``!!!ARG:``); each is a
    flat keyword of its own too (``gadget_start_prefix``...)."""

    def __post_init__(self) -> None:
        if self.style not in ("full", "compact"):
            raise ValueError(f"prompt_style (PromptSettings.style) must be 'full' or 'compact', got {self.style!r}")
        if self.few_shot < 0:
            raise ValueError(f"few_shot must be 0 or more, got {self.few_shot}")


@dataclass(frozen=True, slots=True)
class GadgetSettings:
    """How the agent's gadgets run."""

    timeout_s: float | None = field(default=None, metadata={"flat": "gadget_timeout_s"})
    """Default timeout of gadgets without their own ``timeout_s``."""
    output_limit: bool = field(default=True, metadata={"flat": "gadget_output_limit"})
    """Store outputs too large for the context and give the model ``GadgetOutputViewer`` to read them."""
    output_limit_percent: float = field(
        default=DEFAULT_OUTPUT_LIMIT_PERCENT, metadata={"flat": "gadget_output_limit_percent"}
    )
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
    attribute of the same name; the three markers' are ``PromptSettings.markers``). Written out
    for type checkers; a test holds it to :data:`OPTIONS`."""

    system: str | None
    system_extra: str | None
    prompt_style: PromptStyle
    few_shot: int
    gadget_start_prefix: str
    gadget_end_prefix: str
    gadget_arg_prefix: str
    markers: Markers
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


GROUPS: dict[str, type[Any]] = {
    "limits": RunLimits,
    "model_settings": ModelSettings,
    "prompt_settings": PromptSettings,
    "gadget_settings": GadgetSettings,
}
"""The option groups by their ``Agent`` keyword (and attribute)."""


@dataclass(frozen=True, slots=True)
class AgentOption:
    """One option of the groups, as every surface names it: the flat keyword and ``Agent``
    attribute ``name`` sets the group's ``field`` (for a marker's keyword: the ``part`` of
    ``PromptSettings.markers``)."""

    name: str
    """The flat keyword (``Agent(prompt_style=...)``), the ``Agent`` attribute, the builder's
    ``with_<name>`` and a configuration key's ``option``."""
    group: str
    """The group's ``Agent`` keyword: ``"prompt_settings"``."""
    field: str
    """The group's field: ``"style"``."""
    part: str | None
    """The field of the field's value the keyword sets (``"start"`` of ``markers``), else ``None``."""
    default: Any
    """The field's default (a marker's for a part)."""
    type: Any
    """What the flat keyword takes: the field's type, or its metadata's ``"takes"``."""
    owner: type[Any]
    """The class that declares it (the group; ``Markers`` for a part), whose docstrings say what it is."""

    @property
    def help(self) -> str:
        """The first sentence of the option's docstring, in plain text (a command line's help)."""
        name = self.part or self.field
        doc = next((d[name] for d in map(_field_docs, self.owner.__mro__) if name in d), "")
        doc = re.sub(r":\w+:`~?(?:[\w.]*\.)?(\w+)`", r"\1", " ".join(doc.split())).replace("``", "")
        return doc.split(". ", 1)[0].rstrip(".") + "." if doc else ""


def _option_table(groups: Mapping[str, type[Any]]) -> dict[str, AgentOption]:
    """Every field of the ``groups`` as an option, by flat name: the field's name, or its
    metadata's ``"flat"``; a field whose metadata has ``"parts"`` (field -> flat name) also gives
    one option per part. Two options of one name are an error."""
    table: dict[str, AgentOption] = {}
    for group, cls in groups.items():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            kind = f.metadata.get("takes", hints[f.name])
            options = [AgentOption(f.metadata.get("flat", f.name), group, f.name, None, f.default, kind, cls)]
            owner = type(f.default)
            for part, name in f.metadata.get("parts", {}).items():
                kind = typing.get_type_hints(owner)[part]
                options.append(AgentOption(name, group, f.name, part, getattr(f.default, part), kind, owner))
            for option in options:
                if option.name in table:
                    other = table[option.name]
                    raise ValueError(f"{group}.{f.name} and {other.group}.{other.field} are both named {option.name!r}")
                table[option.name] = option
    return table


@functools.cache
def _field_docs(cls: type[Any]) -> dict[str, str]:
    """The docstrings under the fields ``cls`` declares (Python keeps none: they are read from the
    source, once; without the source, none)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):  # no source: a builtin, a class made at run time
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for statement, after in itertools.pairwise(body):
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            docs[statement.target.id] = inspect.cleandoc(str(after.value.value))
    return docs


OPTIONS: Mapping[str, AgentOption] = MappingProxyType(_option_table(GROUPS))
"""Every option of the four groups by flat name, in the groups' order: the one table the flat
keywords, ``Agent``'s attributes, the builder and the command line's keys are held to."""
