"""Calls written as a model writes them, in either syntax: the parsers' inverse.

One writer serves every place llmist writes a call (the examples in a gadget's prompt,
``llmist.testing``'s scripted answers, ``llmist agent -m mock:FILE.json``), so what it writes
parses back to what it was given.

The emoji syntax has no quoting for its end marker: a body that contains ``🛠️[/end]`` would end
the block there. So a body is written with every end marker escaped by a backslash after its
``[`` (``🛠️[\\/end]``); a marker that already has backslashes there gets one more, so any text
survives the round trip. Binding a call to a gadget undoes it (:func:`read_emoji_body`).

The block syntax has no quoting either, and its parser reads a marker written at a line start
with a wrong count of ``!`` (``!ARG:``) as that marker. So a block value line that starts with
the marker character (``!``), after any backslashes, is written with one more backslash before
it, and the parser takes one off every value line that starts with backslashes and then that
character (:func:`unescape_block_value`). A value that holds an exact marker (``!!!ARG:``
anywhere) cannot be written at all: the format has no way to say it, so the writer refuses it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

__all__ = [
    "EMOJI_END",
    "EMOJI_START",
    "block_escape_char",
    "escape_block_value",
    "escape_emoji_body",
    "quote_argument",
    "read_emoji_body",
    "unescape_block_value",
    "unescape_emoji_body",
    "write_block_call",
    "write_emoji_call",
]

EMOJI_START: Final = "\U0001f6e0\ufe0f["
"""The emoji syntax's tool marker, ``🛠️[``."""
EMOJI_END: Final = "\U0001f6e0\ufe0f[/end]"
"""The emoji syntax's end marker, ``🛠️[/end]``."""

# The end marker (with or without U+FE0F, as the parser accepts it) with any backslashes
# after its "[": escaping adds one backslash, unescaping removes one.
_MARKER_TO_ESCAPE: Final = re.compile("(\U0001f6e0\ufe0f?\\[)(\\\\*/end\\])")
_ESCAPED_MARKER: Final = re.compile("(\U0001f6e0\ufe0f?\\[)\\\\(\\\\*/end\\])")
_UNSAFE_IN_ARGUMENT: Final = re.compile(r"[\s\"'\\]")


def escape_emoji_body(text: str) -> str:
    """``text`` with every end marker escaped (``🛠️[/end]`` becomes ``🛠️[\\/end]``), so it can be a body."""
    return _MARKER_TO_ESCAPE.sub("\\1\\\\\\2", text) if "[" in text else text


def unescape_emoji_body(text: str) -> str:
    """The inverse of :func:`escape_emoji_body`: one backslash fewer after each end marker's ``[``."""
    return _ESCAPED_MARKER.sub("\\1\\2", text) if "\\/end]" in text else text


def read_emoji_body(body: str) -> str:
    """The text a parsed call's ``body`` carries: without the line end that precedes the end
    marker, end markers unescaped. (Gadget binding then drops one trailing ``\\r``, as it does
    from every value, so a CRLF line end goes too.)"""
    return unescape_emoji_body(body[:-1] if body.endswith("\n") else body)


def block_escape_char(arg_prefix: str) -> str | None:
    """The character whose value lines the block syntax escapes: the one the argument marker
    starts with, when it is punctuation (``!`` for ``!!!ARG:``); ``None`` otherwise."""
    first = arg_prefix[:1]
    return first if first and not first.isalnum() and not first.isspace() and first != "\\" else None


def escape_block_value(text: str, char: str) -> str:
    """``text`` with one more backslash at the start of every line that starts with ``char``
    after any backslashes (``!ARG:x`` becomes ``\\!ARG:x``)."""
    return _line_start(char, "escape").sub("\\\\", text) if char in text else text


def unescape_block_value(text: str, char: str) -> str:
    """The inverse of :func:`escape_block_value`: one backslash fewer at the start of every line
    that starts with backslashes and then ``char``."""
    return _line_start(char, "unescape").sub("", text) if "\\" in text else text


_LINE_STARTS: dict[tuple[str, str], re.Pattern[str]] = {}


