"""The provider contract: what an agent sends a model and what comes back.

Every model backend (OpenAI, Anthropic, Gemini, OpenAI-compatible servers, the mock model)
implements :class:`Provider`: given an :class:`LLMRequest`, it streams :class:`LLMChunk`
objects: text (and reasoning text, kept apart) as it arrives, and at the end one chunk
carrying the :class:`Usage` and the finish reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias, runtime_checkable

__all__ = [
    "ContentPart",
    "ImagePart",
    "LLMChunk",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "Provider",
    "Role",
    "TextPart",
    "Usage",
    "complete",
]

Role: TypeAlias = Literal["system", "user", "assistant", "gadget_result"]
"""``gadget_result`` carries gadget results back; providers send it as user text."""


@dataclass(frozen=True, slots=True)
class TextPart:
    """Plain text inside a multi-part message."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image inside a user message (for models that support vision)."""

    data: bytes
    """The encoded image bytes."""
    media_type: str = "image/png"
    """MIME type, e.g. ``image/png`` or ``image/jpeg``."""


ContentPart: TypeAlias = TextPart | ImagePart


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation message."""

    role: Role
    content: str | tuple[ContentPart, ...]
    """Text, or parts (text and images) for multi-modal user messages."""

    @property
    def text(self) -> str:
        """The message's text, parts joined (images omitted)."""
        if isinstance(self.content, str):
            return self.content
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one model call (or a sum of several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Part of ``input_tokens`` served from the provider's prompt cache."""
    reasoning_tokens: int = 0
    """Part of ``output_tokens`` spent on hidden reasoning, where reported."""
    cache_write_tokens: int = 0
    """Part of ``input_tokens`` written to the provider's prompt cache (billed at a premium)."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True, slots=True)
class LLMChunk:
    """A piece of a streamed response. The last chunk carries ``usage`` and ``finish_reason``."""

    text: str = ""
    reasoning: str = ""
    """Reasoning ("thinking") text, kept apart from the answer."""
    usage: Usage | None = None
    finish_reason: str | None = None
    """``"stop"``, ``"length"``, ... as the provider reports it, on the final chunk."""


@dataclass(frozen=True, slots=True)
class LLMRequest:
    """Everything a provider needs for one call."""

    model: str
    """Model name as the provider knows it (no ``provider:`` prefix)."""
    messages: Sequence[Message]
    max_tokens: int | None = None
    temperature: float | None = 0.0
    """Defaults to 0: format-following is more reliable. ``None`` leaves the provider default."""
    stop: tuple[str, ...] = ()
    extra: dict[str, object] = field(default_factory=dict)
    """Provider-specific options passed through unchanged."""


@runtime_checkable
class Provider(Protocol):
    """A model backend. Implementations must not block the event loop."""

    name: str
    """Provider id, e.g. ``"openai"``, ``"anthropic"``, ``"mock"``."""

    def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        """Stream the response to ``request``; the final chunk has ``usage`` and ``finish_reason``."""
        ...


@dataclass(frozen=True, slots=True)
class LLMResponse:
    """A whole response, collected from a stream by :func:`complete`."""

    text: str
    reasoning: str = ""
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


async def complete(provider: Provider, request: LLMRequest) -> LLMResponse:
    """Run ``request`` on ``provider`` and collect the streamed chunks into one :class:`LLMResponse`."""
    text: list[str] = []
    reasoning: list[str] = []
    usage = Usage()
    finish_reason: str | None = None
    async for chunk in provider.stream(request):
        text.append(chunk.text)
        reasoning.append(chunk.reasoning)
        if chunk.usage is not None:
            usage = chunk.usage
        if chunk.finish_reason is not None:
            finish_reason = chunk.finish_reason
    return LLMResponse("".join(text), "".join(reasoning), usage, finish_reason)
