"""The conversation as data: typed messages that survive a trip through JSON.

A run's conversation (``AgentResult.messages``, ``Agent.run(..., history=...)``, what a
:class:`~llmist.agent.sessions.Session` stores) is a list of
:class:`~llmist.providers.base.Message`. The loop makes two richer kinds, still ``Message``
instances that every provider sends as it is:

- :class:`AssistantMessage`: a model response (its text holds the gadget call blocks as
  written) and the :class:`~llmist.providers.base.Usage` the provider reported for it;
- :class:`GadgetResultMessage`: one call's result as the model reads it, plus the call itself
  (gadget name, invocation id, parameters) and whether it failed.

:func:`messages_to_json` / :func:`messages_from_json` turn such a list into plain JSON values
and back (images as base64 with their media type); :func:`dumps_messages` and
:func:`loads_messages` do the same with a JSON string. The format carries a version
(:data:`MESSAGES_FORMAT`); a document of another version fails with a message saying so.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast, get_args

from llmist.agent.errors import MessageFormatError
from llmist.agent.records import json_text
from llmist.providers.base import ContentPart, ImagePart, Message, Role, TextPart, ToolCall, Usage
from llmist.syntax.frozen import fast_constructor

__all__ = [
    "MESSAGES_FORMAT",
    "AssistantMessage",
    "CompactionSummary",
    "GadgetResultMessage",
    "MessageFormatError",
    "dumps_message",
    "dumps_messages",
    "json_text",
    "loads_message",
    "loads_messages",
    "message_from_json",
    "message_to_json",
    "messages_from_json",
    "messages_to_json",
]

MESSAGES_FORMAT = 1
"""Version of the JSON form written by :func:`messages_to_json`."""

_ROLES = frozenset(get_args(Role))
# One encoder for every call (json.dumps with options builds a new one each time, which costs
# more than encoding a message); default=str: validated parameters may hold values JSON has no
# type for (a date, a path).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str, check_circular=False)
_ASCII_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), default=str, check_circular=False)
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "cache_write_tokens")


@dataclass(frozen=True, slots=True)
class AssistantMessage(Message):
    """A model response, with the token usage the provider reported for it."""

    usage: Usage | None = None
    """The provider's usage of the call that produced this message (``None``: not reported)."""


@dataclass(frozen=True, slots=True)
class GadgetResultMessage(Message):
    """One gadget call's result as sent back to the model, with the call it answers."""

    gadget_name: str = ""
    """The gadget called."""
    invocation_id: str = ""
    """The call's invocation id."""
    parameters: dict[str, Any] | None = None
    """The call's parameters as parsed (``None`` when they could not be parsed)."""
    is_error: bool = False
    """Whether the call failed, was skipped or was not run."""


build_result_message = fast_constructor(GadgetResultMessage)
"""``GadgetResultMessage(...)`` without its frozen ``__init__``: how the loop makes the message
of every call's result (``llmist.syntax.frozen``)."""


@dataclass(frozen=True, slots=True)
class CompactionSummary(Message):
    """A user message that stands for turns a compaction removed: a summary of them, or a note
    that they were dropped (see :doc:`compaction`)."""

    turns: int = 0
    """How many turns it stands for (those of earlier compactions included)."""


def messages_to_json(messages: Iterable[Message]) -> dict[str, Any]:
    """``messages`` as a JSON-ready dict: ``{"format": 1, "messages": [...]}``."""
    return {"format": MESSAGES_FORMAT, "messages": [message_to_json(m) for m in messages]}


def messages_from_json(data: Any) -> list[Message]:
    """The messages of a dict written by :func:`messages_to_json`.

    Raises:
        MessageFormatError: ``data`` is not such a dict, or was written in another format version.
    """
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise MessageFormatError(
            f"a JSON conversation must be an object with a 'messages' list, got {type(data).__name__}"
        )
    fmt = data.get("format")
    if fmt != MESSAGES_FORMAT:
        raise MessageFormatError(
            f"JSON conversation has format {fmt!r}; this llmist reads format {MESSAGES_FORMAT} "
            "(written by a newer llmist? upgrade llmist to read it)"
        )
    return [message_from_json(m, i) for i, m in enumerate(data["messages"])]


def dumps_messages(messages: Iterable[Message]) -> str:
    """``messages`` as a JSON string (see :func:`messages_to_json`)."""
    return json_text(messages_to_json(messages))


def loads_messages(text: str | bytes) -> list[Message]:
    """The messages of a string written by :func:`dumps_messages`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MessageFormatError(f"JSON conversation is not valid JSON: {exc}") from None
    return messages_from_json(data)


def dumps_message(m: Message) -> str:
    """One message as a JSON string (see :func:`message_to_json`)."""
    return json_text(message_to_json(m))


def loads_message(text: str | bytes, index: int = 0) -> Message:
    """One message from a string written by :func:`dumps_message` (``index`` names it in errors)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MessageFormatError(f"message {index} is not valid JSON: {exc}") from None
    return message_from_json(data, index)


