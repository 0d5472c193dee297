"""The call grammars (llmist.syntax.grammar): what they accept, checked with a small GBNF matcher.

Properties: every call llmist's writer produces for valid parameters is accepted, with prose
around it; prose never swallows a call; what the grammar forces (names, required parameters,
typed values) is refused when broken.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llmist.syntax import EmojiCallParser, GadgetCallParser
from llmist.syntax.grammar import MAX_REPEATED_CALLS, GrammarTool, block_grammar, call_grammar, emoji_grammar
from llmist.syntax.writing import quote_argument, write_block_call, write_emoji_call
from tests.syntax.gbnf_match import Grammar
from tests.syntax.helpers import run

ADD = GrammarTool(
    "add",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "number"}, "note": {"type": "string"}},
        "required": ["a", "b"],
    },
)
WEATHER = GrammarTool(
    "get_weather",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "days": {"type": "array", "items": {"type": "integer"}},
            "opts": {
                "type": "object",
                "properties": {"hourly": {"type": "boolean"}, "lang": {"type": "string"}},
                "required": ["hourly"],
            },
        },
        "required": ["city"],
    },
    body="city",
)
TOOLS = [ADD, WEATHER]
BLOCK = Grammar(block_grammar(TOOLS))
EMOJI = Grammar(emoji_grammar(TOOLS))


# --- block ----------------------------------------------------------------------------------


def test_an_answer_without_any_call_is_accepted() -> None:
    assert BLOCK.accepts("None of the tools can answer that.\nSorry!")
    assert BLOCK.accepts("")


def test_a_well_formed_call_with_prose_around_it_is_accepted() -> None:
    call = write_block_call("add", {"a": 3, "b": 4.5, "note": "two\nlines"})
    assert BLOCK.accepts(f"Let me add.\n{call}\nDone.")


def test_ids_and_dependencies_in_the_header_stay_allowed() -> None:
    call = write_block_call("add", {"a": 1, "b": 2}, invocation_id="first", deps=("x", "y"))
    assert BLOCK.accepts(call)


@pytest.mark.parametrize(
    "text",
    [
        "!!!GADGET_START:ad\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END",  # unknown gadget
        "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!GADGET_END",  # required b missing
        "!!!GADGET_START:add\n3\n4\n!!!GADGET_END",  # values without argument lines
        "!!!GADGET_START:add\n!!!ARG:a\nthree\n!!!ARG:b\n2\n!!!GADGET_END",  # not an integer
        "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!ARG:c\n3\n!!!GADGET_END",  # unknown parameter
        "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n",  # never closed
        "!!!GADGET_START:get_weather\n!!!ARG:city\nParis\n!!!ARG:unit\nkelvin\n!!!GADGET_END",  # not in the enum
        "!!!GADGET_START:get_weather\n!!!ARG:city\nParis\n!!!ARG:days/1\n3\n!!!GADGET_END",  # index gap
        "!!!GADGET_START:get_president_and_vp:1980\n!!!GADGET_END",  # a value in the id slot
    ],
)
def test_a_broken_call_is_refused(text: str) -> None:
    assert not BLOCK.accepts(text)


@pytest.mark.parametrize(
    "prose",
    [
        "Note: !!!GADGET_START:add and more",  # the exact marker mid-line is a call to the parser
        "!!GADGET_START:add",  # a misspelled marker at a line start is one too
        "!oops",  # a line starting with the marker character
    ],
)
def test_prose_cannot_hold_what_the_parser_reads_as_a_call(prose: str) -> None:
    assert not BLOCK.accepts(prose)


def test_a_value_line_cannot_start_a_marker_but_an_escaped_one_can() -> None:
    head = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!ARG:note\n"
    assert not BLOCK.accepts(head + "!ARG:x\n!!!GADGET_END")
    assert BLOCK.accepts(head + "\\!ARG:x\n!!!GADGET_END")


def test_nested_objects_and_arrays_as_pointers_or_json() -> None:
    pointers = write_block_call("get_weather", {"city": "Paris", "days": [1, 2], "opts": {"hourly": True}})
    assert BLOCK.accepts(pointers)
    as_json = "!!!GADGET_START:get_weather\n!!!ARG:city\nParis\n!!!ARG:days\n[1, 2]\n!!!GADGET_END"
    assert BLOCK.accepts(as_json)
    missing = "!!!GADGET_START:get_weather\n!!!ARG:city\nParis\n!!!ARG:opts/lang\nfr\n!!!GADGET_END"
    assert not BLOCK.accepts(missing)  # opts/hourly is required inside opts


def test_an_alias_names_the_tool_alone_on_its_header_line() -> None:
    grammar = Grammar(block_grammar([dataclasses.replace(ADD, aliases=("sum",)), WEATHER]))
    assert grammar.accepts("!!!GADGET_START:sum\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END")
    assert not grammar.accepts("!!!GADGET_START:sum:s1\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END")  # no id
    assert not grammar.accepts("!!!GADGET_START:sum\n!!!ARG:city\nParis\n!!!GADGET_END")  # add's parameters
    assert not BLOCK.accepts("!!!GADGET_START:sum\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END")  # none asked


def test_repeats_take_the_required_parameters_again_only_for_scalars() -> None:
    grammar = Grammar(block_grammar([dataclasses.replace(t, repeats=True) for t in TOOLS]))
    twice = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!ARG:note\nx\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!GADGET_END"
    assert grammar.accepts(twice) and not BLOCK.accepts(twice)
    assert not grammar.accepts(twice.replace("!!!ARG:b\n4\n", ""))
    assert not grammar.accepts(twice.replace("!!!GADGET_END", "!!!ARG:note\ny\n!!!GADGET_END"))
    numbered = "!!!GADGET_START:add\n!!!ARG:a1\n1\n!!!ARG:b1\n2\n!!!ARG:a2\n3\n!!!ARG:b2\n4\n!!!GADGET_END"
    assert grammar.accepts(numbered) and not BLOCK.accepts(numbered)
    assert not grammar.accepts(numbered.replace("a2", "a3").replace("b2", "b3"))  # from 1, in order
    # A model looping on a call's lines reaches the end marker after MAX_REPEATED_CALLS calls.
    for lines in ("!!!ARG:a\n{n}\n!!!ARG:b\n2\n", "!!!ARG:a{n}\n1\n!!!ARG:b{n}\n2\n"):
        calls = [lines.format(n=n + 1) for n in range(MAX_REPEATED_CALLS + 1)]
        assert grammar.accepts(f"!!!GADGET_START:add\n{''.join(calls[:-1])}!!!GADGET_END")
        assert not grammar.accepts(f"!!!GADGET_START:add\n{''.join(calls)}!!!GADGET_END")
    # get_weather takes a list and an object: a repetition of it would not read as one call each.
    assert not grammar.accepts("!!!GADGET_START:get_weather\n!!!ARG:city\nA\n!!!ARG:city\nB\n!!!GADGET_END")


def test_open_ends_close_a_call_at_the_next_call_or_the_answers_end() -> None:
    grammar = Grammar(block_grammar(TOOLS, open_ends=True))
    first = "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n"
    second = "!!!GADGET_START:get_weather\n!!!ARG:city\nParis\n"
    for text in (first + second + "!!!GADGET_END", first + "\n" + second, first, "Sure.\n" + first + "\n"):
        assert grammar.accepts(text) and not BLOCK.accepts(text), text
    assert grammar.accepts(first + "!!!GADGET_END\nDone.")  # closed calls stay as they were
    assert not grammar.accepts(first + "Done.")  # after an integer, prose is no value
    assert not grammar.accepts(first + "\n\n" + second)  # one blank line at most between calls
    assert not grammar.accepts(first[:-1])  # the answer ends at a line's end, not inside a value


def test_custom_markers() -> None:
    grammar = Grammar(block_grammar([ADD], start_prefix="<<CALL ", end_prefix="<<END", arg_prefix="<<ARG "))
    text = write_block_call("add", {"a": 1, "b": 2}, start_prefix="<<CALL ", end_prefix="<<END", arg_prefix="<<ARG ")
    assert grammar.accepts(f"Sure.\n{text}\n")
    assert not grammar.accepts("x <<CALL add")


def test_markers_on_more_than_one_line_are_refused() -> None:
    with pytest.raises(ValueError, match="one line"):
        block_grammar([ADD], start_prefix="A\nB")


def test_native_needs_no_grammar() -> None:
    with pytest.raises(ValueError, match="native needs none"):
        call_grammar("native", [ADD])  # type: ignore[arg-type]


# --- emoji ----------------------------------------------------------------------------------


def test_emoji_call_with_named_arguments_and_a_body() -> None:
    call = write_emoji_call("get_weather", ["unit=celsius", "days=1,2"], "Paris")
    assert EMOJI.accepts(f"Checking.\n{call}\nThat is all.")
    assert EMOJI.accepts('🛠️[add a=1 b=2.5 note="two words"]\n🛠️[/end]')


@pytest.mark.parametrize(
    "text",
    [
        "🛠️[add 1 2]\n🛠️[/end]",  # positional: not the forced form
        "🛠️[add a=1]\n🛠️[/end]",  # b missing
        "🛠️[sub a=1 b=2]\n🛠️[/end]",  # unknown gadget
        "🛠️[get_weather unit=kelvin]\nParis\n🛠️[/end]",  # not in the enum
        "🛠️[get_weather]\nParis",  # never closed
        "🛠️[add a=1 b=2]\nbody\n🛠️[/end]",  # add has no body field
        "text 🛠[add a=1 b=2]\n🛠️[/end]",  # the marker without U+FE0F is a call to the parser
    ],
)
def test_a_broken_emoji_call_is_refused(text: str) -> None:
    assert not EMOJI.accepts(text)


# --- properties -----------------------------------------------------------------------------

_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
_LINE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\n\r]"), max_size=12)


@st.composite
def _schemas(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A flat-or-nested object schema and valid parameters for it."""
    names = draw(st.lists(_NAMES, min_size=0, max_size=4, unique=True))
    properties: dict[str, Any] = {}
    params: dict[str, Any] = {}
    required = []
    for name in names:
        kind = draw(st.sampled_from(["string", "integer", "number", "boolean", "enum", "array", "object"]))
        if kind == "string":
            properties[name], value = {"type": "string"}, draw(_TEXT)
        elif kind == "integer":
            properties[name], value = {"type": "integer"}, draw(st.integers(-(10**6), 10**6))
        elif kind == "number":
            properties[name] = {"type": "number"}
            value = draw(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False) | st.integers(-99, 99))
        elif kind == "boolean":
            properties[name], value = {"type": "boolean"}, draw(st.booleans())
        elif kind == "enum":
            options = draw(st.lists(_NAMES, min_size=1, max_size=4, unique=True))
            properties[name], value = {"enum": options}, draw(st.sampled_from(options))
        elif kind == "array":
            properties[name] = {"type": "array", "items": {"type": "integer"}}
            value = draw(st.lists(st.integers(-9, 9), min_size=1, max_size=5))
        else:
            properties[name] = {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
                "required": ["x"],
            }
            value = {"x": draw(st.integers(0, 9))} | ({"y": "why"} if draw(st.booleans()) else {})
        if draw(st.booleans()):
            required.append(name)
            params[name] = value
        elif draw(st.booleans()):
            params[name] = value
    return {"type": "object", "properties": properties, "required": required}, params


