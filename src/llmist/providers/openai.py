"""OpenAI (and every OpenAI-compatible server) through the official ``openai`` SDK."""

from __future__ import annotations

import base64
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from llmist._credentials import PROVIDER_KEYS
from llmist.providers._common import (
    ReliableProvider,
    api_key_from_env,
    connection_error,
    error_for_status,
    import_sdk,
    require_sdk,
)
from llmist.providers.base import (
    ContentPart,
    GrammarField,
    ImagePart,
    LLMChunk,
    LLMRequest,
    Message,
    TextPart,
    ToolCall,
    ToolSpec,
    Usage,
)
from llmist.providers.errors import ProviderError, ProviderServerError
from llmist.providers.retry import RateLimiter, RetryPolicy

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import (
        ChatCompletionChunk,
        ChatCompletionContentPartParam,
        ChatCompletionMessageParam,
        ChatCompletionToolParam,
    )
    from openai.types.chat.chat_completion_chunk import Choice, ChoiceDeltaToolCall

__all__ = ["OpenAIProvider"]

logger = logging.getLogger("llmist.providers.openai")

_NO_TEMPERATURE_PREFIXES = ("o1", "o3", "o4", "gpt-5")
"""OpenAI reasoning models reject any temperature but the default, so we send none."""

_PLACEHOLDER_KEY = "not-needed"
"""Sent to local servers that need no key (the SDK insists on one)."""


