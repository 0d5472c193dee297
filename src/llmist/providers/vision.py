"""Which models see images, and the clear refusal when a prompt shows images to one that does not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llmist.providers.base import ImagePart, Message, Provider
from llmist.providers.errors import ImagesNotSupportedError

__all__ = ["check_images_accepted", "images_in", "sees_images"]


def sees_images(provider: Provider, model_name: str, registry: Any) -> bool | None:
    """Whether ``model_name`` on ``provider`` accepts images; ``None`` when nothing says.

    A provider's own ``vision`` attribute (``MockModel(vision=False)``) comes first, then the
    model registry (``ModelRegistry.sees_images``).
    """
    own = getattr(provider, "vision", None)
    if isinstance(own, bool):
        return own
    if registry is None or not hasattr(registry, "sees_images"):
        return None
    answer = registry.sees_images(model_name, getattr(provider, "name", None))
    return answer if isinstance(answer, bool) else None


def images_in(messages: Sequence[Message]) -> list[ImagePart]:
    """Every image in ``messages``, in order."""
    return [
        part
        for message in messages
        if not isinstance(message.content, str)
        for part in message.content
        if isinstance(part, ImagePart)
    ]


def check_images_accepted(messages: Sequence[Message], model: str, sees: bool | None, *, provider: str = "") -> None:
    """Raise :class:`ImagesNotSupportedError` when ``messages`` carry images and ``sees`` (what
    :func:`sees_images` says of ``model``) is ``False``. A model nothing is known about gets
    them: its server is the judge."""
    images = images_in(messages)
    if images and sees is False:
        ref = model if provider in ("", model) else f"{provider}:{model}"
        raise ImagesNotSupportedError(ref, [i.describe() for i in images], provider=provider)
