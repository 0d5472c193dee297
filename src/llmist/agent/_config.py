"""What a run needs, computed once per agent: provider, prompt, pricing, hooks, parsers."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from llmist.agent._models import shared_registry
from llmist.agent.hooks import Controllers, Hooks, Interceptors, Observers
from llmist.agent.prompt import (
    Markers,
    PromptStyle,
    Syntax,
    SyntaxOption,
    example_exchanges,
    render_gadget_entry,
    render_system_prompt,
    tool_specs,
)
from llmist.gadgets import Gadget, GadgetOutputStore, GadgetOutputViewer, ModelClient, output_char_limit
from llmist.providers.base import Message, Provider, Reasoning, ToolSpec, Usage
from llmist.providers.client import LLMClient
from llmist.providers.vision import sees_images
from llmist.syntax import EmojiCallParser, GadgetCallParser, ProseParser

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "AgentSettings",
    "CallParser",
    "HumanInputHandler",
    "RunConfig",
    "agent_system_prompt",
    "default_registry",
    "pricer",
    "resolve_syntax",
]

CallParser: TypeAlias = GadgetCallParser | EmojiCallParser | ProseParser
"""What reads a response's text: a call parser of a text syntax, or prose only (native)."""

HumanInputHandler: TypeAlias = Callable[[str], "str | Awaitable[str]"]
"""Answers a gadget's ``HumanInputRequired`` question (sync or async)."""

logger = logging.getLogger("llmist.agent")

DEFAULT_CONTEXT_WINDOW = 128_000
"""Context window assumed for models the registry does not know."""


class AgentSettings(Protocol):
    """The options of an ``Agent`` that runs read (``Agent`` has them all). The loop reads the
    limits at each run, so changing them on an agent applies to its next run."""

    gadgets: list[Gadget]
    hooks: Hooks | None
    syntax: SyntaxOption
    markers: Markers
    system: str | None
    system_extra: str | None
    prompt_style: PromptStyle
    few_shot: int
    strict: bool
    max_iterations: int
    max_gadgets_per_response: int | None
    stop_on_no_calls: bool
    max_cost: float | None
    max_tokens: int | None
    gadget_output_limit: bool
    gadget_output_limit_percent: float
    context_window: int | None
    on_human_input: HumanInputHandler | None
    gadget_timeout_s: float | None
    temperature: float | None
    max_response_tokens: int | None
    reasoning: Reasoning | None
    model_registry: Any
    llm_client: ModelClient | None

    @property
    def model(self) -> str | Provider:
        """The agent's model: a model string or a provider instance."""
        ...


def agent_system_prompt(agent: AgentSettings, gadgets: Sequence[Gadget], syntax: Syntax) -> str:
    """The system prompt for ``gadgets`` in ``syntax`` (the agent's, ``"auto"`` resolved), with
    ``agent``'s markers, texts and style."""
    return render_system_prompt(
        gadgets,
        syntax=syntax,
        markers=agent.markers,
        system=agent.system,
        system_extra=agent.system_extra,
        style=agent.prompt_style,
    )


@dataclass(slots=True)
class RunConfig:
    """Everything a run needs, computed once per agent."""

    agent: AgentSettings
    provider: Provider
    model_name: str
    system_prompt: str
    system_message: Message
    gadgets: list[Gadget]
    syntax: Syntax
    markers: Markers
    output_store: GadgetOutputStore | None
    """Shared by the agent's runs (ids are random, so runs do not see each other's outputs)."""
    observers: Observers | None
    interceptors: Interceptors | None
    controllers: Controllers | None
    cost_of: Callable[[Usage], float]
    llm_client: ModelClient
    """Lent to gadgets as ``ctx.llm``: the agent's ``llm_client``, else a client of its own model."""
    examples: tuple[Message, ...] = ()
    """Example exchanges sent before the task (``few_shot``)."""
    viewer_entry: str | None = None
    """The output viewer's instructions, sent with the first output it must read (the viewer is
    left out of the system prompt: most runs never need it, and small models pay for every token)."""
    tools: tuple[ToolSpec, ...] = ()
    """The gadgets as native tools, sent with every request (the native syntax only)."""
    viewer_tool: ToolSpec | None = None
    """The output viewer as a native tool, offered from the first stored output on: offered from
    the start, before anything is stored, small models call it with made-up ids."""
    parsers: list[CallParser] = field(default_factory=list)
    """Parsers of finished runs, reused by the next ones."""
    vision: bool | None = None
    """Whether the model accepts images (``None``: not known); see ``llmist.providers.vision``."""
    context_window: int = DEFAULT_CONTEXT_WINDOW
    """Tokens of the model's context (the agent's option, else the registry's, else the default)."""
    registry: Any = None
    """The registry that prices the model (``None``: none)."""

    @classmethod
    def build(
        cls, agent: AgentSettings, provider: Provider, model_name: str, extra_gadgets: Sequence[Gadget] = ()
    ) -> RunConfig:
        """Resolve limits, pricing and hooks and render the system prompt.

        ``extra_gadgets`` join the agent's own for this config (an MCP server's tools for one run).
        """
        registry = default_registry(agent.model_registry, provider)
        spec = _model_spec(registry, provider, model_name)
        syntax = resolve_syntax(agent.syntax, spec)
        window = agent.context_window or _context_window(spec) or DEFAULT_CONTEXT_WINDOW
        char_limit = output_char_limit(window, agent.gadget_output_limit_percent) if agent.gadget_output_limit else None
        listed = [*agent.gadgets, *extra_gadgets]
        if extra_gadgets:
            _check_unique(listed)
        shown = list(listed)
        store, viewer_entry = _output_viewer(agent, syntax, char_limit, listed)
        prompt = agent_system_prompt(agent, shown, syntax)
        examples = (
            example_exchanges(shown, syntax=syntax, markers=agent.markers, limit=agent.few_shot)
            if agent.few_shot
            else []
        )
        if agent.few_shot and not examples:
            # Said plainly rather than doing nothing in silence (issue 23): an exchange needs a
            # result, and only an example's output gives a true one.
            logger.warning(
                "few_shot=%d sends no example exchange: none of the gadgets %s has a GadgetExample "
                "with an output (GadgetExample(params, output=..., comment=...))",
                agent.few_shot,
                [g.name for g in shown],
            )
        hooks: Hooks | None = agent.hooks
        return cls(
            agent=agent,
            provider=provider,
            model_name=model_name,
            system_prompt=prompt,
            system_message=Message("system", prompt),
            gadgets=listed,
            syntax=syntax,
            markers=agent.markers,
            output_store=store,
            observers=hooks.observers if hooks is not None and _any_set(hooks.observers) else None,
            interceptors=hooks.interceptors if hooks is not None and _any_set(hooks.interceptors) else None,
            controllers=hooks.controllers if hooks is not None and _any_set(hooks.controllers) else None,
            cost_of=_pricer(registry, provider, model_name),
            llm_client=agent.llm_client or LLMClient(model=agent.model, model_registry=registry),
            vision=sees_images(provider, model_name, registry),
            context_window=window,
            registry=registry,
            examples=tuple(examples),
            viewer_entry=viewer_entry,
            tools=tool_specs(shown) if syntax == "native" else (),
            viewer_tool=next(iter(tool_specs(listed[len(shown) :])), None) if syntax == "native" else None,
        )

    def take_parser(self) -> CallParser:
        """A parser for one run: reused from earlier runs (reset) when one is free."""
        pool = self.parsers
        if pool:
            parser = pool.pop()
            parser.reset()
            return parser
        return self.new_parser()

    def give_back_parser(self, parser: CallParser) -> None:
        """Return a run's parser to the pool (kept small)."""
        if len(self.parsers) < 8:
            self.parsers.append(parser)

    def new_parser(self) -> CallParser:
        """A fresh call parser (native: a prose reader, the calls come through the API)."""
        if self.syntax == "native":
            return ProseParser()
        if self.syntax == "emoji":
            return EmojiCallParser()
        m = self.markers
        return GadgetCallParser(start_prefix=m.start, end_prefix=m.end, arg_prefix=m.arg)