class OpenAIProvider(ReliableProvider):
    """Chat Completions streaming through the ``openai`` SDK (``pip install 'llmist[openai]'``).

    With ``base_url`` it talks to any OpenAI-compatible server; see
    :func:`llmist.providers.compatible.openai_compatible` for ready-made server presets.

    Native tool calls: the request's tools are sent as function ``tools``; the streamed
    ``delta.tool_calls`` fragments are joined into whole calls; calls go back as the assistant's
    ``tool_calls`` and their results as ``tool`` messages.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        name: str = "openai",
        api_key_env: str | None = PROVIDER_KEYS["openai"][0],
        base_url_env: str | None = "OPENAI_BASE_URL",
        require_api_key: bool = True,
        timeout: float = 600.0,
        max_tokens_param: str = "max_completion_tokens",
        default_headers: dict[str, str] | None = None,
        retry: RetryPolicy | None = None,
        rate_limiter: RateLimiter | None = None,
        grammar_field: GrammarField | None = None,
    ) -> None:
        super().__init__(retry=retry, rate_limiter=rate_limiter)
        self.name = name
        self.grammar_field = grammar_field
        """How the server takes a request's GBNF grammar (``None``: it takes none, and
        ``LLMRequest.grammar`` is not sent): ``"grammar"`` in the body (llama.cpp's server and
        llama-cpp-python's), ``"structured_outputs"`` (vLLM: ``{"grammar": ...}`` under it)."""
        self.api_key_env = api_key_env
        """Environment variable the key is read from (named in key errors)."""
        self.base_url = base_url
        """Server URL; ``None`` is OpenAI's own API (or ``OPENAI_BASE_URL``, which the SDK reads)."""
        self.base_url_env = base_url_env
        """Environment variable that sets the server URL (named when the server cannot be reached)."""
        require_sdk("openai", provider=name, package="openai", extra="openai")
        self._api_key = api_key_from_env(api_key, api_key_env, provider=name, required=require_api_key)
        self._timeout = timeout
        self._max_tokens_param = max_tokens_param
        self._headers = default_headers
        self._client: AsyncOpenAI | None = None

    def _sdk_client(self) -> AsyncOpenAI:
        if self._client is None:
            sdk = import_sdk("openai", provider=self.name, package="openai", extra="openai")
            self._client = sdk.AsyncOpenAI(
                api_key=self._api_key or _PLACEHOLDER_KEY,
                base_url=self.base_url,
                timeout=self._timeout,
                max_retries=0,
                default_headers=self._headers,
            )
        return self._client

    async def _stream_once(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        client = self._sdk_client()
        import httpx2
        import openai

        finish_reason: str | None = None
        usage: Usage | None = None
        calls = _ToolCallAssembler()
        try:
            stream = await client.chat.completions.create(
                model=request.model,
                messages=to_openai_messages(request.messages),
                stream=True,
                stream_options={"include_usage": True},
                **self._options(request),
            )
            try:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = _usage(chunk)
                    for choice in chunk.choices:
                        out = _choice_chunk(choice, calls)
                        if out is not None:
                            yield out
                        if choice.finish_reason is not None:
                            finish_reason = choice.finish_reason
            finally:
                # Left early (a cancelled run, a response cut short): the server stops writing
                # once the connection closes, instead of generating to its token limit.
                await stream.close()
        except (openai.OpenAIError, httpx2.TransportError) as error:
            raise self._provider_error(error) from error
        if finish_reason is not None:
            yield LLMChunk(usage=usage or Usage(), finish_reason=finish_reason)
        elif usage is not None:
            yield LLMChunk(usage=usage)

    def _options(self, request: LLMRequest) -> dict[str, Any]:
        """The request's optional settings, named as the Chat Completions API names them."""
        options: dict[str, Any] = {}
        if request.temperature is not None and not request.model.startswith(_NO_TEMPERATURE_PREFIXES):
            options["temperature"] = request.temperature
        if request.max_tokens is not None:
            options[self._max_tokens_param] = request.max_tokens
        if request.stop:
            options["stop"] = list(request.stop)
        if request.reasoning is not None:
            options["reasoning_effort"] = request.reasoning.effort_level
        if request.tools:
            options["tools"] = [_tool(t) for t in request.tools]
        extra = dict(request.extra)
        if request.grammar is not None and self.grammar_field is not None:
            # Not an OpenAI parameter: the SDK sends extra_body's keys as they are.
            field = self.grammar_field
            extra[field] = request.grammar if field == "grammar" else {"grammar": request.grammar}
        if extra:
            options["extra_body"] = extra
        return options

    def _provider_error(self, error: Exception) -> ProviderError:
        """The SDK's (or the transport's) error as llmist's, so retries and messages are the same
        for every provider."""
        import httpx2
        import openai

        if isinstance(error, openai.APIStatusError):
            return error_for_status(
                error.status_code,
                error.message,
                provider=self.name,
                headers=error.response.headers,
                env_var=self.api_key_env,
            )
        if isinstance(error, openai.APIConnectionError) or not isinstance(error, openai.OpenAIError):
            url = str(self._sdk_client().base_url).rstrip("/")
            timeouts = (openai.APITimeoutError, httpx2.TimeoutException)
            return connection_error(self.name, error, url=url, url_env=self.base_url_env, timeouts=timeouts)
        if isinstance(error, openai.APIError):  # an error event inside the stream
            return ProviderServerError(f"{self.name} stream error: {error.message}", provider=self.name)
        return ProviderError(f"{self.name} failed: {error}", provider=self.name)


def _usage(chunk: ChatCompletionChunk) -> Usage:
    """Usage as Chat Completions reports it, with the cache fields some compatible servers add:
    OpenRouter's ``prompt_tokens_details.cache_write_tokens``, DeepSeek's ``prompt_cache_hit_tokens``."""
    raw = chunk.usage
    if raw is None:
        return Usage()
    prompt_details = raw.prompt_tokens_details
    cached = prompt_details.cached_tokens if prompt_details else None
    written = _extra_int(prompt_details, "cache_write_tokens")
    reasoning = raw.completion_tokens_details.reasoning_tokens if raw.completion_tokens_details else None
    return Usage(
        input_tokens=raw.prompt_tokens,
        output_tokens=raw.completion_tokens,
        cached_input_tokens=cached or _extra_int(raw, "prompt_cache_hit_tokens"),
        reasoning_tokens=reasoning or 0,
        cache_write_tokens=written,
    )


def _extra_int(model: Any, key: str) -> int:
    """An integer field that only some servers (or SDK versions) know, whether the SDK models it
    or keeps it as an extra (0 when absent)."""
    value = getattr(model, key, None)
    if value is None:
        value = (getattr(model, "model_extra", None) or {}).get(key)
    return value if isinstance(value, int) else 0


def _reasoning(extra: dict[str, Any] | None) -> str:
    """Reasoning text some compatible servers add to deltas (``reasoning_content`` or ``reasoning``)."""
    if not extra:
        return ""
    value = extra.get("reasoning_content") or extra.get("reasoning")
    return value if isinstance(value, str) else ""


def _tool(spec: ToolSpec) -> ChatCompletionToolParam:
    """A gadget as a Chat Completions function tool."""
    return {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
    }


def _choice_chunk(choice: Choice, calls: _ToolCallAssembler) -> LLMChunk | None:
    """What one streamed choice carries: text, reasoning, and the tool calls it completed (all of
    them once the choice finishes)."""
    delta = choice.delta
    text = delta.content or ""
    reasoning = _reasoning(delta.model_extra)
    done = calls.feed(delta.tool_calls or ())
    if choice.finish_reason is not None:
        done += calls.finish()
    if text or reasoning or done:
        return LLMChunk(text=text, reasoning=reasoning, tool_calls=tuple(done))
    return None


class _ToolCallAssembler:
    """Streamed tool-call fragments, joined into whole calls.

    Chat Completions streams each call as fragments tagged with the call's ``index``: the first
    carries its id and name, the arguments' JSON text is spread over the rest. The calls come one
    after another, so a call is whole once a later index starts, or the choice finishes.
    """

    def __init__(self) -> None:
        self._open: dict[int, tuple[str, str, list[str]]] = {}
        self._last = -1

    def feed(self, fragments: Sequence[ChoiceDeltaToolCall]) -> list[ToolCall]:
        """Take a delta's fragments; return the calls a newly started index completed."""
        done: list[ToolCall] = []
        for fragment in fragments:
            index = self._index_of(fragment)
            if index not in self._open:
                done += self._close(before=index)
                self._open[index] = (fragment.id or "", "", [])
            call_id, name, arguments = self._open[index]
            function = fragment.function
            if function is not None:
                name += function.name or ""
                arguments.append(function.arguments or "")
            self._open[index] = (call_id or fragment.id or "", name, arguments)
            self._last = max(self._last, index)
        return done

    def _index_of(self, fragment: ChoiceDeltaToolCall) -> int:
        """The fragment's ``index``; for a server that sends none, a new call starts with each new id."""
        index = getattr(fragment, "index", None)
        if isinstance(index, int):
            return index
        current = self._open.get(self._last)
        if current is None or (fragment.id and fragment.id != current[0]):
            return self._last + 1
        return self._last

    def finish(self) -> list[ToolCall]:
        """Every call still open (the choice finished), in index order."""
        return self._close(before=None)

    def _close(self, *, before: int | None) -> list[ToolCall]:
        """The open calls whose index is below ``before`` (``None``: all), closed, in index order."""
        done: list[ToolCall] = []
        for index in sorted(i for i in self._open if before is None or i < before):
            call_id, name, arguments = self._open.pop(index)
            # Some compatible servers send no id; the result must still answer this call alone.
            done.append(ToolCall(call_id or f"call_{uuid.uuid4().hex[:24]}", name, "".join(arguments)))
        return done


def to_openai_messages(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
    """Our conversation in Chat Completions form.

    A ``gadget_result`` answering a native tool call becomes a ``tool`` message; one without
    (the text syntaxes) is sent as user text. Tool messages take text only, so the images of a
    run of tool results follow it in one user message.
    """
    result: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": m.text} for m in messages if m.role == "system"
    ]
    images: list[ContentPart] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.tool_call_id is not None:
            result.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text})
            images += _images_of(message)
            continue
        if images:
            result.append({"role": "user", "content": [_part(p) for p in images]})
            images = []
        result.append(_message(message))
    if images:
        result.append({"role": "user", "content": [_part(p) for p in images]})
    return result


