"""File gadgets confined to a sandbox root: ``ReadFile``, ``WriteFile``, ``EditFile``, ``ListDirectory``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field

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


def _existing_file(sandbox: Sandbox, path: str) -> Path:
    target = sandbox.resolve(path)
    if target.is_dir():
        raise GadgetError(f"{path!r} is a directory, not a file; use ListDirectory to see what it holds")
    if not target.exists():
        raise GadgetError(
            f"No such file: {path!r} (relative to the sandbox root); use ListDirectory to see what exists"
        )
    return target


def _read_text(sandbox: Sandbox, path: str) -> tuple[str, str]:
    target = _existing_file(sandbox, path)
    try:
        return target.read_text(encoding="utf-8"), sandbox.relative(target)
    except UnicodeDecodeError:
        raise GadgetError(f"{path!r} is not UTF-8 text; only text files can be read") from None


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
        target = _existing_file(self.sandbox, params.path)
        try:
            window = read_lines(target, params.offset, params.limit, self.max_bytes, self.max_line_chars)
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
        target = self.sandbox.resolve(params.path)
        if target.is_dir():
            raise GadgetError(f"{params.path!r} is a directory; give the path of a file")
        existed = target.exists()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(params.content, encoding="utf-8")
        what = "replaced" if existed else "created"
        return f"Wrote {len(params.content)} characters to {self.sandbox.relative(target)} ({what})"


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

    def requires_approval(self, parameters: dict[str, Any]) -> str:
        """Every call needs a person's approval: it changes a file."""
        return f"it changes {parameters.get('path')!r}"

    def execute(self, params: EditFileParams, ctx: ExecutionContext) -> str:
        """Apply the replacement or explain why it cannot be applied."""
        if not params.search:
            raise GadgetError("`search` is empty; give the exact text to replace")
        text, rel = _read_text(self.sandbox, params.path)
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
        self.sandbox.resolve(params.path).write_text(text.replace(params.search, params.replace, 1), encoding="utf-8")
        line = _match_lines(text, params.search)[0]
        return f"Edited {rel}: replaced {len(params.search)} characters at line {line}"


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
        target = self.sandbox.resolve(params.path)
        if not target.is_dir():
            raise GadgetError(f"{params.path!r} is not a directory (relative to the sandbox root)")
        entries = sorted(target.rglob("*") if params.recursive else target.iterdir())
        lines: list[str] = []
        for entry in entries[: self.max_entries]:
            rel = entry.relative_to(target).as_posix()
            if entry.is_symlink():
                try:
                    self.sandbox.resolve(self.sandbox.relative(entry.parent) + "/" + entry.name)
                    lines.append(f"{rel} -> {os.readlink(entry)}")
                except SandboxError:
                    lines.append(f"{rel} -> (outside the sandbox, not usable)")
            elif entry.is_dir():
                lines.append(rel + "/")
            else:
                lines.append(f"{rel} ({entry.stat().st_size} bytes)")
        if len(entries) > self.max_entries:
            lines.append(f"... and {len(entries) - self.max_entries} more entries")
        return "\n".join(lines) if lines else "(empty directory)"
