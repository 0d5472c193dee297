"""Google Gemini through the official ``google-genai`` SDK."""

from __future__ import annotations

import json
import logging
import os
import sys
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from llmist._credentials import PROVIDER_KEYS
from llmist.providers._common import (
    Content,
    ReliableProvider,
    api_key_from_env,
    arguments_object,
    chat_turns,
    connection_error,
    error_for_status,
    import_sdk,
    inline_image,
    require_sdk,
    split_system,
)
from llmist.providers.base import (
    ImagePart,
    LLMChunk,
    LLMRequest,
    Message,
    Reasoning,
    TextPart,
    ToolCall,
    ToolSpec,
    Usage,
)
from llmist.providers.retry import RateLimiter, RetryPolicy

if TYPE_CHECKING:
    from google.genai import Client, types

__all__ = ["GeminiProvider"]

logger = logging.getLogger("llmist.providers.gemini")

_MADE_UP_ID = "llmist_call_"
"""Prefix of the ids llmist gives calls that came without one; never sent back as Gemini's id."""

_REMEMBERED_CALLS = 256
"""Tool calls whose thought signature a provider keeps for replay (a bound on its memory)."""


class GeminiProvider(ReliableProvider):
    """Gemini models through the Gemini Developer API (``pip install 'llmist[gemini]'``).

    The key is read from ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``); ``GEMINI_BASE_URL``
    overrides the server. Reasoning ("thought") parts are reported apart from the text.

    Native tool calls: the request's tools are sent as function declarations (their JSON schema
    as is, ``$defs`` and ``$ref`` included), calls come back as whole ``function_call`` parts and
    results go as ``function_response`` parts. The thought signature Gemini puts on a call is
    kept and sent back with it, as thinking models require.
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
        self.api_key_env, google_key_env = PROVIDER_KEYS["gemini"]
        """Environment variable the key is read from (``GOOGLE_API_KEY`` is accepted too)."""
        require_sdk("google.genai", provider=self.name, package="google-genai", extra="gemini")
        key = api_key or os.environ.get(google_key_env)
        self._api_key = api_key_from_env(key, self.api_key_env, provider=self.name, required=True)
        self.base_url = base_url or os.environ.get("GEMINI_BASE_URL")
        """Server URL; ``None`` is Google's API."""
        self._timeout = timeout
        self._client: Client | None = None
        self._signatures: OrderedDict[str, bytes] = OrderedDict()

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
        from google.genai import errors

        system, rest = split_system(request.messages)
        usage = Usage()
        finish_reason: str | None = None
        try:
            stream = await client.aio.models.generate_content_stream(
                model=request.model,
                contents=to_gemini_contents(rest, signatures=self._signatures),
                config=_config(request, system),
            )
            async for response in stream:
                chunk = self._chunk(response)
                if chunk is not None:
                    yield chunk
                if response.usage_metadata is not None:
                    usage = _usage(response)
                for candidate in response.candidates or ():
                    if candidate.finish_reason is not None:
                        finish_reason = str(candidate.finish_reason.value).lower()
        except errors.APIError as error:
            raise self._api_error(error) from error
        except _transport_errors(httpx2.TransportError) as error:
            url = self.base_url or "https://generativelanguage.googleapis.com"
            timeouts = (httpx2.TimeoutException,)
            raise connection_error(self.name, error, url=url, url_env="GEMINI_BASE_URL", timeouts=timeouts) from error
        if finish_reason is not None:
            yield LLMChunk(usage=usage, finish_reason=finish_reason)

    def _chunk(self, response: types.GenerateContentResponse) -> LLMChunk | None:
        """What a streamed response carries: text, thoughts, and whole function calls (whose
        thought signatures are kept for replay)."""
        text, reasoning, calls = _parts(response)
        for call, signature in calls:
            if signature:
                self._signatures[call.id] = signature
                self._signatures.move_to_end(call.id)
        while len(self._signatures) > _REMEMBERED_CALLS:
            self._signatures.popitem(last=False)
        if text or reasoning or calls:
            return LLMChunk(text=text, reasoning=reasoning, tool_calls=tuple(c for c, _ in calls))
        return None

    def _api_error(self, error: Any) -> Exception:
        """The SDK's API error as llmist's (a bad key is a 400 there, an authentication error here)."""
        status = error.code
        message = error.message or str(error)
        if status == 400 and ("API_KEY_INVALID" in str(error.details) or "API key" in message):
            status = 401
        headers = error.response.headers if error.response is not None else None
        return error_for_status(status, message, provider=self.name, headers=_plain(headers), env_var=self.api_key_env)