def _line_start(char: str, how: str) -> re.Pattern[str]:
    """Where a backslash goes in (``escape``: a line start before backslashes and ``char``) or
    comes out (``unescape``: the first of the backslashes before ``char`` at a line start)."""
    pattern = _LINE_STARTS.get((char, how))
    if pattern is None:
        lookahead = f"(?=\\\\*{re.escape(char)})"
        body = "^" + lookahead if how == "escape" else "^\\\\" + lookahead
        pattern = _LINE_STARTS[(char, how)] = re.compile(body, re.MULTILINE)
    return pattern


def write_emoji_call(name: str, args: Sequence[str] = (), body: str | None = None) -> str:
    """An emoji-syntax call: ``name`` and ``args`` (shell-quoted where needed) in the header,
    ``body`` escaped below it. No newline after the end marker.

    Raises ``ValueError`` for an argument with ``]`` or a line break (``\\n`` or ``\\r``): the
    header ends at the first ``]`` and must stay on one line (binding reads a ``\\r`` before a
    line end as part of a CRLF), so such a value can only be the body.
    """
    header = [name]
    for arg in args:
        if "]" in arg or "\n" in arg or "\r" in arg:
            raise ValueError(
                f"{arg!r} cannot be an argument in the emoji syntax: the header ends at the first ']' and "
                "cannot hold a line break. Pass such a value as the body."
            )
        header.append(quote_argument(arg))
    return f"{EMOJI_START}{' '.join(header)}]\n{_body_text(body or '')}{EMOJI_END}"


def quote_argument(arg: str) -> str:
    """``arg`` as one emoji-header token for ``shlex.split``: bare when it can be, else double-quoted."""
    if arg and _UNSAFE_IN_ARGUMENT.search(arg) is None:
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _body_text(text: str) -> str:
    """``text`` as written between header and end marker, so that :func:`read_emoji_body` (and
    the ``\\r`` that binding drops) gives it back."""
    if not text:
        return ""
    # Binding reads "\r\n" before the end marker as a CRLF line end: a body whose own text
    # ends in "\r" gets one, so that it keeps its "\r".
    return escape_emoji_body(text) + ("\r\n" if text.endswith("\r") else "\n")


def write_block_call(
    name: str,
    params: Mapping[str, Any],
    *,
    invocation_id: str | None = None,
    deps: Sequence[str] = (),
    start_prefix: str = "!!!GADGET_START:",
    end_prefix: str = "!!!GADGET_END",
    arg_prefix: str = "!!!ARG:",
) -> str:
    """A block-format call: a header (``name``, ``name:id`` or ``name:id:dep1,dep2``; without an
    id, dependencies go under the id ``name.lower()``), then one argument per leaf of ``params``
    (nested dicts and lists become pointer paths such as ``items/0/name``). No newline after the
    end marker. Value lines that start with the marker character are escaped (see the module's
    docstring); a value that holds one of the three markers raises ``ValueError``."""
    header = name
    if invocation_id is not None or deps:
        header += f":{invocation_id or name.lower()}"
    if deps:
        header += ":" + ",".join(deps)
    lines = [start_prefix + header]
    char = block_escape_char(arg_prefix)
    for pointer, value in _flatten(params, ""):
        for marker in (start_prefix, end_prefix, arg_prefix):
            if marker in value:
                raise ValueError(
                    f"The value of {pointer!r} cannot be written in the block syntax: it holds the marker "
                    f"{marker!r}, which would end it there (the format has no way to quote a marker)"
                )
        lines.append(arg_prefix + pointer)
        lines.append(escape_block_value(value, char) if char is not None else value)
    lines.append(end_prefix)
    return "\n".join(lines)


def _flatten(value: Any, prefix: str) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` for each leaf; an empty dict or list below the top is a JSON leaf."""
    if isinstance(value, Mapping) and (value or not prefix):
        for key, child in value.items():
            yield from _flatten(child, f"{prefix}/{key}" if prefix else str(key))
    elif isinstance(value, (list, tuple)) and value and prefix:
        for index, child in enumerate(value):
            yield from _flatten(child, f"{prefix}/{index}")
    else:
        yield prefix, scalar_text(value)


def scalar_text(value: Any) -> str:
    """A value as a model writes it: strings as they are, ``true``/``false``, numbers, else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if hasattr(value, "model_dump"):
        return json.dumps(value.model_dump(mode="json"), ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str)