def message_to_json(m: Message) -> dict[str, Any]:
    """One message as a JSON-ready dict (``role``, ``content`` and the kind's own fields)."""
    out: dict[str, Any] = {"role": m.role, "content": _content_to_json(m.content)}
    if isinstance(m, AssistantMessage):
        out["kind"] = "assistant"
        if m.usage is not None:
            out["usage"] = {name: getattr(m.usage, name) for name in _USAGE_FIELDS}
    elif isinstance(m, CompactionSummary):
        out["kind"] = "compaction_summary"
        out["turns"] = m.turns
    elif isinstance(m, GadgetResultMessage):
        out["kind"] = "gadget_result"
        out["call"] = {
            "gadget_name": m.gadget_name,
            "invocation_id": m.invocation_id,
            "parameters": m.parameters,
            "is_error": m.is_error,
        }
    # Native tool calls (syntax="native") only when present, so conversations of the text
    # syntaxes read as before.
    if m.tool_calls:
        out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    return out


def message_from_json(data: Any, index: int = 0) -> Message:
    """One message from a dict written by :func:`message_to_json` (``index`` names it in errors)."""
    message = _message_from_json(data, index)
    calls, answers = data.get("tool_calls"), data.get("tool_call_id")
    if calls is None and answers is None:
        return message
    if answers is not None and not isinstance(answers, str):
        raise MessageFormatError(f"message {index}: 'tool_call_id' must be a string, got {type(answers).__name__}")
    return replace(message, tool_calls=_tool_calls_from_json(calls, index), tool_call_id=answers)


def _tool_calls_from_json(data: Any, index: int) -> tuple[ToolCall, ...]:
    if data is None:
        return ()
    fields = ("id", "name", "arguments")
    if not isinstance(data, list) or not all(
        isinstance(c, dict) and all(isinstance(c.get(f), str) for f in fields) for c in data
    ):
        raise MessageFormatError(
            f"message {index}: 'tool_calls' must be a list of objects with string 'id', 'name' and 'arguments'"
        )
    return tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in data)


def _message_from_json(data: Any, index: int) -> Message:
    if not isinstance(data, dict):
        raise MessageFormatError(f"message {index}: expected an object, got {type(data).__name__}")
    role = cast("Role", data.get("role"))
    if role not in _ROLES:
        raise MessageFormatError(f"message {index}: role must be one of {sorted(_ROLES)}, got {role!r}")
    content = _content_from_json(data.get("content"), index)
    kind = data.get("kind")
    if kind == "assistant":
        usage = data.get("usage")
        return AssistantMessage(role, content, _usage_from_json(usage, index) if usage is not None else None)
    if kind == "gadget_result":
        call = data.get("call")
        if not isinstance(call, dict):
            raise MessageFormatError(f"message {index}: a gadget_result needs a 'call' object")
        return GadgetResultMessage(
            role,
            content,
            str(call.get("gadget_name", "")),
            str(call.get("invocation_id", "")),
            call.get("parameters"),
            bool(call.get("is_error", False)),
        )
    if kind == "compaction_summary":
        return CompactionSummary(role, content, int(data.get("turns", 0)))
    if kind is not None:
        raise MessageFormatError(
            f"message {index}: unknown kind {kind!r}; expected 'assistant', 'gadget_result' or 'compaction_summary'"
        )
    return Message(role, content)


def _content_to_json(content: str | Sequence[ContentPart]) -> str | list[dict[str, str]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, str]] = []
    for p in content:
        if isinstance(p, TextPart):
            parts.append({"type": "text", "text": p.text})
        else:
            data = base64.b64encode(p.data).decode("ascii")
            image = {"type": "image", "media_type": p.media_type, "data": data}
            # An image by URL and a file name are kept only when present, so older readers of
            # format 1 still read every image written with bytes alone.
            if p.url is not None:
                image["url"] = p.url
            if p.name:
                image["name"] = p.name
            parts.append(image)
    return parts


def _content_from_json(content: Any, index: int) -> str | tuple[ContentPart, ...]:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise MessageFormatError(f"message {index}: content must be a string or a list of parts")
    parts: list[ContentPart] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append(TextPart(str(part["text"])))
        elif kind == "image":
            parts.append(_image_from_json(part, index))
        else:
            raise MessageFormatError(f"message {index}: a content part must have type 'text' or 'image', got {kind!r}")
    return tuple(parts)


def _image_from_json(part: dict[str, Any], index: int) -> ImagePart:
    try:
        data = base64.b64decode(part.get("data", ""), validate=True)
    except ValueError:
        raise MessageFormatError(f"message {index}: an image part's 'data' must be base64") from None
    url = part.get("url")
    if not data and not isinstance(url, str):
        raise MessageFormatError(f"message {index}: an image part needs base64 'data' or a 'url'")
    return ImagePart(data, str(part.get("media_type", "image/png")), url, str(part.get("name", "")))


def _usage_from_json(data: Any, index: int) -> Usage:
    if not isinstance(data, dict) or not all(isinstance(data.get(k, 0), int) for k in _USAGE_FIELDS):
        raise MessageFormatError(f"message {index}: usage must be an object of integer token counts")
    return Usage(**{k: data.get(k, 0) for k in _USAGE_FIELDS})
