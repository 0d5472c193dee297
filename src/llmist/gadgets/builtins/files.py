"""File gadgets confined to a sandbox root: ``ReadFile``, ``WriteFile``, ``EditFile``, ``ListDirectory``."""

from __future__ import annotations

import os
import stat
from pathlib import PurePosixPath
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field

from llmist._text import clean
from llmist.gadgets.base import Gadget, GadgetExample
from llmist.gadgets.builtins._lines import LineWindow, read_lines
from llmist.gadgets.builtins._sandbox import Sandbox, SandboxError
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.errors import GadgetError

__all__ = ["EditFile", "ListDirectory", "ReadFile", "WriteFile"]

_PATH_HELP = "Path relative to the sandbox root, e.g. 'src/app.py'"


class _SandboxedGadget(Gadget):
    """A gadget that works on files under one root directory."""

    def __init__(self, root: str | os.PathLike[str] = ".") -> None:
        self.sandbox = Sandbox(root)
        """Where this gadget's paths are confined."""


class ReadFileParams(BaseModel):
    """Parameters of :class:`ReadFile`."""

    path: Annotated[str, Field(description=_PATH_HELP)]
    offset: Annotated[int, Field(ge=1, description="First line to read, counting from 1")] = 1
    limit: Annotated[int, Field(ge=1, description="How many lines to read at most")] = 2000


class ReadFile(_SandboxedGadget):
    """Read a window of a UTF-8 text file inside the sandbox root.

    At most ``limit`` lines (2,000 by default) from line ``offset``, at most :attr:`max_bytes`
    bytes of them, each line cut to :attr:`max_line_chars` characters. The file is read line by
    line, never whole, and a notice after the text says which lines were shown and how to read on.
    """

    description = (
        "Read a text file. Returns up to `limit` lines (default 2000) from line `offset` (default 1); "
        "a note at the end says when more lines follow."
    )
    Params = ReadFileParams
    examples = (
        GadgetExample({"path": "README.md"}, comment="read a file at the root"),
        GadgetExample({"path": "app.log", "offset": 2001, "limit": 500}, comment="read on where the last call stopped"),
    )
    max_bytes: ClassVar[int] = 256 * 1024
    """Bytes of text one call returns at most (at least one line is always shown)."""
    max_line_chars: ClassVar[int] = 2000
    """Characters of one line shown at most; a longer line is cut and says so."""

    def execute(self, params: ReadFileParams, ctx: ExecutionContext) -> str:
        """Return the requested lines, then a notice when the file has lines not shown."""
        try:
            with self.sandbox.open_file(params.path) as (file, _):
                window = read_lines(file, params.offset, params.limit, self.max_bytes, self.max_line_chars)
        except UnicodeDecodeError:
            raise GadgetError(f"{params.path!r} is not UTF-8 text; only text files can be read") from None
        if window.last < window.first and window.total > 0:
            raise GadgetError(f"{params.path!r} has {window.total} lines; offset {params.offset} is past its end")
        if window.first == 1 and window.last == window.total:
            return window.text
        return window.text + _window_notice(window)


def _window_notice(window: LineWindow) -> str:
    shown = f"[lines {window.first}-{window.last} of {window.total} shown"
    why = "; the byte limit was reached" if window.byte_budget_hit else ""
    more = f"; call again with offset={window.last + 1} to read on]" if window.last < window.total else "]"
    return ("" if window.text.endswith("\n") else "\n") + shown + why + more


class WriteFileParams(BaseModel):
    """Parameters of :class:`WriteFile`."""

    path: Annotated[str, Field(description=_PATH_HELP)]
    content: Annotated[str, Field(description="The complete new content of the file")]


class WriteFile(_SandboxedGadget):
    """Create or overwrite a text file inside the sandbox root (parent folders are created)."""

    description = "Create a text file, or replace the whole content of an existing one."
    Params = WriteFileParams
    examples = (
        GadgetExample(
            {"path": "hello.py", "content": 'print("hello")'}, output="Wrote 14 characters to hello.py (created)"
        ),
    )

    def requires_approval(self, parameters: dict[str, Any]) -> str:
        """Every call needs a person's approval: it writes a file."""
        return f"it writes {parameters.get('path')!r}"

    def execute(self, params: WriteFileParams, ctx: ExecutionContext) -> str:
        """Write the file and say what changed."""
        content, replaced = _encoded(params.content)
        rel, existed = self.sandbox.replace_file(params.path, content)
        what = "replaced" if existed else "created"
        return f"Wrote {len(params.content)} characters to {rel} ({what}){_replaced_note(replaced)}"


class EditFileParams(BaseModel):
    """Parameters of :class:`EditFile`."""

    path: Annotated[str, Field(description=_PATH_HELP)]
    search: Annotated[str, Field(description="Exact text to find; it must occur exactly once in the file")]
    replace: Annotated[str, Field(description="Text that takes its place")]


