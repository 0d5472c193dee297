"""The provider contract: what an agent sends a model and what comes back.

Every model backend (OpenAI, Anthropic, Gemini, OpenAI-compatible servers, the mock model)
implements :class:`Provider`: given an :class:`LLMRequest`, it streams :class:`LLMChunk`
objects: text (and reasoning text, kept apart) as it arrives, and at the end one chunk
carrying the :class:`Usage` and the finish reason.

Native tool calling (``Agent(syntax="native")``) uses three more fields: the request's
``tools`` (:class:`ToolSpec`), the chunks' ``tool_calls`` (:class:`ToolCall`, each sent once,
whole, as soon as the provider has all of it), and on the conversation's messages
``tool_calls`` (an assistant message's calls) and ``tool_call_id`` (a ``gadget_result`` that
answers one of them). A provider sends such messages in its API's own tool-call form.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from llmist.gadgets.media import describe_size, sniff_media_type

__all__ = [
    "ContentPart",
    "GrammarField",
    "ImagePart",
    "LLMChunk",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "Provider",
    "Reasoning",
    "ReasoningEffort",
    "Role",
    "TextPart",
    "ToolCall",
    "ToolSpec",
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
    """An image inside a user message (for models that support vision): bytes, or a URL the
    provider fetches. Make one with :meth:`from_path`, :meth:`from_bytes` or :meth:`from_url`."""

    data: bytes
    """The encoded image bytes (empty when ``url`` is set)."""
    media_type: str = "image/png"
    """MIME type, e.g. ``image/png`` or ``image/jpeg``."""
    url: str | None = None
    """Where the provider fetches the image (``https://...``, or a ``data:`` URL), instead of ``data``."""
    name: str = ""
    """The file name, if any: named in descriptions and errors."""

    def __post_init__(self) -> None:
        if not self.media_type.startswith("image/"):
            raise ValueError(f"ImagePart needs an image MIME type such as 'image/png', got {self.media_type!r}")
        if not self.data and not self.url:
            raise ValueError("ImagePart needs the image's bytes or a url; got neither")

    @classmethod
    def from_bytes(cls, data: bytes, *, media_type: str | None = None, name: str = "") -> ImagePart:
        """An image from its bytes; the type is read from the bytes (PNG, JPEG, GIF, WebP) unless given."""
        found = media_type or sniff_media_type(data, name)
        if found is None or not found.startswith("image/"):
            label = f" {name!r}" if name else ""
            raise ValueError(
                f"Could not tell the image type of{label} ({len(data)} bytes): expected PNG, JPEG, GIF or WebP "
                "data, or pass media_type='image/...'"
            )
        return cls(data, found, None, name)

    @classmethod
    def from_path(cls, path: str | Path, *, media_type: str | None = None) -> ImagePart:
        """An image read from a file."""
        file = Path(path)
        return cls.from_bytes(file.read_bytes(), media_type=media_type, name=file.name)

    @classmethod
    def from_url(cls, url: str, *, media_type: str | None = None) -> ImagePart:
        """An image the provider fetches from ``url`` (the type is guessed from its extension), or a
        ``data:`` URL (the type is its own)."""
        name = "" if url.startswith("data:") else url.rsplit("/", 1)[-1].split("?", 1)[0]
        guessed = media_type or sniff_media_type(b"", name)
        if url.startswith("data:"):
            guessed = media_type or url[5:].split(";", 1)[0].split(",", 1)[0]
        return cls(b"", guessed if guessed and guessed.startswith("image/") else "image/jpeg", url, name)

    def describe(self) -> str:
        """One line naming the image (for a model that cannot see it, or an error)."""
        label = f" {self.name}" if self.name else ""
        url = self.url
        where = describe_size(len(self.data)) if url is None else "inline data" if url.startswith("data:") else url
        return f"[image{label}: {self.media_type}, {where}]"


ContentPart: TypeAlias = TextPart | ImagePart


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call the model made through its provider's native tool-calling API, whole."""

    id: str
    """The provider's id of the call (OpenAI ``call_...``, Anthropic ``toolu_...``); the result
    answers it by this id. Providers that give none (some Gemini models) get one made up."""
    name: str
    """The tool (gadget) named."""
    arguments: str
    """The arguments as the JSON text the model wrote (Gemini's already-decoded arguments are
    encoded back), so a model's malformed JSON reaches the loop as written."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A gadget as a native tool: what the provider's tool-calling API is told about it."""

    name: str
    description: str
    parameters: dict[str, Any]
    """The JSON schema of the arguments (an ``object`` schema)."""


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation message."""

    role: Role
    content: str | tuple[ContentPart, ...]
    """Text, or parts (text and images) for multi-modal user messages."""
    # Keyword-only, so the richer messages of the agent layer keep their positional fields.
    tool_calls: tuple[ToolCall, ...] = field(default=(), kw_only=True)
    """An assistant message's native tool calls (``syntax="native"``), after its text."""
    tool_call_id: str | None = field(default=None, kw_only=True)
    """A ``gadget_result`` that answers the native tool call of this id; ``None``: a result sent
    as user text (the block and emoji syntaxes)."""

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
    tool_calls: tuple[ToolCall, ...] = ()
    """Native tool calls completed with this chunk (only when the request offered ``tools``)."""
    model: str | None = None
    """Set by a :class:`~llmist.providers.fallback.FallbackModel`: the model that wrote this chunk
    (``provider:model``), whose prices its usage is counted at; ``None``: the model asked."""
    restart: bool = False
    """Set by a ``FallbackModel`` on a chunk of its own, without text, when a stream broke after
    text had been sent: the response starts over, written by ``model``. Forget what came before."""


GrammarField: TypeAlias = Literal["grammar", "structured_outputs"]
"""How an OpenAI-compatible server takes a GBNF grammar with a request: ``"grammar"`` in the body
(llama.cpp's server, llama-cpp-python's) or ``"structured_outputs": {"grammar": ...}`` (vLLM since
0.10.2; its older ``guided_grammar`` was removed in 0.12)."""

ReasoningEffort: TypeAlias = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
"""How hard a reasoning model thinks, in OpenAI's words (``"none"`` turns thinking off where a
model allows it)."""

_EFFORTS: tuple[ReasoningEffort, ...] = ("none", "minimal", "low", "medium", "high", "xhigh")
_BUDGETS: dict[ReasoningEffort, int] = {
    "none": 0,
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 24576,
    "xhigh": 32768,
}
"""Thinking budget (tokens) of each effort, for providers that take a budget; 1024 is the
smallest Anthropic accepts, 24576 Gemini 2.5 Flash's largest."""


@dataclass(frozen=True, slots=True)
class Reasoning:
    """How much a reasoning model may think: an effort, a token budget, or both.

    Each provider gets its native parameter: OpenAI ``reasoning_effort``, Anthropic
    ``thinking`` (a ``budget_tokens``, or adaptive thinking with ``output_config.effort``),
    Gemini ``thinking_config`` (``thinking_budget`` or ``thinking_level``). A provider given
    only the one it does not take derives it from the other.
    """

    effort: ReasoningEffort | None = None
    """``"none"``, ``"minimal"``, ``"low"``, ``"medium"``, ``"high"`` or ``"xhigh"``."""
    budget_tokens: int | None = None
    """Most tokens to spend thinking (``0``: no thinking)."""

    def __post_init__(self) -> None:
        if self.effort is None and self.budget_tokens is None:
            raise ValueError("Reasoning needs an effort (e.g. 'high') or a budget_tokens; got neither")
        if self.effort is not None and self.effort not in _EFFORTS:
            raise ValueError(f"Unknown reasoning effort {self.effort!r}; expected one of {', '.join(_EFFORTS)}")
        if self.budget_tokens is not None and (not isinstance(self.budget_tokens, int) or self.budget_tokens < 0):
            raise ValueError(f"budget_tokens must be a whole number >= 0, got {self.budget_tokens!r}")

    @property
    def effort_level(self) -> ReasoningEffort:
        """The effort, or the smallest effort whose budget covers ``budget_tokens``."""
        if self.effort is not None:
            return self.effort
        budget = self.budget_tokens or 0
        return next((e for e in _EFFORTS if _BUDGETS[e] >= budget), "xhigh")

    @property
    def budget(self) -> int:
        """The token budget, or the one that stands for the effort."""
        if self.budget_tokens is not None:
            return self.budget_tokens
        return _BUDGETS[self.effort_level]

    @classmethod
    def of(cls, value: Reasoning | ReasoningEffort | int | None) -> Reasoning | None:
        """``value`` as a :class:`Reasoning`: an effort name, a token budget, or one as it is."""
        if value is None or isinstance(value, Reasoning):
            return value
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise TypeError(f"reasoning must be an effort name, a token budget or a Reasoning, got {value!r}")
        if isinstance(value, int):
            return cls(budget_tokens=value)
        return cls(effort=value)


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
    reasoning: Reasoning | None = None
    """Thinking effort or budget for reasoning models; ``None`` leaves the model's default."""
    tools: tuple[ToolSpec, ...] = ()
    """Tools offered to the provider's native tool-calling API (empty: none, text only)."""
    grammar: str | None = None
    """A GBNF grammar the response must follow (grammar-constrained decoding,
    ``llmist.syntax.grammar``); sent by providers whose server takes one (``grammar_field``),
    ignored by the others."""


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
    tool_calls: tuple[ToolCall, ...] = ()
    """The native tool calls the model made, in order."""
    model: str | None = None
    """The model that answered, when a ``FallbackModel`` was asked (``provider:model``)."""


async def complete(provider: Provider, request: LLMRequest) -> LLMResponse:
    """Run ``request`` on ``provider`` and collect the streamed chunks into one :class:`LLMResponse`
    (of the model that answered last, when a fallback model started the response over)."""
    text: list[str] = []
    reasoning: list[str] = []
    usage = Usage()
    finish_reason: str | None = None
    tool_calls: list[ToolCall] = []
    model: str | None = None
    async for chunk in provider.stream(request):
        if chunk.restart:
            text.clear()
            reasoning.clear()
            tool_calls.clear()
        model = chunk.model or model
        text.append(chunk.text)
        reasoning.append(chunk.reasoning)
        tool_calls.extend(chunk.tool_calls)
        if chunk.usage is not None:
            usage = chunk.usage
        if chunk.finish_reason is not None:
            finish_reason = chunk.finish_reason
    return LLMResponse("".join(text), "".join(reasoning), usage, finish_reason, tuple(tool_calls), model)
