"""Local HTTP servers that speak the providers' streaming wire formats, for tests.

``FakeServer(responses)`` answers each request with the next scripted
:class:`FakeResponse` (an SSE stream, or an error body), records every request, and runs
in a background thread on ``127.0.0.1`` with a free port, so both async tests and
example scripts can reach it. Point a provider at ``server.base_url``.

The ``openai_*``, ``anthropic_*`` and ``gemini_*`` helpers build responses in each
provider's documented wire format:

- OpenAI Chat Completions: ``data: {chat.completion.chunk}`` lines, a final chunk with
  ``usage`` and empty ``choices`` (``stream_options.include_usage``), then ``data: [DONE]``.
- Anthropic Messages: named events ``message_start``, ``content_block_start``,
  ``content_block_delta`` (``text_delta`` / ``thinking_delta``), ``content_block_stop``,
  ``message_delta`` (stop reason, output usage), ``message_stop``.
- Gemini ``streamGenerateContent?alt=sse``: ``data: {GenerateContentResponse}`` lines,
  the last one with ``finishReason`` and ``usageMetadata``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeResponse",
    "FakeServer",
    "RecordedRequest",
    "anthropic_error",
    "anthropic_stream",
    "gemini_error",
    "gemini_stream",
    "openai_error",
    "openai_stream",
]


@dataclass
class FakeResponse:
    """One scripted answer."""

    status: int = 200
    events: Sequence[str] = ()
    """SSE events, each already formatted (``"data: ...\\n\\n"``); sent one per write."""
    body: str | None = None
    """A plain (JSON) body instead of an event stream, for errors."""
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    """Break the connection (no end of body) after this many events."""
    delay_s: float = 0.0
    """Wait this long before answering (to trigger client timeouts)."""


@dataclass
class RecordedRequest:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """The JSON body, decoded."""
    raw: bytes = b""
    """The body as sent, byte for byte."""


class FakeServer:
    """A scripted HTTP server in a background thread. Use as a (sync) context manager."""

    def __init__(self, responses: Sequence[FakeResponse]) -> None:
        self.responses = list(responses)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval: closing the server waits for the next poll, once per test.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def next_response(self, request: RecordedRequest) -> FakeResponse:
        """Record ``request`` and pop the next scripted response (a 500 when the script is used up)."""
        with self._lock:
            self.requests.append(request)
            if self.responses:
                return self.responses.pop(0)
        return FakeResponse(500, body=json.dumps({"error": {"message": "fake server: script used up"}}))

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = RecordedRequest("POST", self.path, headers, body, raw)
            # The client may give up first (a timeout test); nothing to report then.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._answer(server.next_response(request))

        def _answer(self, response: FakeResponse) -> None:
            if response.delay_s:
                time.sleep(response.delay_s)
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.send_header("Connection", "close")
            if response.body is not None:
                payload = response.body.encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for index, event in enumerate(response.events):
                if response.cut_after is not None and index >= response.cut_after:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                data = event.encode()
                self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler


def _sse(data: object, event: str | None = None) -> str:
    prefix = f"event: {event}\n" if event else ""
    return f"{prefix}data: {json.dumps(data)}\n\n"


# --- OpenAI Chat Completions -------------------------------------------------------------


def openai_stream(
    pieces: Sequence[str],
    *,
    model: str = "gpt-4o",
    finish_reason: str | None = "stop",
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    cached_tokens: int = 0,
    reasoning: Sequence[str] = (),
    reasoning_tokens: int = 0,
    cache_write_tokens: int | None = None,
    cut_after: int | None = None,
    tool_calls: Sequence[tuple[str, str, str]] = (),
    arguments_piece: int = 4,
    call_index: bool = True,
) -> FakeResponse:
    """A Chat Completions stream of ``pieces`` (``reasoning`` first, as ``reasoning_content`` deltas).

    ``cache_write_tokens`` adds OpenRouter's ``prompt_tokens_details.cache_write_tokens``.
    ``tool_calls`` (``(id, name, arguments)`` each) follow the text as ``delta.tool_calls``
    fragments: id and name first, then the arguments ``arguments_piece`` characters at a time
    (without their ``index`` when ``call_index`` is false, as some compatible servers send them).
    """

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return _sse(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 1_700_000_000,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
        )

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"reasoning_content": r}) for r in reasoning]
    events += [chunk({"content": p}) for p in pieces]
    fragments = _openai_call_fragments(tool_calls, arguments_piece)
    if not call_index:
        fragments = [{k: v for k, v in f.items() if k != "index"} for f in fragments]
    events += [chunk({"tool_calls": [f]}) for f in fragments]
    if finish_reason is not None:
        events.append(chunk({}, finish_reason))
        usage = _openai_usage(prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, cache_write_tokens)
        last = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": model}
        events.append(_sse({**last, "choices": [], "usage": usage}))
        events.append("data: [DONE]\n\n")
    return FakeResponse(events=events, cut_after=cut_after)


def _openai_call_fragments(calls: Sequence[tuple[str, str, str]], piece: int) -> list[dict[str, Any]]:
    """The ``delta.tool_calls`` fragments of ``calls``, as OpenAI streams them."""
    fragments: list[dict[str, Any]] = []
    for index, (call_id, name, arguments) in enumerate(calls):
        first = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        fragments.append(first)
        for start in range(0, len(arguments), piece):
            fragments.append({"index": index, "function": {"arguments": arguments[start : start + piece]}})
    return fragments


def _openai_usage(
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int,
    reasoning_tokens: int,
    cache_write_tokens: int | None,
) -> dict[str, Any]:
    prompt_details: dict[str, int] = {"cached_tokens": cached_tokens}
    if cache_write_tokens is not None:
        prompt_details["cache_write_tokens"] = cache_write_tokens
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": prompt_details,
        "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
    }


def openai_error(status: int, message: str = "error", *, headers: dict[str, str] | None = None) -> FakeResponse:
    """An OpenAI error response."""
    kinds = {401: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error"}
    body = {"error": {"message": message, "type": kinds.get(status, "api_error"), "param": None, "code": None}}
    return FakeResponse(status, body=json.dumps(body), headers=headers or {})


# --- Anthropic Messages -------------------------------------------------------------------


def anthropic_stream(
    pieces: Sequence[str],
    *,
    model: str = "claude-sonnet-4-5",
    stop_reason: str | None = "end_turn",
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read_input_tokens: int = 0,
    cache_creation_input_tokens: int = 0,
    thinking: Sequence[str] = (),
    thinking_tokens: int | None = None,
    cut_after: int | None = None,
    error_after: int | None = None,
    tool_calls: Sequence[tuple[str, str, str]] = (),
    arguments_piece: int = 4,
    interleaved: Sequence[str] = (),
    redacted: str | None = None,
) -> FakeResponse:
    """A Messages stream of ``pieces`` (``thinking`` first, in a thinking block that ends with
    its ``signature_delta``, signed ``sig-<first thought>``).

    ``thinking_tokens`` adds ``output_tokens_details.thinking_tokens`` to the final usage.
    ``tool_calls`` (``(id, name, arguments)`` each) follow the text as ``tool_use`` blocks whose
    input streams as ``input_json_delta`` fragments of ``arguments_piece`` characters (a
    response of calls only has no text block); ``interleaved[i]`` is a signed thinking block
    before the call ``i + 1`` (interleaved thinking). ``redacted`` starts the response with a
    ``redacted_thinking`` block of that data.

    ``error_after`` sends an in-stream ``overloaded_error`` event after that many events.
    """
    start = _anthropic_start(model, input_tokens, cache_read_input_tokens, cache_creation_input_tokens)
    events = [_sse(start, "message_start"), _sse({"type": "ping"}, "ping")]
    index = 0
    if redacted is not None:
        block = {"type": "redacted_thinking", "data": redacted}
        events.append(_sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start"))
        events.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        index += 1
    if thinking:
        events += _anthropic_block(index, "thinking", thinking, signature=f"sig-{thinking[0]}")
        index += 1
    if pieces or not tool_calls:
        events += _anthropic_block(index, "text", pieces)
        index += 1
    for number, call in enumerate(tool_calls):
        if 0 < number <= len(interleaved):
            thought = interleaved[number - 1]
            events += _anthropic_block(index, "thinking", [thought], signature=f"sig-{thought}")
            index += 1
        events += _anthropic_tool_use(index, call, arguments_piece)
        index += 1
    if stop_reason is not None:
        end_usage: dict[str, Any] = {"output_tokens": output_tokens}
        if thinking_tokens is not None:
            end_usage["output_tokens_details"] = {"thinking_tokens": thinking_tokens}
        end = {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": end_usage,
        }
        events.append(_sse(end, "message_delta"))
        events.append(_sse({"type": "message_stop"}, "message_stop"))
    if error_after is not None:
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        events = [*events[:error_after], _sse(error, "error")]
    return FakeResponse(events=events, cut_after=cut_after)


def _anthropic_tool_use(index: int, call: tuple[str, str, str], piece: int) -> list[str]:
    """The events of one ``tool_use`` block: its start (id, name, empty input), the input's JSON
    text in fragments, its stop."""
    call_id, name, arguments = call
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    events = [_sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")]
    for start in range(0, len(arguments), piece):
        delta = {"type": "input_json_delta", "partial_json": arguments[start : start + piece]}
        events.append(_sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"))
    events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    return events


def _anthropic_start(
    model: str, input_tokens: int, cache_read_input_tokens: int, cache_creation_input_tokens: int
) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": 1,
                "cache_read_input_tokens": cache_read_input_tokens,
                "cache_creation_input_tokens": cache_creation_input_tokens,
            },
        },
    }


def _anthropic_block(index: int, kind: str, pieces: Sequence[str], *, signature: str | None = None) -> list[str]:
    """The events of one content block (``kind`` is ``text`` or ``thinking``) streaming ``pieces``,
    and a thinking block's ``signature``."""
    start = {"type": "content_block_start", "index": index, "content_block": {"type": kind, kind: ""}}
    events = [_sse(start, "content_block_start")]
    for p in pieces:
        delta = {"type": "content_block_delta", "index": index, "delta": {"type": f"{kind}_delta", kind: p}}
        events.append(_sse(delta, "content_block_delta"))
    if signature is not None:
        delta = {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "signature_delta", "signature": signature},
        }
        events.append(_sse(delta, "content_block_delta"))
    events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    return events


