"""The plan of a run: what runs of one spec share, derived from it once (provider, prompt,
gadgets, pricing, parsers). The hooks are set by the assembler, merged with the features'
(``llmist.agent._run.hooks``).

Rendering is the costly part of a plan, so what is rendered from gadgets (the system prompt,
the example exchanges, the output viewer's instructions) is also kept across plans, by the
gadgets (compared by identity) and the prompt settings: an application that builds an
``Agent`` per request with the same gadgets renders them once. A gadget's description, schema
and examples are therefore read once; to change them, make a new gadget.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from llmist.agent._run.grammar import CallGrammar, plan_grammar
from llmist.agent._run.hooks import NO_HOOKS, RunHooks
from llmist.agent._run.models import default_registry, pricer, resolve_agent_model
from llmist.agent.ending import ending_names
from llmist.agent.options import DEFAULT_MAX_RESPONSE_TOKENS, PromptSettings
from llmist.agent.prompt import (
    Markers,
    PromptStyle,
    Syntax,
    SyntaxOption,
    example_exchanges,
    prompt_lines,
    render_gadget_entry,
    render_system_prompt,
    tool_specs,
)
from llmist.gadgets import Gadget, GadgetOutputStore, GadgetOutputViewer, ModelClient, output_char_limit
from llmist.providers.base import Message, Provider, ToolSpec, Usage
from llmist.providers.client import LLMClient
from llmist.providers.fallback import model_ref
from llmist.providers.vision import sees_images
from llmist.syntax import CallIds, EmojiCallParser, GadgetCallParser, ProseParser

if TYPE_CHECKING:
    from llmist.agent.spec import AgentSpec
    from llmist.providers.fallback import FallbackModel

logger = logging.getLogger("llmist.agent")

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "CallParser",
    "RunPlan",
    "agent_system_prompt",
    "auto_response_cap",
    "build_plan",
    "resolve_syntax",
]

CallParser: TypeAlias = GadgetCallParser | EmojiCallParser | ProseParser
"""What reads a response's text: a call parser of a text syntax, or prose only (native)."""

DEFAULT_CONTEXT_WINDOW = 128_000
"""Context window assumed for models the registry does not know."""


def agent_system_prompt(settings: PromptSettings, gadgets: Sequence[Gadget], syntax: Syntax) -> str:
    """The system prompt for ``gadgets`` in ``syntax`` (the agent's, ``"auto"`` resolved), with
    the markers, texts and style of ``settings``."""
    return render_system_prompt(
        gadgets,
        syntax=syntax,
        markers=settings.markers,
        system=settings.system,
        system_extra=settings.system_extra,
        style=settings.style,
    )


