"""Google Gemini through the official ``google-genai`` SDK."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from llmist.providers._common import (
    ReliableProvider,
    api_key_from_env,
    chat_turns,
    error_for_status,
    import_sdk,
    inline_image,
    split_system,
)
from llmist.providers.base import ImagePart, LLMChunk, LLMRequest, Message, Reasoning, TextPart, Usage
from llmist.providers.errors import ProviderConnectionError
from llmist.providers.retry import RateLimiter, RetryPolicy

if TYPE_CHECKING:
    from google.genai import Client
    from google.genai.types import Content, GenerateContentResponse, Part

__all__ = ["GeminiProvider"]

logger = logging.getLogger("llmist.providers.gemini")


class GeminiProvider(ReliableProvider):
    """Gemini models through the Gemini Developer API (``pip install 'llmist[gemini]'``).

    The key is read from ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``); ``GEMINI_BASE_URL``
    overrides the server. Reasoning ("thought") parts are reported apart from the text.
    """

    name = "gemini"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 600.0,
        retry: RetryPolicy | None = None,
        rate_limiter: RateLimiter | None = None,
    ) -> None:
        super().__init__(retry=retry, rate_limiter=rate_limiter)
        self.api_key_env = "GEMINI_API_KEY"
        """Environment variable the key is read from (``GOOGLE_API_KEY`` is accepted too)."""
        key = api_key or os.environ.get("GOOGLE_API_KEY")
        self._api_key = api_key_from_env(key, self.api_key_env, provider=self.name, required=True)
        self.base_url = base_url or os.environ.get("GEMINI_BASE_URL")
        """Server URL; ``None`` is Google's API."""
        self._timeout = timeout
        self._client: Client | None = None

    def _sdk_client(self) -> Client:
        if self._client is None:
            genai = import_sdk("google.genai", provider=self.name, package="google-genai", extra="gemini")
            types = genai.types
            options = types.HttpOptions(
                base_url=self.base_url,
                timeout=int(self._timeout * 1000),
                retry_options=types.HttpRetryOptions(attempts=1),
            )
            self._client = genai.Client(api_key=self._api_key, http_options=options)
        return self._client

    async def _stream_once(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        client = self._sdk_client()
        import httpx2
        from google.genai import errors, types

        system, rest = split_system(request.messages)
        config = types.GenerateContentConfig(
            system_instruction=system,
            temperature=request.temperature,
            max_output_tokens=request.max_tokens,
            stop_sequences=list(request.stop) or None,
            **_extra_config(request),
        )
        usage = Usage()
        finish_reason: str | None = None
        try:
            stream = await client.aio.models.generate_content_stream(
                model=request.model, contents=to_gemini_contents(rest), config=config
            )
            async for response in stream:
                text, reasoning = _parts(response)
                if text or reasoning:
                    yield LLMChunk(text=text, reasoning=reasoning)
                if response.usage_metadata is not None:
                    usage = _usage(response)
                for candidate in response.candidates or ():
                    if candidate.finish_reason is not None:
                        finish_reason = str(candidate.finish_reason.value).lower()
        except errors.APIError as error:
            status = error.code
            message = error.message or str(error)
            if status == 400 and ("API_KEY_INVALID" in str(error.details) or "API key" in message):
                status = 401
            headers = error.response.headers if error.response is not None else None
            raise error_for_status(
                status, message, provider=self.name, headers=_plain(headers), env_var=self.api_key_env
            ) from error
        except _transport_errors(httpx2.TransportError) as error:
            raise ProviderConnectionError(f"gemini connection failed: {error}", provider=self.name) from error
        if finish_reason is not None:
            yield LLMChunk(usage=usage, finish_reason=finish_reason)


def _transport_errors(httpx_error: type[Exception]) -> tuple[type[Exception], ...]:
    """Connection failures of whichever HTTP client the SDK uses (httpx2, or aiohttp when installed)."""
    errors: tuple[type[Exception], ...] = (httpx_error, TimeoutError)
    aiohttp = sys.modules.get("aiohttp")
    client_error = getattr(aiohttp, "ClientError", None)
    if isinstance(client_error, type) and issubclass(client_error, Exception):
        errors += (client_error,)
    return errors


def _plain(headers: Any) -> dict[str, str] | None:
    if headers is None:
        return None
    return {str(k).lower(): str(v) for k, v in headers.items()}


def _extra_config(request: LLMRequest) -> dict[str, Any]:
    """``request.extra`` keys passed to ``GenerateContentConfig``, and the ``thinking_config`` of
    ``request.reasoning`` (unless ``extra`` sets its own)."""
    config = dict(request.extra)
    if request.reasoning is not None and "thinking_config" not in config:
        config["thinking_config"] = _thinking_config(request.reasoning, request.model)
    return config


def _thinking_config(reasoning: Reasoning, model: str) -> Any:
    """A budget as ``thinking_budget``; an effort as ``thinking_level`` (Gemini 3 and later), or as
    its budget on Gemini 2.x, which has no levels. Thoughts are asked for, so they stream apart
    from the answer."""
    from google.genai import types

    if reasoning.budget_tokens is not None or model.startswith(("gemini-2", "gemini-1")):
        budget = reasoning.budget
        return types.ThinkingConfig(thinking_budget=budget, include_thoughts=budget > 0)
    effort = reasoning.effort_level
    if effort == "none":
        return types.ThinkingConfig(thinking_budget=0)
    return types.ThinkingConfig(thinking_level=types.ThinkingLevel(effort.upper()), include_thoughts=True)


def _parts(response: GenerateContentResponse) -> tuple[str, str]:
    text: list[str] = []
    reasoning: list[str] = []
    for candidate in response.candidates or ():
        if candidate.content is None:
            continue
        for part in candidate.content.parts or ():
            if part.text:
                (reasoning if part.thought else text).append(part.text)
    return "".join(text), "".join(reasoning)


def _usage(response: GenerateContentResponse) -> Usage:
    meta = response.usage_metadata
    if meta is None:
        return Usage()
    thoughts = meta.thoughts_token_count or 0
    return Usage(
        input_tokens=meta.prompt_token_count or 0,
        output_tokens=(meta.candidates_token_count or 0) + thoughts,
        cached_input_tokens=meta.cached_content_token_count or 0,
        reasoning_tokens=thoughts,
    )


def to_gemini_contents(messages: Sequence[Message]) -> list[Content]:
    """Non-system messages as Gemini contents (roles ``user``/``model``, ``gadget_result`` as user text)."""
    from google.genai import types

    contents: list[Content] = []
    for role, content in chat_turns(messages, merge=True):
        parts = [types.Part(text=content)] if isinstance(content, str) else [_part(p) for p in content]
        contents.append(types.Content(role="model" if role == "assistant" else "user", parts=parts))
    return contents


def _part(part: TextPart | ImagePart) -> Part:
    """A content part: an image inline (its bytes) or as a file URI the API fetches."""
    from google.genai import types

    if isinstance(part, TextPart):
        return types.Part(text=part.text)
    inline = inline_image(part)
    if inline is None:
        return types.Part.from_uri(file_uri=str(part.url), mime_type=part.media_type)
    return types.Part.from_bytes(data=inline[1], mime_type=inline[0])
