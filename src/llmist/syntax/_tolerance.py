"""What the block parser tolerates beyond the format, where the model's intent is unambiguous.

- **Marker spelling**: a marker written at the start of a line with a wrong count of its
  leading run (``!!ARG:``, ``!!!!GADGET_END``, ``!GADGET_START:`` for the default ``!!!``
  markers): from one character to twice the run's length. Only at a line start, where a marker
  is expected and prose rarely puts ``!GADGET_END``; elsewhere such text stays text.
- **Fused argument**: ``!!!ARG:count 5``, ``!!!ARG:count=5`` or ``!!!ARG:count: 5`` with no
  value line after it: a top-level parameter name (a Python identifier), then a space, ``=`` or
  ``:``, then a one-line value, is read as ``!!!ARG:count`` with the value ``5``. After ``=`` or
  ``:`` a value in matching quotes loses them (``!!!ARG:city="Paris"`` is ``Paris``): they are
  that ``name=value`` form's, as in the emoji syntax's header. After a space the parser leaves
  the value as written (``!!!ARG:query "exact phrase"``); the agent loop, which knows the
  parameter's type, may still read a one-line value without its quotes (``quoted_value``).
- **A colon misspelt**: ``.`` or ``;`` for the colon that ends the start or argument marker's
  word (``!!!ARG.from_unit``, ``!!!ARG;width``: Qwen2.5-Coder-1.5B), with any run before it.
- **A marker over two lines**: the run alone on a line, then the marker's word at the start of
  the next (``!!!`` then ``GADGET_START:find``, ``ARG:city`` or ``GADGET_END``), is read as the
  marker, as a misspelt one is (Qwen2.5-Coder wrote all three so). A run line whose next line
  starts with anything else stays text.
- **An end marker written short**: in a block that ends without its end marker, a last line that
  is only the markers' shared run (``!!!``, blank lines after it aside) is not the last value's
  text: the model ended the block with it.

Each tolerance the parser applies is named in ``ParsedCall.repairs`` (the names are
:data:`MARKER_SPELLING`, :data:`FUSED_ARGUMENT`, and for the format's own leniencies
:data:`CODE_FENCE` and :data:`MISSING_END`), so the agent loop can count it, report it, or refuse
it in strict mode.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = [
    "CODE_FENCE",
    "FUSED_ARGUMENT",
    "MARKER_SPELLING",
    "MISSING_END",
    "MarkerSpelling",
    "unfuse_arguments",
    "unquoted",
]

MARKER_SPELLING: Final = "marker_spelling"
"""A marker written with a wrong count of its leading ``!`` (at a line start)."""
FUSED_ARGUMENT: Final = "fused_argument"
"""An argument's value written on its pointer line (``!!!ARG:a 5``)."""
CODE_FENCE: Final = "code_fence"
"""A markdown code fence around the arguments, dropped."""
MISSING_END: Final = "missing_end"
"""No end marker: the block ended at the next start marker or at the end of the response (a last
line ``!!!``, the end marker written short, is dropped from the body there)."""


def _run_and_word(marker: str) -> tuple[str, int, str] | None:
    """A marker's leading run (its character and length) and the word after it, or ``None``
    when the marker does not start with a run of punctuation followed by a word."""
    c = marker[0]
    if c.isalnum() or c.isspace():
        return None
    n = len(marker) - len(marker.lstrip(c))
    word = marker[n:]
    return (c, n, word) if word and not word[0].isspace() else None


