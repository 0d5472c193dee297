"""Our conversation in Anthropic Messages API form: alternating turns of content blocks, native
tool calls as ``tool_use`` blocks and their results as ``tool_result`` blocks."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from llmist.providers._common import Content, arguments_object, chat_turns, inline_image
from llmist.providers.base import ImagePart, Message, TextPart

if TYPE_CHECKING:
    from anthropic.types import ImageBlockParam, MessageParam, TextBlockParam

__all__ = ["to_anthropic_messages"]


def to_anthropic_messages(
    messages: Sequence[Message],
    *,
    cache_last: bool = False,
    received: Mapping[str, tuple[Any, ...]] | None = None,
) -> list[MessageParam]:
    """Non-system messages in Messages API form: alternating roles, ``gadget_result`` as user text,
    native tool calls as ``tool_use`` blocks and their answers as ``tool_result`` blocks. An
    assistant message whose calls are those of a response in ``received`` (the response's blocks
    by call id) is that response, block for block, its signed thinking included.

    With ``cache_last``, the last message's last block carries ``cache_control``: the API caches
    the prefix up to that block and, on the next request, finds it again by looking back from
    the new breakpoint, so one moving marker keeps a growing conversation cached.
    """
    result: list[MessageParam] = []
    for role, pieces in chat_turns(messages):
        content = _turn_content(pieces, received or {})
        if role == "assistant":
            result.append({"role": "assistant", "content": content})
        else:
            result.append({"role": "user", "content": content})
    if cache_last and result:
        _mark_cached(result[-1])
    return result


_THINKING = ("thinking", "redacted_thinking")


def _turn_content(pieces: list[Content | Message], received: Mapping[str, tuple[Any, ...]]) -> Any:
    """One turn's content: plain text stays a string; otherwise blocks, with tool results (in a
    user turn) and thinking (in an assistant turn) first, where the API requires them."""
    if len(pieces) == 1 and isinstance(pieces[0], str):
        return pieces[0]
    blocks: list[Any] = []
    for piece in pieces:
        if isinstance(piece, Message):
            blocks += _tool_blocks(piece, received)
        else:
            blocks += [_block(p) for p in ((TextPart(piece),) if isinstance(piece, str) else piece)]
    if any(b["type"] == "tool_result" for b in blocks):
        return sorted(blocks, key=lambda b: b["type"] != "tool_result")
    if blocks and blocks[0]["type"] not in _THINKING and any(b["type"] in _THINKING for b in blocks):
        return sorted(blocks, key=lambda b: b["type"] not in _THINKING)
    return blocks


def _tool_blocks(message: Message, received: Mapping[str, tuple[Any, ...]]) -> list[Any]:
    """A result's ``tool_result`` block, or an assistant message's blocks: the response received
    with these calls as it came, else its thinking, the text and a ``tool_use`` block per call."""
    if message.tool_call_id is not None:
        content = message.content
        inner: Any = content if isinstance(content, str) else [_block(p) for p in content if _shown(p)]
        return [{"type": "tool_result", "tool_use_id": message.tool_call_id, "content": inner}]
    calls = message.tool_calls
    response = next((received[c.id] for c in calls if c.id in received), ())
    if _is_response_of(response, message):
        return list(response)
    blocks: list[Any] = [b for b in response if b["type"] in _THINKING]
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    for call in calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments_object(call.arguments)})
    return blocks


def _is_response_of(response: tuple[Any, ...], message: Message) -> bool:
    """Whether ``response``'s blocks are ``message``: the same text and the same calls (ids and arguments)."""
    calls = [(b["id"], b["input"]) for b in response if b["type"] == "tool_use"]
    text = "".join(b["text"] for b in response if b["type"] == "text")
    sent = [(c.id, arguments_object(c.arguments)) for c in message.tool_calls]
    return bool(response) and calls == sent and text == message.text


def _shown(part: TextPart | ImagePart) -> bool:
    """Whether a part is sent (the API refuses empty text blocks)."""
    return isinstance(part, ImagePart) or bool(part.text)


def _mark_cached(message: MessageParam) -> None:
    """Put ``cache_control`` on the message's last block (a string content becomes one text block)."""
    content = message["content"]
    blocks: list[Any] = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    if not blocks or (blocks[-1].get("type") == "text" and not blocks[-1].get("text")):
        return  # the API refuses cache_control on an empty text block
    blocks[-1] = {**blocks[-1], "cache_control": {"type": "ephemeral"}}
    message["content"] = blocks


def _block(part: TextPart | ImagePart) -> TextBlockParam | ImageBlockParam:
    """A content block: an image inline (base64) or as a URL source the API fetches."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    inline = inline_image(part)
    if inline is None:
        return {"type": "image", "source": {"type": "url", "url": str(part.url)}}
    media_type: Any = inline[0]
    data = base64.b64encode(inline[1]).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
