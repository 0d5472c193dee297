"""OpenAI (and every OpenAI-compatible server) through the official ``openai`` SDK."""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from llmist.providers._common import ReliableProvider, api_key_from_env, chat_turns, error_for_status, import_sdk
from llmist.providers.base import ImagePart, LLMChunk, LLMRequest, Message, TextPart, Usage
from llmist.providers.errors import ProviderConnectionError, ProviderError, ProviderServerError
from llmist.providers.retry import RateLimiter, RetryPolicy

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionChunk, ChatCompletionContentPartParam, ChatCompletionMessageParam

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
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        name: str = "openai",
        api_key_env: str | None = "OPENAI_API_KEY",
        require_api_key: bool = True,
        timeout: float = 600.0,
        max_tokens_param: str = "max_completion_tokens",
        default_headers: dict[str, str] | None = None,
        retry: RetryPolicy | None = None,
        rate_limiter: RateLimiter | None = None,
    ) -> None:
        super().__init__(retry=retry, rate_limiter=rate_limiter)
        self.name = name
        self.api_key_env = api_key_env
        """Environment variable the key is read from (named in key errors)."""
        self.base_url = base_url
        """Server URL; ``None`` is OpenAI's own API."""
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
        try:
            stream = await client.chat.completions.create(
                model=request.model,
                messages=to_openai_messages(request.messages),
                stream=True,
                stream_options={"include_usage": True},
                **self._options(request),
            )
            async for chunk in stream:
                if chunk.usage is not None:
                    usage = _usage(chunk)
                for choice in chunk.choices:
                    text = choice.delta.content or ""
                    reasoning = _reasoning(choice.delta.model_extra)
                    if text or reasoning:
                        yield LLMChunk(text=text, reasoning=reasoning)
                    if choice.finish_reason is not None:
                        finish_reason = choice.finish_reason
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
        if request.extra:
            options["extra_body"] = dict(request.extra)
        return options

    def _provider_error(self, error: Exception) -> ProviderError:
        """The SDK's (or the transport's) error as llmist's, so retries and messages are the same
        for every provider."""
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
            return ProviderConnectionError(f"{self.name} connection failed: {error}", provider=self.name)
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


def to_openai_messages(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
    """Our conversation in Chat Completions form (``gadget_result`` sent as user text)."""
    result: list[ChatCompletionMessageParam] = []
    for message in messages:
        if message.role == "system":
            result.append({"role": "system", "content": message.text})
    for role, content in chat_turns(messages, merge=False):
        if role == "assistant":
            text = content if isinstance(content, str) else "".join(p.text for p in content if isinstance(p, TextPart))
            result.append({"role": "assistant", "content": text})
        elif isinstance(content, str):
            result.append({"role": "user", "content": content})
        else:
            result.append({"role": "user", "content": [_part(p) for p in content]})
    return result


def _part(part: TextPart | ImagePart) -> ChatCompletionContentPartParam:
    """A content part: an image as its URL, or its bytes as a ``data:`` URL (OpenAI's only forms)."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if part.url is not None:
        return {"type": "image_url", "image_url": {"url": part.url}}
    data = base64.b64encode(part.data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{part.media_type};base64,{data}"}}
