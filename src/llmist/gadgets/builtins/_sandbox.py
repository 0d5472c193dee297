"""``Sandbox``: confines file paths given by a model to one root directory, race-free.

A path is checked as text first (no absolute path, no ``..``), then opened one component at a
time, each relative to the directory opened before it, never following a symlink by name
(``openat`` with ``O_NOFOLLOW``). A symlink met on the way is read and resolved by the same
walk, so one that stays inside the root works and one that leads out is refused. Nothing is
ever opened by a path string the kernel resolves on its own, so swapping a directory for a
symlink while a gadget runs cannot carry it outside the root (``tests/gadgets/
test_builtin_sandbox_race.py`` swaps one as fast as a process can). POSIX only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections import deque
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO

from llmist.gadgets.errors import GadgetError

__all__ = ["Sandbox", "SandboxError"]

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_LINKS = 40
"""Symlinks one path may go through (the kernel's own limit)."""


class SandboxError(GadgetError):
    """A path was refused because it would leave the sandbox root (or is malformed)."""


class Sandbox:
    """Resolves relative paths inside ``root`` and refuses any that would leave it.

    Refused: absolute paths, any ``..`` component, and paths that lead outside the root through
    a symlink (a link inside the root pointing out of it), at whatever moment the link appears.
    """

    def __init__(self, root: str | os.PathLike[str] = ".") -> None:
        path = Path(root).expanduser()
        if not path.is_dir():
            raise SandboxError(f"Sandbox root {str(path)!r} is not a directory; create it or choose another root")
        self.root: Path = path.resolve()
        """The root directory, absolute with symlinks resolved."""

    def resolve(self, path: str) -> Path:
        """The absolute path for ``path`` (relative to the root), or :class:`SandboxError`.

        For showing and listing only: the file gadgets open paths through :meth:`open_file`,
        :meth:`replace_file` and :meth:`open_directory`, which cannot be raced out of the root."""
        candidate = self.root.joinpath(*self._parts(path))
        resolved = candidate.resolve()
        if not resolved.is_relative_to(self.root):
            raise self._escape(path, str(resolved))
        return resolved

    def relative(self, path: Path) -> str:
        """``path`` as shown to the model: relative to the root, with '/' separators."""
        rel = path.relative_to(self.root).as_posix()
        return rel or "."

    # --- opening, race-free -------------------------------------------------------------

    @contextlib.contextmanager
    def open_file(self, path: str) -> Iterator[tuple[BinaryIO, str]]:
        """The existing file at ``path`` open for reading (binary), and its path as shown to the
        model. Raises :class:`GadgetError` for a missing file or a directory."""
        with self._located(path, create=False) as (dir_fd, name, shown):
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
            except FileNotFoundError:
                raise _missing(path) from None
            except OSError as exc:
                raise self._unopenable(path, exc) from None
            file = os.fdopen(fd, "rb")
            with file:
                mode = os.fstat(fd).st_mode
                if stat.S_ISDIR(mode):
                    raise GadgetError(f"{path!r} is a directory, not a file; use ListDirectory to see what it holds")
                if not stat.S_ISREG(mode):  # a FIFO or a device could block or never end
                    raise GadgetError(f"{path!r} is not a regular file (a pipe, a device or a socket)")
                os.set_blocking(fd, True)
                yield file, shown

    def replace_file(self, path: str, content: bytes) -> tuple[str, bool]:
        """Put ``content`` in the file at ``path`` whole or not at all (parent folders made):
        written to a temporary file in the same folder, flushed to disk, then renamed over the
        target, which keeps its permissions. The path as shown, and whether the file existed.
        A failure (a full disk) leaves the old file as it was and no temporary file behind."""
        with self._located(path, create=True) as (dir_fd, name, shown):
            try:
                mode: int | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                mode = None
            if mode is not None and stat.S_ISDIR(mode):
                raise GadgetError(f"{path!r} is a directory; give the path of a file")
            temporary = f".{name}.{secrets.token_hex(4)}.llmist-tmp"
            try:
                fd = os.open(
                    temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd
                )
                try:
                    with os.fdopen(fd, "wb", closefd=False) as f:
                        f.write(content)
                        f.flush()
                        os.fsync(fd)
                    if mode is not None:
                        os.fchmod(fd, stat.S_IMODE(mode))
                finally:
                    os.close(fd)
                os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=dir_fd)
                raise GadgetError(f"Could not write {shown}: {exc.strerror or exc}; the file is unchanged") from exc
            return shown, mode is not None

    @contextlib.contextmanager
    def open_directory(self, path: str) -> Iterator[tuple[int, str]]:
        """A file descriptor of the directory at ``path`` (closed on exit), and its path as shown."""
        with self._located(path, create=False) as (dir_fd, name, shown):
            try:
                fd = os.open(name, _DIR, dir_fd=dir_fd) if name != "." else os.dup(dir_fd)
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                    raise GadgetError(f"{path!r} is not a directory (relative to the sandbox root)") from None
                raise self._unopenable(path, exc) from None
            try:
                yield fd, shown
            finally:
                os.close(fd)

    # --- the walk -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _located(self, path: str, *, create: bool) -> Iterator[tuple[int, str, str]]:
        """The directory that holds ``path``'s last component, opened component by component from
        the root (``create``: missing folders are made), the component's name (``"."`` for the
        root itself), and the path as shown. Symlinks on the way, the last component included,
        are followed by the walk itself, and refused when they lead out of the root."""
        opened = [os.open(self.root, _DIR)]
        names: list[str] = []
        try:
            todo = deque(self._parts(path))
            links = 0
            while todo:
                name = todo.popleft()
                if name in ("", "."):
                    continue
                if name == "..":  # only from a link's target: the user's own ".." is refused up front
                    if not names:
                        raise self._escape(path, os.path.normpath(os.path.join(self.root, *names, "..", *todo)))
                    os.close(opened.pop())
                    names.pop()
                    continue
                target = _link(opened[-1], name)
                if target is None:
                    if not todo:
                        yield opened[-1], name, "/".join([*names, name])
                        return
                    opened.append(self._open_dir(opened[-1], name, path, create))
                    names.append(name)
                    continue
                links += 1
                if links > _MAX_LINKS:
                    raise SandboxError(f"The path {path!r} goes through more than {_MAX_LINKS} symlinks")
                if os.path.isabs(target):
                    real = Path(os.path.realpath(target))
                    if not real.is_relative_to(self.root):
                        raise self._escape(path, str(real))
                    for fd in opened[1:]:
                        os.close(fd)
                    del opened[1:], names[:]
                    todo.extendleft(reversed(real.relative_to(self.root).parts))
                else:
                    todo.extendleft(reversed(target.split("/")))
            yield opened[-1], ".", "/".join(names) or "."
        finally:
            for fd in opened:
                os.close(fd)

    def _open_dir(self, dir_fd: int, name: str, path: str, create: bool) -> int:
        try:
            return os.open(name, _DIR, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create:
                raise _missing(path) from None
        except NotADirectoryError:
            raise GadgetError(f"{path!r}: {name!r} is a file, not a folder") from None
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=dir_fd)
        return self._open_dir(dir_fd, name, path, False)

    def _parts(self, path: str) -> tuple[str, ...]:
        """The components of ``path``, or :class:`SandboxError` when the text itself is refused."""
        if not path or not path.strip():
            raise SandboxError("The path is empty; give a path relative to the sandbox root, such as 'notes.txt'")
        if "\x00" in path:
            raise SandboxError(f"The path {path!r} contains a NUL character")
        if PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute() or path.startswith("~"):
            raise SandboxError(
                f"Absolute paths are not allowed: {path!r}. Give a path relative to the sandbox root "
                f"(the root is the working directory of this session)"
            )
        parts = PurePosixPath(path.replace("\\", "/")).parts
        if ".." in parts:
            raise SandboxError(f"'..' is not allowed in paths: {path!r}. Stay inside the sandbox root")
        return parts

    def _escape(self, path: str, resolved: str) -> SandboxError:
        return SandboxError(
            f"The path {path!r} leads outside the sandbox root through a symlink "
            f"(it resolves to {resolved!r}); only files inside the root can be used"
        )

    def _unopenable(self, path: str, exc: OSError) -> GadgetError:
        if exc.errno == errno.ELOOP:  # a link appeared after the walk looked: it is not followed
            return GadgetError(f"{path!r} changed while it was opened (it became a symlink); try again")
        return GadgetError(f"Cannot open {path!r}: {exc.strerror or exc}")

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"


def _link(dir_fd: int, name: str) -> str | None:
    """The target of the symlink ``name`` in ``dir_fd``, or ``None`` when it is not a symlink."""
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return None


def _missing(path: str) -> GadgetError:
    return GadgetError(f"No such file: {path!r} (relative to the sandbox root); use ListDirectory to see what exists")
