"""An MCP ``CallToolResult`` as the text a model reads, and the media it carries.

An MCP gadget returns the text and the media together (:class:`~llmist.gadgets.GadgetResult`),
so a model that sees images gets a tool's images as images, and any other model reads them
described once, by the agent, as it reads a gadget's media.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp import types

from llmist.gadgets import GadgetMedia, GadgetResult

__all__ = ["result_text", "tool_result"]


def result_text(result: types.CallToolResult) -> str:
    """Text blocks joined by newlines; images, audio and resources described; structured content as JSON.

    Structured content is used only when no text block carries the result: servers are asked to
    send its JSON as text too, so the model need not read it twice.
    """
    return _text(result, [_block_text(block) for block in result.content])


def tool_result(result: types.CallToolResult) -> GadgetResult:
    """The result as a gadget returns it: the text, and each image, audio or binary resource as
    media (left out of the text, which the agent's description of the media would repeat). A
    block whose base64 does not decode stays described in the text."""
    parts: list[str] = []
    media: list[GadgetMedia] = []
    for block in result.content:
        item = _media(block)
        if item is None:
            parts.append(_block_text(block))
        else:
            media.append(item)
    return GadgetResult(_text(result, parts), media=media)


def _text(result: types.CallToolResult, parts: list[str]) -> str:
    structured = result.structured_content
    if structured is not None and not any(isinstance(b, types.TextContent) for b in result.content):
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(p for p in parts if p)


def _media(block: Any) -> GadgetMedia | None:
    """The block's bytes as media, or ``None`` (text, a link, or data that is not base64)."""
    mime: str | None
    if isinstance(block, types.ImageContent | types.AudioContent):
        data, mime, name = block.data, block.mime_type, ""
    elif isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents):
        resource = block.resource
        data, mime, name = resource.blob, resource.mime_type, str(resource.uri).rsplit("/", 1)[-1]
    else:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return GadgetMedia.from_bytes(raw, name=name, media_type=mime or None)


def _block_text(block: Any) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        return f"[{block.type}: {block.mime_type}, {_b64_size(block.data)} bytes]"
    if isinstance(block, types.ResourceLink):
        mime = f", {block.mime_type}" if block.mime_type else ""
        return f"[resource link: {block.uri} ({block.name}{mime})]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        mime = f", {resource.mime_type}" if resource.mime_type else ""
        if isinstance(resource, types.TextResourceContents):
            return f"[resource: {resource.uri}{mime}]\n{resource.text}"
        return f"[resource: {resource.uri}{mime}, {_b64_size(resource.blob)} bytes]"
    return f"[{getattr(block, 'type', type(block).__name__)} content]"


def _b64_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=")
