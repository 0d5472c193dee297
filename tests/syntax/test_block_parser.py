"""GadgetCallParser: the block format as the spec and the TypeScript original define it."""

from __future__ import annotations

import dataclasses
import pickle
from itertools import pairwise

import pytest

from llmist.syntax import ArgsPartialEvent, GadgetCallEvent, GadgetCallParser, TextEvent

from .helpers import calls, partials, run, split, text

COMPLETE_EXAMPLE = """!!!GADGET_START:WriteFile:write_1
!!!ARG:filePath
src/calculator.ts
!!!ARG:content
export function add(a: number, b: number): number {
  return a + b;
}
!!!GADGET_END
"""


def test_spec_complete_example() -> None:
    (call,) = calls(run(GadgetCallParser(), [COMPLETE_EXAMPLE]))
    assert call.gadget_name == "WriteFile"
    assert call.invocation_id == "write_1"
    assert call.dependencies == ()
    assert call.parse_error is None
    assert call.parameters == {
        "filePath": "src/calculator.ts",
        "content": "export function add(a: number, b: number): number {\n  return a + b;\n}",
    }
    assert call.parameters_raw == COMPLETE_EXAMPLE.split("\n", 1)[1].rsplit("!!!GADGET_END", 1)[0]  # as written


def test_spec_parallel_example_dependencies() -> None:
    stream = (
        "!!!GADGET_START:FetchData:fetch_users\n!!!ARG:url\nhttps://api.example.com/users\n!!!GADGET_END\n"
        "!!!GADGET_START:FetchData:fetch_orders\n!!!ARG:url\nhttps://api.example.com/orders\n!!!GADGET_END\n"
        "!!!GADGET_START:MergeData:merge_1:fetch_users,fetch_orders\n!!!ARG:format\njson\n!!!GADGET_END\n"
    )
    got = calls(run(GadgetCallParser(), [stream]))
    assert [(c.invocation_id, c.dependencies) for c in got] == [
        ("fetch_users", ()),
        ("fetch_orders", ()),
        ("merge_1", ("fetch_users", "fetch_orders")),
    ]


def test_spec_multiple_gadgets_in_sequence_with_text() -> None:
    stream = (
        "I'll perform both calculations for you.\n\n"
        "!!!GADGET_START:Calculator\n!!!ARG:operation\nadd\n!!!ARG:a\n5\n!!!ARG:b\n3\n!!!GADGET_END\n\n"
        "Now let me multiply those values:\n\n"
        "!!!GADGET_START:Calculator\n!!!ARG:operation\nmultiply\n!!!ARG:a\n8\n!!!ARG:b\n4\n!!!GADGET_END\n\n"
        "The results are 8 and 32."
    )
    events = run(GadgetCallParser(), [stream])
    assert [c.parameters for c in calls(events)] == [
        {"operation": "add", "a": 5, "b": 3},
        {"operation": "multiply", "a": 8, "b": 4},
    ]
    assert text(events) == (
        "I'll perform both calculations for you.\n\n"
        "\n\nNow let me multiply those values:\n\n"
        "\n\nThe results are 8 and 32."
    )
    kinds = [e.type for e in events]
    assert kinds == ["text", "gadget_call", "text", "gadget_call", "text"]


def test_header_forms_and_auto_ids() -> None:
    stream = "".join(
        f"!!!GADGET_START:{h}\n!!!ARG:x\n1\n!!!GADGET_END\n"
        for h in ["A", "B:b1", "C:c1:b1,x", "D:d1:b1:c1", "E:e1:b1, c1", "F:f1:b1,c1,b1", "G:g1:", "H:"]
    )
    got = calls(run(GadgetCallParser(), [stream]))
    assert [c.gadget_name for c in got] == list("ABCDEFGH")
    assert got[0].invocation_id.startswith("gadget_")
    assert got[7].invocation_id.startswith("gadget_")  # an empty explicit id is no id
    assert got[0].invocation_id != got[7].invocation_id
    assert [c.dependencies for c in got[1:7]] == [(), ("b1", "x"), ("b1", "c1"), ("b1", "c1"), ("b1", "c1"), ()]


