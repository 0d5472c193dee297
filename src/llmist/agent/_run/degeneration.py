"""Tells when a response degenerates: the model goes on repeating itself instead of stopping.

Small models at temperature 0 fall into loops: Qwen2.5-Coder wrote the same JSON call, or the
same lines, until its context ended (8,000 tokens, four minutes on two cores, for a one-call sum:
issue 39). :class:`DegenerationWatch` reads a response as it streams and says when it has become
such a loop; the response then ends there (``Response``), as it does for the ``copied_prompt``
repair, and the loop counts a ``degenerate_response`` repair.

Three signs, each cheap enough to read on every chunk (a few comparisons per line, one dict look-up
per call, nothing per character beyond finding the line breaks):

- **the same call a third time** in one response (:data:`SAME_CALL_LIMIT`): gadget and
  parameters as written. A model that means two
  calls of one gadget writes different parameters; twenty parallel calls of one gadget with
  twenty cities never trip it.
- **the same lines over and over**: a block of up to :data:`MAX_PERIOD` lines repeated in a row
  until the repeats cover :data:`REPEATED_LINES` lines and :data:`MIN_REPEATS` copies; in prose,
  a block of up to :data:`MAX_PROSE_PERIOD` lines and two copies (:data:`PROSE_REPEATS`). Blank lines,
  short lines (under :data:`MIN_LINE` characters: ``}``, ``7``, ``end``) and the syntax's marker
  lines are skipped: they neither make nor break a repeat. A loop often alternates a call and a
  blank line; a file body closes many braces, and a list of calls repeats its short values and
  its markers, which no loop needs to be seen. A line's leading list number (``12.``, ``3)``) is
  not compared: a numbered list that goes on with the same items (Qwen2.5-Coder-0.5B numbered
  the same four tenant's rights to 72 before its cap) is a loop of lines too.
- **one short line in a row**: the :data:`SHORT_RUN`-th copy of one short line with nothing but
  blank lines between (``0.01`` under a call's argument, 406 times to the cap).
- **the same arguments a third time in one block call** (:data:`SAME_CALL_LIMIT`): a block call's
  argument lines that name again a parameter the call already set begin another call (the
  ``repeated_parameters`` reading), so the same such group, lines and values as written, is the
  same call. Qwen2.5-Coder-1.5B wrote ``!!!ARG:name`` ``laps`` ``!!!ARG:n`` ``5`` over and over
  inside one call to its cap (2,127 tokens, 136 s): its lines are markers and short values, which
  the signs above skip.

Two more signs read prose alone, outside any call (text syntaxes: after a call's end marker, or
before the first call), since a call's value may hold any text on purpose (a file of the same line,
a test's megabyte of ``x``):

- **one line again and again, with others between**: a line (of :data:`MIN_LINE` characters or
  more) that is the :data:`SCATTERED_COPIES`-th copy among the last :data:`MAX_PERIOD` lines.
  Qwen2.5-Coder-0.5B wrote "The integral of the sixteenth part ..." over the same formula, the
  seventeenth over it again, to its cap (2,048 tokens, 74 s): the changing ordinal broke every
  run of equal lines;
- **a line that repeats one stretch**: a line whose last :data:`UNIT_WINDOW` characters are one
  stretch of up to :data:`MAX_UNIT` characters over and over (``= \frac{120480 \times ...}{32768}``
  forty times on one line, to the cap), looked at each time the line grows by
  :data:`UNIT_WINDOW` characters.

Where calls come as JSON text in the prose (``syntax="native"`` on a server such as
llama-cpp-python's, which returns Qwen's calls so), a line holding such a call counts as a call,
and a result the model writes on the line after it (``<tool_response>``, ``Result: 7``) ends the
response as in the text syntaxes (the ``invented_result`` repair).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from llmist.agent.repairs import json_calls, opens_like_result
from llmist.syntax import ParsedCall

__all__ = [
    "MAX_PERIOD",
    "MAX_PROSE_PERIOD",
    "MAX_UNIT",
    "MIN_REPEATS",
    "PROSE_REPEATS",
    "REPEATED_LINES",
    "SAME_CALL_LIMIT",
    "SCATTERED_COPIES",
    "SHORT_RUN",
    "UNIT_WINDOW",
    "DegenerationWatch",
]

# Final: the compiled build inlines them (a plain module global is a dict look-up there).
SAME_CALL_LIMIT: Final = 3
"""Copies of one call (same gadget, same parameters) that end a response: the third. Two may be
meant (a die rolled twice); the run's ``repeated_call`` repair answers a repeat with the first
result anyway, so a third is a loop."""

REPEATED_LINES: Final = 16
"""Lines a repeated block must cover (its copies after the first, with it) before the response
ends: 16 identical lines in a row. A file body or a list of calls written on purpose hardly ever
repeats one line so often; a loop reaches it in a few hundred tokens, against the thousands it
would write until the context ends."""

MIN_REPEATS: Final = 4
"""Copies a block of several lines needs as well: a block of 8 lines ends the response at its
fourth copy (32 lines), not its second."""

MAX_PERIOD: Final = 16
"""Longest block, in non-blank lines, whose repeats are looked for (a block-syntax call with two
arguments is 6 lines; the ``SAME_CALL_LIMIT`` finds longer calls). Qwen2.5-Coder-0.5B, asked for
a lasagna recipe, repeated nine ingredients to its cap (2,048 tokens, 66 s) when this was 8: a
longer loop ends no sooner than its fourth copy anyway, and the cap bounds the rest. Prose has
longer blocks (:data:`MAX_PROSE_PERIOD`)."""

MAX_PROSE_PERIOD: Final = 64
"""Longest block of prose lines (outside any call, see below) whose repeats are looked for.
Qwen2.5-Coder-0.5B explained its three calls in 16 lines, listed them in 4 more, and wrote those 20
lines over and over to its cap (2,048 tokens, 59 s, BFCL's ``parallel_168``); a block of more than
:data:`MAX_PERIOD` lines was never looked for."""

PROSE_REPEATS: Final = 2
"""Copies a block of prose lines needs (its repeats still covering :data:`REPEATED_LINES` lines):
a model's answer that writes the same 20 lines twice in a row, line for line, has begun a loop,
where a call's value (a file of repeated sections) may mean it (:data:`MIN_REPEATS`). Over every
recorded BFCL response, prose repeated so is a loop that ran to the cap in each case."""

MIN_LINE: Final = 8
"""Characters a line needs, stripped, to be read for repeats: a shorter one (``}``, ``7``) is
skipped like a blank line. A loop worth ending writes longer lines, and a response of many calls
(twenty values ``1``) is then read at the cost of a length check a line; short lines have one
sign of their own (:data:`SHORT_RUN`)."""

SHORT_RUN: Final = 64
"""Copies of one short line (under :data:`MIN_LINE` characters) in a row, blank lines aside and
nothing else between, that end a response. Qwen2.5-Coder-0.5B wrote ``0.01`` 406 times in a call's
body, to its cap (2,048 tokens, 78 s), on a BFCL case; no other recorded response writes one short
line more than twice in a row. A file may close forty braces at one depth, so the bar is higher
than :data:`REPEATED_LINES`."""

SCATTERED_COPIES: Final = 8
"""Copies of one prose line among the last :data:`MAX_PERIOD` lines that end a response (half of
them): prose that says a line again so often, with others between, is a loop."""

UNIT_WINDOW: Final = 384
"""The stretch of a long prose line read for one repeated unit (:data:`MAX_UNIT`), and how much the
line grows between two looks."""

MAX_UNIT: Final = 64
"""Longest unit whose repeats fill a line's :data:`UNIT_WINDOW` (six copies at least)."""

