"""Errors raised by model providers.

One small hierarchy under :class:`llmist.errors.LlmistError`, so callers can
catch as broadly or as narrowly as they need::

    LlmistError
    └── ProviderError
         ├── ProviderNotInstalledError    an optional SDK extra is missing
         ├── MissingAPIKeyError           no API key in the environment
         ├── UnknownModelError            a model string names no known provider
         ├── AuthenticationError          the provider refused the key (401/403)
         ├── BadRequestError              the provider rejected the request (other 4xx)
         │    └── ContextWindowExceededError  the conversation is longer than the model reads
         ├── ImagesNotSupportedError      images sent to a model that cannot see them
         ├── StreamInterruptedError       the stream broke after text reached the caller
         ├── AllModelsFailedError         every model of a FallbackModel failed (names each failure)
         └── RetryableProviderError       worth trying again
              ├── RateLimitError          429
              ├── ProviderOverloadedError 529/503
              ├── ProviderServerError     other 5xx
              ├── ProviderConnectionError connection failure, stream cut before any text
              │    ├── ProviderTimeoutError     no answer in time (the client's timeout, HTTP 408)
              │    └── ServerNotListeningError  connection refused: nothing listens at the address
              └── EmptyResponseError      200 with no text and no finish reason

Retryable errors that are still failing when the retry budget is spent reach the caller
unchanged (with ``attempts`` set), so ``except RateLimitError`` works for them too. Which of
them send a request on to the next model of a fallback chain is the policy of
:mod:`llmist.providers.fallback`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llmist._install import install_command
from llmist.errors import LlmistError

__all__ = [
    "AllModelsFailedError",
    "AuthenticationError",
    "BadRequestError",
    "ContextWindowExceededError",
    "EmptyResponseError",
    "ImagesNotSupportedError",
    "MissingAPIKeyError",
    "ModelFailure",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderNotInstalledError",
    "ProviderOverloadedError",
    "ProviderServerError",
    "ProviderTimeoutError",
    "RateLimitError",
    "RetryableProviderError",
    "ServerNotListeningError",
    "StreamInterruptedError",
    "UnknownModelError",
]


class ProviderError(LlmistError):
    """Base class of every error a provider raises."""

    provider: str
    """Provider id (``"openai"``, ``"anthropic"``, ...) or ``""`` when not known."""
    status_code: int | None
    """HTTP status of the failed response, when there was one."""
    attempts: int
    """How many attempts were made before this error was raised."""

    def __init__(self, message: str, *, provider: str = "", status_code: int | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.attempts = 1


class ProviderNotInstalledError(ProviderError, ImportError):
    """The SDK of a provider is not installed; the message names the extra to install."""

    def __init__(self, provider: str, package: str, extra: str) -> None:
        super().__init__(
            # The command on a line of its own: a terminal or a table that wraps the message
            # never cuts it, so it can be copied whole.
            f"The {provider!r} provider needs the {package!r} package, which is not installed. "
            f"Install it with:\n    {install_command(extra)}",
            provider=provider,
        )
        self.package = package
        self.extra = extra


class ImagesNotSupportedError(ProviderError):
    """A prompt carries images for a model that does not accept them (refused before any request)."""

    def __init__(self, model: str, images: list[str], *, provider: str = "") -> None:
        super().__init__(
            f"Model {model!r} does not accept images, but the prompt carries {len(images)}: {', '.join(images)}. "
            "Use a model that sees images (e.g. 'gpt-4o', 'sonnet', 'flash'), or, if this one does, "
            f"register it with ModelRegistry.register(ModelSpec(..., vision=True)).",
            provider=provider,
        )
        self.model = model
        """The model that was asked."""
        self.images = images
        """A description of each image refused."""


class MissingAPIKeyError(ProviderError):
    """No API key was given and the environment variable that holds it is not set."""

    def __init__(self, provider: str, env_var: str) -> None:
        super().__init__(
            f"No API key for the {provider!r} provider. Set the {env_var} environment variable "
            f"(or pass api_key=... when creating the provider).",
            provider=provider,
        )
        self.env_var = env_var


class UnknownModelError(ProviderError, ValueError):
    """A model string could not be resolved to a provider."""


class AuthenticationError(ProviderError):
    """The provider rejected the API key (HTTP 401 or 403)."""

    def __init__(self, message: str, *, provider: str, status_code: int | None, env_var: str | None) -> None:
        hint = f" Check the {env_var} environment variable." if env_var else ""
        super().__init__(f"{message}{hint}", provider=provider, status_code=status_code)
        self.env_var = env_var


class BadRequestError(ProviderError):
    """The provider rejected the request itself (a 4xx other than 401/403/429); retrying will not help."""


class ContextWindowExceededError(BadRequestError):
    """The conversation is longer than the model reads (the provider said so in a 400 or 413).

    Not retried, and not sent on to a fallback model unless the policy lists it
    (``FallbackPolicy(also_on=(ContextWindowExceededError,))``: a model with a larger window)."""


class StreamInterruptedError(ProviderError):
    """The response stream broke after some text had already been yielded to the caller.

    It is not retried: the caller has seen that text, and a retry would repeat or
    contradict it. ``partial_text`` holds everything that arrived before the break.
    """

    def __init__(self, message: str, *, provider: str, partial_text: str, partial_reasoning: str = "") -> None:
        super().__init__(
            f"{message} (the stream broke after {len(partial_text)} characters of text)", provider=provider
        )
        self.partial_text = partial_text
        self.partial_reasoning = partial_reasoning


class RetryableProviderError(ProviderError):
    """A failure worth trying again after a pause."""

    retry_after: float | None
    """Seconds the provider asked us to wait (``Retry-After``), if it said."""

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, provider=provider, status_code=status_code)
        self.retry_after = retry_after


class RateLimitError(RetryableProviderError):
    """HTTP 429: too many requests or tokens."""


class ProviderOverloadedError(RetryableProviderError):
    """HTTP 529 or 503: the provider is overloaded or unavailable."""


class ProviderServerError(RetryableProviderError):
    """HTTP 5xx (other than 503/529): the provider failed."""


class ProviderConnectionError(RetryableProviderError):
    """The connection failed, timed out, or broke before any text arrived."""


class ProviderTimeoutError(ProviderConnectionError):
    """No answer in time: the client's timeout ran out, or the server said 408."""