class EditFile(_SandboxedGadget):
    """Replace one exact occurrence of a text in a file."""

    description = (
        "Edit a file by replacing one exact occurrence of `search` with `replace`. "
        "Copy `search` from the file, including indentation; it must match exactly once."
    )
    Params = EditFileParams
    examples = (GadgetExample({"path": "hello.py", "search": '"hello"', "replace": '"hello, world"'}),)
    max_bytes: ClassVar[int] = 16 * 1024 * 1024
    """Largest file EditFile reads and rewrites (it holds the whole file in memory); a larger one
    is refused with an error. Set it on the class or an instance to change it."""

    def requires_approval(self, parameters: dict[str, Any]) -> str:
        """Every call needs a person's approval: it changes a file."""
        return f"it changes {parameters.get('path')!r}"

    def execute(self, params: EditFileParams, ctx: ExecutionContext) -> str:
        """Apply the replacement or explain why it cannot be applied."""
        if not params.search:
            raise GadgetError("`search` is empty; give the exact text to replace")
        with self.sandbox.open_file(params.path) as (file, rel):
            size = os.fstat(file.fileno()).st_size
            if size > self.max_bytes:
                raise GadgetError(
                    f"{rel} is {size:,} bytes, more than EditFile edits "
                    f"({self.max_bytes:,} bytes, EditFile.max_bytes); use RunCommand with a tool made for large files"
                )
            try:
                text = file.read(self.max_bytes + 1).decode("utf-8")
            except UnicodeDecodeError:
                raise GadgetError(f"{params.path!r} is not UTF-8 text; only text files can be read") from None
        count = text.count(params.search)
        if count == 0:
            raise GadgetError(
                f"The search text was not found in {rel}. Read the file and copy the exact text to replace, "
                f"including whitespace and indentation"
            )
        if count > 1:
            lines = _match_lines(text, params.search)
            raise GadgetError(
                f"The search text occurs {count} times in {rel} (at lines {', '.join(map(str, lines))}); "
                f"include more surrounding text so that it matches exactly once"
            )
        content, replaced = _encoded(text.replace(params.search, params.replace, 1))
        self.sandbox.replace_file(params.path, content)
        line = _match_lines(text, params.search)[0]
        return f"Edited {rel}: replaced {len(params.search)} characters at line {line}{_replaced_note(replaced)}"


def _encoded(text: str) -> tuple[bytes, int]:
    """``text`` as UTF-8, each lone surrogate (which UTF-8 cannot hold) written as U+FFFD; and
    how many there were."""
    cleaned = clean(text)
    replaced = 0 if cleaned is text else sum(1 for a, b in zip(text, cleaned, strict=True) if a != b)
    return cleaned.encode("utf-8"), replaced


def _replaced_note(replaced: int) -> str:
    if not replaced:
        return ""
    return f"; {replaced} lone surrogate{'s' if replaced > 1 else ''} written as U+FFFD (not valid in UTF-8)"


def _match_lines(text: str, search: str) -> list[int]:
    lines, start = [], 0
    while (i := text.find(search, start)) != -1:
        lines.append(text.count("\n", 0, i) + 1)
        start = i + 1
    return lines


class ListDirectoryParams(BaseModel):
    """Parameters of :class:`ListDirectory`."""

    path: Annotated[str, Field(description="Directory relative to the sandbox root; '.' is the root")] = "."
    recursive: Annotated[bool, Field(description="Also list the contents of sub-directories")] = False


class ListDirectory(_SandboxedGadget):
    """List a directory inside the sandbox root."""

    description = "List the files and folders of a directory (folders end with '/', files show their size)."
    Params = ListDirectoryParams
    max_entries: int = 500
    """Most entries listed; the rest are counted."""

    def execute(self, params: ListDirectoryParams, ctx: ExecutionContext) -> str:
        """One entry per line, sorted, paths relative to the listed directory."""
        with self.sandbox.open_directory(params.path) as (fd, shown):
            entries = sorted(_entries(fd, params.recursive), key=lambda e: PurePosixPath(e[0]).parts)
        lines: list[str] = []
        for rel, mode, size, link in entries[: self.max_entries]:
            if link is not None:
                try:
                    self.sandbox.resolve(rel if shown == "." else f"{shown}/{rel}")
                    lines.append(f"{rel} -> {link}")
                except SandboxError:
                    lines.append(f"{rel} -> (outside the sandbox, not usable)")
            elif stat.S_ISDIR(mode):
                lines.append(rel + "/")
            else:
                lines.append(f"{rel} ({size} bytes)")
        if len(entries) > self.max_entries:
            lines.append(f"... and {len(entries) - self.max_entries} more entries")
        return "\n".join(lines) if lines else "(empty directory)"


def _entries(fd: int, recursive: bool) -> list[tuple[str, int, int, str | None]]:
    """``(path, mode, size, link target or None)`` of what the directory ``fd`` holds (its whole
    tree when ``recursive``), read through descriptors: no symlink is followed."""
    found: list[tuple[str, int, int, str | None]] = []
    for top, dirs, files, top_fd in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
        for name in dirs + files:
            try:
                st = os.stat(name, dir_fd=top_fd, follow_symlinks=False)
                link = os.readlink(name, dir_fd=top_fd) if stat.S_ISLNK(st.st_mode) else None
            except OSError:  # gone meanwhile
                continue
            rel = name if top == "." else f"{top[2:]}/{name}"
            found.append((rel, st.st_mode, st.st_size, link))
        if not recursive:
            break
    return found
