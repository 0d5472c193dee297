"""Feeding helpers shared by the parser tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Protocol

from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, ParsedCall, SyntaxEvent, TextEvent


class Parser(Protocol):
    def feed(self, chunk: str) -> Iterable[SyntaxEvent]: ...
    def finalize(self) -> Iterable[SyntaxEvent]: ...


def run(parser: Parser, chunks: Iterable[str]) -> list[SyntaxEvent]:
    """Every event of feeding ``chunks`` then finalizing."""
    events: list[SyntaxEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.finalize())
    return events


def split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def split_at(text: str, cuts: Sequence[int]) -> list[str]:
    bounds = [0, *sorted({c % (len(text) + 1) for c in cuts}), len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]


def calls(events: Iterable[SyntaxEvent]) -> list[ParsedCall]:
    return [e.call for e in events if isinstance(e, GadgetCallEvent)]


def text(events: Iterable[SyntaxEvent]) -> str:
    return "".join(e.content for e in events if isinstance(e, TextEvent))


def partials(events: Iterable[SyntaxEvent]) -> list[ArgsPartialEvent]:
    return [e for e in events if isinstance(e, ArgsPartialEvent)]


def comparable(call: ParsedCall) -> tuple[object, ...]:
    """A call with its auto-generated id (process-wide counter) replaced by a placeholder."""
    auto = call.invocation_id.startswith("gadget_") and call.invocation_id[7:].isdigit()
    return (
        call.gadget_name,
        "<auto>" if auto else call.invocation_id,
        call.parameters_raw,
        call.parameters,
        call.parse_error,
        call.dependencies,
        call.syntax,
        call.raw_args,
        call.body,
        call.repairs,
    )