class ServerNotListeningError(ProviderConnectionError):
    """The connection was refused: nothing listens at the server's address (a local server that is
    not running, a wrong port). Retried less than other failures (see :mod:`llmist.providers.retry`)."""

    def __init__(self, message: str, *, provider: str = "", url: str | None = None) -> None:
        super().__init__(message, provider=provider)
        self.url = url
        """The address that refused the connection, when known."""


class EmptyResponseError(RetryableProviderError):
    """The provider answered 200 but sent no text and no finish reason."""


@dataclass(frozen=True, slots=True)
class ModelFailure:
    """One model's failure in a fallback chain."""

    model: str
    """The model, as the chain names it (``"sonnet"``, ``"openai:gpt-4o-mini"``, a provider's name)."""
    error: ProviderError
    """Why it was given up (its retries, if any, spent)."""

    def describe(self) -> str:
        """``model: error (after N attempts)``, on one line."""
        attempts = f" (after {self.error.attempts} attempts)" if self.error.attempts > 1 else ""
        return f"{self.model}: {type(self.error).__name__}: {self.error}{attempts}"


class AllModelsFailedError(ProviderError):
    """Every model of a fallback chain failed; ``failures`` says how each did, in the order tried."""

    def __init__(self, failures: Sequence[ModelFailure]) -> None:
        lines = "\n".join(f"  {n}. {f.describe()}" for n, f in enumerate(failures, 1))
        super().__init__(
            f"All {len(failures)} models failed:\n{lines}\n"
            "Check that each provider is reachable and its key set, or add a model to the chain.",
            provider="fallback",
        )
        self.failures = tuple(failures)
        """Each model and its error, in the order they were tried."""