def test_auto_ids_are_unique_across_parsers_and_resets() -> None:
    block = "!!!GADGET_START:A\n!!!ARG:x\n1\n!!!GADGET_END\n"
    first, second = GadgetCallParser(), GadgetCallParser()
    ids = [calls(run(p, [block]))[0].invocation_id for p in (first, second)]
    first.reset()
    ids.append(calls(run(first, [block]))[0].invocation_id)
    assert len(set(ids)) == 3


def test_implicit_end_at_next_start_and_at_finalize() -> None:
    stream = "!!!GADGET_START:A:a\n!!!ARG:x\n1\n!!!GADGET_START:B:b\n!!!ARG:y\ntwo\nlines"
    got = calls(run(GadgetCallParser(), [stream]))
    assert [(c.invocation_id, c.parameters) for c in got] == [("a", {"x": 1}), ("b", {"y": "two\nlines"})]


def test_truncated_block_still_becomes_a_call_with_what_arrived() -> None:
    stream = "Writing it.\n!!!GADGET_START:WriteFile:w\n!!!ARG:path\na.py\n!!!ARG:content\nprint(1)\nprint(2"
    events = run(GadgetCallParser(), split(stream, 5))
    (call,) = calls(events)
    assert call.parameters == {"path": "a.py", "content": "print(1)\nprint(2"}
    assert text(events) == "Writing it.\n"


@pytest.mark.parametrize("tail", ["", "\n", "\n\n"])
@pytest.mark.parametrize("size", [1, 5, 1000])
def test_an_end_marker_cut_off_at_a_line_start_is_not_part_of_the_last_value(tail: str, size: int) -> None:
    # The stream ended while the model wrote "!!!GADGET_END": WriteFile must not write "!!!GADGET_".
    stream = "!!!GADGET_START:WriteFile:w\n!!!ARG:path\na.py\n!!!ARG:content\nprint(1)\n!!!GADGET_" + tail
    (call,) = calls(run(GadgetCallParser(), split(stream, size)))
    assert call.parameters == {"path": "a.py", "content": "print(1)"}
    assert "!!!GADGET_" not in call.parameters_raw and call.repairs == ("missing_end",)


