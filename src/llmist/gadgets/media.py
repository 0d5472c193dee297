"""``GadgetMedia``: an image, a sound or a file a gadget returns beside its text result.

A gadget returns ``GadgetResult("Chart drawn.", media=[GadgetMedia.from_path("chart.png")])``.
The agent keeps the media on the call's result; in the next turn a model that sees images
gets the images themselves, and any other model (or any other kind of media) a line naming
each one by name, type and size.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

__all__ = ["GadgetMedia", "MediaKind", "describe_size", "sniff_media_type"]

MediaKind: TypeAlias = Literal["image", "audio", "video", "file"]
"""What a piece of media is, from its MIME type."""

_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
    (b"%PDF-", 0, "application/pdf"),
    (b"WAVE", 8, "audio/wav"),
    (b"ID3", 0, "audio/mpeg"),
    (b"OggS", 0, "audio/ogg"),
    (b"fLaC", 0, "audio/flac"),
)
"""Leading bytes (at an offset) of the common formats, and their MIME types."""


_KINDS: dict[str, MediaKind] = {"image": "image", "audio": "audio", "video": "video"}


def sniff_media_type(data: bytes, name: str | None = None) -> str | None:
    """The MIME type of ``data`` from its leading bytes, else from ``name``'s extension, else ``None``."""
    for magic, offset, media_type in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return media_type
    if name:
        guessed, _ = mimetypes.guess_type(name)
        return guessed
    return None


def describe_size(n_bytes: int) -> str:
    """``n_bytes`` for people: ``512 B``, ``12.3 KB``, ``4.0 MB``."""
    if n_bytes < 1024:
        return f"{n_bytes} B"
    if n_bytes < 1024 * 1024:
        return f"{n_bytes / 1024:.1f} KB"
    return f"{n_bytes / (1024 * 1024):.1f} MB"


@dataclass(frozen=True, slots=True)
class GadgetMedia:
    """One piece of media a gadget returns (see the module docstring)."""

    data: bytes
    """The encoded bytes (PNG, MP3, PDF...)."""
    media_type: str
    """MIME type, e.g. ``image/png``, ``audio/mpeg``, ``application/pdf``."""
    name: str = ""
    """A file name the model can refer to (``chart.png``); empty when there is none."""

    def __post_init__(self) -> None:
        if not isinstance(self.data, bytes):
            raise TypeError(f"GadgetMedia.data must be bytes, got {type(self.data).__name__}")
        if "/" not in self.media_type:
            raise ValueError(f"GadgetMedia.media_type must be a MIME type such as 'image/png', got {self.media_type!r}")

    @classmethod
    def from_bytes(cls, data: bytes, *, name: str = "", media_type: str | None = None) -> GadgetMedia:
        """Media from bytes; the type is read from the bytes (or ``name``) unless given."""
        found = media_type or sniff_media_type(data, name) or "application/octet-stream"
        return cls(data, found, name)

    @classmethod
    def from_path(cls, path: str | Path, *, media_type: str | None = None) -> GadgetMedia:
        """Media read from a file, named after it."""
        file = Path(path)
        return cls.from_bytes(file.read_bytes(), name=file.name, media_type=media_type)

    @property
    def kind(self) -> MediaKind:
        """``"image"``, ``"audio"``, ``"video"`` or ``"file"`` (anything else)."""
        return _KINDS.get(self.media_type.split("/", 1)[0], "file")

    @property
    def size(self) -> int:
        """Size in bytes."""
        return len(self.data)

    def describe(self) -> str:
        """One line naming the media for a model that cannot take it: kind, name, type and size."""
        name = f" {self.name}" if self.name else ""
        return f"[{self.kind}{name}: {self.media_type}, {describe_size(self.size)}]"
