"""Anthropic Claude through the official ``anthropic`` SDK, with prompt caching of the system prompt."""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from llmist._credentials import PROVIDER_KEYS
from llmist.providers._anthropic_messages import to_anthropic_messages
from llmist.providers._common import (
    ReliableProvider,
    api_key_from_env,
    arguments_object,
    connection_error,
    error_for_status,
    import_sdk,
    require_sdk,
    split_system,
)
from llmist.providers.base import (
    LLMChunk,
    LLMRequest,
    Message,
    Reasoning,
    ToolCall,
    ToolSpec,
    Usage,
)
from llmist.providers.errors import ProviderError
from llmist.providers.retry import RateLimiter, RetryPolicy

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.types import TextBlockParam, ToolParam

__all__ = ["AnthropicProvider"]

logger = logging.getLogger("llmist.providers.anthropic")

_REMEMBERED_CALLS = 256
"""Tool calls whose response a provider keeps for replay (a bound on its memory)."""

_STATUS_OF_ERROR_TYPE = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "api_error": 500,
    "authentication_error": 401,
    "permission_error": 403,
}
"""HTTP status equivalent of an error event sent inside a 200 stream."""


class AnthropicProvider(ReliableProvider):
    """Claude models through the Messages API (``pip install 'llmist[anthropic]'``).

    Prompt caching: the system prompt (with the gadget list) and the end of the conversation
    are marked ``cache_control: ephemeral``, so each request reads the previous request's
    prefix from the cache (billed at the cache-read price) instead of paying for it again.
    Consecutive messages of the same role are merged (the API requires alternation).
    The temperature is not sent: the Messages API version the SDK speaks (2026-10-21)
    rejects every sampling parameter, whatever the model.

    Native tool calls: the request's tools are sent as ``tools`` (cached with the system
    prompt, which comes after them), calls come back as ``tool_use`` blocks and results go as
    ``tool_result`` blocks. With thinking on, the API wants the thinking blocks (signed) that
    preceded the calls of the current tool-use cycle sent back, unmodified, with them; the
    provider keeps each response that called tools and sends it back block for block. A
    conversation whose open cycle's response it did not receive (restored from JSON, or begun
    on another provider) is sent with thinking off for that request, which the API accepts.
    """

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 600.0,
        default_max_tokens: int = 8192,
        cache_system_prompt: bool = True,
        cache_conversation: bool = True,
        retry: RetryPolicy | None = None,
        rate_limiter: RateLimiter | None = None,
    ) -> None:
        super().__init__(retry=retry, rate_limiter=rate_limiter)
        self.api_key_env = PROVIDER_KEYS["anthropic"][0]
        """Environment variable the key is read from."""
        require_sdk("anthropic", provider=self.name, package="anthropic", extra="anthropic")
        self._api_key = api_key_from_env(api_key, self.api_key_env, provider=self.name, required=True)
        self.base_url = base_url
        """Server URL; ``None`` is Anthropic's API (or ``ANTHROPIC_BASE_URL``)."""
        self.default_max_tokens = default_max_tokens
        """``max_tokens`` sent when the request sets none (the API requires one)."""
        self.cache_system_prompt = cache_system_prompt
        """Mark the system prompt with ``cache_control``."""
        self.cache_conversation = cache_conversation
        """Mark the last message with ``cache_control``: the conversation so far becomes a cached prefix
        that the next request (the same messages plus the new turn) reads back."""
        self._timeout = timeout
        self._client: AsyncAnthropic | None = None
        self._received: OrderedDict[str, tuple[dict[str, Any], ...]] = OrderedDict()

    def _sdk_client(self) -> AsyncAnthropic:
        if self._client is None:
            sdk = import_sdk("anthropic", provider=self.name, package="anthropic", extra="anthropic")
            self._client = sdk.AsyncAnthropic(
                api_key=self._api_key, base_url=self.base_url, timeout=self._timeout, max_retries=0
            )
        return self._client

    async def _stream_once(self, request: LLMRequest) -> AsyncIterator[LLMChunk]:
        client = self._sdk_client()
        import anthropic
        import httpx2

        system, rest = split_system(request.messages)
        options = self._options(request, system)
        received = self._replayable(rest, options)
        reader = _BlockReader()
        usage = Usage()
        stop_reason: str | None = None
        try:
            stream = await client.messages.create(
                model=request.model,
                messages=to_anthropic_messages(rest, cache_last=self.cache_conversation, received=received),
                stream=True,
                **options,
            )
            try:
                async for event in stream:
                    if event.type == "message_start":
                        usage = _start_usage(event.message.usage)
                    elif event.type == "message_delta":
                        usage = _delta_usage(usage, event.usage)
                        stop_reason = event.delta.stop_reason or stop_reason
                    else:
                        chunk = reader.read(event)
                        if chunk is not None:
                            yield chunk
            finally:
                await stream.close()  # left early: the connection closes (see openai.py)
        except (anthropic.AnthropicError, httpx2.TransportError) as error:
            raise self._provider_error(error) from error
        self._remember(reader)
        if stop_reason is not None:
            yield LLMChunk(usage=usage, finish_reason=stop_reason)

    def _replayable(self, messages: Sequence[Message], options: dict[str, Any]) -> Mapping[str, tuple[Any, ...]]:
        """The responses to replay verbatim (their signed thinking included), by call id; none with
        thinking off. Turns thinking off in ``options`` when the open tool-use cycle's response
        was not received here."""
        if options.get("thinking", {}).get("type", "disabled") == "disabled":
            return {}
        open_calls = _open_cycle_calls(messages)
        if open_calls and not any(c.id in self._received for c in open_calls):
            logger.debug("Thinking off for this request: the thinking before tool calls %s is not known", open_calls)
            options["thinking"] = {"type": "disabled"}
            options.pop("output_config", None)
            return {}
        return self._received

    def _remember(self, reader: _BlockReader) -> None:
        """Keep a response that called tools, by call id, to replay it."""
        for call_id in reader.call_ids:
            self._received[call_id] = reader.content
            self._received.move_to_end(call_id)
        while len(self._received) > _REMEMBERED_CALLS:
            self._received.popitem(last=False)

    def _options(self, request: LLMRequest, system: str | None) -> dict[str, Any]:
        """The request's settings but model and messages, named as the Messages API names them."""
        options: dict[str, Any] = {}
        if system is not None:
            block: TextBlockParam = {"type": "text", "text": system}
            if self.cache_system_prompt:
                block["cache_control"] = {"type": "ephemeral"}
            options["system"] = [block]
        if request.temperature is not None:
            logger.debug("Not sending temperature: the Anthropic API (2026-10-21) accepts no sampling parameters")
        if request.stop:
            options["stop_sequences"] = list(request.stop)
        # The answer's cap, plus any thinking budget: the API counts thinking in max_tokens and
        # wants the budget below it.
        options["max_tokens"] = request.max_tokens or self.default_max_tokens
        if request.reasoning is not None:
            options.update(_thinking(request.reasoning, request.model))
            options["max_tokens"] += options["thinking"].get("budget_tokens", 0)
        if request.tools:
            options["tools"] = [_tool(t) for t in request.tools]
        if request.extra:
            options["extra_body"] = dict(request.extra)
        return options

    def _provider_error(self, error: Exception) -> ProviderError:
        """The SDK's (or the transport's) error as llmist's, so retries and messages are the same
        for every provider."""
        import anthropic
        import httpx2

        if isinstance(error, anthropic.APIStatusError):
            status = error.status_code
            if status < 400:  # an error event inside a 200 stream
                status = _STATUS_OF_ERROR_TYPE.get(_error_type(error.body) or "", 500)
            return error_for_status(
                status,
                _error_message(error),
                provider=self.name,
                headers=error.response.headers,
                env_var=self.api_key_env,
            )
        if isinstance(error, anthropic.APIConnectionError) or not isinstance(error, anthropic.AnthropicError):
            url = str(self._sdk_client().base_url).rstrip("/")
            timeouts = (anthropic.APITimeoutError, httpx2.TimeoutException)
            return connection_error(self.name, error, url=url, url_env="ANTHROPIC_BASE_URL", timeouts=timeouts)
        return ProviderError(f"anthropic failed: {error}", provider=self.name)