def test_a_marker_fragment_inside_a_line_or_shorter_than_the_shared_bangs_stays_in_the_value() -> None:
    for body in ("x !!!GADGET_", "x\n!!", "Wow !!!"):
        (call,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:Note\n!!!ARG:text\n{body}"]))
        assert call.parameters == {"text": body}


@pytest.mark.parametrize("size", [1, 2, 1000])
def test_a_last_line_of_bangs_alone_ends_a_block_without_its_end_marker_and_is_text_before_one(size: int) -> None:
    # Qwen2.5-Coder-1.5B ended blocks with "!!!" alone: "level" was "3\n!!!", no longer an integer.
    # (A value whose text ends in such a line keeps it in a block that has its end marker.)
    for tail in ("!!!", "!!!\n", "!!!\n\n", " !!! \n"):
        (call,) = calls(run(GadgetCallParser(), split(f"!!!GADGET_START:Note\n!!!ARG:text\nWow\n{tail}", size)))
        assert call.parameters == {"text": "Wow"} and call.repairs == ("missing_end",)
        assert call.parameters_raw.rstrip().endswith("Wow")
    stream = "!!!GADGET_START:Note\n!!!ARG:text\nWow\n!!!\n!!!GADGET_END\n"
    (call,) = calls(run(GadgetCallParser(), split(stream, size)))
    assert call.parameters == {"text": "Wow\n!!!"} and call.repairs == ()


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_start_marker_cut_off_at_a_line_start_is_not_prose(size: int) -> None:
    # The model was starting a call when the stream ended: "!!!GADGET_ST" is not part of the answer.
    assert text(run(GadgetCallParser(), split("Let me check.\n!!!GADGET_ST", size))) == "Let me check.\n"
    assert text(run(GadgetCallParser(), split("Great news\n!!!", size))) == "Great news\n!!!"
    assert text(run(GadgetCallParser(), split("Say !!!GADGET_ST", size))) == "Say !!!GADGET_ST"


def test_typescript_compat_keeps_a_cut_off_end_marker_in_the_value_as_the_original_does() -> None:
    stream = "!!!GADGET_START:WriteFile:w\n!!!ARG:content\nprint(1)\n!!!GADGET_"
    (call,) = calls(run(GadgetCallParser(typescript_compat=True), [stream]))
    assert call.parameters == {"content": "print(1)\n!!!GADGET_"}


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_stream_that_ends_on_a_header_line_ends_a_call_without_a_body(size: int) -> None:
    # No newline after the header: the call is still made (the model hears of it, answered or
    # refused), with the missing end marker counted, as for a block the stream cut off.
    events = run(GadgetCallParser(), split("Done.\n\n!!!GADGET_START:Foo:f1", size))
    (call,) = calls(events)
    assert (call.gadget_name, call.invocation_id, call.parameters_raw) == ("Foo", "f1", "")
    assert "missing_end" in call.repairs
    assert text(events) == "Done.\n\n"


def test_a_start_marker_alone_at_the_stream_end_is_text_and_the_original_keeps_the_header_as_text() -> None:
    assert text(run(GadgetCallParser(), ["Done.\n\n!!!GADGET_START:"])) == "Done.\n\n!!!GADGET_START:"
    events = run(GadgetCallParser(typescript_compat=True), ["Done.\n\n!!!GADGET_START:Foo"])
    assert calls(events) == []
    assert text(events) == "Done.\n\n!!!GADGET_START:Foo"


def test_end_and_arg_markers_outside_blocks_are_text() -> None:
    stream = "say !!!GADGET_END and !!!ARG:x freely"
    assert text(run(GadgetCallParser(), split(stream, 3))) == stream


@pytest.mark.parametrize("fence", ["```", "```json", "```yaml", "```toml", "```JSON"])
def test_markdown_fence_around_parameters_is_stripped(fence: str) -> None:
    stream = f"!!!GADGET_START:Calc\n{fence}\n!!!ARG:a\n5\n!!!ARG:b\nx\n```\n!!!GADGET_END\n"
    (call,) = calls(run(GadgetCallParser(), [stream]))
    assert call.parameters == {"a": 5, "b": "x"}


def test_crlf_line_endings_and_trailing_spaces_after_markers() -> None:
    stream = "!!!GADGET_START:Run:r1:a, b  \r\n!!!ARG:name \r\nprod\r\n!!!ARG:count\r\n42\r\n!!!GADGET_END   \r\nok"
    events = run(GadgetCallParser(), split(stream, 2))
    (call,) = calls(events)
    assert (call.invocation_id, call.dependencies) == ("r1", ("a", "b"))
    # Numbers coerce through the \r; strings keep it, as the TypeScript original (gadgets strip it).
    assert call.parameters == {"name": "prod\r", "count": 42}
    assert text(events) == "   \r\nok"


def test_malformed_block_gives_a_call_with_parse_error_not_an_exception() -> None:
    stream = "!!!GADGET_START:Search:bad\n!!!ARG:paths/0\nsrc\n!!!ARG:paths/x\nlib\n!!!GADGET_END\n"
    (call,) = calls(run(GadgetCallParser(), split(stream, 7)))
    assert call.parameters is None
    assert call.parse_error == "Invalid array index: x"
    assert call.parameters_raw.startswith("!!!ARG:paths/0")


def test_custom_markers() -> None:
    parser = GadgetCallParser(start_prefix="<<<START:", end_prefix="<<<END:", arg_prefix="@param:")
    stream = "hi <<<START:Calculator\n@param:a\n5\n@param:b\n3\n<<<END:\nbye"
    events = run(parser, split(stream, 4))
    assert [c.parameters for c in calls(events)] == [{"a": 5, "b": 3}]
    assert text(events) == "hi \nbye"


@pytest.mark.parametrize(("start", "end", "arg"), [("", "E", "A"), ("S", "S", "A"), ("S", "E", "  ")])
def test_invalid_marker_configuration_is_rejected(start: str, end: str, arg: str) -> None:
    with pytest.raises(ValueError, match="prefix"):
        GadgetCallParser(start_prefix=start, end_prefix=end, arg_prefix=arg)


def test_text_streams_before_the_call_completes() -> None:
    parser = GadgetCallParser()
    first = list(parser.feed("Let me check the weather"))
    assert first == [TextEvent("Let me check the weather")]
    assert list(parser.feed(" in Paris.\n!!!GADGET_STA")) == [TextEvent(" in Paris.\n")]


def test_whitespace_only_stretches_are_not_emitted() -> None:
    block = "!!!GADGET_START:A\n!!!ARG:x\n1\n!!!GADGET_END"
    events = run(GadgetCallParser(), split(f"\n\n{block}\n  \n{block}\n\n", 1))
    assert text(events) == ""
    assert [e.type for e in events if e.type != "gadget_args_partial"] == ["gadget_call", "gadget_call"]


def test_a_block_complete_within_one_feed_yields_only_its_call() -> None:
    events = run(GadgetCallParser(), [COMPLETE_EXAMPLE])
    assert partials(events) == []


def test_partials_stream_raw_values_with_stable_id_before_the_call() -> None:
    stream = "!!!GADGET_START:WriteFile\n!!!ARG:path\nnotes.md\n!!!ARG:content\nline one\nline two!\n!!!GADGET_END\n"
    events = run(GadgetCallParser(), split(stream, 3))
    (call,) = calls(events)
    parts = partials(events)
    assert {p.invocation_id for p in parts} == {call.invocation_id}
    assert events.index(parts[-1]) < events.index(next(e for e in events if isinstance(e, GadgetCallEvent)))
    by_field: dict[str, list[ArgsPartialEvent]] = {}
    for p in parts:
        by_field.setdefault(p.field_path, []).append(p)
    assert by_field["path"][-1].value == "notes.md"
    assert by_field["content"][-1].value == "line one\nline two!"
    for field in by_field.values():
        assert "".join(p.delta for p in field) == field[-1].value
        assert [p.is_field_complete for p in field][-1] is True
        assert all(not p.is_field_complete for p in field[:-1])


def test_partial_values_hold_back_a_marker_prefix() -> None:
    parser = GadgetCallParser()
    events = list(parser.feed("!!!GADGET_START:W\n!!!ARG:content\nsay hi!!"))
    assert partials(events)[-1].value == "say hi"
    events = list(parser.feed("!"))
    assert partials(events) == []
    events = list(parser.feed(" there\n!!!GADGET_END\n"))
    assert partials(events)[-1].value == "say hi!!! there"
    assert partials(events)[-1].is_field_complete


def test_large_values_space_their_partials_out() -> None:
    parser = GadgetCallParser()
    parser.feed("!!!GADGET_START:W\n!!!ARG:content\n")
    sizes = [len(p.value) for _ in range(8192) for p in partials(parser.feed("abcdefgh"))]
    # Every feed yields one while the value is small (16 KiB), then one per growth of an eighth.
    assert sizes[:2048] == [8 * k for k in range(1, 2049)]
    later = sizes[2048:]
    assert later and all(b * 8 >= a * 9 for a, b in pairwise(later))
    assert len(later) < 30


def test_finalize_resets_for_a_new_stream() -> None:
    parser = GadgetCallParser()
    run(parser, ["text !!!GADGET_START:A\n!!!ARG:x\n1"])
    events = run(parser, ["fresh"])
    assert text(events) == "fresh"


def test_argument_with_no_value_line() -> None:
    (call,) = calls(run(GadgetCallParser(), ["!!!GADGET_START:A\n!!!ARG:flag!!!ARG:x\n1\n!!!GADGET_END"]))
    assert call.parameters == {"flag": "", "x": 1}


def test_events_built_on_the_fast_path_are_ordinary_frozen_dataclasses() -> None:
    import dataclasses

    events = run(GadgetCallParser(), split("hi\n!!!GADGET_START:A:a1\n!!!ARG:x\nvalue\n!!!GADGET_END\n", 4))
    assert {type(e).__name__ for e in events} == {"TextEvent", "ArgsPartialEvent", "GadgetCallEvent"}
    for event in events:
        fields = dataclasses.fields(event)
        rebuilt = type(event)(**{f.name: getattr(event, f.name) for f in fields})
        assert rebuilt == event
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, fields[0].name, None)
    call = calls(events)[0]
    assert call == dataclasses.replace(call)
    assert dataclasses.replace(call, gadget_name="B").gadget_name == "B"


