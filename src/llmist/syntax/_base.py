"""What both call parsers share: text-stretch bookkeeping, hold-back of partial markers, ids."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from mypy_extensions import mypyc_attr

from llmist.syntax.frozen import text_event

_auto_ids = itertools.count(1)
_AUTO_ID_PREFIX = "gadget_"
"""What every id :func:`next_auto_id` makes starts with, a number after it."""


def next_auto_id() -> str:
    """A process-unique invocation id, ``gadget_<n>``, for calls whose header names none, read
    outside an agent run (a run numbers its calls itself: :class:`CallIds`)."""
    return f"{_AUTO_ID_PREFIX}{next(_auto_ids)}"


class CallIds:
    """The auto ids of one conversation: ``gadget_1``, ``gadget_2``... in the order its calls
    are read, after the largest ``gadget_<n>`` of the ids it is made ``after`` (the calls of the
    history it continues), so that each id stays unique in the conversation.

    A model reads its calls' ids in their results ("Result of add (id gadget_2)"): numbered per
    conversation, the same conversation shows the model the same text whatever the process did
    before. Numbered per process, they did not, and Qwen2.5-Coder-0.5B answered a sum after
    "(id gadget_1)" and called ``add`` again with its result after "(id gadget_2)"."""

    __slots__ = ("_next",)

    def __init__(self, after: Iterable[str] = ()) -> None:
        numbers = (_auto_number(i) for i in after)
        self._next = 1 + max((n for n in numbers if n is not None), default=0)

    def __call__(self) -> str:
        """The next id."""
        n = self._next
        self._next = n + 1
        return f"{_AUTO_ID_PREFIX}{n}"

    def claim(self, invocation_id: str) -> None:
        """Note an id a call was written with (a block header's, a provider's): when it has the
        form ``gadget_<n>``, the ids given after it come after it too. A model copies ids it has
        read in results; given its ``gadget_3`` and then the next id, ``gadget_3`` again, two
        calls shared one id, and the second was read as waiting for the first."""
        n = _auto_number(invocation_id)
        if n is not None and n >= self._next:
            self._next = n + 1


_AUTO_DIGITS_MAX = 18
"""Longer numbers are not counted after (no conversation makes that many calls; ``int()`` of a
few thousand digits raises)."""


def _auto_number(invocation_id: str) -> int | None:
    if not is_auto_id(invocation_id) or len(invocation_id) - len(_AUTO_ID_PREFIX) > _AUTO_DIGITS_MAX:
        return None
    return int(invocation_id[len(_AUTO_ID_PREFIX) :])


def is_auto_id(invocation_id: str) -> bool:
    """Whether ``invocation_id`` has the form :func:`next_auto_id` gives (``gadget_<n>``): the
    model named no id (or wrote one of that form, which means no more)."""
    return invocation_id.startswith(_AUTO_ID_PREFIX) and invocation_id[len(_AUTO_ID_PREFIX) :].isdigit()


def holdback(s: str, start: int, markers: tuple[str, ...], firsts: str, longest: int) -> int:
    """Length of the longest suffix of ``s[start:]`` that is a proper prefix of a marker.

    That suffix could still become a marker once more text arrives, so a streaming parser
    must not treat it as text or value yet. ``firsts`` holds the markers' first characters.
    Costs one ``find`` per first character when no marker can begin in the last
    ``longest - 1`` characters (the common case), O(longest) otherwise.
    """
    n = len(s)
    low = max(start, n - longest + 1)
    best = 0
    for first in firsts:
        k = s.find(first, low)
        while k >= 0 and n - k > best:
            tail = s[k:]
            for marker in markers:
                if len(marker) > len(tail) and marker.startswith(tail):
                    best = n - k
                    break
            else:
                k = s.find(first, k + 1)
                continue
            break
    return best


# Compiled by mypyc in the wheel: let interpreted code subclass it, as it could before.
@mypyc_attr(allow_interpreted_subclasses=True)
class TextStretches:
    """The whitespace rule for text between calls.

    A stretch of text between two calls (or before the first, or after the last) is
    emitted in full if it holds any non-whitespace character, and not at all otherwise.
    Until the first non-whitespace character arrives, whitespace is held back; from then
    on the stretch is "live" and text is emitted as soon as it is known to be text.
    """

    __slots__ = ("_held", "_live")

    def __init__(self) -> None:
        self._live = False
        self._held: list[str] = []

    def _text(self, text: str, out: list[Any]) -> None:
        """Emit (or hold) ``text``, a piece of the current stretch."""
        if self._live:
            out.append(text_event(text))
        elif not text or text.isspace():
            self._held.append(text)
        else:
            self._live = True
            if self._held:
                text = "".join(self._held) + text
                self._held.clear()
            out.append(text_event(text))

    def _end_stretch(self) -> None:
        """A call starts: the current stretch is over (held whitespace is dropped)."""
        self._live = False
        self._held.clear()