@dataclass(slots=True)
class RunPlan:
    """Everything runs of one spec share, computed once per spec (see ``AgentSpec.plans``)."""

    provider: Provider
    model_name: str
    system_prompt: str
    system_message: Message
    gadgets: list[Gadget]
    syntax: Syntax
    markers: Markers
    output_store: GadgetOutputStore | None
    """Shared by the plan's runs (ids are random, so runs do not see each other's outputs)."""
    cost_of: Callable[[Usage], float]
    llm_client: ModelClient
    """Lent to gadgets as ``ctx.llm``: the agent's ``llm_client``, else a client of its own model."""
    hooks: RunHooks = NO_HOOKS
    """The agent's hooks merged with the features' made for this plan (set by the assembler; a
    run that adds hooks of its own merges them into a :class:`RunHooks` of its own)."""
    examples: tuple[Message, ...] = ()
    """Example exchanges sent before the task (``few_shot``)."""
    enders: str = ""
    """The names of the gadgets that end the run (:func:`~llmist.agent.ending.ending_names`), for
    the note the last result of a response whose calls all succeeded ends with (text syntaxes,
    :func:`~llmist.agent.repairs.next_step_note`)."""
    prompt_lines: frozenset[str] = frozenset()
    """Lines llmist wrote in the prompt (:func:`~llmist.agent.prompt.prompt_lines`): a response
    whose prose repeats one is cut there (the ``copied_prompt`` repair)."""
    viewer_entry: str | None = None
    """The output viewer's instructions, sent with the first output it must read (the viewer is
    left out of the system prompt: most runs never need it, and small models pay for every token)."""
    tools: tuple[ToolSpec, ...] = ()
    """The gadgets as native tools, sent with every request (the native syntax only)."""
    viewer_tool: ToolSpec | None = None
    """The output viewer as a native tool, offered from the first stored output on: offered from
    the start, before anything is stored, small models call it with made-up ids."""
    parsers: list[CallParser] = field(default_factory=list)
    """Parsers of finished runs, reused by the next ones: the pool of every plan that reads this
    syntax with these markers (:func:`build_plan`)."""
    vision: bool | None = None
    """Whether the model accepts images (``None``: not known); see ``llmist.providers.vision``."""
    context_window: int = DEFAULT_CONTEXT_WINDOW
    """Tokens of the model's context (the agent's option, else the registry's, else the default)."""
    auto_response_cap: int | None = DEFAULT_MAX_RESPONSE_TOKENS
    """Each response's cap when ``max_response_tokens`` is ``"auto"`` (:func:`auto_response_cap`)."""
    grammar: CallGrammar | None = None
    """The grammar of the gadgets' calls, when the provider takes one and the syntax is a text
    one (sent as ``ModelSettings.constrained`` and the run's ``strict`` say: ``agent._run.grammar``)."""
    registry: Any = None
    """The registry that prices the model (``None``: none)."""
    by_name: dict[str, Gadget] = field(default_factory=dict)
    """``gadgets`` by name."""
    provider_name: str = ""
    """The provider's id (``"openai"``...; a test double's name)."""
    model_ref: str = ""
    """The model as results and events name it (``provider:model``; see ``providers.fallback.model_ref``)."""
    chain: FallbackModel | None = None
    """The agent's fallback models, when it has several (this plan is then the first one's)."""
    members: tuple[RunPlan, ...] = ()
    """With ``chain``: each model's own plan (its syntax, prompt and prices), in the chain's order."""

    def take_parser(self, ids: CallIds) -> CallParser:
        """A parser for one run, whose calls get their ids from ``ids``: one a finished run gave
        back (reset), else a new one."""
        try:
            parser = self.parsers.pop()
        except IndexError:  # none free (popped, not checked first: another thread may take the last)
            return self.new_parser(ids)
        parser.reset()
        if not isinstance(parser, ProseParser):
            parser.ids = ids
        return parser

    def give_back_parser(self, parser: CallParser) -> None:
        """Return a run's parser to the pool (kept small)."""
        if len(self.parsers) < _POOL_SIZE:
            self.parsers.append(parser)

    def new_parser(self, ids: CallIds) -> CallParser:
        """A fresh call parser whose calls get their ids from ``ids`` (native: a prose reader, the
        calls come through the API)."""
        if self.syntax == "native":
            return ProseParser()
        if self.syntax == "emoji":
            return EmojiCallParser(ids=ids)
        m = self.markers
        return GadgetCallParser(start_prefix=m.start, end_prefix=m.end, arg_prefix=m.arg, ids=ids)


_PARSERS: dict[tuple[Syntax, Markers], list[CallParser]] = {}
"""The plans' parser pools by syntax and markers: an application that builds an ``Agent`` per
request gets a parser that is already made (a new block parser builds its marker tables)."""

_POOL_SIZE = 8
"""Parsers kept per syntax and markers."""

_POOLS_KEPT = 64
"""Marker sets whose pools are kept; past that all are dropped (an application that makes agents
with ever new markers would otherwise keep a pool for each), like the caches beside them."""


