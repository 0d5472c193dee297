"""The fluent builder behind ``LLMist.create_agent()``: every ``with_*`` sets one ``Agent`` option
(a group, or one field of a group under its flat name). Each flat option of
:data:`~llmist.agent.options.OPTIONS` has a method: ``with_<name>``, or the one ``_SETTERS`` names
(a test holds them to the table)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, cast

from typing_extensions import TypeVar

from llmist.agent.agent import Agent
from llmist.agent.compaction import Compaction, CompactionStrategy
from llmist.agent.hooks import Hooks, merge_hooks
from llmist.agent.options import GadgetSettings, HumanInputHandler, ModelSettings, PromptSettings, RunLimits
from llmist.agent.prompt import Markers, PromptStyle, SyntaxOption
from llmist.agent.result import OutputT
from llmist.agent.sessions import Session
from llmist.agent.stream import AgentStream
from llmist.agent.subagents import SubagentGadget
from llmist.gadgets import ModelClient
from llmist.providers.base import Provider, Reasoning, ReasoningEffort

if TYPE_CHECKING:
    from llmist.mcp import MCPServer

__all__ = ["AgentBuilder"]

_NewOutputT = TypeVar("_NewOutputT")

_SETTERS = {"max_cost": "with_budget", "max_tokens": "with_budget", "on_human_input": "on_human_input"}
"""The flat options whose builder method is not ``with_<name>``: the budget's two share one, and
the human-input handler's reads as what it does."""