def _message(message: Message) -> ChatCompletionMessageParam:
    """A message that answers no tool call (``gadget_result`` as user text)."""
    content = message.content
    if message.role != "assistant":
        if isinstance(content, str):
            return {"role": "user", "content": content}
        return {"role": "user", "content": [_part(p) for p in content]}
    if not message.tool_calls:
        return {"role": "assistant", "content": message.text}
    # Content is a string even when empty: the API also takes null or none beside tool calls,
    # but llama-cpp-python's server refuses null, and a chat template that reads the content of
    # every message (SmolLM2's) fails without it.
    return {
        "role": "assistant",
        "content": message.text,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ],
    }


def _images_of(message: Message) -> list[ContentPart]:
    """A tool result's images, after a line naming the call they came from."""
    if isinstance(message.content, str):
        return []
    images = [p for p in message.content if isinstance(p, ImagePart)]
    if not images:
        return []
    return [TextPart(f"Images returned by tool call {message.tool_call_id}:"), *images]


def _part(part: TextPart | ImagePart) -> ChatCompletionContentPartParam:
    """A content part: an image as its URL, or its bytes as a ``data:`` URL (OpenAI's only forms)."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if part.url is not None:
        return {"type": "image_url", "image_url": {"url": part.url}}
    data = base64.b64encode(part.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{part.media_type};base64,{data}"}}