def _config(request: LLMRequest, system: str | None) -> types.GenerateContentConfig:
    """The request's settings as a ``GenerateContentConfig`` (tools only when offered)."""
    from google.genai import types

    tools: list[Any] | None = None
    if request.tools:
        tools = [types.Tool(function_declarations=[_declaration(t) for t in request.tools])]
    return types.GenerateContentConfig(
        system_instruction=system,
        temperature=request.temperature,
        max_output_tokens=request.max_tokens,
        stop_sequences=list(request.stop) or None,
        tools=tools,
        **_extra_config(request),
    )


def _declaration(spec: ToolSpec) -> types.FunctionDeclaration:
    """A gadget as a function declaration; its JSON schema goes as ``parameters_json_schema``,
    unconverted, so ``$defs``/``$ref`` survive (the OpenAPI-subset ``parameters`` drops them)."""
    from google.genai import types

    return types.FunctionDeclaration(
        name=spec.name, description=spec.description, parameters_json_schema=spec.parameters
    )


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


def _parts(response: types.GenerateContentResponse) -> tuple[str, str, list[tuple[ToolCall, bytes | None]]]:
    """A response's text, thoughts, and function calls (each with its thought signature)."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[ToolCall, bytes | None]] = []
    for candidate in response.candidates or ():
        if candidate.content is None:
            continue
        for part in candidate.content.parts or ():
            if part.function_call is not None:
                calls.append((_tool_call(part.function_call), part.thought_signature))
            elif part.text:
                (reasoning if part.thought else text).append(part.text)
    return "".join(text), "".join(reasoning), calls


def _tool_call(call: types.FunctionCall) -> ToolCall:
    """A function call, whole: Gemini's id (or a made-up one) and its arguments as JSON text."""
    call_id = call.id or f"{_MADE_UP_ID}{uuid.uuid4().hex[:24]}"
    return ToolCall(call_id, call.name or "", json.dumps(call.args or {}, ensure_ascii=False))


def _usage(response: types.GenerateContentResponse) -> Usage:
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


def to_gemini_contents(
    messages: Sequence[Message], *, signatures: Mapping[str, bytes] | None = None
) -> list[types.Content]:
    """Non-system messages as Gemini contents (roles ``user``/``model``, ``gadget_result`` as user text),
    native tool calls as ``function_call`` parts (with their kept thought ``signatures``) and their
    answers as ``function_response`` parts, named after the call they answer."""
    from google.genai import types

    names = {c.id: c.name for m in messages for c in m.tool_calls}
    contents: list[types.Content] = []
    for role, pieces in chat_turns(messages):
        parts: list[types.Part] = []
        for piece in pieces:
            if isinstance(piece, Message):
                parts += _tool_parts(piece, names, signatures or {})
            else:
                parts += _content_parts(piece)
        parts.sort(key=lambda p: p.function_response is None)  # the answers first, as Gemini expects
        contents.append(types.Content(role="model" if role == "assistant" else "user", parts=parts))
    return contents


def _content_parts(content: Content) -> list[types.Part]:
    from google.genai import types

    return [types.Part(text=content)] if isinstance(content, str) else [_part(p) for p in content]


def _tool_parts(message: Message, names: Mapping[str, str], signatures: Mapping[str, bytes]) -> list[types.Part]:
    """An assistant message's text and ``function_call`` parts, or a result's ``function_response``
    (its text as ``{"result": ...}``, an error's text included) and then its images.

    Arguments that are not a JSON object (a model's malformed call) are sent as ``{}``: the API
    takes only an object, and the call's result already tells the model what was wrong.
    """
    from google.genai import types

    call_id = message.tool_call_id
    if call_id is not None:
        if call_id not in names:
            raise ValueError(
                f"A gadget result answers tool call {call_id!r}, but no assistant message in the conversation "
                "made that call; expected each native result to follow the message with its call"
            )
        response = types.FunctionResponse(id=_sent_id(call_id), name=names[call_id], response={"result": message.text})
        images = [] if isinstance(message.content, str) else [p for p in message.content if isinstance(p, ImagePart)]
        return [types.Part(function_response=response), *(_part(p) for p in images)]
    parts = [types.Part(text=message.text)] if message.text else []
    for call in message.tool_calls:
        function_call = types.FunctionCall(id=_sent_id(call.id), name=call.name, args=arguments_object(call.arguments))
        parts.append(types.Part(function_call=function_call, thought_signature=signatures.get(call.id)))
    return parts


def _sent_id(call_id: str) -> str | None:
    """A call's id as Gemini knows it: ``None`` for an id llmist made up."""
    return None if call_id.startswith(_MADE_UP_ID) else call_id


def _part(part: TextPart | ImagePart) -> types.Part:
    """A content part: an image inline (its bytes) or as a file URI the API fetches."""
    from google.genai import types

    if isinstance(part, TextPart):
        return types.Part(text=part.text)
    inline = inline_image(part)
    if inline is None:
        return types.Part.from_uri(file_uri=str(part.url), mime_type=part.media_type)
    return types.Part.from_bytes(data=inline[1], mime_type=inline[0])
