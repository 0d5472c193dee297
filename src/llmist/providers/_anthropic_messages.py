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
    thinking: Mapping[str, tuple[dict[str, Any], ...]] | None = None,
) -> list[MessageParam]:
    """Non-system messages in Messages API form: alternating roles, ``gadget_result`` as user text,
    native tool calls as ``tool_use`` blocks (after the ``thinking`` blocks kept for their ids)
    and their answers as ``tool_result`` blocks.

    With ``cache_last``, the last message's last block carries ``cache_control``: the API caches
    the prefix up to that block and, on the next request, finds it again by looking back from
    the new breakpoint, so one moving marker keeps a growing conversation cached.
    """
    result: list[MessageParam] = []
    for role, pieces in chat_turns(messages):
        content = _turn_content(pieces, thinking or {})
        if role == "assistant":
            result.append({"role": "assistant", "content": content})
        else:
            result.append({"role": "user", "content": content})
    if cache_last and result:
        _mark_cached(result[-1])
    return result


def _turn_content(pieces: list[Content | Message], thinking: Mapping[str, tuple[dict[str, Any], ...]]) -> Any:
    """One turn's content: plain text stays a string; otherwise blocks, with thinking (in an
    assistant turn) and tool results (in a user turn) first, where the API requires them."""
    if len(pieces) == 1 and isinstance(pieces[0], str):
        return pieces[0]
    blocks: list[Any] = []
    for piece in pieces:
        if isinstance(piece, Message):
            blocks += _tool_blocks(piece, thinking)
        else:
            blocks += [_block(p) for p in ((TextPart(piece),) if isinstance(piece, str) else piece)]
    return sorted(blocks, key=lambda b: b["type"] not in ("thinking", "redacted_thinking", "tool_result"))


def _tool_blocks(message: Message, thinking: Mapping[str, tuple[dict[str, Any], ...]]) -> list[Any]:
    """An assistant message's thinking, text and ``tool_use`` blocks, or a result's ``tool_result``.

    Arguments that are not a JSON object (a model's malformed call) are sent as ``{}``: the API
    takes only an object, and the call's result already tells the model what was wrong.
    """
    if message.tool_call_id is not None:
        content = message.content
        inner: Any = content if isinstance(content, str) else [_block(p) for p in content if _shown(p)]
        return [{"type": "tool_result", "tool_use_id": message.tool_call_id, "content": inner}]
    calls = message.tool_calls
    blocks: list[Any] = list(next((thinking[c.id] for c in calls if c.id in thinking), ()))
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    for call in calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments_object(call.arguments)})
    return blocks


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
