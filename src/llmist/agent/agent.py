"""``Agent``: a model, gadgets, a system prompt and hooks; ``run``, ``run_sync`` and ``stream``."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, overload

from typing_extensions import TypeVar

from llmist.agent._compaction_run import as_compaction, compaction_hooks
from llmist.agent._config import HumanInputHandler, RunConfig, agent_system_prompt
from llmist.agent._loop import Events, run_loop
from llmist.agent._media import UserPrompt, user_content, with_text
from llmist.agent._models import resolve_agent_model
from llmist.agent._output import (
    DEFAULT_MAX_OUTPUT_RETRIES,
    OutputSpec,
    output_hooks,
    output_spec,
    typed_events,
    typed_result,
)
from llmist.agent._session_run import run_with_session, session_hooks
from llmist.agent.compaction import Compaction, CompactionStrategy
from llmist.agent.events import AgentEvent
from llmist.agent.hooks import Hooks, merge_hooks
from llmist.agent.instrumentation import InstrumentationSettings, resolve
from llmist.agent.prompt import Markers, PromptStyle, Syntax, SyntaxOption
from llmist.agent.result import AgentResult, OutputT
from llmist.agent.sessions import Session
from llmist.agent.subagents import DEFAULT_MAX_DEPTH, RunScope, SubagentGadget, has_subagents, run_with_subagents
from llmist.gadgets import AbortSignal, Gadget, ModelClient, as_gadget
from llmist.providers.base import ContentPart, Message, Provider, Reasoning, ReasoningEffort
from llmist.providers.vision import check_images_accepted

if TYPE_CHECKING:
    from llmist.mcp import MCPServer

__all__ = ["Agent", "AgentStream", "HumanInputHandler"]

RunOutputT = TypeVar("RunOutputT")
"""The output type of one run given ``run(..., output_type=...)``."""

OutputType: TypeAlias = "type[OutputT] | Sequence[type[OutputT]]"
"""What ``output_type`` takes: a type (a Pydantic model, ``str``, any type pydantic validates, a
``A | B`` union) or a list of types (one final-answer gadget each; ``str`` among them lets the
model answer in prose)."""


class Agent(Generic[OutputT]):
    """Runs a model with gadgets until the task is done.

    Args:
        model: ``"mock"``, ``"provider:model"``, an alias, or a provider instance (``MockModel``...).
        gadgets: ``Gadget`` instances, ``Gadget`` subclasses or ``@gadget`` functions.
        system: Replaces the default preamble of the system prompt.
        system_extra: Added after the preamble.
        prompt_style: ``"full"`` (every rule and parameter detail) or ``"compact"`` (one call form and
            one line per gadget: for small models; see :doc:`local-models`).
        few_shot: Example exchanges (task, call, result, answer) sent before the task, made from
            the first ``GadgetExample`` with an ``output`` of up to this many gadgets.
        strict: Turn the loop's repairs of a model's mistakes (an unknown gadget name, a repeated
            call, an invented result) into a :class:`~llmist.agent.RepairRefused` error ending the run.
        hooks: One :class:`Hooks` or several (merged in order).
        syntax: How the model calls gadgets: it writes ``"block"`` (``!!!GADGET_START:``) or
            ``"emoji"`` (``🛠️[``) calls in its text, or ``"native"``: the provider's tool-calling
            API; ``"auto"``: native where the model registry says the model does it well, else
            block (see :doc:`native-tools`).
        max_iterations: Most model calls per run.
        max_gadgets_per_response: Most calls run per response; later ones are reported as not run.
        stop_on_no_calls: End the run when a response has no calls (else ask the model to go on).
        max_cost: Stop once the run cost this many USD (model + gadgets).
        max_tokens: Stop once the run used this many tokens (in + out).
        gadget_output_limit: Store outputs too large for the context and give the model
            ``GadgetOutputViewer`` to read them.
        gadget_output_limit_percent: Share of the context window one output may take.
        context_window: Tokens of the model's context (default: from the model registry, else 128k).
        on_human_input: Answers ``HumanInputRequired`` from gadgets.
        gadget_timeout_s: Default timeout of gadgets without their own ``timeout_s``.
        temperature: Sampling temperature (0 by default; ``None`` for the provider's default).
        max_response_tokens: Cap on each response's length.
        reasoning: How much a reasoning model thinks: an effort (``"low"``, ``"high"``...), a
            token budget (``8000``) or a :class:`~llmist.providers.Reasoning`; passed to the
            provider in its native parameter. Thinking text streams as ``ReasoningEvent``.
        gadget_start_prefix / gadget_end_prefix / gadget_arg_prefix: Custom block markers.
        model_registry: Prices model calls (default: the providers' registry when available).
        llm_client: Client lent to gadgets as ``ctx.llm`` (an ``LLMClient``; default: a client of
            this agent's model and registry). Each call a gadget makes adds its cost to the gadget's.
        mcp_servers: MCP servers (``MCPServerStdio``, ``MCPServerHTTP``) whose tools join the gadgets;
            each run connects those not yet connected and closes them when it ends.
        output_type: The type of the final answer (``str`` by default); see :doc:`output`. The
            model then ends with a final-answer gadget whose schema is the type, and
            ``AgentResult.output`` is the validated instance.
        max_output_retries: Invalid final answers fed back to the model before the run raises
            :class:`~llmist.OutputValidationError`.
        instrument: Trace runs with OpenTelemetry (``True`` or :class:`InstrumentationSettings`;
            ``None`` follows :func:`llmist.instrument`); see :doc:`tracing`.
        session: Keeps the conversation between runs and processes (:class:`SQLiteSession`...):
            each run continues it and saves it after every completed iteration; see :doc:`sessions`.
        name / description: What the agent is called and does, when another agent calls it
            (``subagents=[...]``, :meth:`as_gadget`).
        subagents: Agents (with a ``name`` and ``description``) or their :meth:`as_gadget`
            gadgets this agent may call with a task; see :doc:`subagents`.
        compaction: Shrinks the conversation when it nears the context window: a
            :class:`Compaction` or a strategy (:class:`SlidingWindow`, :class:`Summarize`);
            ``None`` (the default) never compacts. See :doc:`compaction`.
    """

    _config: RunConfig | None
    _output: OutputSpec | None
    _output_config: RunConfig | None

    def __init__(
        self,
        *,
        model: str | Provider,
        gadgets: Sequence[object] = (),
        system: str | None = None,
        system_extra: str | None = None,
        prompt_style: PromptStyle = "full",
        few_shot: int = 0,
        strict: bool = False,
        hooks: Hooks | Sequence[Hooks] | None = None,
        syntax: SyntaxOption = "block",
        max_iterations: int = 10,
        max_gadgets_per_response: int | None = None,
        stop_on_no_calls: bool = True,
        max_cost: float | None = None,
        max_tokens: int | None = None,
        gadget_output_limit: bool = True,
        gadget_output_limit_percent: float = 15.0,
        context_window: int | None = None,
        on_human_input: HumanInputHandler | None = None,
        gadget_timeout_s: float | None = None,
        temperature: float | None = 0.0,
        max_response_tokens: int | None = None,
        reasoning: Reasoning | ReasoningEffort | int | None = None,
        gadget_start_prefix: str = "!!!GADGET_START:",
        gadget_end_prefix: str = "!!!GADGET_END",
        gadget_arg_prefix: str = "!!!ARG:",
        model_registry: Any = None,
        llm_client: ModelClient | None = None,
        mcp_servers: Sequence[MCPServer] = (),
        output_type: type[OutputT] | Sequence[type[OutputT]] = str,  # type: ignore[assignment]
        max_output_retries: int = DEFAULT_MAX_OUTPUT_RETRIES,
        instrument: InstrumentationSettings | bool | None = None,
        session: Session | None = None,
        compaction: Compaction | CompactionStrategy | None = None,
        name: str | None = None,
        description: str | None = None,
        subagents: Sequence[Agent[Any] | SubagentGadget] = (),
    ) -> None:
        _check_options(syntax, max_iterations, prompt_style, few_shot)
        self.model, self.name, self.description = model, name, description
        self.gadgets: list[Gadget] = _unique_gadgets([*gadgets, *(_subagent_gadget(s) for s in subagents)])
        self.hooks: Hooks | None = hooks if isinstance(hooks, Hooks) or hooks is None else merge_hooks(*hooks)
        self.syntax, self.markers = syntax, Markers(gadget_start_prefix, gadget_end_prefix, gadget_arg_prefix)
        # Grouped as the docstring lists them; each is read at the start of every run.
        self.system, self.system_extra = system, system_extra
        self.prompt_style, self.few_shot, self.strict = prompt_style, few_shot, strict
        self.max_iterations, self.max_gadgets_per_response = max_iterations, max_gadgets_per_response
        self.stop_on_no_calls, self.max_cost, self.max_tokens = stop_on_no_calls, max_cost, max_tokens
        self.gadget_output_limit, self.gadget_output_limit_percent = gadget_output_limit, gadget_output_limit_percent
        self.context_window, self.gadget_timeout_s = context_window, gadget_timeout_s
        self.on_human_input = on_human_input
        self.temperature, self.max_response_tokens = temperature, max_response_tokens
        self.reasoning = Reasoning.of(reasoning)
        self.model_registry, self.llm_client, self.mcp_servers = model_registry, llm_client, list(mcp_servers)
        self.output_type, self.max_output_retries, self.instrument = output_type, max_output_retries, instrument
        self.session, self.compaction = session, _checked_compaction(compaction)
        self._output, self._output_config = output_spec(output_type, max_output_retries), None

    @property
    def model(self) -> str | Provider:
        """The model runs use. Assigning another one (``llmist.testing.override`` does) applies
        from the next run on."""
        return self._model

    @model.setter
    def model(self, model: str | Provider) -> None:
        self._model = model
        self._config = None
        self._output_config = None

    @property
    def system_prompt(self) -> str:
        """The system prompt the model receives (rendered once and cached)."""
        if self._output is not None:
            return self._typed_config(self._output).system_prompt
        return self._run_config().system_prompt

    @property
    def call_syntax(self) -> Syntax:
        """How this agent's runs call gadgets: its ``syntax``, with ``"auto"`` resolved for its model."""
        return self._run_config().syntax

    def _run_config(self) -> RunConfig:
        if self._config is None:
            provider, model_name = resolve_agent_model(self.model, self.model_registry)
            self._config = RunConfig.build(self._untyped(), provider, model_name)
        return self._config

    def _untyped(self) -> Agent[Any]:
        return self

    def _typed_config(self, spec: OutputSpec) -> RunConfig:
        base = self._run_config()
        if spec is not self._output:
            return RunConfig.build(self._untyped(), base.provider, base.model_name, spec.gadgets)
        if self._output_config is None or self._output_config.provider is not base.provider:
            self._output_config = RunConfig.build(self._untyped(), base.provider, base.model_name, spec.gadgets)
        return self._output_config

    def as_gadget(
        self, name: str | None = None, description: str | None = None, *, max_depth: int = DEFAULT_MAX_DEPTH
    ) -> SubagentGadget:
        """This agent as a gadget another agent calls with a task (see :doc:`subagents`).

        ``name`` and ``description`` default to the agent's own; ``max_depth`` is how deep
        subagents may nest below the top run.
        """
        name = name or self.name
        description = description or self.description
        if not name or not description:
            raise ValueError(
                "a subagent needs a name and a description: pass them to as_gadget(name, description) "
                "or to Agent(name=..., description=...)"
            )
        return SubagentGadget(self, name, description, max_depth=max_depth)

    def _start(
        self,
        prompt: UserPrompt | None,
        signal: AbortSignal | None,
        output_type: Any,
        history: Sequence[Message] | None,
        *,
        scope: RunScope | None = None,
    ) -> AgentStream[Any]:
        spec = self._output if output_type is None else output_spec(output_type, self.max_output_retries)
        config = self._run_config() if spec is None else self._typed_config(spec)
        content = None if prompt is None else user_content(prompt)
        if content is not None and not isinstance(content, str):
            name = getattr(config.provider, "name", "")
            check_images_accepted([Message("user", content)], config.model_name, config.vision, provider=name)
        if self.compaction is not None:
            config = _with_controllers(config, compaction_hooks(as_compaction(self.compaction), config))
        tracing = resolve(self.instrument)
        return AgentStream(
            config,
            content,
            signal,
            mcp_servers=self.mcp_servers,
            output=spec,
            tracing=tracing,
            history=history,
            session=self.session,
            scope=scope,
        )

    @overload
    def stream(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: None = None,
        history: Sequence[Message] | None = None,
    ) -> AgentStream[OutputT]: ...
    @overload
    def stream(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: type[RunOutputT] | Sequence[type[RunOutputT]],
        history: Sequence[Message] | None = None,
    ) -> AgentStream[RunOutputT]: ...
    def stream(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: Any = None,
        history: Sequence[Message] | None = None,
    ) -> AgentStream[Any]:
        """Start a run; iterate the returned :class:`AgentStream` for its events as they happen.

        ``output_type`` overrides the agent's for this run. ``history`` (an earlier result's
        ``messages``, or :func:`~llmist.loads_messages` of a saved one) is the conversation the
        run continues (default: the session's, else none); ``prompt`` ``None`` continues it
        without a new user message.
        """
        return self._start(prompt, signal, output_type, history)

    @overload
    async def run(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: None = None,
        history: Sequence[Message] | None = None,
    ) -> AgentResult[OutputT]: ...
    @overload
    async def run(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: type[RunOutputT] | Sequence[type[RunOutputT]],
        history: Sequence[Message] | None = None,
    ) -> AgentResult[RunOutputT]: ...
    async def run(
        self,
        prompt: UserPrompt | None,
        *,
        signal: AbortSignal | None = None,
        output_type: Any = None,
        history: Sequence[Message] | None = None,
    ) -> AgentResult[Any]:
        """Run to the end and return the :class:`AgentResult` (``output_type`` overrides the
        agent's; ``history`` as in :meth:`stream`).

        ``prompt`` is text, or text and images: ``["What is this?", ImagePart.from_path("cat.png")]``.
        Images for a model known not to see them raise :class:`~llmist.ImagesNotSupportedError`.
        """
        s = self._start(prompt, signal, output_type, history)
        async for _ in s.batches():
            pass
        assert s.result is not None
        return s.result

    def run_sync(self, prompt: UserPrompt | None, *, history: Sequence[Message] | None = None) -> AgentResult[OutputT]:
        """``run`` for code without an event loop."""
        return asyncio.run(self.run(prompt, history=history))

    def render_system_prompt(self, gadgets: Sequence[Gadget]) -> str:
        """The system prompt for ``gadgets`` with this agent's syntax, markers and texts (with
        ``syntax="auto"``, the syntax its runs use: see :attr:`call_syntax`)."""
        option = self.syntax
        return agent_system_prompt(self._untyped(), gadgets, self.call_syntax if option == "auto" else option)

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, gadgets={[g.name for g in self.gadgets]}, syntax={self.syntax!r})"


class AgentStream(Generic[OutputT]):
    """The events of one run, as an async iterator; ``result`` is set once it is exhausted.

    ``cancel()`` stops the run at the next step (running gadgets are cancelled); the result then
    has ``stop_reason == "cancelled"``.
    """

    def __init__(
        self,
        config: RunConfig,
        prompt: str | tuple[ContentPart, ...] | None,
        signal: AbortSignal | None,
        *,
        mcp_servers: Sequence[MCPServer] = (),
        output: OutputSpec | None = None,
        tracing: InstrumentationSettings | None = None,
        history: Sequence[Message] | None = None,
        session: Session | None = None,
        scope: RunScope | None = None,
    ) -> None:
        self.signal = signal if signal is not None else AbortSignal()
        """Fire it (or call :meth:`cancel`) to cancel the run."""
        self.result: AgentResult[OutputT] | None = None
        """The run's outcome, once the stream is exhausted."""
        self._output = output
        self._gave_up: str | None = None
        self._pending: deque[AgentEvent] = deque()
        tracer = None
        if output is not None:
            prompt = output.instruction() if prompt is None else with_text(prompt, output.instruction())
            config = _with_observers(config, output_hooks(output, self._give_up))
        if session is not None:
            config = _with_observers(config, session_hooks(session))
        if tracing is not None:
            from llmist.agent._tracing import RunTracer

            tracer = RunTracer(tracing, config)
            config = _with_observers(config, tracer.hooks())
        self._gen: AsyncGenerator[Events, None] = self._events(config, prompt, mcp_servers, history, session)
        if has_subagents(config.gadgets):
            self._gen = run_with_subagents(self._gen, scope or RunScope(), self._add_subagent_usage)
        if output is not None:
            self._gen = typed_events(self._gen, self._type_result)
        if tracer is not None:
            self._gen = tracer.wrap(self._gen, lambda: self.result)

    def _events(
        self,
        config: RunConfig,
        prompt: str | tuple[ContentPart, ...] | None,
        mcp_servers: Sequence[MCPServer],
        history: Sequence[Message] | None,
        session: Session | None,
    ) -> AsyncGenerator[Events, None]:
        if session is not None:
            return run_with_session(session, history, lambda loaded: self._loop(config, prompt, mcp_servers, loaded))
        return self._loop(config, prompt, mcp_servers, history or ())

    def _loop(
        self,
        config: RunConfig,
        prompt: str | tuple[ContentPart, ...] | None,
        mcp_servers: Sequence[MCPServer],
        history: Sequence[Message],
    ) -> AsyncGenerator[Events, None]:
        if not mcp_servers:
            return run_loop(config, prompt, self.signal, self._set_result, history)
        from llmist.agent._mcp_run import run_with_mcp

        return run_with_mcp(
            config,
            mcp_servers,
            lambda run_config: run_loop(run_config, prompt, self.signal, self._set_result, history),
            self._output.gadgets if self._output is not None else (),
            self.signal,
        )

    def _set_result(self, result: AgentResult[Any]) -> None:
        self.result = result

    def _add_subagent_usage(self, scope: RunScope) -> None:
        if self.result is not None:
            self.result.usage = self.result.usage + scope.usage

    def _give_up(self, reason: str) -> None:
        self._gave_up = reason
        self.signal.abort(reason)

    def _type_result(self) -> None:
        if self._output is not None and self.result is not None:
            self.result = typed_result(self._output, self.result, self._gave_up)

    def batches(self) -> AsyncGenerator[Events, None]:
        """The run's events as the loop produces them, in lists (one per step)."""
        return self._gen

    def cancel(self) -> None:
        """Cancel the run."""
        self.signal.abort("run cancelled")

    def __aiter__(self) -> AgentStream[OutputT]:
        return self

    async def __anext__(self) -> AgentEvent:
        pending = self._pending
        while not pending:
            pending.extend(await self._gen.__anext__())
        return pending.popleft()

    async def aclose(self) -> None:
        """Stop early: cancel running gadgets and close the model stream."""
        self._pending.clear()
        await self._gen.aclose()


def _with_observers(config: RunConfig, extra: Hooks) -> RunConfig:
    """``config`` whose observers are its own followed by ``extra``'s."""
    own = Hooks(observers=config.observers) if config.observers is not None else None
    return dataclasses.replace(config, observers=merge_hooks(own, extra).observers)


def _with_controllers(config: RunConfig, extra: Hooks) -> RunConfig:
    """``config`` whose controllers are ``extra``'s, then its own (the first that acts decides)."""
    own = Hooks(controllers=config.controllers) if config.controllers is not None else None
    return dataclasses.replace(config, controllers=merge_hooks(extra, own).controllers)


def _subagent_gadget(subagent: Agent[Any] | SubagentGadget) -> SubagentGadget:
    return subagent if isinstance(subagent, SubagentGadget) else subagent.as_gadget()


def _checked_compaction(
    compaction: Compaction | CompactionStrategy | None,
) -> Compaction | CompactionStrategy | None:
    """The option as given, once known to be usable (a wrong type fails here, not at the first run)."""
    if compaction is not None:
        as_compaction(compaction)
    return compaction


def _check_options(syntax: str, max_iterations: int, prompt_style: str, few_shot: int) -> None:
    """Reject option values no run could use."""
    if syntax not in ("block", "emoji", "native", "auto"):
        raise ValueError(f"syntax must be 'block', 'emoji', 'native' or 'auto', got {syntax!r}")
    if prompt_style not in ("full", "compact"):
        raise ValueError(f"prompt_style must be 'full' or 'compact', got {prompt_style!r}")
    if few_shot < 0:
        raise ValueError(f"few_shot must be 0 or more, got {few_shot}")
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")


def _unique_gadgets(gadgets: Sequence[object]) -> list[Gadget]:
    """The gadgets as ``Gadget`` instances; two with one name are an error."""
    out = [as_gadget(g) for g in gadgets]
    names = [g.name for g in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"two gadgets share the name(s) {dupes}; give each a unique `name`")
    return out
