"""What the block parser reads beyond the format (a marker with a wrong count of ``!`` at a line
start, a value fused to its argument line), and how each call names what was tolerated."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmist.syntax import EmojiCallParser, GadgetCallParser

from .helpers import calls, run, split, split_at, text


def _one(stream: str, **options: bool) -> tuple[str, dict[str, object] | None, tuple[str, ...]]:
    (call,) = calls(run(GadgetCallParser(**options), [stream]))
    return call.gadget_name, call.parameters, call.repairs


def test_a_call_written_as_the_format_says_needs_no_repair() -> None:
    assert _one("!!!GADGET_START:add\n!!!ARG:a\n1\n!!!GADGET_END") == ("add", {"a": 1}, ())


@pytest.mark.parametrize(
    "stream",
    [
        "!!GADGET_START:get_weather\n!!!ARG:city\nLima\n!!!GADGET_END",
        "!GADGET_START:get_weather\n!!!ARG:city\nLima\n!!!GADGET_END",
        "!!!GADGET_START:get_weather\n!!ARG:city\nLima\n!!!GADGET_END",
        "!!!GADGET_START:get_weather\n!!!ARG:city\nLima\n!!!!GADGET_END",
        "!!!GADGET_START:get_weather\n!!!!!!ARG:city\nLima\n!!!GADGET_END",
        "!!!GADGET_START:get_weather\n!!!ARG.city\nLima\n!!!GADGET_END",  # Qwen2.5-Coder-1.5B
        "!!!GADGET_START;get_weather\n!!!ARG:city\nLima\n!!!GADGET_END",
    ],
)
def test_a_marker_with_a_wrong_count_of_marks_at_a_line_start_is_read_as_the_marker(stream: str) -> None:
    assert _one(stream) == ("get_weather", {"city": "Lima"}, ("marker_spelling",))


def test_the_smollm2_block_reads_with_two_spelling_repairs() -> None:
    stream = "!!!GADGET_START:get_weather\n!!ARG:city\nLima\n!!!!GADGET_END"
    assert _one(stream) == ("get_weather", {"city": "Lima"}, ("marker_spelling", "marker_spelling"))


@pytest.mark.parametrize(
    "stream",
    [
        "Say !!GADGET_START:x\nhi\n",  # not at a line start
        "-\n!!GADGETSTART:x\nhi\n",  # not a marker word
        "!!GADGET_END\n!!ARG:a\n",  # an end or argument marker outside a block
        "!!GADGET_START:x",  # a header line that never ends
        "Say !!!GADGET_START.x\nhi\n",  # a colon misspelt, not at a line start
    ],
)
def test_a_misspelt_marker_where_no_marker_can_be_is_text_as_written(stream: str) -> None:
    events = run(GadgetCallParser(), split(stream, 2))
    assert calls(events) == [] and text(events).endswith(stream[stream.index("GADGET") - 1 :])


def test_typescript_compatible_mode_reads_only_the_exact_markers() -> None:
    stream = "!!GADGET_START:x\n!!ARG:a\n1\n!!GADGET_END\n"
    assert text(run(GadgetCallParser(typescript_compat=True), [stream])) == stream


def test_markers_sharing_another_run_get_the_same_tolerance() -> None:
    parser = GadgetCallParser("##CALL:", "##END", "##ARG:")
    (call,) = calls(run(parser, ["#CALL:x\n###ARG:a\n1\n#END"]))
    assert (call.gadget_name, call.parameters, call.repairs) == ("x", {"a": 1}, ("marker_spelling",) * 3)


def test_markers_without_a_shared_run_are_read_exactly() -> None:
    stream = "<T:x\n<<A:a\n1\n>>E\n"
    assert text(run(GadgetCallParser("<<T:", ">>E", "<<A:"), [stream])) == stream


@pytest.mark.parametrize("line", ["a 5", "a=5", "a = 5", "a: 5", "a\t5"])
def test_a_value_fused_to_its_argument_line_is_split_from_the_name(line: str) -> None:
    stream = f"!!!GADGET_START:add\n!!!ARG:{line}\n!!!ARG:b\n6\n!!!GADGET_END"
    assert _one(stream) == ("add", {"a": 5, "b": 6}, ("fused_argument",))


def test_a_fused_value_keeps_its_spaces_and_the_raw_body_says_how_it_was_read() -> None:
    (call,) = calls(run(GadgetCallParser(), ["!!!GADGET_START:say\n!!!ARG:text hello big world\n!!!GADGET_END"]))
    assert call.parameters == {"text": "hello big world"}
    assert call.parameters_raw == "!!!ARG:text\nhello big world\n"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('player_name="Cristiano Ronaldo"', "Cristiano Ronaldo"),
        ("player_name = 'Cristiano Ronaldo'", "Cristiano Ronaldo"),
        ('player_name: "Cristiano Ronaldo"', "Cristiano Ronaldo"),
        ('player_name=""', ""),
        ('player_name "Cristiano Ronaldo"', '"Cristiano Ronaldo"'),  # after a space: as written
        ('player_name="say "hi" now"', '"say "hi" now"'),  # quotes inside: not that form's
        ("player_name='Ronaldo\"", "'Ronaldo\""),  # quotes that do not match
    ],
)
def test_a_fused_value_in_quotes_after_an_equals_sign_or_colon_loses_them(line: str, value: str) -> None:
    """Qwen2.5-Coder-0.5B wrote ``!!!ARG:player_name="Cristiano Ronaldo"``: the quotes are the
    ``name=value`` form's. After a space they may be the value's own (a search's exact phrase)."""
    stream = f"!!!GADGET_START:stats\n!!!ARG:{line}\n!!!ARG:season\n2019\n!!!GADGET_END"
    assert _one(stream) == ("stats", {"player_name": value, "season": 2019}, ("fused_argument",))


def test_an_argument_line_with_a_value_line_after_it_is_not_split() -> None:
    _, params, repairs = _one("!!!GADGET_START:add\n!!!ARG:a 5\n6\n!!!GADGET_END")
    assert params == {"a 5": 6} and repairs == ()


def test_a_fused_value_is_not_split_in_typescript_compatible_mode() -> None:
    assert _one("!!!GADGET_START:add\n!!!ARG:a 5\n!!!GADGET_END", typescript_compat=True)[1] == {"a 5": ""}


def test_a_missing_end_marker_and_a_code_fence_are_named() -> None:
    stream = "!!!GADGET_START:a\n```json\n!!!ARG:x\n1\n```\n!!!GADGET_START:b\n!!!ARG:y\n2\n"
    first, second = calls(run(GadgetCallParser(), [stream]))
    assert first.repairs == ("missing_end", "code_fence") and second.repairs == ("missing_end",)


def test_an_emoji_block_without_its_end_marker_is_named() -> None:
    (call,) = calls(run(EmojiCallParser(), ["🛠️[add 1 2]\n"]))
    assert call.repairs == ("missing_end",)
    (closed,) = calls(run(EmojiCallParser(), ["🛠️[add 1 2]\n🛠️[/end]"]))
    assert closed.repairs == ()


_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
_VALUES = st.from_regex(r"[A-Za-z0-9 .,]{1,12}", fullmatch=True).map(str.strip).filter(bool)


@st.composite
def _misspelt_blocks(draw: st.DrawFn) -> tuple[str, str, dict[str, str]]:
    """A block written with random counts of "!" (1-6) before each marker at its line start,
    some alone on the line before the marker's word, some with "." or ";" for the colon after
    the word, and the same block written exactly."""
    name = draw(_NAMES)
    args = draw(st.dictionaries(_NAMES, _VALUES, max_size=4))

    def mark(word: str) -> str:
        split = draw(st.sampled_from(["", "", "\n", " \n", "\r\n"]))
        if word.endswith(":"):
            word = word[:-1] + draw(st.sampled_from([":", ":", ".", ";"]))
        return "!" * draw(st.integers(min_value=1, max_value=6)) + split + word

    def write(m: object) -> str:
        lines = [f"{m('GADGET_START:')}{name}"]  # type: ignore[operator]
        for key, value in args.items():
            lines += [f"{m('ARG:')}{key}", value]
        return "\n".join([*lines, f"{m('GADGET_END')}"]) + "\n"

    return write(mark), write(lambda word: "!!!" + word), args


@given(_misspelt_blocks(), st.lists(st.integers(min_value=0, max_value=200), max_size=20))
def test_any_count_of_marks_up_to_six_reads_as_the_exact_block_in_any_chunking(
    blocks: tuple[str, str, dict[str, str]], cuts: list[int]
) -> None:
    misspelt, exact, _ = blocks
    (want,) = calls(run(GadgetCallParser(), [exact]))
    (got,) = calls(run(GadgetCallParser(), split_at(misspelt, cuts)))
    assert (got.gadget_name, got.parameters, got.parameters_raw) == (
        want.gadget_name,
        want.parameters,
        want.parameters_raw,
    )
    assert set(got.repairs) <= {"marker_spelling"}
    assert (got.repairs == ()) == (misspelt == exact)


@given(_NAMES, _VALUES, st.sampled_from([" ", "=", " = ", ": ", "\t"]), st.integers(min_value=1, max_value=7))
def test_a_fused_argument_reads_as_name_and_value_in_any_chunking(name: str, value: str, sep: str, size: int) -> None:
    stream = f"!!!GADGET_START:g\n!!!ARG:{name}{sep}{value}\n!!!GADGET_END\n"
    (call,) = calls(run(GadgetCallParser(), split(stream, size)))
    (want,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:g\n!!!ARG:{name}\n{value}\n!!!GADGET_END\n"]))
    assert call.parameters == want.parameters and call.repairs == ("fused_argument",)


@given(
    _NAMES,
    _VALUES,
    st.sampled_from(["=", " = ", ": ", ":"]),
    st.sampled_from(['"', "'"]),
    st.integers(min_value=1, max_value=7),
)
def test_a_fused_value_in_quotes_reads_without_them_in_any_chunking(
    name: str, value: str, sep: str, quote: str, size: int
) -> None:
    stream = f"!!!GADGET_START:g\n!!!ARG:{name}{sep}{quote}{value}{quote}\n!!!GADGET_END\n"
    (call,) = calls(run(GadgetCallParser(), split(stream, size)))
    (want,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:g\n!!!ARG:{name}\n{value}\n!!!GADGET_END\n"]))
    assert call.parameters == want.parameters and call.repairs == ("fused_argument",)


@given(
    st.dictionaries(_NAMES, _VALUES, min_size=0, max_size=3),
    st.sampled_from(["!!!\nGADGET_END", "!!!\nGADGET_END\n", "!!! \r\nGADGET_END\n\n", "!!\nGADGET_END\n"]),
    st.booleans(),
    st.lists(st.integers(min_value=0, max_value=200), max_size=20),
)
def test_an_end_marker_split_over_two_lines_ends_the_block_in_any_chunking(
    args: dict[str, str], end: str, then_another: bool, cuts: list[int]
) -> None:
    # Qwen2.5-Coder-1.5B ended each of three calls with "!!!" on one line and "GADGET_END" on the
    # next: the last value was read as '{"Math": 85, ...}\n!!!\nGADGET_END', no longer an object.
    body = "".join(f"!!!ARG:{k}\n{v}\n" for k, v in args.items()) if args else "Paris\n"
    after = "\n!!!GADGET_START:next\n!!!ARG:a\n1\n!!!GADGET_END\n" if then_another else ""
    stream = f"!!!GADGET_START:g\n{body}{end}{after}"
    got = calls(run(GadgetCallParser(), split_at(stream, cuts)))
    (want,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:g\n{body}!!!GADGET_END\n"]))
    assert (got[0].parameters, got[0].parameters_raw) == (want.parameters, want.parameters_raw)
    assert got[0].repairs == ("marker_spelling",)
    assert len(got) == 1 + then_another


@given(st.lists(st.integers(min_value=0, max_value=300), max_size=30))
def test_start_and_argument_markers_split_over_two_lines_read_as_theirs_in_any_chunking(cuts: list[int]) -> None:
    # Qwen2.5-Coder wrote "!!!" alone, then "GADGET_START:calculate_return_on_investment" (three
    # calls read as one) and "ARG:conditions/1/operation" (a value that swallowed an argument).
    stream = (
        "Here:\n!!!\nGADGET_START:roi\n!!!ARG:price\n150\n!!!\nGADGET_START:roi\n!!!ARG:price\n200\n"
        "!!!\nGADGET_START:query\n!!!ARG:conditions/0\nage\n!!!\nARG:conditions/1\njob\n!!!\nGADGET_END\nDone."
    )
    events = run(GadgetCallParser(), split_at(stream, cuts))
    got = [(c.gadget_name, c.parameters, c.repairs) for c in calls(events)]
    assert got == [
        ("roi", {"price": 150}, ("marker_spelling", "missing_end")),
        ("roi", {"price": 200}, ("marker_spelling", "missing_end")),
        ("query", {"conditions": ["age", "job"]}, ("marker_spelling", "marker_spelling", "marker_spelling")),
    ]
    assert text(events) == "Here:\n\nDone."  # as after an end marker written on one line


@pytest.mark.parametrize(
    "stream",
    [
        "!!!GADGET_START:g\n!!!ARG:text\nWow\n!!!\nGADGET_FINISH\n!!!GADGET_END\n",  # not a marker's word
        "!!!GADGET_START:g\n!!!ARG:text\nWow\n!!!\n GADGET_END\n!!!GADGET_END\n",  # not at the line start
        "!!!GADGET_START:g\n!!!ARG:text\nWow\n!!!!!!!\nGADGET_END\n!!!GADGET_END\n",  # a run too long
    ],
)
def test_a_run_alone_before_a_line_that_is_no_marker_word_stays_text(stream: str) -> None:
    (call,) = calls(run(GadgetCallParser(), split(stream, 3)))
    assert call.parameters == {"text": stream.split("\n", 2)[2].rsplit("\n!!!GADGET_END", 1)[0]}
    assert call.repairs == ()


def test_a_split_marker_in_the_middle_of_a_value_stays_its_text() -> None:
    stream = "!!!GADGET_START:g\n!!!ARG:text\nsee !!!\nGADGET_END\nbelow\n!!!GADGET_END\n"
    (call,) = calls(run(GadgetCallParser(), [stream]))
    assert call.parameters == {"text": "see !!!\nGADGET_END\nbelow"} and call.repairs == ()


@pytest.mark.parametrize(
    ("stream", "raw"),
    [
        # A value's last line of spaces, cut by the next start marker: blank, whether it came with
        # its newline or not (found by a random-stream search: one chunking kept the spaces).
        ("!!!GADGET_START:x\n!!!ARG:a\n1\n !!!GADGET_START:y", "!!!ARG:a\n1\n"),
        # Text after an argument line with no name, the same.
        ("!!!GADGET_START:x\n!!!ARG::!!!ARG:\n\t!!!GADGET_START:y", "!!!ARG::!!!ARG:\n"),
    ],
)
def test_a_blank_last_line_before_the_next_block_is_cut_in_any_chunking(stream: str, raw: str) -> None:
    for cut in range(1, len(stream)):
        got = calls(run(GadgetCallParser(), [stream[:cut], stream[cut:]]))
        assert got[0].parameters_raw == raw, cut
    assert calls(run(GadgetCallParser(), [stream]))[0].parameters_raw == raw
