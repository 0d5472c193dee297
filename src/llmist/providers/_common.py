"""Shared by the SDK-backed providers: the reliable base class, lazy imports, keys, error mapping, roles."""

from __future__ import annotations

import base64
import importlib
import importlib.util
import json
import os
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from types import ModuleType
from typing import Any, Literal, TypeAlias

from llmist._credentials import note_key_variable
from llmist.providers.base import ContentPart, ImagePart, LLMChunk, LLMRequest, Message, TextPart
from llmist.providers.errors import (
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
    MissingAPIKeyError,
    ProviderConnectionError,
    ProviderError,
    ProviderNotInstalledError,
    ProviderOverloadedError,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitError,
    ServerNotListeningError,
)
from llmist.providers.retry import RateLimiter, RetryPolicy, parse_retry_after, reliable_stream
from llmist.syntax import loads_arguments

ChatRole = Literal["user", "assistant"]

Content: TypeAlias = tuple[ContentPart, ...] | str
"""A message's content: text, or parts."""


def import_sdk(module: str, *, provider: str, package: str, extra: str) -> ModuleType:
    """Import an optional SDK, or raise an error naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ProviderNotInstalledError(provider, package, extra) from error


def require_sdk(module: str, *, provider: str, package: str, extra: str) -> None:
    """Raise :class:`ProviderNotInstalledError` when the SDK ``module`` cannot be found.

    A provider calls this when it is made, before it reads its key: without the package no key
    helps, so the missing package is what the user hears first, before any run starts. The SDK is
    only looked up here; importing it (slow) waits for the first request (:func:`import_sdk`).
    """
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # its parent package is missing (google for google.genai)
        found = False
    if not found:
        raise ProviderNotInstalledError(provider, package, extra)


def api_key_from_env(api_key: str | None, env_var: str | None, *, provider: str, required: bool) -> str | None:
    """The explicit key, else the environment variable's value; raise when a required key is missing.
    The variable is noted as a credential (commands do not see it), whether it is set or not."""
    if env_var:
        note_key_variable(env_var)
    if api_key:
        return api_key
    value = os.environ.get(env_var) if env_var else None
    if value:
        return value
    if required and env_var:
        raise MissingAPIKeyError(provider, env_var)
    return None


def error_for_status(
    status: int,
    message: str,
    *,
    provider: str,
    headers: Mapping[str, str] | None = None,
    env_var: str | None = None,
) -> ProviderError:
    """Our error for an HTTP error status from a provider."""
    retry_after = parse_retry_after(headers)
    text = f"{provider} returned HTTP {status}: {message}"
    if status in (401, 403):
        return AuthenticationError(text, provider=provider, status_code=status, env_var=env_var)
    if status == 429:
        return RateLimitError(text, provider=provider, status_code=status, retry_after=retry_after)
    if status in (503, 529):
        return ProviderOverloadedError(text, provider=provider, status_code=status, retry_after=retry_after)
    if status == 408:
        return ProviderTimeoutError(text, provider=provider, status_code=status, retry_after=retry_after)
    if status >= 500 or status < 400:  # < 400: an error event inside a 200 stream
        return ProviderServerError(text, provider=provider, status_code=status, retry_after=retry_after)
    if status in (400, 413) and _CONTEXT_TOO_LONG.search(message):
        return ContextWindowExceededError(text, provider=provider, status_code=status)
    return BadRequestError(text, provider=provider, status_code=status)


_CONTEXT_TOO_LONG = re.compile(
    r"context.length|context.window|context.size|prompt is too long|maximum number of tokens|too many tokens"
    r"|maximum context",
    re.IGNORECASE,
)
"""How providers word a conversation longer than the model reads: OpenAI and vLLM ("maximum
context length", ``context_length_exceeded``), Anthropic ("prompt is too long"), Gemini ("exceeds
the maximum number of tokens"), llama.cpp ("exceeds the available context size")."""


def connection_error(
    provider: str,
    error: BaseException,
    *,
    url: str | None,
    url_env: str | None,
    timeouts: tuple[type[BaseException], ...] = (),
) -> ProviderConnectionError:
    """Our error for a request that never got an answer, naming the address and what sets it.

    A refused connection (nothing listens there: a local server not started, a wrong port) is a
    :class:`ServerNotListeningError`, which the retry policy gives up on sooner; a timeout (the
    SDK's own timeout classes are passed in ``timeouts``) a :class:`ProviderTimeoutError`.
    """
    where = url or "the server"
    if isinstance(error, (TimeoutError, *timeouts)):
        return ProviderTimeoutError(f"{provider} timed out waiting for {where}: {error}", provider=provider)
    if _refused(error):
        fix = f"start the server, or set {url_env} to the address it listens on" if url_env else "start the server"
        message = f"{provider} connection failed: nothing listens at {where} (connection refused); {fix}"
        return ServerNotListeningError(message, provider=provider, url=url)
    hint = f" ({url_env} sets the address)" if url_env else ""
    cause = str(error).strip() or type(error).__name__
    return ProviderConnectionError(
        f"{provider} connection failed: could not reach {where}{hint}: {cause}", provider=provider
    )


def _refused(error: BaseException) -> bool:
    """Whether ``error`` was caused by a refused connection (somewhere down its chain of causes)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ConnectionRefusedError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def split_system(messages: Sequence[Message]) -> tuple[str | None, list[Message]]:
    """Join the system messages into one prompt and return it with the other messages."""
    system = [m.text for m in messages if m.role == "system"]
    rest = [m for m in messages if m.role != "system"]
    return ("\n\n".join(system) if system else None), rest


def chat_turns(messages: Sequence[Message]) -> list[tuple[ChatRole, list[Content | Message]]]:
    """Non-system messages as alternating turns (user|assistant, pieces), for APIs that require
    alternating roles; ``gadget_result`` is a user turn.

    A turn's pieces are plain content (consecutive messages joined by a blank line) and, kept
    whole for the provider to convert in its API's tool-call form, the messages that carry native
    tool calls or answer one.
    """
    turns: list[tuple[ChatRole, list[Content | Message]]] = []
    for message in messages:
        if message.role == "system":
            continue
        role: ChatRole = "assistant" if message.role == "assistant" else "user"
        if not turns or turns[-1][0] != role:
            turns.append((role, []))
        pieces = turns[-1][1]
        native = bool(message.tool_calls) or message.tool_call_id is not None
        if native:
            pieces.append(message)
        elif pieces and not isinstance(pieces[-1], Message):
            pieces[-1] = _join(pieces[-1], message.content)
        else:
            pieces.append(message.content)
    return turns


def arguments_object(arguments: str) -> dict[str, Any]:
    """A native call's JSON arguments as the object an API takes back (Anthropic ``input``, Gemini
    ``args``); ``{}`` for arguments that are not a JSON object (a model's malformed call, whose
    result already tells the model what was wrong)."""
    try:
        value = loads_arguments(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def inline_image(part: ImagePart) -> tuple[str, bytes] | None:
    """``(media_type, bytes)`` of an image sent inline: its bytes, or a ``data:`` URL's;
    ``None`` for an image the provider fetches from its URL."""
    url = part.url
    if url is None:
        return part.media_type, part.data
    if url.startswith("data:") and ";base64," in url:
        head, payload = url[5:].split(";base64,", 1)
        return head or part.media_type, base64.b64decode(payload)
    return None


def _join(a: Content, b: Content) -> Content:
    if isinstance(a, str) and isinstance(b, str):
        return f"{a}\n\n{b}"
    parts_a = (TextPart(a),) if isinstance(a, str) else a
    parts_b = (TextPart(b),) if isinstance(b, str) else b
    return (*parts_a, TextPart("\n\n"), *parts_b)


class ReliableProvider:
    """Base of the SDK-backed providers: subclasses write one streamed attempt; retries come from here."""

    name: str = ""
    """Provider id."""

    def __init__(self, *, retry: RetryPolicy | None = None, rate_limiter: RateLimiter | None = None) -> None:
        self.retry = retry or RetryPolicy()
        """Retry policy of every call."""
        self.rate_limiter = rate_limiter
        """Client-side limiter of requests and tokens per minute, if any."""

    def stream(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        """Stream the response to ``request``, retried as :mod:`llmist.providers.retry` describes."""
        return reliable_stream(
            lambda: self._stream_once(request),
            request,
            provider=self.name,
            policy=self.retry,
            limiter=self.rate_limiter,
        )

    def _stream_once(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        raise NotImplementedError