def _output_viewer(
    agent: AgentSettings, syntax: Syntax, char_limit: int | None, listed: list[Gadget]
) -> tuple[GadgetOutputStore | None, str | None]:
    """The output store (with output limiting on) and, when the viewer is added to ``listed``
    here, its instructions for the model (none with the native syntax: the viewer is one of
    the tools the API describes)."""
    if char_limit is None:
        return None, None
    store = GadgetOutputStore(char_limit)
    if any(g.name == GadgetOutputViewer.name for g in listed):
        return store, None
    viewer = GadgetOutputViewer(store)
    listed.append(viewer)
    return store, None if syntax == "native" else _viewer_entry(viewer, agent, syntax)


def _viewer_entry(viewer: Gadget, agent: AgentSettings, syntax: Syntax) -> str:
    """How to call the viewer, in the run's syntax and the agent's prompt style."""
    entry = render_gadget_entry(viewer, syntax=syntax, markers=agent.markers, style=agent.prompt_style)
    return f"To read it, call {viewer.name}:\n{entry}"


def resolve_syntax(option: SyntaxOption, spec: Any) -> Syntax:
    """The syntax of runs of an agent whose option is ``option``: ``"auto"`` is native when the
    model's registry entry ``spec`` says it calls tools well natively, the block syntax otherwise
    (a model the registry does not know included: every model can write blocks)."""
    if option != "auto":
        return option
    return "native" if getattr(spec, "native_tools", False) is True else "block"


def _check_unique(gadgets: Sequence[Gadget]) -> None:
    names = [g.name for g in gadgets]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(
            f"two gadgets share the name(s) {dupes}: an MCP server's tool clashes with another gadget; "
            "give the server a tool_prefix (MCPServerStdio(..., tool_prefix='name_'))"
        )


def _any_set(obj: object) -> bool:
    return any(getattr(obj, name) is not None for name in type(obj).__slots__)  # type: ignore[attr-defined]


def _model_spec(registry: Any, provider: Provider, model_name: str) -> Any:
    """The registry's entry of the model, or ``None`` (no registry, or a model it does not know)."""
    if registry is None or not hasattr(registry, "get"):
        return None
    try:
        return registry.get(model_name, getattr(provider, "name", None))
    except Exception:
        return None


def _context_window(spec: Any) -> int | None:
    window = getattr(spec, "context_window", None)
    return window if isinstance(window, int) else None


def default_registry(registry: Any, provider: Provider) -> Any:
    """``registry``, else the shared one for a real provider (a test double has no prices)."""
    if registry is None and not getattr(provider, "offline", False):
        return shared_registry()
    return registry


def pricer(registry: Any, provider: Provider, model_name: str) -> Callable[[Usage], float]:
    """The USD cost of a usage of ``model_name`` on ``provider`` (0 when ``registry`` has no price)."""
    return _pricer(registry, provider, model_name)


def _pricer(registry: Any, provider: Provider, model_name: str) -> Callable[[Usage], float]:
    if registry is None:
        return lambda usage: 0.0
    name = getattr(provider, "name", None)

    def cost_of(usage: Usage) -> float:
        try:
            return float(registry.cost(model_name, usage, name) or 0.0)
        except Exception:
            logger.debug("no price for %s:%s; cost counted as 0", name, model_name, exc_info=True)
            return 0.0

    return cost_of