def _parser_pool(syntax: Syntax, markers: Markers) -> list[CallParser]:
    """The shared pool of parsers for ``syntax`` and ``markers``."""
    pool = _PARSERS.get((syntax, markers))
    if pool is None:
        if len(_PARSERS) >= _POOLS_KEPT:
            _PARSERS.clear()  # plans made before keep their own pool: it is theirs alone from now on
        pool = _PARSERS[(syntax, markers)] = []
    return pool


def build_plan(spec: AgentSpec, gadgets: Sequence[Gadget], *, added: str | None = None) -> RunPlan:
    """Resolve the model, the limits of outputs and the pricing of ``spec``, and render the
    system prompt of ``gadgets``: the spec's, then any added to them (``added`` names what added
    them, for the error when two names clash). The plan's hooks are left for the assembler."""
    provider, model_name = resolve_agent_model(spec.model, spec.model_registry)
    registry = default_registry(spec.model_registry, provider)
    entry = _model_spec(registry, provider, model_name)
    syntax = resolve_syntax(spec.syntax, entry)
    window = spec.model_settings.context_window or _context_window(entry) or DEFAULT_CONTEXT_WINDOW
    prompt, settings = spec.prompt_settings, spec.gadget_settings
    char_limit = output_char_limit(window, settings.output_limit_percent) if settings.output_limit else None
    listed = list(gadgets)
    if added is not None:
        _check_unique(listed, added)
    shown = tuple(listed)
    store, viewer_entry = _output_viewer(prompt, syntax, char_limit, listed)
    system_prompt = _system_prompt(prompt, shown, syntax)
    examples = _examples(shown, syntax, prompt.markers, prompt.few_shot) if prompt.few_shot else ()
    if prompt.few_shot and not examples:
        # Said plainly rather than doing nothing in silence (issue 23): an exchange needs a
        # result, and only an example's output gives a true one.
        logger.warning(
            "few_shot=%d sends no example exchange: none of the gadgets %s has a GadgetExample "
            "with an output (GadgetExample(params, output=..., comment=...))",
            prompt.few_shot,
            [g.name for g in shown],
        )
    return RunPlan(
        provider=provider,
        model_name=model_name,
        system_prompt=system_prompt,
        system_message=Message("system", system_prompt),
        gadgets=listed,
        syntax=syntax,
        markers=prompt.markers,
        output_store=store,
        cost_of=pricer(registry, provider, model_name),
        llm_client=settings.llm_client or LLMClient(model=_client_model(spec.model), model_registry=registry),
        vision=sees_images(provider, model_name, registry),
        context_window=window,
        auto_response_cap=auto_response_cap(entry),
        grammar=plan_grammar(provider, syntax, listed, prompt.markers),
        registry=registry,
        examples=examples,
        enders=ending_names(listed),
        prompt_lines=_prompt_lines(shown, syntax, prompt.markers, prompt.style, viewer_entry),
        viewer_entry=viewer_entry,
        parsers=_parser_pool(syntax, prompt.markers),
        tools=tool_specs(shown) if syntax == "native" else (),
        viewer_tool=next(iter(tool_specs(listed[len(shown) :])), None) if syntax == "native" else None,
        by_name={g.name: g for g in listed},
        provider_name=str(getattr(provider, "name", "") or ""),
        model_ref=model_ref(provider, model_name),
    )


@functools.lru_cache(maxsize=64)
def _system_prompt(settings: PromptSettings, gadgets: tuple[Gadget, ...], syntax: Syntax) -> str:
    return agent_system_prompt(settings, gadgets, syntax)


@functools.lru_cache(maxsize=64)
def _prompt_lines(
    gadgets: tuple[Gadget, ...], syntax: Syntax, markers: Markers, style: PromptStyle, viewer_entry: str | None
) -> frozenset[str]:
    extra = (viewer_entry,) if viewer_entry else ()
    return prompt_lines(gadgets, syntax=syntax, markers=markers, style=style, extra=extra)