def _blockable(params: dict[str, Any]) -> bool:
    """Whether the writer can write these values (no marker inside, which it refuses)."""
    try:
        write_block_call("t", params)
    except ValueError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas(), _NAMES, st.sampled_from(["", "Sure, here it is.\n", "a\n\nb\n"]))
def test_every_block_call_the_writer_writes_is_accepted(case: Any, name: str, before: str) -> None:
    schema, params = case
    if not _blockable(params):
        return
    grammar = Grammar(block_grammar([GrammarTool(name, schema)]))
    text = before + write_block_call(name, params)
    assert grammar.accepts(text), text
    # And the parser reads that text as one well-formed call.
    calls = [e.call for e in run(GadgetCallParser(), [text]) if e.type == "gadget_call"]
    assert len(calls) == 1 and calls[0].parse_error is None


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas(), _NAMES, st.lists(st.booleans(), min_size=1, max_size=3), st.booleans())
def test_calls_left_open_are_accepted_and_read_as_written(
    case: Any, name: str, blank_lines: list[bool], last_closed: bool
) -> None:
    """Calls whose end markers are left out (a blank line or none before the next call or the
    answer's end; the last call closed or not) are accepted with ``open_ends``, and the parser
    reads each with the parameters of the same call closed, as the ``missing_end`` repair."""
    schema, params = case
    if not _blockable(params) or any(isinstance(v, str) and v.endswith("\n") for v in params.values()):
        return  # a value's last newline is written as a blank line, which an open end drops
    closed = write_block_call(name, params)
    opened = closed.removesuffix("!!!GADGET_END")
    parts = [opened + ("\n" if blank else "") for blank in blank_lines]
    text = "".join(parts[:-1]) + (closed if last_closed else parts[-1])
    assert Grammar(block_grammar([GrammarTool(name, schema)], open_ends=True)).accepts(text), text
    expected = next(e.call.parameters for e in run(GadgetCallParser(), [closed]) if e.type == "gadget_call")
    calls = [e.call for e in run(GadgetCallParser(), [text]) if e.type == "gadget_call"]
    assert [c.parameters for c in calls] == [expected] * len(blank_lines)


