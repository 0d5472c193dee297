"""EmojiCallParser: the emoji syntax spec (``🛠️[name args]`` ... ``🛠️[/end]``)."""

from __future__ import annotations

import pytest

from llmist.syntax import EmojiCallParser, TextEvent

from .helpers import calls, run, split, text

SPEC_EXAMPLE = 'Here is your file:\n🛠️[create-file script.py]\nprint("Hello World")\n🛠️[/end]\nHope that helps!'


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_spec_example_at_any_chunk_size(size: int) -> None:
    events = run(EmojiCallParser(), split(SPEC_EXAMPLE, size))
    (call,) = calls(events)
    assert (call.gadget_name, call.raw_args, call.body) == ("create-file", "script.py", 'print("Hello World")\n')
    assert call.syntax == "emoji"
    assert call.parameters is None and call.parse_error is None and call.dependencies == ()
    assert text(events) == "Here is your file:\n\nHope that helps!"


def test_spec_multiple_calls_in_order() -> None:
    stream = (
        "I will create two files for you.\n\n"
        '🛠️[create-file main.py]\nprint("Hello from main")\n🛠️[/end]\n\n'
        '🛠️[create-file utils.py]\ndef helper():\n    return "helper"\n🛠️[/end]\n\n'
        "Both files have been defined."
    )
    got = calls(run(EmojiCallParser(), split(stream, 4)))
    assert [(c.raw_args, c.body) for c in got] == [
        ("main.py", 'print("Hello from main")\n'),
        ("utils.py", 'def helper():\n    return "helper"\n'),
    ]
    assert got[0].invocation_id != got[1].invocation_id


def test_blocks_need_not_be_line_aligned_and_args_are_optional() -> None:
    (call,) = calls(run(EmojiCallParser(), ["ok 🛠️[run-tests]🛠️[/end] done"]))
    assert (call.gadget_name, call.raw_args, call.body) == ("run-tests", "", "")


def test_missing_closing_bracket_is_text() -> None:
    stream = "look: 🛠️[not a call\nstill text"
    events = run(EmojiCallParser(), split(stream, 3))
    assert calls(events) == []
    assert text(events) == stream


@pytest.mark.parametrize("chunks", [["🛠️[find city=Paris"], ["🛠️[fi", "nd city=", "Paris"], ["🛠[find city=Paris"]])
def test_a_stream_that_ends_in_a_header_makes_that_call(chunks: list[str]) -> None:
    """As text it would be the run's answer, and the model would never hear of its call."""
    events = run(EmojiCallParser(), chunks)
    (call,) = calls(events)
    assert (call.gadget_name, call.raw_args, call.body, call.repairs) == ("find", "city=Paris", "", ("missing_end",))
    assert text(events) == ""


@pytest.mark.parametrize("stream", ["🛠️[", "see 🛠️[ the marker", "🛠️[/en", "🛠️[\\/end"])
def test_a_header_cut_before_any_name_is_text(stream: str) -> None:
    events = run(EmojiCallParser(), [stream])
    assert calls(events) == []
    assert text(events) == stream


def test_missing_end_marker_makes_the_rest_the_body() -> None:
    (call,) = calls(run(EmojiCallParser(), ["🛠️[write a.txt]\nline 1\nline 2"]))
    assert call.body == "line 1\nline 2"


@pytest.mark.parametrize("cut", ["🛠️[", "🛠️[/en", "🛠[/"])
@pytest.mark.parametrize("size", [1, 3, 1000])
def test_an_end_marker_cut_off_by_the_stream_is_not_part_of_the_body(cut: str, size: int) -> None:
    (call,) = calls(run(EmojiCallParser(), split(f"🛠️[write a.txt]\nline 1\n{cut}", size)))
    assert call.body == "line 1\n"


def test_no_nesting_inner_marker_is_body_text() -> None:
    (call,) = calls(run(EmojiCallParser(), ["🛠️[outer]\n🛠️[inner x]\nbody\n🛠️[/end]\nafter"]))
    assert call.gadget_name == "outer"
    assert call.body == "🛠️[inner x]\nbody\n"


def test_end_marker_outside_a_block_is_text() -> None:
    stream = "stray 🛠️[/end] marker"
    events = run(EmojiCallParser(), split(stream, 2))
    assert calls(events) == [] and text(events) == stream


def test_marker_without_variation_selector() -> None:
    (call,) = calls(run(EmojiCallParser(), ["🛠[tool a b]\nx\n🛠[/end]"]))
    assert (call.gadget_name, call.raw_args, call.body) == ("tool", "a b", "x\n")


def test_only_one_newline_after_the_header_is_skipped_crlf_counts_as_one() -> None:
    got = calls(run(EmojiCallParser(), ["🛠️[a]\n\nx🛠️[/end]🛠️[b]\r\ny🛠️[/end]"]))
    assert [c.body for c in got] == ["\nx", "y"]


def test_text_streams_as_it_arrives() -> None:
    parser = EmojiCallParser()
    assert list(parser.feed("Thinking about it")) == [TextEvent("Thinking about it")]
    assert list(parser.feed(" now 🛠")) == [TextEvent(" now ")]