@pytest.mark.parametrize("size", [1, 3, 16, 17, 256, 4099])
def test_large_values_with_marker_characters_survive_any_chunking(size: int) -> None:
    body = "".join(f"line {i}: wow!! such !!!GADGET text ! {'é' if i % 7 else ''}\n" for i in range(3000))
    stream = f"intro\n!!!GADGET_START:WriteFile:w\n!!!ARG:path\nbig.txt\n!!!ARG:content\n{body}!!!GADGET_END\nbye"
    whole = run(GadgetCallParser(), [stream])
    events = run(GadgetCallParser(), split(stream, size))
    (call,) = calls(events)
    assert call == calls(whole)[0]
    assert call.parameters == {"path": "big.txt", "content": body[:-1]}
    content = [p for p in partials(events) if p.field_path == "content"]
    assert content[-1].value == body[:-1] and content[-1].is_field_complete
    assert "".join(p.delta for p in content) == body[:-1]
    assert text(events) == text(whole) == "intro\n\nbye"


@pytest.mark.parametrize("size", [1, 256])  # pieces the value keeps merging, and pieces it keeps as they are
def test_a_long_value_streamed_in_pieces_reads_whole_at_every_partial(size: int) -> None:
    body = "".join(f"line {i}: {'!' * (i % 5)}\n" for i in range(3000))  # ~40 KB, past the 16 KB rule
    stream = f"!!!GADGET_START:WriteFile\n!!!ARG:content\n{body}!!!GADGET_END"
    parser = GadgetCallParser()
    read: list[str] = []
    later: list[ArgsPartialEvent] = []
    for n, chunk in enumerate(split(stream, size)):
        for event in parser.feed(chunk):
            if isinstance(event, ArgsPartialEvent):
                # Read some values as they come, keep the others for after the stream.
                if n % 3:
                    read.append(event.value)
                else:
                    later.append(event)
    parser.finalize()
    values = read + [e.value for e in later]
    assert all(body.startswith(v) for v in values)
    assert max(values, key=len) == body[:-1]