@functools.lru_cache(maxsize=64)
def _examples(gadgets: tuple[Gadget, ...], syntax: Syntax, markers: Markers, few_shot: int) -> tuple[Message, ...]:
    return tuple(example_exchanges(gadgets, syntax=syntax, markers=markers, limit=few_shot))


def _output_viewer(
    prompt: PromptSettings, syntax: Syntax, char_limit: int | None, listed: list[Gadget]
) -> tuple[GadgetOutputStore | None, str | None]:
    """The output store (with output limiting on) and, when the viewer is added to ``listed``
    here, its instructions for the model (none with the native syntax: the viewer is one of
    the tools the API describes)."""
    if char_limit is None:
        return None, None
    store = GadgetOutputStore(char_limit)
    if any(g.name == GadgetOutputViewer.name for g in listed):
        return store, None
    listed.append(GadgetOutputViewer(store))
    return store, None if syntax == "native" else _viewer_entry(syntax, prompt.markers, prompt.style)


@functools.lru_cache(maxsize=16)
def _viewer_entry(syntax: Syntax, markers: Markers, style: PromptStyle) -> str:
    """How to call the viewer, in the run's syntax and the agent's prompt style (the same for
    every viewer: its store is not part of it)."""
    viewer = GadgetOutputViewer(GadgetOutputStore(1))
    entry = render_gadget_entry(viewer, syntax=syntax, markers=markers, style=style)
    return f"To read it, call {viewer.name}:\n{entry}"


def resolve_syntax(option: SyntaxOption, spec: Any) -> Syntax:
    """The syntax of runs of an agent whose option is ``option``: ``"auto"`` is native when the
    model's registry entry ``spec`` says it calls tools well natively, the block syntax otherwise
    (a model the registry does not know included: every model can write blocks)."""
    if option != "auto":
        return option
    return "native" if getattr(spec, "native_tools", False) is True else "block"


def _check_unique(gadgets: Sequence[Gadget], added: str) -> None:
    """Two gadgets with one name are an error, naming the fix for what ``added`` the clashing one."""
    names = [g.name for g in gadgets]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if not dupes:
        return
    if added == "server":
        fix = "give the server a tool_prefix (MCPServerStdio(..., tool_prefix='name_'))"
    else:
        fix = "rename the agent's gadget"
    raise ValueError(f"two gadgets share the name(s) {dupes}: {_ADDED[added]} clashes with another gadget; {fix}")


_ADDED = {"server": "an MCP server's tool", "feature": "a gadget a feature adds (the final answer of output_type)"}
"""What a gadget added to a run is, by who added it."""


def _client_model(model: str | Provider | tuple[Provider, str]) -> str | Provider:
    """The model of the client lent to gadgets (of a provider and model name: the provider; a
    fallback chain replaces it with a client of the whole chain)."""
    return model[0] if isinstance(model, tuple) else model


def _model_spec(registry: Any, provider: Provider, model_name: str) -> Any:
    """The registry's entry of the model, or ``None`` (no registry, or a model it does not know)."""
    if registry is None or not hasattr(registry, "get"):
        return None
    try:
        return registry.get(model_name, getattr(provider, "name", None))
    except Exception:
        return None


def auto_response_cap(spec: Any) -> int | None:
    """Each response's cap for ``max_response_tokens="auto"``, from the model's registry entry
    ``spec``: its output limit; no cap of llmist's (``None``) for a model the registry knows
    without one (a hosted model, whose API has a default of its own); and for a model it does not
    know (a local one above all) :data:`~llmist.agent.options.DEFAULT_MAX_RESPONSE_TOKENS`: a
    local server has no cap of its own, and a small model that will not stop writes until its
    context ends, minutes on a CPU (issue 39)."""
    if spec is None:
        return DEFAULT_MAX_RESPONSE_TOKENS
    limit = getattr(spec, "max_output_tokens", None)
    return limit if isinstance(limit, int) and limit > 0 else None


def _context_window(spec: Any) -> int | None:
    window = getattr(spec, "context_window", None)
    return window if isinstance(window, int) else None
