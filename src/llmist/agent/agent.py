"""``Agent``: a model, gadgets, a system prompt and hooks; ``run``, ``run_sync`` and ``stream``."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from llmist.agent._config import HumanInputHandler, RunConfig
from llmist.agent._loop import run_loop
from llmist.agent._models import resolve_agent_model
from llmist.agent.events import AgentEvent
from llmist.agent.hooks import Hooks, merge_hooks
from llmist.agent.prompt import Markers, Syntax, render_system_prompt
from llmist.agent.result import AgentResult
from llmist.gadgets import AbortSignal, Gadget, as_gadget
from llmist.providers.base import Provider

__all__ = ["Agent", "AgentStream", "HumanInputHandler"]


class Agent:
    """Runs a model with gadgets until the task is done.

    Args:
        model: ``"mock"``, ``"provider:model"``, an alias, or a provider instance (``MockModel``...).
        gadgets: ``Gadget`` instances, ``Gadget`` subclasses or ``@gadget`` functions.
        system: Replaces the default preamble of the system prompt.
        system_extra: Added after the preamble.
        hooks: One :class:`Hooks` or several (merged in order).
        syntax: ``"block"`` (``!!!GADGET_START:``) or ``"emoji"`` (``🛠️[``).
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
        gadget_start_prefix / gadget_end_prefix / gadget_arg_prefix: Custom block markers.
        model_registry: Prices model calls (default: the providers' registry when available).
        llm_client: Client lent to gadgets as ``ctx.llm``.
    """

    _config: RunConfig | None

    def __init__(
        self,
        *,
        model: str | Provider,
        gadgets: Sequence[object] = (),
        system: str | None = None,
        system_extra: str | None = None,
        hooks: Hooks | Sequence[Hooks] | None = None,
        syntax: Syntax = "block",
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
        gadget_start_prefix: str = "!!!GADGET_START:",
        gadget_end_prefix: str = "!!!GADGET_END",
        gadget_arg_prefix: str = "!!!ARG:",
        model_registry: Any = None,
        llm_client: Any = None,
    ) -> None:
        _check_options(syntax, max_iterations)
        self.model = model
        self.gadgets: list[Gadget] = _unique_gadgets(gadgets)
        self.hooks: Hooks | None = hooks if isinstance(hooks, Hooks) or hooks is None else merge_hooks(*hooks)
        self.syntax: Syntax = syntax
        self.markers = Markers(gadget_start_prefix, gadget_end_prefix, gadget_arg_prefix)
        self.system = system
        self.system_extra = system_extra
        self.max_iterations = max_iterations
        self.max_gadgets_per_response = max_gadgets_per_response
        self.stop_on_no_calls = stop_on_no_calls
        self.max_cost = max_cost
        self.max_tokens = max_tokens
        self.gadget_output_limit = gadget_output_limit
        self.gadget_output_limit_percent = gadget_output_limit_percent
        self.context_window = context_window
        self.on_human_input = on_human_input
        self.gadget_timeout_s = gadget_timeout_s
        self.temperature = temperature
        self.max_response_tokens = max_response_tokens
        self.model_registry = model_registry
        self.llm_client = llm_client

    @property
    def model(self) -> str | Provider:
        """The model runs use. Assigning another one (``llmist.testing.override`` does) applies
        from the next run on."""
        return self._model

    @model.setter
    def model(self, model: str | Provider) -> None:
        self._model = model
        self._config = None

    @property
    def system_prompt(self) -> str:
        """The system prompt the model receives (rendered once and cached)."""
        return self._run_config().system_prompt

    def _run_config(self) -> RunConfig:
        if self._config is None:
            provider, model_name = resolve_agent_model(self.model, self.model_registry)
            self._config = RunConfig.build(self, provider, model_name)
        return self._config

    def stream(self, prompt: str, *, signal: AbortSignal | None = None) -> AgentStream:
        """Start a run; iterate the returned :class:`AgentStream` for its events as they happen."""
        return AgentStream(self._run_config(), prompt, signal)

    async def run(self, prompt: str, *, signal: AbortSignal | None = None) -> AgentResult:
        """Run to the end and return the :class:`AgentResult`."""
        s = AgentStream(self._run_config(), prompt, signal)
        async for _ in s.batches():
            pass
        assert s.result is not None
        return s.result

    def run_sync(self, prompt: str) -> AgentResult:
        """``run`` for code without an event loop."""
        return asyncio.run(self.run(prompt))

    def render_system_prompt(self, gadgets: Sequence[Gadget]) -> str:
        """The system prompt for ``gadgets`` with this agent's syntax, markers and texts."""
        return render_system_prompt(
            gadgets, syntax=self.syntax, markers=self.markers, system=self.system, system_extra=self.system_extra
        )

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, gadgets={[g.name for g in self.gadgets]}, syntax={self.syntax!r})"


class AgentStream:
    """The events of one run, as an async iterator; ``result`` is set once it is exhausted.

    ``cancel()`` stops the run at the next step (running gadgets are cancelled); the result then
    has ``stop_reason == "cancelled"``.
    """

    def __init__(self, config: RunConfig, prompt: str, signal: AbortSignal | None) -> None:
        self.signal = signal if signal is not None else AbortSignal()
        """Fire it (or call :meth:`cancel`) to cancel the run."""
        self.result: AgentResult | None = None
        """The run's outcome, once the stream is exhausted."""
        self._gen = run_loop(config, prompt, self.signal, self._set_result)
        self._pending: deque[AgentEvent] = deque()

    def _set_result(self, result: AgentResult) -> None:
        self.result = result

    def batches(self) -> AsyncGenerator[list[AgentEvent], None]:
        """The run's events as the loop produces them, in lists (one per step)."""
        return self._gen

    def cancel(self) -> None:
        """Cancel the run."""
        self.signal.abort("run cancelled")

    def __aiter__(self) -> AgentStream:
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


def _check_options(syntax: str, max_iterations: int) -> None:
    """Reject option values no run could use."""
    if syntax not in ("block", "emoji"):
        raise ValueError(f"syntax must be 'block' or 'emoji', got {syntax!r}")
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