@pytest.mark.parametrize(
    "body",
    [
        "!!!ARG:a\n1\n!!!ARG:b\n two words \n\n!!!ARG:c\n  \n",  # the last value keeps its spaces
        "!!!ARG:items/0\nx\r\n!!!ARG:items/1\n007\r\n!!!ARG:flag!!!ARG:n\n-2.50",  # CRLF, an empty value
        "!!!ARG:a\n1\n!!!ARG:a\n2\n",  # Duplicate pointer
        "!!!ARG:list/1\nx\n",  # Array index gap
        "```json\n!!!ARG:a\n1\n```",  # fenced: parsed again from the body
        "junk before\n!!!ARG:text\nline one\nline two\n\n!!!ARG:   \nignored\n",
    ],
)
def test_a_streamed_block_gets_the_parameters_of_the_whole_one(body: str) -> None:
    stream = f"!!!GADGET_START:T:t1\n{body}!!!GADGET_END\n"
    (whole,) = calls(run(GadgetCallParser(), [stream]))
    for size in (1, 2, 5):
        (streamed,) = calls(run(GadgetCallParser(), split(stream, size)))
        assert (streamed.parameters, streamed.parse_error, streamed.parameters_raw) == (
            whole.parameters,
            whole.parse_error,
            whole.parameters_raw,
        )


