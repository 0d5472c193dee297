"""Properties both parsers keep for any input and any chunking (hypothesis)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from llmist.syntax import (
    ArgsPartialEvent,
    EmojiCallParser,
    GadgetCallEvent,
    GadgetCallParser,
)

from .helpers import Parser, calls, comparable, run, split_at, text

MARKERS = ("!!!GADGET_START:", "!!!GADGET_END", "!!!ARG:")
CUSTOM = ("<<T:", "<<E", "@p:")

block_tokens = st.sampled_from(
    [
        *MARKERS,
        "!",
        "!!",
        "!!!",
        "!!!GADGET_",
        "\n",
        "\r\n",
        " ",
        "  \n",
        ":",
        ",",
        "/",
        "0",
        "1",
        "42",
        "-3.5",
        "true",
        "Name",
        "Name:id",
        "Name:id:a,b",
        "Name:x:a:b",
        "calc_1",
        "items/0",
        "items/1",
        "items/x",
        "path",
        "```",
        "```json\n",
        "hello world",
        "é—",
        "GADGET_START",
        "\t",
        # what small models write: markers with a wrong count of "!", values fused to their names
        "!!ARG:",
        "!!!!GADGET_END",
        "!GADGET_START:",
        "!!GADGET_START:",
        "!!!!",
        "ARG:",
        "GADGET_END",
        "a 5",
        "x=1",
        # markers over two lines (a "!!!" line, then the word), a colon misspelt
        "GADGET_START:",
        "!!!ARG.",
        "ARG;",
        ".",
        ";",
    ]
)
emoji_tokens = st.sampled_from(
    [
        "🛠️[",
        "🛠[",
        "🛠️[/end]",
        "🛠[/end]",
        "🛠",
        "\ufe0f",
        "[",
        "]",
        "/end",
        "\n",
        "\r\n",
        " ",
        "run",
        "a.py",
        "'quoted arg'",
        "print(1)",
        "text",
        "é",
        "🛠️",
        "[/end]",
    ]
)


def block_streams(tokens: st.SearchStrategy[str] = block_tokens) -> st.SearchStrategy[str]:
    return st.lists(tokens, max_size=60).map("".join)


def assert_chunking_invariant(make: Callable[[], Parser], stream: str, cuts: list[int]) -> None:
    whole = run(make(), [stream])
    pieces = run(make(), split_at(stream, cuts))
    assert [comparable(c) for c in calls(pieces)] == [comparable(c) for c in calls(whole)]
    assert text(pieces) == text(whole)


settings.register_profile("parsers", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("parsers")


@given(block_streams(), st.lists(st.integers(min_value=0, max_value=400), max_size=40))
def test_block_any_chunking_gives_the_same_calls_and_text(stream: str, cuts: list[int]) -> None:
    assert_chunking_invariant(GadgetCallParser, stream, cuts)


@given(block_streams(), st.integers(min_value=1, max_value=7))
def test_block_fixed_chunk_sizes_match_whole(stream: str, size: int) -> None:
    assert_chunking_invariant(GadgetCallParser, stream, list(range(size, len(stream), size)))


@given(
    block_streams(st.sampled_from([*CUSTOM, "<", "<<", "\n", "x", "1", "Tool:id", "a/0", "@", ":"])),
    st.lists(st.integers(min_value=0, max_value=200), max_size=30),
)
def test_block_custom_markers_chunking_invariant(stream: str, cuts: list[int]) -> None:
    assert_chunking_invariant(lambda: GadgetCallParser(*CUSTOM), stream, cuts)


@given(block_streams(emoji_tokens), st.lists(st.integers(min_value=0, max_value=300), max_size=40))
def test_emoji_any_chunking_gives_the_same_calls_and_text(stream: str, cuts: list[int]) -> None:
    assert_chunking_invariant(EmojiCallParser, stream, cuts)


@given(st.text(), st.lists(st.integers(min_value=0, max_value=100), max_size=20))
def test_feed_and_finalize_never_raise_on_arbitrary_text(stream: str, cuts: list[int]) -> None:
    for make in (GadgetCallParser, EmojiCallParser):
        run(make(), split_at(stream, cuts))


@given(block_streams(), st.lists(st.integers(min_value=0, max_value=400), max_size=40))
@example("!!!GADGET_START:A\n!!!ARG:!\n!!!!GADGET_START:", [31])  # the first "!" is value text, not a marker
@example("!!!GADGET_START:A\n!!!ARG:x\nsay hi!!!GADGET_END", [30])
def test_no_part_of_a_marker_ever_leaks_into_a_partial_value(stream: str, cuts: list[int]) -> None:
    """Every streamed value is a prefix of the field's final value: nothing that turns out
    to be (the beginning of) a marker is ever shown, and nothing shown is taken back."""
    events = run(GadgetCallParser(), split_at(stream, cuts))
    finals: dict[tuple[str, str], list[str]] = {}
    for event in events:
        if isinstance(event, ArgsPartialEvent) and event.is_field_complete:
            finals.setdefault((event.invocation_id, event.field_path), []).append(event.value)
    for event in events:
        if isinstance(event, ArgsPartialEvent) and not event.is_field_complete:
            final = finals.get((event.invocation_id, event.field_path))
            if final is not None and len(final) == 1:  # a pointer written twice has two values
                assert final[0].startswith(event.value)
                for marker in MARKERS:
                    assert marker not in event.value or marker in final[0]


@given(block_streams(), st.lists(st.integers(min_value=0, max_value=400), max_size=40))
def test_partials_come_before_their_call_and_deltas_build_the_value(stream: str, cuts: list[int]) -> None:
    events = run(GadgetCallParser(), split_at(stream, cuts))
    finished: set[str] = set()
    values: dict[tuple[str, str], str] = {}
    for event in events:
        if isinstance(event, GadgetCallEvent):
            finished.add(event.call.invocation_id)
        elif isinstance(event, ArgsPartialEvent):
            assert event.invocation_id not in finished
            key = (event.invocation_id, event.field_path)
            before = values.get(key, "")
            if event.value.startswith(before):
                assert before + event.delta == event.value
            values[key] = event.value


@given(block_streams())
def test_text_is_never_lost_or_invented(stream: str) -> None:
    """Every piece of text the parser emits occurs verbatim in the input."""
    for piece in (e.content for e in run(GadgetCallParser(), [stream]) if e.type == "text"):
        assert piece in stream


@given(
    st.lists(st.sampled_from(["x", "yz", "\n", "\r\n", "!", "!!!", "tail ", "é"]), min_size=1, max_size=400),
    st.integers(min_value=1, max_value=9),
    st.lists(st.booleans(), min_size=1, max_size=50),
)
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_a_partial_value_reads_the_same_whenever_it_is_read(
    pieces: list[str], chunk: int, read_now: list[bool]
) -> None:
    """``value`` is built on first read: reading it at once or after the stream gives the same text."""
    body = "".join(pieces)
    stream = f"!!!GADGET_START:W:w1\n!!!ARG:path\na.txt\n!!!ARG:content\n{body}\n!!!GADGET_END\n"
    parser = GadgetCallParser()
    seen: list[tuple[ArgsPartialEvent, str | None]] = []
    for i in range(0, len(stream), chunk):
        for event in parser.feed(stream[i : i + chunk]):
            if isinstance(event, ArgsPartialEvent):
                now = read_now[len(seen) % len(read_now)]
                seen.append((event, event.value if now else None))
    parser.finalize()
    deltas: dict[str, str] = {}
    for event, early in seen:
        deltas[event.field_path] = deltas.get(event.field_path, "") + event.delta
        assert event.value == deltas[event.field_path]
        assert early is None or early == event.value
    assert seen[-1][0].value == body and seen[-1][0].is_field_complete
