"""Images and media in the conversation: a prompt's images, and the media gadgets return.

A prompt is text, or a sequence of text and :class:`ImagePart` items. A gadget's media
(``GadgetResult.media``) joins its result message: images as images for a model that sees
them, and everything else (or everything, for a model that does not) as a line naming each
item by kind, name, type and size, so nothing is dropped without the model knowing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from llmist.gadgets import GadgetMedia
from llmist.providers.base import ContentPart, ImagePart, TextPart

__all__ = ["UserPrompt", "media_content", "user_content", "with_text"]

UserPrompt: TypeAlias = str | Sequence[str | ImagePart]
"""What a run starts from: text, or text and images (``["What is this?", ImagePart.from_path("a.png")]``)."""

_SHOWABLE = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types every vision provider accepts."""


_REASONS: dict[bool | None, str] = {
    True: "only PNG, JPEG, GIF and WebP images can be shown",
    False: "this model does not accept images",
    None: "this model is not known to accept images; register it with ModelSpec(..., vision=True) to show them",
}
"""Why media was described rather than shown, by what is known of the model's vision."""


def user_content(prompt: UserPrompt) -> str | tuple[ContentPart, ...]:
    """``prompt`` as a user message's content: the text, or its parts in order."""
    if isinstance(prompt, str):
        return prompt
    parts: list[ContentPart] = []
    for item in prompt:
        if isinstance(item, str):
            parts.append(TextPart(item))
        elif isinstance(item, ImagePart):
            parts.append(item)
        else:
            raise TypeError(
                f"A prompt holds text (str) and images (ImagePart.from_path/from_bytes/from_url), "
                f"got {type(item).__name__}"
            )
    return tuple(parts)


def with_text(content: str | tuple[ContentPart, ...], text: str) -> str | tuple[ContentPart, ...]:
    """``content`` with ``text`` added at the end, after a blank line."""
    if isinstance(content, str):
        return f"{content}\n\n{text}"
    return (*content, TextPart(f"\n\n{text}"))


def media_content(text: str, media: Sequence[GadgetMedia], vision: bool | None) -> str | tuple[ContentPart, ...]:
    """A gadget result's ``text`` with its ``media``: images shown when ``vision`` is ``True``,
    the rest described."""
    parts: list[ContentPart] = [TextPart(text)]
    hidden: list[str] = []
    for item in media:
        if vision is True and item.media_type in _SHOWABLE:
            parts.append(TextPart(f"\n{item.describe()}:"))
            parts.append(ImagePart(item.data, item.media_type, None, item.name))
        else:
            hidden.append(item.describe())
    if hidden:
        parts.append(TextPart(f"\nAlso returned, not shown ({_REASONS[vision]}): {', '.join(hidden)}"))
    if len(parts) == 1 or all(isinstance(p, TextPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    return tuple(parts)
