"""``Sandbox``: confines file paths given by a model to one root directory."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from llmist.gadgets.errors import GadgetError

__all__ = ["Sandbox", "SandboxError"]


class SandboxError(GadgetError):
    """A path was refused because it would leave the sandbox root (or is malformed)."""


class Sandbox:
    """Resolves relative paths inside ``root`` and refuses any that would leave it.

    Refused: absolute paths, any ``..`` component, and paths that resolve outside the root
    once symlinks are followed (a symlink inside the root pointing out of it).
    """

    def __init__(self, root: str | os.PathLike[str] = ".") -> None:
        path = Path(root).expanduser()
        if not path.is_dir():
            raise SandboxError(f"Sandbox root {str(path)!r} is not a directory; create it or choose another root")
        self.root: Path = path.resolve()
        """The root directory, absolute with symlinks resolved."""

    def resolve(self, path: str) -> Path:
        """The absolute path for ``path`` (relative to the root), or :class:`SandboxError`."""
        if not path or not path.strip():
            raise SandboxError("The path is empty; give a path relative to the sandbox root, such as 'notes.txt'")
        if "\x00" in path:
            raise SandboxError(f"The path {path!r} contains a NUL character")
        if PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute() or path.startswith("~"):
            raise SandboxError(
                f"Absolute paths are not allowed: {path!r}. Give a path relative to the sandbox root "
                f"(the root is the working directory of this session)"
            )
        if ".." in PurePosixPath(path.replace("\\", "/")).parts:
            raise SandboxError(f"'..' is not allowed in paths: {path!r}. Stay inside the sandbox root")
        candidate = self.root / path
        resolved = candidate.resolve()
        if not resolved.is_relative_to(self.root):
            raise SandboxError(
                f"The path {path!r} leads outside the sandbox root through a symlink "
                f"(it resolves to {str(resolved)!r}); only files inside the root can be used"
            )
        return resolved

    def relative(self, path: Path) -> str:
        """``path`` as shown to the model: relative to the root, with '/' separators."""
        rel = path.relative_to(self.root).as_posix()
        return rel or "."

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"