def test_values_read_in_another_thread_while_the_parser_runs_are_right() -> None:
    import queue
    import sys
    import threading

    body = "".join(f"row {i} {'x' * (i % 7)}\n" for i in range(4000))
    stream = f"!!!GADGET_START:W\n!!!ARG:content\n{body}!!!GADGET_END"
    events: queue.SimpleQueue[ArgsPartialEvent | None] = queue.SimpleQueue()
    wrong: list[str] = []

    def read() -> None:
        expected = ""
        try:
            while (event := events.get()) is not None:
                expected += event.delta
                if event.value != expected:
                    wrong.append(event.value[-20:])
        except Exception as exc:  # the test must fail, not just warn
            wrong.append(repr(exc))
            while events.get() is not None:
                pass

    reader = threading.Thread(target=read)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        reader.start()
        parser = GadgetCallParser()
        for ch in stream:
            for event in parser.feed(ch):
                if isinstance(event, ArgsPartialEvent):
                    events.put(event)
        parser.finalize()
        events.put(None)
        reader.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []


def test_a_partial_shows_the_value_of_its_moment_whenever_it_is_read() -> None:
    body = "".join(f"line {i}\n" for i in range(3000))
    stream = f"!!!GADGET_START:W\n!!!ARG:content\n{body}!!!GADGET_END"
    parser = GadgetCallParser()
    kept = [e for ch in stream for e in parser.feed(ch) if isinstance(e, ArgsPartialEvent)]
    parser.finalize()
    # Read only now, after the parser merged and moved past every one of them, twice.
    expected = ""
    for event in kept:
        expected += event.delta
        assert event.value == expected == event.value
    assert pickle.loads(pickle.dumps(kept[-1])) == kept[-1]
    assert dataclasses.replace(kept[5], delta="").value == kept[5].value


@pytest.mark.parametrize("first, grow", [(16000, 384), (16000, 383), (16383, 1), (100, 16284)])
def test_every_feed_that_grows_a_value_to_16384_characters_yields_a_partial(first: int, grow: int) -> None:
    # Up to 16 KB every growth gets a partial, whichever path (a whole chunk of value text, or a
    # chunk that also ends a line) the feed takes.
    p = GadgetCallParser()
    p.feed("!!!GADGET_START:Write\n!!!ARG:content\n")
    p.feed("a" * first)
    events = p.feed("b" * grow + "\n")
    grown = [e for e in events if isinstance(e, ArgsPartialEvent)]
    assert len(grown) == 1
    assert len(grown[0].value) == first + grow
    assert grown[0].delta == "b" * grow


def test_past_16384_characters_partials_come_each_time_the_value_grows_by_an_eighth() -> None:
    p = GadgetCallParser()
    p.feed("!!!GADGET_START:Write\n!!!ARG:content\n")
    p.feed("a" * 20000)
    assert not [e for e in p.feed("b" * 100) if isinstance(e, ArgsPartialEvent)]
    grown = [e for e in p.feed("c" * 2500) if isinstance(e, ArgsPartialEvent)]
    assert [len(e.value) for e in grown] == [22600]