_FIRST_LOOK: Final = UNIT_WINDOW + UNIT_WINDOW // 3
"""The length at which a prose line is first read for a repeated unit (:data:`UNIT_WINDOW`)."""

_DIGITS: Final = "0123456789"
"""What a list item's number is written in (:func:`_unnumbered`)."""

_WRAPPERS: Final = frozenset({"```", "</tool_call>", "</tools>"})
"""Lines that close a call written as JSON text (a fence, a chat template's tag)."""

MAX_LINE: Final = 1000
"""A line longer than this is not compared (it breaks any repeat): the response's cap bounds a
loop of such lines, and the watch keeps no more than this of a line."""


class DegenerationWatch:
    """Reads one response for a loop (see the module docstring): :meth:`text` with each chunk
    of its text, :meth:`call` with each call. Once either returns ``True``, :attr:`found` says
    what repeated and :attr:`cut_at` where the response's text should end."""

    __slots__ = (
        "_after_call",
        "_calls",
        "_ends",
        "_groups",
        "_line",
        "_line_at",
        "_line_size",
        "_marker",
        "_markers",
        "_names",
        "_next_look",
        "_prose_lines",
        "_recent",
        "_run_at",
        "_run_line",
        "_running",
        "_runs",
        "_short",
        "_short_at",
        "_short_run",
        "_size",
        "cut_at",
        "first_line",
        "found",
        "invented",
    )

    def __init__(
        self, markers: tuple[str, ...] = (), names: Sequence[str] = (), ends: tuple[str, ...] = (), arg: str = ""
    ) -> None:
        self._markers = markers
        """Line starts of the syntax's markers: such lines are skipped like blank ones. Calls are
        compared whole (:meth:`call`); their marker lines would repeat in any list of calls."""
        self._ends = ends
        """Line starts of the syntax's end markers: after one, the text is prose until the next
        marker line (without them, as natively, the prose-only signs are off)."""
        self._marker = ""
        """The last marker line read: the text after it is a call's, unless it is an end marker."""
        self._next_look = _FIRST_LOOK
        """The length of the line being written at which it is next read for a repeated unit."""
        self._prose_lines = 0
        """Lines read since the last marker line (prose when :meth:`_in_prose`)."""
        self._names = names
        """The gadgets' names, when calls come as JSON text (the native syntax): a line that
        holds such a call is compared as a call, and a result written after it ends the
        response (:attr:`invented`)."""
        self._after_call = False
        """The last non-blank line held a call written as JSON text."""
        self.invented = False
        """The response ended at a result the model wrote after a call written as JSON text."""
        self.found: str | None = None
        """What repeated, for the repair's detail (``None``: nothing yet)."""
        self.cut_at = -1
        """Where in the response's text the repeats begin (after the first copy); -1 for a
        repeated call (the response ends before the chunk that completed it)."""
        self.first_line = ""
        """The repeated block's first line, stripped (a loop of lines)."""
        self._line: list[str] = []
        """The line being written (up to :data:`MAX_LINE` characters)."""
        self._line_size = 0
        self._line_at = 0
        """Where that line starts in the response's text."""
        self._size = 0
        """The response's text read so far."""
        self._recent: list[str] = []
        """The last :data:`MAX_PROSE_PERIOD` lines read for repeats, stripped (oldest first)."""
        # Made when a line first repeats one of the last ones (most responses never do: a
        # response costs as little as it can, issue 39).
        self._runs: list[int] = []
        """For each period ``p``: how many lines in a row equal the line ``p`` lines before them."""
        self._run_at: list[int] = []
        """For each period: where in the text its run of equal lines starts (its second copy)."""
        self._run_line: list[str] = []
        """For each period: the line its run starts with."""
        self._running = False
        """Whether any period has a run going (the line equalled one of the last ones)."""
        self._calls: dict[tuple[str, str, str | None, str | None], int] = {}
        """Each call's signature and how often the response wrote it."""
        self._short = ""
        """The last short line, as written (:data:`SHORT_RUN`)."""
        self._short_run = 0
        """How many times in a row it was written (0 once another line came)."""
        self._short_at = 0
        """Where its second copy starts in the text."""
        self._groups = _ArgumentGroups(arg) if arg else None
        """The block call's argument groups (``arg``: the block syntax's argument marker)."""

    def call(self, call: ParsedCall) -> bool:
        """A call of the response: whether it is the :data:`SAME_CALL_LIMIT`-th copy of one."""
        # As written, not as :func:`~llmist.agent.repairs.call_signature` compares calls (each line
        # stripped): a loop writes the very same text, and this costs no copy of it.
        signature = (call.gadget_name, call.parameters_raw, call.raw_args, call.body)
        seen = self._calls.get(signature, 0) + 1
        self._calls[signature] = seen
        if seen < SAME_CALL_LIMIT:
            return False
        self.found = f"the same {call.gadget_name} call written {seen} times"
        return True

    def calls_read_again(self) -> None:
        """The calls written as JSON text are read again, whole, at the response's end: count
        them afresh (their lines were counted as they streamed)."""
        self._calls.clear()

    def text(self, text: str) -> bool:
        """The next chunk of the response's text: whether it completes a loop of lines."""
        at = self._size
        self._size += len(text)
        if "\n" not in text:  # most chunks: a few tokens within a line
            if self._line_size <= MAX_LINE:
                self._line.append(text)
                self._line_size += len(text)
                if self._line_size >= self._next_look and self._in_prose():
                    return self._repeated_unit()
            return False
        pieces = text.split("\n")
        for k, piece in enumerate(pieces[:-1]):
            if k == 0:
                whole = self._line_size + len(piece) <= MAX_LINE
                line = "".join(self._line) + piece if whole else None
                start = self._line_at
            else:
                line = piece if len(piece) <= MAX_LINE else None
                start = at
            at += len(piece) + 1
            if self._whole_line(line, start):
                return True
        last = pieces[-1]
        self._line = [last]
        self._line_size = len(last)
        self._line_at = at
        self._next_look = _FIRST_LOOK
        if len(last) >= self._next_look and self._in_prose():  # a long line's start came too
            return self._repeated_unit()
        return False

    def _whole_line(self, line: str | None, start: int) -> bool:
        """A whole line of the text as written (``None``: too long to compare), starting at
        ``start``: whether it completes a loop."""
        groups = self._groups
        if groups is not None and groups.lines and line is not None and not line.startswith(self._markers):
            groups.lines.append(line)  # a value line of the block call's current argument group
        if line is not None:
            if len(line) < MIN_LINE and not self._names:  # natively read, a result may be short
                return self._short_line(line, start)  # it neither makes nor breaks a repeat of longer lines
            line = line.strip()
            if not line:
                return False  # skipped: they neither make nor break a repeat
        self._short_run = 0  # a longer line (a marker too) ends a run of short ones
        if line is not None and line.startswith(self._markers):
            self._marker = line
            self._prose_lines = 0
            return groups is not None and self._argument_line(groups, line, start)
        return self._read_line(line, start)

    def _argument_line(self, groups: _ArgumentGroups, line: str, start: int) -> bool:
        """A marker line of the block syntax, stripped, starting at ``start``: whether it begins
        the :data:`SAME_CALL_LIMIT`-th copy of one argument group in the call (the response then
        ends at the second copy's start)."""
        copies, second = groups.marker(line, start)
        if copies < SAME_CALL_LIMIT:
            return False
        self.found = f"the same arguments written {copies} times in one call"
        self.cut_at, self.first_line = second, line
        return True

    def _short_line(self, line: str, start: int) -> bool:
        """A short line as written, starting at ``start``: whether it is the :data:`SHORT_RUN`-th
        copy in a row of one (the response then ends after the first)."""
        if not line.strip():
            return False  # a blank line neither makes nor breaks a run (nor is one)
        if line == self._short:
            self._short_run += 1
            if self._short_run == 2:
                self._short_at = start
            elif self._short_run >= SHORT_RUN:
                self.found = f"{self._short_run} lines repeating the line {line.strip()!r}"
                self.cut_at, self.first_line = self._short_at, line.strip()
                return True
        else:
            self._short, self._short_run = line, 1
        return False

    def _in_prose(self) -> bool:
        """Whether the text being read is prose: before any marker line, or after an end marker
        (never without the syntax's end markers, as natively). Asked only where a prose sign may
        fire, so a list of calls costs one store a marker line."""
        return bool(self._ends) and (not self._marker or self._marker.startswith(self._ends))

    def _repeated_unit(self) -> bool:
        """The prose line being written has grown to its next look: whether its last
        :data:`UNIT_WINDOW` characters repeat one unit of up to :data:`MAX_UNIT`."""
        self._next_look = self._line_size + UNIT_WINDOW
        line = "".join(self._line)
        self._line = [line]
        tail = line[-UNIT_WINDOW:]
        for p in range(1, MAX_UNIT + 1):
            if tail[p:] == tail[:-p]:  # each character equals the one a unit before it
                self.found = f"a line repeating {tail[-p:][:80]!r}"
                self.cut_at = self._line_at + len(line) - UNIT_WINDOW + p  # after the window's first unit
                self.first_line = ""
                return True
        return False

    def _read_line(self, line: str | None, start: int) -> bool:
        """A whole non-blank line, stripped (``None``: too long to compare), that starts at
        ``start`` in the text."""
        if line is None:
            key = f"\0{start}"  # a long line equals no other
        else:
            if self._names and self._text_call(line, start):
                return True
            if len(line) < MIN_LINE:
                return False  # short lines neither make nor break a repeat (MIN_LINE)
            key = _unnumbered(line) if line[0] in _DIGITS else line
        recent = self._recent
        found = False
        if line is None or key not in recent:  # most lines: no repeat can go on or start
            if self._running:
                self._running = False
                runs = self._runs
                for p in range(1, MAX_PROSE_PERIOD + 1):
                    runs[p] = 0
        else:
            if not self._runs:
                self._runs = [0] * (MAX_PROSE_PERIOD + 1)
                self._run_at = [0] * (MAX_PROSE_PERIOD + 1)
                self._run_line = [""] * (MAX_PROSE_PERIOD + 1)
            self._running = True
            found = self._repeats(key, line, start) or self._scattered(key, line, start)
        recent.append(key)
        if len(recent) > MAX_PROSE_PERIOD:
            del recent[0]
        self._prose_lines += 1
        return found

    def _repeats(self, line: str, written: str, start: int) -> bool:
        """``line`` (one of the last ones, compared without its list number; ``written``: as it
        was written) goes on or starts a run for each period it repeats: whether one of them now
        makes a loop."""
        recent, runs = self._recent, self._runs
        n = len(recent)
        prose = self._prose_lines + 1 if self._in_prose() else 0  # lines since the last marker, this one too
        for p in range(1, MAX_PROSE_PERIOD + 1):
            if p > n or recent[n - p] != line:
                runs[p] = 0
                continue
            if runs[p] == 0:
                self._run_at[p] = start
                self._run_line[p] = written
            runs[p] += 1
            lines = runs[p] + p
            # A run all of prose is a loop at its second copy; else at its fourth, of a short block.
            copies = PROSE_REPEATS if lines <= prose else MIN_REPEATS if p <= MAX_PERIOD else 0
            if copies and lines >= REPEATED_LINES and lines >= copies * p:
                first = self._run_line[p]
                what = "the line" if p == 1 else f"a block of {p} lines from"
                self.found = f"{lines} lines repeating {what} {first[:80]!r}"
                self.cut_at = self._run_at[p]
                self.first_line = first
                return True
        return False

    def _scattered(self, key: str, line: str, start: int) -> bool:
        """Whether the prose line ``line`` (``key``: as compared) is the :data:`SCATTERED_COPIES`-th
        copy among the last lines, with no run of equal lines going: the response then ends
        before it (the copies before it stay: the lines between them differ, so no first copy of
        a block can be told)."""
        if not self._in_prose() or max(self._runs) > 1:
            return False  # a run of equal lines is a loop the other sign ends, after its first copy
        prose = self._recent[len(self._recent) - min(self._prose_lines, MAX_PERIOD) :]
        if prose.count(key) < SCATTERED_COPIES - 1:  # the copies before this one, in prose
            return False
        self.found = f"{SCATTERED_COPIES} copies of the line {line[:80]!r} among {MAX_PERIOD} lines"
        self.cut_at, self.first_line = start, ""
        return True

    def _text_call(self, line: str, start: int) -> bool:
        """A line of a response whose calls come as JSON text: whether it ends the response (the
        third copy of a call; a result the model wrote after its call)."""
        if self._after_call and line not in _WRAPPERS:
            self._after_call = False
            if opens_like_result(line):
                self.invented = True
                self.cut_at, self.first_line = start, line
                return True
        if '"name"' not in line and '"function"' not in line:
            return False
        for call in json_calls(line, self._names):
            self._after_call = True
            if self.call(call):
                self.cut_at, self.first_line = start, line
                return True
        return False


