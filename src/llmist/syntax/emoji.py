"""Streaming parser of the emoji syntax: ``🛠️[name args]`` + body + ``🛠️[/end]``.

The header is the text between the tool marker and the first ``]``; if a newline comes
first (or no ``]`` ever comes) the marker is plain text. The tool name is the header's
first whitespace-separated token, ``raw_args`` the rest. One newline right after the
header (``\\n`` or ``\\r\\n``) is not part of the body; everything else up to the end
marker is. There is no nesting: a tool marker inside a body is body text. A missing end
marker makes the rest of the stream the body (the call's ``repairs`` say ``missing_end``); an
end marker outside a block is text.
Both markers are also recognised without the U+FE0F variation selector.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from mypy_extensions import mypyc_attr

from llmist.syntax._base import TextStretches, holdback, next_auto_id
from llmist.syntax._tolerance import MISSING_END
from llmist.syntax.events import GadgetCallEvent, ParsedCall, SyntaxEvent
from llmist.syntax.frozen import text_event

__all__ = ["EmojiCallParser"]

_TOOL: Final = "\U0001f6e0"  # 🛠 (the marker is this, optionally U+FE0F, then "[")
_VS16: Final = "\ufe0f"
_END_TAIL: Final = "[/end]"
_END_MARKERS: Final = (_TOOL + _VS16 + _END_TAIL, _TOOL + _END_TAIL)
_TEXT: Final = 0
_HEADER: Final = 1
_BODY: Final = 2
_NO_EVENTS: Final[tuple[SyntaxEvent, ...]] = ()
_MISSING_END: Final = (MISSING_END,)


# Compiled by mypyc in the wheel: let interpreted code subclass it, as it could before.
@mypyc_attr(allow_interpreted_subclasses=True)
class EmojiCallParser(TextStretches):
    """Incremental parser of emoji-syntax tool calls, with the same protocol as the block parser.

    ``feed(chunk)`` returns the events the chunk completes (``TextEvent`` as prose streams,
    ``GadgetCallEvent`` when a block ends); ``finalize()`` flushes the end of the stream.
    Calls carry ``syntax="emoji"``, ``raw_args`` and ``body``; binding them to a gadget's
    parameters is the gadgets layer's job.
    """

    __slots__ = ("_body", "_call_header", "_carry", "_header", "_marker", "_mode", "_skip_newline", "ids")

    def __init__(self, *, ids: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.ids: Callable[[], str] = next_auto_id if ids is None else ids
        """Where each call gets its id (``None``: :func:`next_auto_id`, unique in the process; an
        agent run gives its parser its own :class:`~llmist.syntax.CallIds`)."""
        self.reset()

    def reset(self) -> None:
        """Forget everything fed so far."""
        self._live = False
        self._held = []
        self._mode = _TEXT
        self._carry = ""
        self._marker = ""
        self._header: list[str] = []
        self._body: list[str] = []
        self._skip_newline = False
        self._call_header = ""

    def feed(self, chunk: str) -> Sequence[SyntaxEvent]:
        """Parse the next chunk of the stream; return the events it completes."""
        if not chunk:
            return _NO_EVENTS
        if not self._carry and _TOOL not in chunk:
            mode = self._mode
            if mode == _TEXT and self._live:
                return (text_event(chunk),)
            if mode == _BODY and not self._skip_newline:
                self._body.append(chunk)
                return _NO_EVENTS
        if self._carry:
            chunk = self._carry + chunk
            self._carry = ""
        out: list[SyntaxEvent] = []
        self._scan(chunk, out)
        return out

    def finalize(self) -> Sequence[SyntaxEvent]:
        """Flush the end of the stream (a block without its end marker is still a call)."""
        out: list[SyntaxEvent] = []
        carry, self._carry = self._carry, ""
        if self._mode == _TEXT:
            if carry:
                self._text(carry, out)
        elif self._mode == _HEADER:
            header = "".join(self._header) + carry
            if _names_a_tool(header):
                # The stream ended inside the header itself (``🛠️[find city=Paris`` and no
                # "]"): a call with no body, as a block the stream cut off is one. As text it
                # would be the run's answer, and the model would never hear of it.
                self._end_stretch()
                self._call_header = header
                out.append(self._call(_MISSING_END))
            else:  # the marker alone, or prose after it: plain text
                self._text(self._marker + header, out)
        else:
            if "[" not in carry:  # else the end marker, cut off by the stream's end: not the body's text
                self._body.append(carry)
            out.append(self._call(_MISSING_END))
        self._mode = _TEXT
        self._header.clear()
        self._body.clear()
        self._skip_newline = False
        self._end_stretch()
        return out

    def _scan(self, s: str, out: list[SyntaxEvent]) -> None:
        """Run the state machine over ``s``: each step reads in the current state and returns the
        string and position the next step starts from, or ``None`` once ``s`` is used up."""
        step: tuple[str, int] | None = (s, 0)
        while step is not None:
            s, i = step
            mode = self._mode
            if i >= len(s) and mode != _HEADER:
                return
            if mode == _TEXT:
                step = self._scan_text(s, i, out)
            elif mode == _HEADER:
                step = self._scan_header(s, i, out)
            else:
                step = self._scan_body(s, i, out)

    def _scan_text(self, s: str, i: int, out: list[SyntaxEvent]) -> tuple[str, int] | None:
        """Prose up to the next tool marker (``🛠️[``); a marker cut at the end waits for more."""
        j, k = _find_tool(s, i)
        if j < 0:
            self._text(s[i:], out)
            return None
        if j > i:
            self._text(s[i:j], out)
        if k >= len(s):  # "🛠" or "🛠\ufe0f" at the very end: wait for the next character
            self._carry = s[j:]
            return None
        self._marker = s[j : k + 1]
        self._mode = _HEADER
        return s, k + 1

    def _scan_header(self, s: str, i: int, out: list[SyntaxEvent]) -> tuple[str, int] | None:
        """The header up to ``]``, which may arrive over several feeds."""
        close = s.find("]", i)
        if s.find("\n", i, len(s) if close < 0 else close) >= 0:
            # A newline before "]": the marker was text. Rescan what followed it.
            rest = "".join(self._header) + s[i:]
            self._header.clear()
            self._mode = _TEXT
            self._text(self._marker, out)
            return rest, 0
        if close < 0:
            self._header.append(s[i:])
            return None
        self._header.append(s[i:close])
        header = "".join(self._header)
        self._header.clear()
        if header.strip() in ("", "/end"):
            # An end marker outside a block, or an empty header: plain text.
            self._mode = _TEXT
            self._text(self._marker + header + "]", out)
        else:
            self._end_stretch()
            self._call_header = header
            self._mode = _BODY
            self._skip_newline = True
        return s, close + 1

    def _scan_body(self, s: str, i: int, out: list[SyntaxEvent]) -> tuple[str, int] | None:
        """The body up to the end marker; what could still begin one is held back."""
        if self._skip_newline:
            i = self._after_header_newline(s, i)
            if i < 0:
                return None
        end_at, end_len = _find_end(s, i)
        if end_at >= 0:
            self._body.append(s[i:end_at])
            out.append(self._call())
            self._mode = _TEXT
            return s, end_at + end_len
        e = len(s) - holdback(s, i, _END_MARKERS, _TOOL, len(_END_MARKERS[0]))
        self._body.append(s[i:e])
        self._carry = s[e:]
        return None

    def _after_header_newline(self, s: str, i: int) -> int:
        """Skip the one newline (``\\n`` or ``\\r\\n``) after the header; -1 when a lone ``\\r``
        ends ``s`` and the next feed decides."""
        if s.startswith("\n", i):
            i += 1
        elif s.startswith("\r\n", i):
            i += 2
        elif i + 1 == len(s) and s[i] == "\r":
            self._carry = "\r"
            return -1
        self._skip_newline = False
        return i

    def _call(self, repairs: tuple[str, ...] = ()) -> GadgetCallEvent:
        """The call of the block just ended (``repairs``: what the parser tolerated in it)."""
        header = self._call_header.strip()
        parts = header.split(None, 1)
        name = parts[0]
        raw_args = parts[1].strip() if len(parts) > 1 else ""
        body = "".join(self._body)
        self._body.clear()
        call = ParsedCall(name, self.ids(), body, None, None, (), "emoji", raw_args, body, repairs)
        return GadgetCallEvent(call)


def _names_a_tool(header: str) -> bool:
    """Whether a header the stream cut off before its ``]`` starts with a tool's name: a name
    right after the ``[`` (``🛠️[find city=Pa``), not a space (``🛠️[ tool`` is prose about the
    syntax), nor the end marker's ``/end``."""
    return bool(header[:1].strip()) and header[0] not in "/\\"


def _find_tool(s: str, i: int) -> tuple[int, int]:
    """Position of the first tool marker at or after ``i`` and of its ``[`` (``(-1, len(s))`` if
    none); a marker cut at the end of ``s`` gives ``len(s)`` as the ``[``'s position."""
    n = len(s)
    j = s.find(_TOOL, i)
    while j >= 0:
        k = j + 2 if s.startswith(_VS16, j + 1) else j + 1
        if k >= n or s[k] == "[":
            return j, k
        j = s.find(_TOOL, j + 1)
    return -1, n


def _find_end(s: str, i: int) -> tuple[int, int]:
    """Position and length of the first end marker at or after ``i`` (-1 if none)."""
    k = s.find(_END_TAIL, i)
    while k >= 0:
        if k - 2 >= i and s[k - 1] == _VS16 and s[k - 2] == _TOOL:
            return k - 2, len(_END_MARKERS[0])
        if k - 1 >= i and s[k - 1] == _TOOL:
            return k - 1, len(_END_MARKERS[1])
        k = s.find(_END_TAIL, k + 1)
    return -1, 0
