"""Where an argument's value ends: one rule for every position, the same in the parser's
``ParsedCall.parameters`` and in what the gadget receives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmist import Agent, gadget
from llmist.syntax import GadgetCallParser, ParsedCall, parse_block_params
from llmist.testing import MockModel

from .helpers import calls, run, split, split_at

START, END = "!!!GADGET_START:G\n", "!!!GADGET_END\n"

POSITIONS = {
    "middle": lambda v: f"{START}!!!ARG:a\n{v}\n!!!ARG:b\ny\n{END}",
    "last, before the end marker": lambda v: f"{START}!!!ARG:b\ny\n!!!ARG:a\n{v}\n{END}",
    "last, before the next block": lambda v: f"{START}!!!ARG:b\ny\n!!!ARG:a\n{v}\n{START}!!!ARG:b\nz\n{END}",
    "last, at the end of the stream": lambda v: f"{START}!!!ARG:b\ny\n!!!ARG:a\n{v}\n",
}
"""A stream in which value ``v``, then the newline that ends its line, is the argument ``a``."""

VALUES = ["x", "x\n", "x\n\n", "code  ", "  indented", "line 1\nline 2\n", "```\nprint(1)\n```", "tab\t", ""]


def first_call(stream: str, chunk: int | None = None, **options: bool) -> ParsedCall:
    chunks = [stream] if chunk is None else split(stream, chunk)
    return calls(run(GadgetCallParser(**options), chunks))[0]


@pytest.mark.parametrize("position", ["middle", "last, before the end marker"])
@pytest.mark.parametrize("value", VALUES)
def test_a_value_is_what_was_written_before_the_newline_that_ends_it_in_every_position(
    position: str, value: str
) -> None:
    stream = POSITIONS[position](value)
    for chunk in (None, 1, 3):
        assert first_call(stream, chunk).parameters == {"a": value, "b": "y"}, (position, chunk)


MISSING_END = ["last, before the next block", "last, at the end of the stream"]


def without_blank_lines_at_the_end(value: str) -> str:
    lines = value.split("\n")
    while len(lines) > 1 and lines[-1].strip() == "":
        lines.pop()
    return "\n".join(lines)


@pytest.mark.parametrize("position", MISSING_END)
@pytest.mark.parametrize("value", VALUES)
def test_a_block_without_its_end_marker_drops_the_blank_lines_at_its_end(position: str, value: str) -> None:
    # Blank lines between blocks separate them: Qwen2.5-Coder left the end marker out of parallel
    # calls, and its last values came out "New York\n" and "True\n" (no longer a boolean).
    stream = POSITIONS[position](value)
    expected = without_blank_lines_at_the_end(value)
    for chunk in (None, 1, 3):
        call = first_call(stream, chunk)
        assert call.parameters == {"a": expected, "b": "y"}, (position, chunk)
        assert call.repairs == ("missing_end",)


@given(st.sampled_from(VALUES), st.sampled_from(list(POSITIONS)), st.lists(st.integers(0, 200), max_size=12))
def test_any_chunking_cuts_every_value_the_same_way(value: str, position: str, cuts: list[int]) -> None:
    stream = POSITIONS[position](value)
    streamed = calls(run(GadgetCallParser(), split_at(stream, cuts)))[0]
    assert streamed.parameters == first_call(stream).parameters
    assert streamed.parameters_raw == first_call(stream).parameters_raw


def test_parse_block_params_follows_the_same_rule() -> None:
    assert parse_block_params("!!!ARG:a\nx\n\n!!!ARG:b\ncode  \n") == {"a": "x\n", "b": "code  "}


def test_parameters_raw_is_the_body_as_written() -> None:
    call = first_call(f"{START}!!!ARG:a\ncode  \n\n{END}")
    assert call.parameters_raw == "!!!ARG:a\ncode  \n\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("```\n!!!ARG:a\nx\n```\n", "x"),  # a fence around the arguments goes
        ("```json\n!!!ARG:a\nx\n\n```\n", "x\n"),
        ("!!!ARG:a\nx\n```\n", "x"),  # a closing fence that closes nothing in the value goes
        ("!!!ARG:a\n```py\nx\n```\n", "```py\nx\n```"),  # the value's own closing fence stays
        ("```\n!!!ARG:a\n```py\nx\n```\n```\n", "```py\nx\n```"),  # both: the wrapper goes
    ],
)
def test_a_fence_around_the_arguments_goes_and_a_fenced_value_stays_whole(body: str, expected: str) -> None:
    for chunk in (None, 1, 2):
        assert first_call(START + body + END, chunk).parameters == {"a": expected}


received: list[dict[str, object]] = []


@gadget(name="G")
def g(a: str, b: str = "") -> str:
    """Records what it receives."""
    received.append({"a": a, "b": b})
    return "ok"


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("value", ["x\n", "code  ", "```\nprint(1)\n```", "line 1\nline 2\n"])
def test_the_gadget_receives_exactly_the_parsers_parameters(position: str, value: str) -> None:
    stream = POSITIONS[position](value)
    received.clear()
    Agent(model=MockModel([stream, "done"]), gadgets=[g]).run_sync("go")
    written = without_blank_lines_at_the_end(value) if position in MISSING_END else value
    assert received[0] == {"a": written, "b": "y"}
    assert first_call(stream).parameters == received[0]


@gadget(name="Count")
def count(n: int, flag: bool) -> str:
    """Takes typed values."""
    return f"{n + 1} {flag}"


def test_a_blank_line_after_a_typed_value_does_not_change_its_type() -> None:
    stream = "!!!GADGET_START:Count\n!!!ARG:flag\ntrue\n\n!!!ARG:n\n41\n\n!!!GADGET_END\n"
    result = Agent(model=MockModel([stream, "done"]), gadgets=[count]).run_sync("go")
    assert result.gadget_results[0].result == "42 True"


def test_typescript_compat_strips_the_last_value_and_always_drops_a_closing_fence() -> None:
    stream = f"{START}!!!ARG:b\ny  \n\n!!!ARG:a\n```py\nx\n```\n\n{END}"
    compat = first_call(stream, typescript_compat=True)
    assert compat.parameters == {"b": "y  \n", "a": "```py\nx"}
    assert compat.parameters_raw == "!!!ARG:b\ny  \n\n!!!ARG:a\n```py\nx\n```"
    assert first_call(stream, 1, typescript_compat=True).parameters == compat.parameters
    assert first_call(stream).parameters == {"b": "y  \n", "a": "```py\nx\n```\n"}