class _ArgumentGroups:
    """The argument groups of the block call being read: its argument lines up to one that names
    a parameter again, which begins the next group (another call, as ``repeated_parameters``
    reads it), each with its value lines as written."""

    __slots__ = ("_arg", "_at", "_names", "_seen", "lines")

    def __init__(self, arg: str) -> None:
        self._arg = arg
        self.lines: list[str] = []
        """The current group's lines (empty: none begun, outside a call or before its arguments)."""
        self._names: set[str] = set()
        """The parameters its argument lines name."""
        self._at = 0
        """Where it starts in the text."""
        self._seen: dict[str, list[int]] = {}
        """Each closed group of the call, joined: how often written, and where its second copy starts."""

    def marker(self, line: str, start: int) -> tuple[int, int]:
        """A marker line, stripped, starting at ``start``: the copies of the group it closes, and
        where that group's second copy starts (``(0, -1)``: it closes none). A call's start or end
        forgets the call's groups: each call's are its own."""
        closed = (0, -1)
        if not line.startswith(self._arg):
            self.lines, self._names, self._seen = [], set(), {}
            return closed
        name = line[len(self._arg) :].strip()
        if name in self._names:  # a parameter set again: the group before is a call
            seen = self._seen.setdefault("\n".join(self.lines), [0, start])
            seen[0] += 1
            if seen[0] == 2:
                seen[1] = self._at
            closed = (seen[0], seen[1])
            self.lines, self._names = [], set()
        if not self.lines:
            self._at = start
        self.lines.append(line)
        self._names.add(name)
        return closed


def _unnumbered(line: str) -> str:
    """``line`` without the number of a list's item (``12. Item`` and ``12) Item`` read as
    ``#. Item`` and ``#) Item``): a numbered list that repeats its items is a loop too. Other
    lines (``3.14 is pi``, ``2024-01-05,7``) as they are."""
    digits = len(line) - len(line.lstrip(_DIGITS))
    if line[digits : digits + 1] in {".", ")"} and line[digits + 1 : digits + 2] == " ":
        return "#" + line[digits:]
    return line