def anthropic_error(status: int, message: str = "error", *, headers: dict[str, str] | None = None) -> FakeResponse:
    """An Anthropic error response."""
    kinds = {
        401: "authentication_error",
        429: "rate_limit_error",
        500: "api_error",
        529: "overloaded_error",
    }
    body = {"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": message}}
    return FakeResponse(status, body=json.dumps(body), headers=headers or {})


# --- Gemini --------------------------------------------------------------------------------


def gemini_stream(
    pieces: Sequence[str],
    *,
    model: str = "gemini-2.5-flash",
    finish_reason: str | None = "STOP",
    prompt_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    thoughts: Sequence[str] = (),
    thoughts_tokens: int = 0,
    cut_after: int | None = None,
    function_calls: Sequence[dict[str, Any]] = (),
) -> FakeResponse:
    """A ``streamGenerateContent?alt=sse`` stream of ``pieces`` (``thoughts`` first, as thought parts).

    ``function_calls`` (``functionCall`` objects: ``name``, ``args`` and maybe ``id``) follow the
    text, one whole ``functionCall`` part per event, the first carrying a ``thoughtSignature``
    (base64 of ``sig-<name>``) as thinking models send it.
    """

    def response(parts: list[dict[str, Any]], finish: str | None = None, usage: bool = False) -> str:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        data: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": "fake"}
        if usage:
            data["usageMetadata"] = {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": output_tokens,
                "totalTokenCount": prompt_tokens + output_tokens + thoughts_tokens,
                "cachedContentTokenCount": cached_tokens,
                "thoughtsTokenCount": thoughts_tokens,
            }
        return f"data: {json.dumps(data)}\r\n\r\n"

    parts: list[list[dict[str, Any]]] = [[{"text": t, "thought": True}] for t in thoughts]
    parts += [[{"text": p}] for p in pieces]
    parts += [[_gemini_call_part(call, first=i == 0)] for i, call in enumerate(function_calls)]
    events = [response(p) for p in parts[:-1]]
    last = parts[-1] if parts else []
    if finish_reason is not None:
        events.append(response(last, finish_reason, usage=True))
    elif last:
        events.append(response(last))
    return FakeResponse(events=events, cut_after=cut_after)


def _gemini_call_part(call: dict[str, Any], *, first: bool) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": call}
    if first:
        part["thoughtSignature"] = base64.b64encode(f"sig-{call['name']}".encode()).decode()
    return part


def gemini_error(status: int, message: str = "error", *, headers: dict[str, str] | None = None) -> FakeResponse:
    """A Gemini (Google API) error response."""
    statuses = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}
    body = {"error": {"code": status, "message": message, "status": statuses.get(status, "UNKNOWN")}}
    return FakeResponse(status, body=json.dumps(body), headers=headers or {})