class AgentBuilder(Generic[OutputT]):
    """Collects options and builds an :class:`~llmist.agent.Agent` (the same object as keyword
    construction gives). Each ``with_*`` returns the builder, so calls chain."""

    def __init__(self, client: Any = None) -> None:
        self._opts: dict[str, Any] = {}
        self._hooks: list[Hooks] = []
        self._gadgets: list[object] = []
        self._client = client

    def _set(self, key: str, value: Any) -> Self:
        self._opts[key] = value
        return self

    def with_model(self, model: str | Provider) -> Self:
        """The model: ``"mock"``, ``"provider:model"``, an alias, or a provider instance."""
        return self._set("model", model)

    def with_gadgets(self, *gadgets: object) -> Self:
        """Add gadgets: instances, ``Gadget`` classes or ``@gadget`` functions."""
        self._gadgets.extend(gadgets)
        return self

    def with_mcp_servers(self, *servers: MCPServer) -> Self:
        """Add MCP servers (``MCPServerStdio``, ``MCPServerHTTP``) whose tools join the gadgets."""
        self._opts.setdefault("mcp_servers", []).extend(servers)
        return self

    def with_limits(self, limits: RunLimits) -> Self:
        """When runs stop (:class:`~llmist.agent.RunLimits`); ``with_max_iterations`` and the like
        set one field over it."""
        return self._set("limits", limits)

    def with_model_settings(self, settings: ModelSettings) -> Self:
        """What each model request asks for (:class:`~llmist.agent.ModelSettings`)."""
        return self._set("model_settings", settings)

    def with_prompt_settings(self, settings: PromptSettings) -> Self:
        """The system prompt's settings (:class:`~llmist.agent.PromptSettings`)."""
        return self._set("prompt_settings", settings)

    def with_gadget_settings(self, settings: GadgetSettings) -> Self:
        """How gadgets run (:class:`~llmist.agent.GadgetSettings`)."""
        return self._set("gadget_settings", settings)

    def with_system(self, system: str) -> Self:
        """Replace the default preamble of the system prompt (the gadget section stays)."""
        return self._set("system", system)

    def with_system_extra(self, text: str) -> Self:
        """Add instructions after the preamble of the system prompt."""
        return self._set("system_extra", text)

    def with_hooks(self, *hooks: Hooks) -> Self:
        """Add hook sets; several calls and several sets merge in order."""
        self._hooks.extend(hooks)
        return self

    def with_syntax(self, syntax: SyntaxOption) -> Self:
        """How the model calls gadgets: ``"block"`` (default), ``"emoji"``, ``"native"`` (the
        provider's tool-calling API) or ``"auto"``."""
        return self._set("syntax", syntax)

    def with_max_iterations(self, n: int) -> Self:
        """Stop after ``n`` model calls."""
        return self._set("max_iterations", n)

    def with_max_gadgets_per_response(self, n: int) -> Self:
        """Run at most ``n`` calls per response; later ones are reported to the model as not run."""
        return self._set("max_gadgets_per_response", n)

    def with_stop_on_no_calls(self, stop: bool) -> Self:
        """End a run when a response makes no call (the default); ``False``: ask the model to go on."""
        return self._set("stop_on_no_calls", stop)

    def with_budget(self, *, max_cost: float | None = None, max_tokens: int | None = None) -> Self:
        """Stop once the run has cost ``max_cost`` USD or used ``max_tokens`` tokens."""
        self._opts["max_cost"] = max_cost
        return self._set("max_tokens", max_tokens)

    def with_gadget_output_limit(self, enabled: bool) -> Self:
        """Turn output limiting (and the ``GadgetOutputViewer`` gadget) on or off."""
        return self._set("gadget_output_limit", enabled)

    def with_gadget_output_limit_percent(self, percent: float) -> Self:
        """Limit each gadget output to ``percent`` of the model's context window."""
        self._opts["gadget_output_limit"] = True
        return self._set("gadget_output_limit_percent", percent)

    def with_gadget_timeout_s(self, seconds: float | None) -> Self:
        """Default timeout of gadgets without their own ``timeout_s``."""
        return self._set("gadget_timeout_s", seconds)

    def with_markers(self, markers: Markers) -> Self:
        """The block syntax's three markers at once (``Markers(start=..., end=..., arg=...)``)."""
        return self._set("markers", markers)

    def with_gadget_start_prefix(self, prefix: str) -> Self:
        """Custom block start marker (default ``!!!GADGET_START:``)."""
        return self._set("gadget_start_prefix", prefix)

    def with_gadget_end_prefix(self, prefix: str) -> Self:
        """Custom block end marker (default ``!!!GADGET_END``)."""
        return self._set("gadget_end_prefix", prefix)

    def with_gadget_arg_prefix(self, prefix: str) -> Self:
        """Custom argument marker (default ``!!!ARG:``)."""
        return self._set("gadget_arg_prefix", prefix)

    def with_reasoning(self, reasoning: Reasoning | ReasoningEffort | int | None) -> Self:
        """How much a reasoning model thinks: an effort, a token budget or a ``Reasoning`` (see
        ``Agent(reasoning=...)``)."""
        return self.with_option("reasoning", reasoning)

    def with_max_response_tokens(self, tokens: int | Literal["auto"] | None) -> Self:
        """Cap on each response's length (``"auto"``, the default: the registry's limit, else 2,048)."""
        return self._set("max_response_tokens", tokens)

    def with_context_window(self, tokens: int | None) -> Self:
        """Tokens of the model's context (default: the model registry's, else 128k)."""
        return self._set("context_window", tokens)

    def with_constrained(self, constrained: bool | Literal["auto"]) -> Self:
        """Grammar-constrained calls: ``True``, ``False`` or ``"auto"`` (see ``Agent(constrained=...)``)."""
        return self._set("constrained", constrained)

    def with_prompt_style(self, style: PromptStyle) -> Self:
        """``"full"`` (the default) or ``"compact"`` system prompt (for small models)."""
        return self._set("prompt_style", style)

    def with_few_shot(self, gadgets: int) -> Self:
        """Send example exchanges before the task, from the examples of up to ``gadgets`` gadgets."""
        return self._set("few_shot", gadgets)

    def with_llm_client(self, client: ModelClient | None) -> Self:
        """The client lent to gadgets as ``ctx.llm`` (built from a client: that client)."""
        return self._set("llm_client", client)

    def with_session(self, session: Session) -> Self:
        """Keep the conversation in ``session`` (``SQLiteSession(path, id)``) and continue it; see :doc:`sessions`."""
        return self._set("session", session)

    def with_deferred_approvals(self) -> Self:
        """Calls that need approval wait in the session for a person's decision
        (``Agent(approvals="defer")``); see :doc:`approvals`."""
        return self._set("approvals", "defer")

    def with_compaction(self, compaction: Compaction | CompactionStrategy) -> Self:
        """Compact the conversation near the context window; see :doc:`compaction`."""
        return self._set("compaction", compaction)

    def with_subagents(self, *subagents: Agent[Any] | SubagentGadget) -> Self:
        """Add agents this one may call with a task; see :doc:`subagents`."""
        self._opts.setdefault("subagents", []).extend(subagents)
        return self

    def with_skills(self, *folders: str | os.PathLike[str]) -> Self:
        """Add folders of Agent Skills (checked when the agent is built); see :doc:`skills`."""
        self._opts.setdefault("skills", []).extend(folders)
        return self

    def with_temperature(self, temperature: float | None) -> Self:
        """Sampling temperature (default 0; ``None`` leaves the provider's default)."""
        return self._set("temperature", temperature)

    def with_output_type(
        self, output_type: type[_NewOutputT] | Sequence[type[_NewOutputT]], *, max_retries: int | None = None
    ) -> AgentBuilder[_NewOutputT]:
        """The type of the final answer (see ``Agent(output_type=...)``); ``max_retries`` invalid
        answers are fed back before the run raises ``OutputValidationError``."""
        self._opts["output_type"] = output_type
        if max_retries is not None:
            self._opts["max_output_retries"] = max_retries
        return cast("AgentBuilder[_NewOutputT]", self)

    def with_option(self, name: str, value: Any) -> Self:
        """Set any other ``Agent`` keyword argument."""
        return self._set(name, value)

    def on_human_input(self, handler: HumanInputHandler) -> Self:
        """Answer ``HumanInputRequired`` questions from gadgets (sync or async ``question -> answer``)."""
        return self._set("on_human_input", handler)

    def build(self) -> Agent[OutputT]:
        """The configured agent."""
        opts = dict(self._opts)
        if "model" not in opts:
            raise ValueError("AgentBuilder: call .with_model(...) before building (e.g. 'mock' or 'openai:gpt-4o')")
        if self._hooks:
            opts["hooks"] = merge_hooks(*self._hooks)
        client = self._client
        if client is not None:
            opts.setdefault("llm_client", client)
            opts.setdefault("model_registry", client.model_registry)
        agent: Agent[OutputT] = Agent(gadgets=list(self._gadgets), **opts)
        return agent

    def ask(self, prompt: str) -> AgentStream[OutputT]:
        """Build the agent and start a run; iterate the returned stream for its events."""
        return self.build().stream(prompt)

    async def ask_and_collect(self, prompt: str) -> OutputT:
        """Build the agent, run it to the end, and return the final output (text by default)."""
        return (await self.build().run(prompt)).output

    def __repr__(self) -> str:
        return f"AgentBuilder({self._opts!r}, gadgets={len(self._gadgets)}, hooks={len(self._hooks)})"
