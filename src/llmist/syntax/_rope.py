"""A streaming argument value's text: immutable pieces, joined only when someone reads it.

While a block streams, the parser yields an ``ArgsPartialEvent`` on every feed that grows
a value (up to 16 KB). If each event carried the whole value as a fresh string, the parser
would copy up to 16 KB per feed, whether or not anybody looks: at small chunks that copying
was most of the parse. Instead each event's ``value`` holds a :class:`PendingValue`, the
first ``size`` characters of a :class:`RopeNode`, and becomes a ``str`` when it is read (see
``ArgsPartialEvent`` in ``events.py``). A consumer that only counts events or reads
``delta`` pays nothing for it.

A node never changes once made. Appending to a value makes a new node that points at the
previous one; merging small pieces makes a new node in place of several, which only the
parser's :class:`ValueRope` stops pointing at. So an event holds exactly what it will ever
show, and reading it from any thread, at any time, needs no lock and no retry.
"""

from __future__ import annotations

from typing import Final

_MERGE: Final = 64
"""Recent pieces are merged into one every this many appends: a value streamed a character at
a time stays a short chain (a million one-character nodes would make each read a long walk)."""
_SMALL_PIECE: Final = 64
"""Recent pieces are merged only while they average under this many characters: longer pieces
are few enough as they are, and merging them would copy the value once more for nothing."""


class RopeNode:
    """The text of a value up to some point: the text of ``before``, then ``piece``. Immutable."""

    __slots__ = ("before", "piece", "size")

    def __init__(self, before: RopeNode | None, piece: str) -> None:
        self.before = before
        self.piece = piece
        self.size: int = len(piece) + (before.size if before is not None else 0)
        """Characters of the whole text."""

    def text(self) -> str:
        """The whole text."""
        pieces: list[str] = []
        node: RopeNode | None = self
        while node is not None:
            pieces.append(node.piece)
            node = node.before
        if len(pieces) == 1:
            return pieces[0]
        pieces.reverse()
        return "".join(pieces)

    def suffix(self, size: int) -> str:
        """The last ``size`` characters (``size`` at most :attr:`size`), joining only the pieces
        that hold them (usually just the last)."""
        if size <= 0:
            return ""
        if size <= len(self.piece):
            return self.piece if size == len(self.piece) else self.piece[len(self.piece) - size :]
        pieces: list[str] = []
        got = 0
        node: RopeNode | None = self
        while node is not None and got < size:
            pieces.append(node.piece)
            got += len(node.piece)
            node = node.before
        pieces.reverse()
        tail = "".join(pieces)
        return tail if got == size else tail[got - size :]


_EMPTY: Final = RopeNode(None, "")
"""Where every value starts."""


class ValueRope:
    """The parser's handle on one value as it streams in: appends, and hands out nodes."""

    __slots__ = ("_base", "_recent", "_recent_size", "tip")

    def __init__(self) -> None:
        self.tip: RopeNode = _EMPTY
        """The node holding everything appended so far."""
        self._base: RopeNode = _EMPTY
        """The node the recent pieces were appended after."""
        self._recent: list[str] = []
        self._recent_size = 0

    def append(self, piece: str) -> None:
        """Add text at the end of the value."""
        recent = self._recent
        recent.append(piece)
        self._recent_size += len(piece)
        if len(recent) < _MERGE:
            self.tip = RopeNode(self.tip, piece)
            return
        # Every _MERGE appends the recent pieces become one node when they are small; the
        # nodes they replace stay valid for the events that hold them.
        if self._recent_size < _MERGE * _SMALL_PIECE:
            self.tip = RopeNode(self._base, "".join(recent))
        else:
            self.tip = RopeNode(self.tip, piece)
        self._base = self.tip
        recent.clear()
        self._recent_size = 0

    @property
    def size(self) -> int:
        """Characters appended so far."""
        return self.tip.size

    def take(self, size: int) -> str:
        """The first ``size`` characters: the parser's last read of a value."""
        text = self.tip.text()
        return text if len(text) == size else text[:size]

    def suffix(self, size: int) -> str:
        """The last ``size`` characters appended (``size`` at most what was appended)."""
        return self.tip.suffix(size)

    def value(self, size: int) -> PendingValue:
        """The first ``size`` characters as they are now, for an event to carry."""
        return PendingValue(self.tip, size)


class PendingValue:
    """An ``ArgsPartialEvent.value`` not read yet: the first ``size`` characters of a node."""

    __slots__ = ("_text", "node", "size")

    def __init__(self, node: RopeNode, size: int) -> None:
        self.node = node
        self.size = size
        self._text: str | None = None

    def text(self) -> str:
        """The value as a string (joined on the first call, then remembered)."""
        text = self._text
        if text is None:
            # Two threads may both join here; they get equal strings, so either may be kept.
            whole = self.node.text()
            text = self._text = whole if len(whole) == self.size else whole[: self.size]
        return text

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        # A pickled event carries the text, not the chain of nodes behind it.
        return (str, (self.text(),))
