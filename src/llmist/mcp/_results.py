"""An MCP ``CallToolResult`` as the text a model reads."""

from __future__ import annotations

import json
from typing import Any

from mcp import types

__all__ = ["result_text"]


def result_text(result: types.CallToolResult) -> str:
    """Text blocks joined by newlines; images, audio and resources described; structured content as JSON.

    Structured content is used only when no text block carries the result: servers are asked to
    send its JSON as text too, so the model need not read it twice.
    """
    parts = [_block_text(block) for block in result.content]
    structured = result.structured_content
    if structured is not None and not any(isinstance(b, types.TextContent) for b in result.content):
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


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