class MarkerSpelling:
    """Finds markers written at a line start with a wrong count of their leading run, or over two
    lines (the run alone on one line, the marker's word at the start of the next), or with a
    ``.`` or ``;`` for the colon that ends a marker's word (``!!!ARG.from_unit``).

    Made from the parser's three markers (start, end, arg); :meth:`create` gives ``None`` when
    they do not share one leading run (custom markers such as ``<<call>>`` then get no spelling
    tolerance, only their exact spelling).
    """

    __slots__ = ("char", "line_run", "longest", "most", "run", "stems", "words")

    def __init__(self, char: str, run: int, words: tuple[str, ...]) -> None:
        self.char = char
        self.line_run = "\n" + char
        self.run = run
        self.words = words
        self.stems = tuple((word.removesuffix(":"), word.endswith(":")) for word in words)
        """Each word without the colon that may end it, and whether one does (it may be written
        ``.`` or ``;``)."""
        self.most = 2 * run
        """The longest run read as a misspelling."""
        self.longest = self.most + 1 + max(map(len, words))
        """The longest text a marker may take: a run, a line break (written over two lines), a word.
        (Spaces after a run alone on its line may make it longer: the chunk that holds them holds
        the line break too, and the run line is found back from there.)"""

    @classmethod
    def create(cls, markers: tuple[str, str, str]) -> MarkerSpelling | None:
        """The spelling tolerance of ``(start, end, arg)`` markers, or ``None`` if they have none."""
        parts = [_run_and_word(m) for m in markers]
        if any(p is None for p in parts):
            return None
        runs = {(p[0], p[1]) for p in parts if p is not None}
        if len(runs) != 1:
            return None
        ((char, run),) = runs
        return cls(char, run, tuple(p[2] for p in parts if p is not None))

    def possible(self, s: str, bol: bool) -> bool:
        """Whether ``s`` may hold (the beginning of) a line-start marker: the run's character
        at a line start. Most chunks have none, and skip the search."""
        return self.line_run in s or (bol and s.startswith(self.char))

    def _run_before(self, s: str, w: int, bol: bool) -> int:
        """Where the run that ends just before ``s[w]`` begins, if it starts a line and its length
        is read as a marker's (one character to twice the run); -1 if not. ``bol``: ``s[0]``
        starts a line."""
        r = w
        c = self.char
        while r > 0 and s[r - 1] == c and w - r <= self.most:
            r -= 1
        k = w - r
        if k == 0 or k > self.most:
            return -1
        return r if (s[r - 1] == "\n" if r > 0 else bol) else -1

    def _run_line(self, s: str, nl: int, bol: bool) -> int:
        """Where the line that ends with the newline ``s[nl]`` begins if it is a run alone
        (trailing spaces aside), as :meth:`_run_before` reads runs; -1 if not."""
        j = nl
        while j > 0 and s[j - 1] in " \t\r":
            j -= 1
        return self._run_before(s, j, bol)

    def _misspelt_at(self, s: str, w: int, bol: bool, misspelt_word: bool) -> int:
        """Where the misspelt marker whose word starts at ``s[w]`` begins (-1: not one). ``bol``:
        ``s[0]`` starts a line; ``misspelt_word``: the word is (``ARG.``), so the exact run is one."""
        if w > 0 and s[w - 1] == "\n":  # the word starts a line: the run alone on the line before?
            return self._run_line(s, w - 1, bol)
        r = self._run_before(s, w, bol)
        return -1 if r < 0 or (w - r == self.run and not misspelt_word) else r

    def find(self, s: str, i: int, bol: bool) -> tuple[int, int, int]:
        """The first misspelt marker in ``s[i:]``: ``(where it begins, its length, which marker:
        0 start, 1 end, 2 arg)``, or ``(-1, 0, -1)``. ``bol``: ``s[0]`` starts a line."""
        best = (-1, 0, -1)
        reach = self.most + 1  # how far before its word a marker may begin
        for which, (stem, colon) in enumerate(self.stems):
            w = s.find(stem, i + 1)
            while w >= 0 and (best[0] < 0 or w <= best[0] + reach):
                end = w + len(stem)
                if colon and (end == len(s) or s[end] not in ":.;"):  # not this word
                    w = s.find(stem, w + 1)
                    continue
                misspelt_word = colon and s[end] != ":"
                r = self._misspelt_at(s, w, bol, misspelt_word)
                if r >= i and (best[0] < 0 or r < best[0]):
                    best = (r, end + (1 if colon else 0) - r, which)  # the colon or its stand-in
                    break
                w = s.find(stem, w + 1)
        return best

    def tail(self, s: str, i: int, bol: bool) -> int:
        """Where a line-start marker still being written begins at the end of ``s[i:]`` (the
        parser holds it back until the next chunk says what it is), else ``len(s)``."""
        n = len(s)
        nl = s.rfind("\n", max(i, n - self.longest - 1))
        if nl >= 0:
            r = nl + 1
        elif n - i <= self.longest and (bol if i == 0 else s[i - 1] == "\n"):
            r = i
        else:
            return n
        c = self.char
        k = r
        while k < n and s[k] == c:
            k += 1
        if k - r > self.most:
            return n
        if k == r:  # no run: the line may still be a word after a run alone on the line before
            run = self._run_line(s, nl, bol) if nl > i else -1
            if run < i:
                return n
            r = run
        rest = s[k:]
        if not rest.strip(" \t\r") and k > r:  # a run alone so far: its word may follow on the next line
            return r
        return r if any(len(rest) < len(w) and w.startswith(rest) for w in self.words) else n


# A top-level parameter name, then a space, "=" or ":" (spaces around it allowed), then a value.
_FUSED: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]*([=:])[ \t]*|[ \t]+)(\S.*)", re.DOTALL)


def unfuse_arguments(raw: str, parameters: dict[str, Any], arg_prefix: str) -> str | None:
    """``raw`` with each fused argument (``!!!ARG:a 5`` with no value line) split into its name
    line and value line, or ``None`` when there is none.

    ``parameters`` are what the body parsed to: a fused argument shows there as a key that is
    not a name, with an empty value.
    """
    fused = [k for k, v in parameters.items() if v == "" and not k.isidentifier() and _FUSED.fullmatch(k)]
    if not fused:
        return None
    for key in fused:
        m = _FUSED.fullmatch(key)
        assert m is not None
        value = unquoted(m[3]) if m[2] else m[3]
        line = re.compile(re.escape(arg_prefix) + r"[ \t]*" + re.escape(key) + r"[ \t]*(?=\r?\n|\Z)")
        split = f"{arg_prefix}{m[1]}\n{value}".replace("\\", "\\\\")  # a template: only "\\" is special
        raw = line.sub(split, raw, count=1)
    return raw


def unquoted(value: str) -> str:
    """``Mr. John Doe`` for ``"Mr. John Doe"``: the quotes of a value written ``name="value"``
    (or with ``'``) are that form's, not the value's, as in the emoji syntax's header. Any other
    value as written. The parser keeps a block value's own quotes (it has no schema: a list's
    item, or a value of several lines, can hold them); the agent loop's ``quoted_value`` repair
    reads a one-line scalar value through this too."""
    quote = value[:1]
    if len(value) >= 2 and quote in "\"'" and value.endswith(quote) and quote not in value[1:-1]:
        return value[1:-1]
    return value
