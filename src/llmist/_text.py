"""Text that leaves the process: one rule for lone surrogates, one for control characters.

A model (or a gadget, or a file read with ``surrogateescape``) can produce any Python string,
including a lone surrogate such as ``"\\ud800"``, which no UTF-8 encoder accepts, and control
characters, which a terminal obeys. Two functions make such text safe where it leaves:

- :func:`clean`: every lone surrogate (U+D800 to U+DFFF) becomes U+FFFD, the replacement
  character. Applied wherever text is written out: the terminal, ``--json`` lines, session
  stores, batch results files, files the built-in gadgets write, MCP messages and model requests.
  Text that encodes as it is comes back unchanged (the same object).
- :func:`visible`: for a person reading a terminal, :func:`clean` and then every control
  character except newline and tab shown as an escape (``\\x1b``, ``\\r``, ``\\x7f``, ``\\u202e``),
  so text a model chose cannot move the cursor, erase a line, or reorder what is read.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["clean", "clean_value", "visible"]

_SURROGATE = re.compile("[\ud800-\udfff]")

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""C0 and C1 controls but newline and tab, DEL, and the bidirectional marks and overrides
(text that reads in one order and runs in another); surrogates, replaced on the way."""

_NAMED = {"\r": "\\r", "\x1b": "\\x1b"}


def clean(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (``text`` itself when it has none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def clean_value(value: Any) -> Any:
    """:func:`clean` applied to every string inside ``value`` (dicts, lists, tuples; keys too)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(v) for v in value]
    return value


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\ud800" <= char <= "\udfff":
        return "\ufffd"
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` as a terminal may show it: lone surrogates replaced, and every control character
    but newline and tab written as an escape (``"\\x1b[2K"`` shows as ``\\x1b[2K``)."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escape, text)
