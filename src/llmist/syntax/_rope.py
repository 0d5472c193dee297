"""A streaming argument value's text, kept as pieces and joined only when someone reads it.

While a block streams, the parser yields an ``ArgsPartialEvent`` on every feed that grows
a value (up to 16 KB). If each event carried the whole value as a fresh string, the parser
would copy up to 16 KB per feed, whether or not anybody looks: at small chunks that
copying was most of the parse. Instead each event's ``value`` starts as a ``PendingValue``
(the value's rope and a length) and becomes a ``str`` the first time it is read (see
``ArgsPartialEvent`` in ``events.py``). A reader gets exactly what an eager copy would
have given; a consumer that only counts events or reads ``delta`` pays nothing for it.

Only the parser appends to a rope; readers only join. Each read extends the last join by what
was appended since, so reading the partials of a value in order costs about what copying it
eagerly did.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Final

_MERGE: Final = 64
"""Recent pieces are merged into one string every this many appends: a value streamed a
character at a time stays a short list (a million one-character strings thrash the cache)."""
_SMALL_PIECE: Final = 64
"""Recent pieces are merged only while they average under this many characters: longer pieces
are few enough as they are, and merging them would copy the value once more for nothing."""


class ValueRope:
    """The text of one argument value as it streams in."""

    __slots__ = ("_joined", "_merged", "_recent", "_version", "pieces", "size")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        """The value's text, in order; the last ``_recent`` entries are not merged yet."""
        self.size = 0
        """Characters appended so far."""
        self._recent = 0
        self._merged = 0
        """``size`` at the last merge decision."""
        self._version = 0
        """Odd while ``append`` changes the pieces: a reader in another thread then joins afresh."""
        self._joined = ""
        """The longest text joined so far (a prefix of the value)."""

    def append(self, piece: str) -> None:
        """Add text at the end of the value."""
        self._version += 1
        pieces = self.pieces
        pieces.append(piece)
        self.size += len(piece)
        recent = self._recent + 1
        if recent == _MERGE:
            if self.size - self._merged < _MERGE * _SMALL_PIECE:
                pieces[-_MERGE:] = ["".join(pieces[-_MERGE:])]
            self._merged = self.size
            recent = 0
        self._recent = recent
        self._version += 1

    def text(self, size: int) -> str:
        """The first ``size`` characters of the value (``size`` at most what was appended).

        Reading the partials of a value in order extends the last join by what came since, so
        it costs one copy of the value per read, as building each value eagerly did.
        """
        joined = self._joined
        if len(joined) < size:
            version = self._version
            total = self.size
            if not version & 1:
                # An append in another thread may change the pieces under this walk; the
                # version check below catches that, and an IndexError is one way it shows.
                with contextlib.suppress(IndexError):
                    joined += self.suffix(total - len(joined))
            if version & 1 or version != self._version or len(joined) != total:
                joined = "".join(self.pieces)  # raced with an append in another thread: start over
            self._joined = joined
        return joined if len(joined) == size else joined[:size]

    def take(self, size: int) -> str:
        """The first ``size`` characters in one join (``text`` may join, then slice): the
        parser's last read of a value. What lies past ``size`` must be in the last piece (the
        held-back newline)."""
        joined = self._joined
        if len(joined) >= size:
            return joined if len(joined) == size else joined[:size]
        pieces = self.pieces
        extra = self.size - size
        if extra:
            last = pieces[-1]
            pieces = pieces[:-1]
            if extra < len(last):
                pieces.append(last[: len(last) - extra])
        return pieces[0] if len(pieces) == 1 else "".join(pieces)

    def suffix(self, size: int) -> str:
        """The last ``size`` characters appended (``size`` at most what was appended).

        Costs about ``size``: it joins only the trailing pieces that hold them.
        """
        if size <= 0:
            return ""
        pieces = self.pieces
        last = pieces[-1]
        if size <= len(last):
            return last if size == len(last) else last[len(last) - size :]
        i = len(pieces) - 1
        got = len(last)
        while got < size:
            i -= 1
            got += len(pieces[i])
        tail = "".join(pieces[i:])
        return tail if got == size else tail[got - size :]


class PendingValue:
    """An ``ArgsPartialEvent.value`` not read yet: the first ``size`` characters of a rope."""

    __slots__ = ("rope", "size")

    def __init__(self, rope: ValueRope, size: int) -> None:
        self.rope = rope
        self.size = size

    def text(self) -> str:
        """The value as a string."""
        return self.rope.text(self.size)


def lazy_value_property(slot: Any) -> property:
    """A property over ``slot`` (a slotted dataclass field's member descriptor) that turns a
    ``PendingValue`` stored there into its text on first read, and stores the text back."""
    get_slot: Callable[[object], Any] = slot.__get__
    set_slot: Callable[[object, object], None] = slot.__set__

    def read(event: object) -> Any:
        value = get_slot(event)
        if isinstance(value, PendingValue):
            value = value.text()
            set_slot(event, value)
        return value

    def write(event: object, value: object) -> None:
        set_slot(event, value)

    return property(read, write)