@settings(max_examples=150, deadline=None)
@given(_TEXT)
def test_block_prose_the_grammar_accepts_holds_no_call(prose: str) -> None:
    if BLOCK.accepts(prose):
        assert not [e for e in run(GadgetCallParser(), [prose]) if e.type == "gadget_call"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["🛠", "\ufe0f", "[", "/end]", "a", "\n", " "]), max_size=20).map("".join))
def test_emoji_prose_the_grammar_accepts_holds_no_call(prose: str) -> None:
    if EMOJI.accepts(prose):
        assert not [e for e in run(EmojiCallParser(), [prose]) if e.type == "gadget_call"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(_NAMES, st.sampled_from(["string", "integer", "boolean"]), _LINE), max_size=4),
    st.one_of(st.none(), _TEXT),
)
def test_every_emoji_call_with_named_arguments_is_accepted(fields: Any, body: str | None) -> None:
    properties: dict[str, Any] = {}
    args = []
    for name, kind, text in fields:
        if name in properties or name == "body":
            continue
        properties[name] = {"type": kind}
        value = {"string": text, "integer": str(len(text)), "boolean": "true"}[kind]
        args.append(f"{name}={quote_argument(value)}")
    if body is not None:
        properties["body"] = {"type": "string"}
    tool = GrammarTool("tool", {"type": "object", "properties": properties}, body="body" if body is not None else None)
    # The writer quotes whole tokens; a named argument quotes its value (`key="two words"`).
    text = write_emoji_call("tool", [], body).replace("[tool]", "[" + " ".join(["tool", *args]) + "]", 1)
    assert Grammar(emoji_grammar([tool])).accepts(text), text
