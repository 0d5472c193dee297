"""Read a window of a text file's lines with bounded memory, and say what was left out.

A model asking for a file must never make the agent load a log of several gigabytes, nor one
minified line of a megabyte: the window stops at a line count, at a byte budget, and cuts long
lines. The rest of the file is only counted (in fixed-size blocks), so the notice can say
"lines 1-2000 of 5120" and how to ask for more.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import BinaryIO, TextIO

__all__ = ["LineWindow", "read_lines"]

_BLOCK = 1 << 16
"""Characters read at a time when skipping the rest of a long line or counting lines."""


@dataclass(frozen=True, slots=True)
class LineWindow:
    """The lines read and where they sit in the file."""

    text: str
    """The lines, each cut to the line limit (a cut line says so)."""
    first: int
    """1-based number of the first line shown."""
    last: int
    """Number of the last line shown (``first - 1`` when none is)."""
    total: int
    """Lines in the whole file."""
    byte_budget_hit: bool
    """The window stopped early because the next line would pass the byte budget."""


def read_lines(file: BinaryIO, offset: int, limit: int, max_bytes: int, max_line_chars: int) -> LineWindow:
    """Lines ``offset`` to ``offset + limit - 1`` of the UTF-8 ``file`` (open for reading,
    binary), at most ``max_bytes`` bytes of them (always at least one line), each cut to
    ``max_line_chars`` characters.

    Raises ``UnicodeDecodeError`` for a file that is not UTF-8 text.
    """
    with io.TextIOWrapper(file, encoding="utf-8", newline="") as f:
        number = 0
        while number < offset - 1 and _skip_line(f):
            number += 1
        shown: list[str] = []
        used = 0
        budget_hit = False
        while len(shown) < limit:
            line = _read_line(f, max_line_chars)
            if line is None:
                break
            size = len(line.encode("utf-8"))
            if shown and used + size > max_bytes:
                budget_hit = True
                number += 1  # this line was read, not shown: it still counts
                break
            shown.append(line)
            used += size
            number += 1
        last = offset - 1 + len(shown)
        total = number + _count_lines(f)
    return LineWindow("".join(shown), offset, last, total, budget_hit)


def _read_line(f: TextIO, max_chars: int) -> str | None:
    """The next line (with its newline), cut to ``max_chars``; ``None`` at the end of the file."""
    line = f.readline(max_chars)
    if not line:
        return None
    if line.endswith("\n") or len(line) < max_chars:
        return line
    rest = _skip_rest_of_line(f)
    return f"{line}… [line cut: {rest} more characters]\n"


def _skip_line(f: TextIO) -> bool:
    """Move past the next line; ``False`` at the end of the file."""
    line = f.readline(_BLOCK)
    if not line:
        return False
    if not line.endswith("\n"):
        _skip_rest_of_line(f)
    return True


def _skip_rest_of_line(f: TextIO) -> int:
    """Move past the rest of the current line; how many characters it held (newline excluded)."""
    skipped = 0
    while True:
        part = f.readline(_BLOCK)
        if not part:
            return skipped
        if part.endswith("\n"):
            return skipped + len(part) - 1
        skipped += len(part)


def _count_lines(f: TextIO) -> int:
    """Lines left from here to the end (a last line without a newline counts)."""
    count = 0
    ends_open = False
    while block := f.read(_BLOCK):
        count += block.count("\n")
        ends_open = not block.endswith("\n")
    return count + ends_open