def _thinking(reasoning: Reasoning, model: str) -> dict[str, Any]:
    """The Messages API's thinking options. A budget is manual extended thinking; an effort alone
    is adaptive thinking at that ``output_config.effort`` (the API has no ``minimal``: ``low``)
    on models that have adaptive thinking, and the effort's budget on older ones."""
    if reasoning.effort_level == "none" or reasoning.budget_tokens == 0:
        return {"thinking": {"type": "disabled"}}
    if reasoning.budget_tokens is not None or not _adaptive(model):
        return {"thinking": {"type": "enabled", "budget_tokens": reasoning.budget}}
    effort = reasoning.effort_level
    return {"thinking": {"type": "adaptive"}, "output_config": {"effort": "low" if effort == "minimal" else effort}}


_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)(?:-(\d+))?")


def _adaptive(model: str) -> bool:
    """Whether the model has adaptive thinking: Claude 4.6 and later (a name llmist cannot read is
    taken as a newer model). ``claude-sonnet-4-20250514`` is 4.0: an 8-digit suffix is a date."""
    match = _VERSION.match(model)
    if match is None:
        return True
    minor = match[2] if match[2] is not None and len(match[2]) < 3 else "0"
    return (int(match[1]), int(minor)) >= (4, 6)


def _tool(spec: ToolSpec) -> ToolParam:
    """A gadget as a Messages API tool."""
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


