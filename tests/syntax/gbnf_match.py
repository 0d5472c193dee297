"""A small GBNF reader and matcher, for tests: does a grammar accept a whole text?

It reads the subset llmist's grammars use (literals, character classes, rule references,
groups, alternatives, ``?``, ``*``, ``+``, ``{n}``) and answers by computing, with memoisation,
the set of positions each element can end at. Slow and simple; texts in tests are short.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache

__all__ = ["Grammar"]


@dataclass(frozen=True)
class _Lit:
    text: str


@dataclass(frozen=True)
class _Cls:
    ranges: tuple[tuple[int, int], ...]
    negated: bool


@dataclass(frozen=True)
class _Ref:
    name: str


@dataclass(frozen=True)
class _Seq:
    items: tuple[object, ...]


@dataclass(frozen=True)
class _Alt:
    options: tuple[object, ...]


@dataclass(frozen=True)
class _Rep:
    node: object
    low: int
    high: int | None


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]", "-": "-", "^": "^", "/": "/"}


class _Reader:
    def __init__(self, text: str) -> None:
        self.s, self.i = text, 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def char(self) -> str:
        c = self.s[self.i]
        self.i += 1
        if c != "\\":
            return c
        e = self.s[self.i]
        self.i += 1
        if e in "xuU":
            n = {"x": 2, "u": 4, "U": 8}[e]
            code = int(self.s[self.i : self.i + n], 16)
            self.i += n
            return chr(code)
        return _ESCAPES[e]

    def alternatives(self) -> object:
        options = [self.sequence()]
        self.ws()
        while self.i < len(self.s) and self.s[self.i] == "|":
            self.i += 1
            options.append(self.sequence())
            self.ws()
        return options[0] if len(options) == 1 else _Alt(tuple(options))

    def sequence(self) -> object:
        items: list[object] = []
        while True:
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] in "|)\n":
                return _Seq(tuple(items))
            items.append(self.postfix(self.element()))

    def element(self) -> object:
        c = self.s[self.i]
        if c == '"':
            self.i += 1
            out = []
            while self.s[self.i] != '"':
                out.append(self.char())
            self.i += 1
            return _Lit("".join(out))
        if c == "[":
            self.i += 1
            negated = self.s[self.i] == "^"
            self.i += negated
            ranges = []
            while self.s[self.i] != "]":
                low = self.char()
                high = low
                if self.s[self.i] == "-" and self.s[self.i + 1] != "]":
                    self.i += 1
                    high = self.char()
                ranges.append((ord(low), ord(high)))
            self.i += 1
            return _Cls(tuple(ranges), negated)
        if c == "(":
            self.i += 1
            inner = self.alternatives()
            self.ws()
            assert self.s[self.i] == ")", self.s[self.i :]
            self.i += 1
            return inner
        m = re.compile(r"[a-zA-Z0-9-]+").match(self.s, self.i)
        assert m, f"bad element at {self.s[self.i : self.i + 20]!r}"
        self.i = m.end()
        return _Ref(m.group())

    def postfix(self, node: object) -> object:
        if self.i < len(self.s):
            c = self.s[self.i]
            if c in "?*+":
                self.i += 1
                return _Rep(node, 0 if c != "+" else 1, 1 if c == "?" else None)
            if c == "{":
                end = self.s.index("}", self.i)
                n = int(self.s[self.i + 1 : end])
                self.i = end + 1
                return _Rep(node, n, n)
        return node


class Grammar:
    """A GBNF grammar; :meth:`accepts` says whether ``root`` matches a whole text."""

    def __init__(self, text: str) -> None:
        self.rules: dict[str, object] = {}
        for line in text.splitlines():
            if not line.strip():
                continue
            name, _, body = line.partition(" ::= ")
            reader = _Reader(body)
            self.rules[name.strip()] = reader.alternatives()
            assert reader.i == len(body), f"unread: {body[reader.i :]!r}"

    def accepts(self, text: str) -> bool:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 50_000))
        try:
            return len(text) in self._ends(text, self.rules["root"], 0)
        finally:
            sys.setrecursionlimit(old)

    def _ends(self, text: str, node: object, pos: int) -> frozenset[int]:
        rules = self.rules

        @cache
        def ends(node: object, pos: int) -> frozenset[int]:
            if isinstance(node, _Lit):
                return frozenset({pos + len(node.text)}) if text.startswith(node.text, pos) else frozenset()
            if isinstance(node, _Cls):
                if pos >= len(text):
                    return frozenset()
                code = ord(text[pos])
                inside = any(lo <= code <= hi for lo, hi in node.ranges)
                return frozenset({pos + 1}) if inside != node.negated else frozenset()
            if isinstance(node, _Ref):
                return ends(rules[node.name], pos)
            if isinstance(node, _Seq):
                current = frozenset({pos})
                for item in node.items:
                    current = frozenset(e for p in current for e in ends(item, p))
                    if not current:
                        break
                return current
            if isinstance(node, _Alt):
                return frozenset(e for o in node.options for e in ends(o, pos))
            assert isinstance(node, _Rep)
            result: set[int] = {pos} if node.low == 0 else set()
            current = frozenset({pos})
            count = 0
            while current and (node.high is None or count < node.high):
                current = frozenset(e for p in current for e in ends(node.node, p) if e > p)
                count += 1
                if count >= node.low:
                    result |= current
            return frozenset(result)

        return ends(node, pos)
