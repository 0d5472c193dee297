"""Model fallback: when one model fails, the next one answers.

The policy, applied by :class:`FallbackModel` and by an agent given several models
(``Agent(model=["sonnet", "openai:gpt-4o-mini", "ollama:qwen2.5:7b"])``):

- **Each model's own retries come first.** A model's provider retries a failed request as
  :mod:`llmist.providers.retry` says; the request moves on only once those retries are spent.
- **What moves a request on to the next model:** every
  :class:`~llmist.providers.errors.RetryableProviderError` still failing when its retries are
  spent: a connection failure, a timeout (:class:`~llmist.providers.errors.ProviderTimeoutError`),
  a 5xx, an overloaded provider (503/529), a rate limit still refused after its waits, an empty
  answer. Also any error whose class :attr:`FallbackPolicy.also_on` lists.
- **What does not:** an error that is the request's own fault or a setup mistake (a 4xx such as
  a bad schema, :class:`~llmist.providers.errors.ContextWindowExceededError`, a refused or missing
  key) is raised at once, unless listed in ``also_on``: the next model would refuse the request
  too, or a mistake would be hidden. Such an error, raised after earlier models failed, carries a
  note naming their failures.
- **A stream that breaks after text was sent**
  (:class:`~llmist.providers.errors.StreamInterruptedError`) goes to the next model, which
  starts the response over; the stream says so (a chunk with ``restart`` set, before the next
  model's first chunk; an agent emits a ``ModelFallbackEvent``). ``restart_mid_stream=False``
  raises the error instead.
- **A model that failed is passed over for** :attr:`FallbackPolicy.cooldown` **seconds** (60 by
  default): later requests start at the first model that is not cooling down, so a provider that
  is down costs its retries once, not on every request. Models cooling down are still asked,
  last and in order, when every other one fails. An answer ends a model's cooldown. Time is read
  from :attr:`FallbackPolicy.clock` (tests inject their own).
- **When every model failed**, :class:`~llmist.providers.errors.AllModelsFailedError` names each
  model and its failure, in the order they were asked.

Each chunk a ``FallbackModel`` streams names the model that wrote it (``LLMChunk.model``), so
usage is priced at that model's prices.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from llmist.models import ModelRegistry
from llmist.providers.base import LLMChunk, LLMRequest, Provider
from llmist.providers.errors import (
    AllModelsFailedError,
    ModelFailure,
    ProviderError,
    RetryableProviderError,
    StreamInterruptedError,
)
from llmist.providers.registry import resolve_model

__all__ = ["FallbackModel", "FallbackPolicy", "FallbackRequest", "ModelChoice", "model_ref"]

logger = logging.getLogger("llmist.providers.fallback")

ModelChoice = str | Provider | tuple[Provider, str]
"""A model of a chain: a model string (``"sonnet"``, ``"openai:gpt-4o-mini"``), a provider and
the model name to send it (``(OpenAIProvider(base_url=...), "my-model")``), or a provider alone
(which sends its own ``model``, else its ``name``, as a mock model does)."""


@dataclass(frozen=True, slots=True)
class FallbackPolicy:
    """When a request moves on to the next model (the module docstring is the whole policy)."""

    also_on: tuple[type[ProviderError], ...] = ()
    """Errors that also move a request on, beyond the retryable ones: e.g.
    ``(ContextWindowExceededError,)`` for a chain whose next model reads more."""
    restart_mid_stream: bool = True
    """A stream that broke after text was sent starts over on the next model (``False``: raise)."""
    cooldown: float = 60.0
    """Seconds a model that failed is asked last (``0``: always in the given order)."""
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    """Where time is read for the cooldown."""

    def __post_init__(self) -> None:
        if self.cooldown < 0:
            raise ValueError(f"cooldown must be 0 or more seconds, got {self.cooldown}")
        for kind in self.also_on:
            if not (isinstance(kind, type) and issubclass(kind, ProviderError)):
                raise TypeError(
                    f"also_on takes ProviderError subclasses (e.g. ContextWindowExceededError), got {kind!r}"
                )

    def falls_back(self, error: BaseException) -> bool:
        """Whether ``error`` (raised once the model's retries were spent) moves the request on."""
        if isinstance(error, StreamInterruptedError):
            return self.restart_mid_stream
        return isinstance(error, (RetryableProviderError, *self.also_on))


class FallbackModel:
    """A provider that asks its models in turn until one answers (see the module docstring).

    ``FallbackModel("sonnet", "openai:gpt-4o-mini", "ollama:qwen2.5:7b")`` streams like any
    provider; each request goes to the first model that is not cooling down, and on to the next
    when it fails as the policy says. An agent given a ``FallbackModel`` (or a list of models)
    also reaches each model in its own syntax, prompt and prices.

    Models given as strings are resolved (their providers made) on first use, all at once, so a
    missing key or SDK of any of them is reported by the first request, not when it is needed.
    """

    name = "fallback"
    """Provider id."""

    def __init__(
        self,
        *models: ModelChoice,
        policy: FallbackPolicy | None = None,
        model_registry: ModelRegistry | None = None,
    ) -> None:
        if len(models) == 1 and isinstance(models[0], list):
            models = tuple(models[0])
        if not models:
            raise ValueError("FallbackModel needs at least one model, e.g. FallbackModel('sonnet', 'gpt-4o-mini')")
        for model in models:
            if not _is_choice(model):
                raise TypeError(
                    "a fallback chain's models are model strings, providers or (provider, model name) pairs "
                    f"(not another FallbackModel), got {model!r}"
                )
        self.models: tuple[ModelChoice, ...] = tuple(models)
        """The models, in the order they are asked."""
        self.policy = policy or FallbackPolicy()
        """When a request moves on."""
        self.model_registry = model_registry
        """Aliases used to resolve model strings (``None``: the default registry)."""
        self._resolved: list[tuple[Provider, str]] | None = None
        self._failed_at: dict[int, float] = {}

    def resolve(self, index: int) -> tuple[Provider, str]:
        """The provider of model ``index`` and the model name to send it (all resolved on first use)."""
        if self._resolved is None:
            self._resolved = [_resolve(m, self.model_registry) for m in self.models]
        return self._resolved[index]

    def ref(self, index: int) -> str:
        """Model ``index`` as ``provider:model`` (see :func:`model_ref`): how records and errors name it."""
        return model_ref(*self.resolve(index))

    def request(self) -> FallbackRequest:
        """A new request's way down the chain: the models not cooling down first."""
        now = self.policy.clock()
        cooling = {i for i, at in self._failed_at.items() if now - at < self.policy.cooldown}
        ready = [i for i in range(len(self.models)) if i not in cooling]
        return FallbackRequest(self, [*ready, *sorted(cooling)])

    def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        """Stream the answer of the first model that gives one; ``request.model`` is replaced by
        each model's own name. Each chunk names its model; a restart is a chunk of its own."""
        return self._stream(request)

    async def _stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        way = self.request()
        restart = False
        while True:
            index = way.current
            provider, name = self.resolve(index)
            ref = self.ref(index)
            sent = False
            try:
                async for chunk in provider.stream(dataclasses.replace(request, model=name)):
                    if not sent and restart:
                        yield LLMChunk(model=ref, restart=True)
                    sent = True
                    yield dataclasses.replace(chunk, model=ref)
            except ProviderError as error:
                way.failed(error)
                restart = restart or sent or isinstance(error, StreamInterruptedError)
                continue
            way.succeeded()
            return

    def _mark_failed(self, index: int) -> None:
        self._failed_at[index] = self.policy.clock()

    def _mark_answered(self, index: int) -> None:
        self._failed_at.pop(index, None)


class FallbackRequest:
    """One request's way down a chain: the model to ask now, and what failed before it.

    :class:`FallbackModel` walks it for a plain request; an agent walks it too, asking each model
    in its own syntax. Either way the policy is applied here, once.
    """

    def __init__(self, chain: FallbackModel, order: Sequence[int]) -> None:
        self.chain = chain
        """The chain walked."""
        self.order = tuple(order)
        """The models' indexes, in the order this request asks them."""
        self.failures: list[ModelFailure] = []
        """Each model that failed this request, and why."""
        self._position = 0

    @property
    def current(self) -> int:
        """The index of the model to ask now."""
        return self.order[self._position]

    def failed(self, error: ProviderError) -> int:
        """The current model failed with ``error`` (its retries spent): the index of the next model.

        Raises ``error`` itself when the policy does not move the request on for it (noting the
        earlier failures), and :class:`AllModelsFailedError` when no model is left.
        """
        chain = self.chain
        if not chain.policy.falls_back(error):
            for failure in self.failures:
                error.add_note(f"Asked before it: {failure.describe()}")
            raise error
        index = self.current
        chain._mark_failed(index)
        self.failures.append(ModelFailure(chain.ref(index), error))
        self._position += 1
        if self._position >= len(self.order):
            raise AllModelsFailedError(self.failures) from error
        logger.warning("%s failed (%s); the request goes to %s", chain.ref(index), error, chain.ref(self.current))
        return self.current

    def succeeded(self) -> None:
        """The current model answered: its cooldown, if any, ends."""
        self.chain._mark_answered(self.current)


def model_ref(provider: Provider, model_name: str) -> str:
    """A model as records name it: ``provider:model`` (``"openai:gpt-4o-mini"``), or the name
    alone when it is the provider's own (a test double: ``"mock"``)."""
    name = str(getattr(provider, "name", "") or "")
    return model_name if not name or name == model_name else f"{name}:{model_name}"


def _is_choice(model: object) -> bool:
    if isinstance(model, tuple):
        pair = len(model) == 2 and isinstance(model[1], str) and not isinstance(model[0], (str, tuple))
        return pair and _is_choice(model[0])
    return isinstance(model, str) or (isinstance(model, Provider) and not isinstance(model, FallbackModel))


def _resolve(model: ModelChoice, registry: ModelRegistry | None) -> tuple[Provider, str]:
    if isinstance(model, str):
        return resolve_model(model, registry)
    if isinstance(model, tuple):
        return model
    return model, str(getattr(model, "model", None) or model.name)