def _open_cycle_calls(messages: Sequence[Message]) -> tuple[ToolCall, ...]:
    """The calls of the last assistant message when results to them end the conversation (a
    tool-use cycle still open); else none."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant":
            answered = any(m.tool_call_id is not None for m in messages[index + 1 :])
            return messages[index].tool_calls if answered else ()
    return ()


class _BlockReader:
    """The content blocks of one streamed response: text and thinking out as they arrive, each
    ``tool_use`` block out whole at its end, and every block kept, as the API takes it back (the
    thinking with its signature), to replay the response verbatim before its calls' results."""

    def __init__(self) -> None:
        self._json: dict[int, list[str]] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self.call_ids: list[str] = []
        """The ids of the calls read, in order."""

    @property
    def content(self) -> tuple[dict[str, Any], ...]:
        """The response's blocks in order (empty text blocks left out: the API refuses them)."""
        blocks = (self._blocks[i] for i in sorted(self._blocks))
        return tuple(b for b in blocks if b["type"] != "text" or b["text"])

    def read(self, event: Any) -> LLMChunk | None:
        """What ``event`` streams: text, thinking, or a tool call it completed."""
        if event.type == "content_block_start":
            self._start(event.index, event.content_block)
        elif event.type == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif event.type == "content_block_stop" and event.index in self._json:
            block = self._blocks[event.index]
            arguments = "".join(self._json.pop(event.index)) or "{}"
            block["input"] = arguments_object(arguments)
            self.call_ids.append(block["id"])
            return LLMChunk(tool_calls=(ToolCall(block["id"], block["name"], arguments),))
        return None

    def _start(self, index: int, block: Any) -> None:
        if block.type == "tool_use":
            self._json[index] = []
            self._blocks[index] = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        elif block.type == "text":
            self._blocks[index] = {"type": "text", "text": ""}
        elif block.type == "thinking":
            self._blocks[index] = {"type": "thinking", "thinking": "", "signature": ""}
        elif block.type == "redacted_thinking":
            self._blocks[index] = {"type": "redacted_thinking", "data": block.data}

    def _delta(self, index: int, delta: Any) -> LLMChunk | None:
        block = self._blocks.get(index, {})
        if delta.type == "text_delta":
            if block:
                block["text"] += delta.text
            return LLMChunk(text=delta.text)
        if delta.type == "thinking_delta":
            if block:
                block["thinking"] += delta.thinking
            return LLMChunk(reasoning=delta.thinking)
        if delta.type == "input_json_delta" and index in self._json:
            self._json[index].append(delta.partial_json)
        elif delta.type == "signature_delta" and block:
            block["signature"] += delta.signature
        return None


def _start_usage(raw: Any) -> Usage:
    """Usage as ``message_start`` reports it: cache reads and writes are part of the input."""
    read = raw.cache_read_input_tokens or 0
    written = raw.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=raw.input_tokens + read + written,
        output_tokens=raw.output_tokens,
        cached_input_tokens=read,
        cache_write_tokens=written,
    )


def _delta_usage(usage: Usage, raw: Any) -> Usage:
    """Usage once ``message_delta`` reports: the final output count (thinking included, and the
    thinking tokens apart where the API reports them); its input counts, where present, are
    cumulative and replace those of ``message_start``."""
    details = raw.output_tokens_details
    thinking = details.thinking_tokens if details is not None else usage.reasoning_tokens
    read = usage.cached_input_tokens if raw.cache_read_input_tokens is None else raw.cache_read_input_tokens
    written = usage.cache_write_tokens if raw.cache_creation_input_tokens is None else raw.cache_creation_input_tokens
    plain = usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens
    if raw.input_tokens is not None:
        plain = raw.input_tokens
    return Usage(plain + read + written, raw.output_tokens, read, thinking, written)


def _error_type(body: object) -> str | None:
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("type"), str):
            return str(inner["type"])
    return None


def _error_message(error: Any) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(error.message)
