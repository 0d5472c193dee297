"""The agent of each task, with its model behind the batch's shared limiter and retry policy."""

from __future__ import annotations

import copy
import inspect
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias

from pydantic_core import to_jsonable_python

from llmist.agent import Agent
from llmist.batch.limits import BatchLimits
from llmist.batch.results import TaskResult
from llmist.batch.tasks import Task
from llmist.gadgets import AbortSignal
from llmist.models import ModelRegistry
from llmist.providers import RateLimitError, RetryPolicy, resolve_model
from llmist.providers.base import LLMChunk, LLMRequest, Provider, Usage
from llmist.providers.retry import estimate_tokens, reliable_stream

__all__ = ["AgentFactory", "AgentSource", "run_task"]

AgentFactory: TypeAlias = "Callable[[Task], Agent[Any]] | Callable[[], Agent[Any]]"
"""Makes the agent of one task: called with the :class:`Task`, or with nothing."""

_ONE_ATTEMPT = RetryPolicy(max_attempts=1)


class _BatchProvider:
    """A provider whose requests go through the batch's gate and retry policy.

    A provider that retries by itself (the SDK-backed ones have ``retry`` and ``rate_limiter``)
    is copied with one attempt and no limiter of its own, so the batch's policy is the only one.
    """

    def __init__(self, inner: Provider, model: str, limits: BatchLimits, policy: RetryPolicy) -> None:
        if isinstance(getattr(inner, "retry", None), RetryPolicy):
            inner = copy.copy(inner)
            inner.retry = _ONE_ATTEMPT  # type: ignore[attr-defined]
            inner.rate_limiter = None  # type: ignore[attr-defined]
        self._inner = inner
        self._limits = limits
        self._policy = policy
        self.name = inner.name
        """The wrapped provider's id (pricing and logs use it)."""
        self.model = model
        """The model name the agent sends."""
        self.offline = bool(getattr(inner, "offline", False))
        """As the wrapped provider (a test double stays one)."""

    def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        """Stream the response, waiting at the gate before each attempt and retrying under the policy."""
        return reliable_stream(lambda: self._attempt(request), request, provider=self.name, policy=self._policy)

    async def _attempt(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        key = f"{self.name}:{request.model}"
        estimate = estimate_tokens(request.messages)
        await self._limits.acquire(key, estimate)
        try:
            async for chunk in self._inner.stream(request):
                if chunk.usage is not None and chunk.usage.total_tokens != estimate:
                    self._limits.record(key, chunk.usage.total_tokens - estimate)
                yield chunk
        except RateLimitError as error:
            self._limits.rate_limited(key, error.retry_after)
            raise
        self._limits.succeeded(key)


class AgentSource:
    """Gives each task its agent: a copy of one agent, or the factory's, on the batch's provider."""

    def __init__(self, agent_or_factory: Agent[Any] | AgentFactory, limits: BatchLimits, policy: RetryPolicy) -> None:
        self._limits = limits
        self._policy = policy
        self._by_spec: dict[str, _BatchProvider] = {}
        self._shared: Agent[Any] | None = None
        self._factory: Callable[[Task], Agent[Any]] | None = None
        self._last: tuple[Agent[Any], Agent[Any]] | None = None
        """The factory's last agent and its copy, reused while the factory returns that agent."""
        if isinstance(agent_or_factory, Agent):
            self._shared = self._on_batch_provider(agent_or_factory)
        elif callable(agent_or_factory):
            self._factory = _task_factory(agent_or_factory)
        else:
            raise TypeError(f"expected an Agent or a function making one, got {type(agent_or_factory).__name__}")

    def agent_for(self, task: Task) -> Agent[Any]:
        """The agent that runs ``task``."""
        if self._shared is not None:
            return self._shared
        assert self._factory is not None
        agent = self._factory(task)
        if self._last is not None and self._last[0] is agent:
            return self._last[1]
        if not isinstance(agent, Agent):
            raise TypeError(f"the agent factory returned {type(agent).__name__}, expected an Agent")
        twin = self._on_batch_provider(agent)
        self._last = (agent, twin)
        return twin

    def _on_batch_provider(self, agent: Agent[Any]) -> Agent[Any]:
        """A shallow copy of ``agent`` (the caller's is left as it was) whose model is the batch's."""
        model = agent.model
        if isinstance(model, _BatchProvider):
            return agent
        registry = agent.model_registry
        twin = copy.copy(agent)
        if isinstance(model, str):
            wrapped = self._by_spec.get(model)
            if wrapped is None:  # one client per model string, not one per task
                provider, name = resolve_model(model, registry if isinstance(registry, ModelRegistry) else None)
                wrapped = self._by_spec[model] = _BatchProvider(provider, name, self._limits, self._policy)
            twin.model = wrapped
        elif isinstance(model, tuple):  # a provider and the model name to send it
            twin.model = _BatchProvider(model[0], model[1], self._limits, self._policy)
        else:  # a FallbackModel is limited as one provider: the batch's limits are per model given
            name = str(getattr(model, "model", None) or model.name)
            twin.model = _BatchProvider(model, name, self._limits, self._policy)
        return twin


def _task_factory(factory: Callable[..., Agent[Any]]) -> Callable[[Task], Agent[Any]]:
    """``factory`` as a function of the task, whether it takes the task or nothing."""
    try:
        takes_task = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_task = True
    return factory if takes_task else lambda task: factory()


async def run_task(source: AgentSource, task: Task, signal: AbortSignal) -> TaskResult:
    """Run ``task`` to its end; an exception becomes the result's ``error``, never a raise."""
    start = time.perf_counter()
    try:
        result = await source.agent_for(task).run(task.prompt, signal=signal)
    except Exception as exc:
        failure = f"{type(exc).__name__}: {exc}"
        return TaskResult(task.id, None, None, Usage(), 0.0, failure, time.perf_counter() - start)
    error = f"cancelled: {signal.reason}" if result.stop_reason == "cancelled" else None
    return TaskResult(
        task.id,
        _jsonable(result.output),
        result.stop_reason,
        result.usage,
        result.cost,
        error,
        time.perf_counter() - start,
    )


def _jsonable(output: object) -> Any:
    """A run's output as JSON data (a structured output dumped the way pydantic dumps it)."""
    if output is None or isinstance(output, str | int | float | bool):
        return output
    return to_jsonable_python(output, fallback=str)
