"""How llmist writes a list in the block syntax: a list of plain values is one line of JSON,
everything else pointer paths, and every call it writes binds back to the values it was given."""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from llmist import Agent, ExecutionContext, Gadget, GadgetExample
from llmist.gadgets import bind_call, render_call, render_gadget, validate_params
from llmist.syntax import GadgetCallEvent, GadgetCallParser, ParsedCall
from llmist.testing import MockModel


class Row(BaseModel):
    name: str
    tags: list[str] = []


class Inner(BaseModel):
    tags: list[str]


class HistParams(BaseModel):
    data: list[int]
    weights: list[float] | None = None
    labels: list[str] = []
    flags: list[bool] = []
    colors: list[Literal["red", "blue"]] = []
    inner: Inner | None = None
    rows: list[Row] = []
    loose: list[Any] = []


class Hist(Gadget):
    description = "Draw a histogram"
    Params = HistParams
    examples = (GadgetExample({"data": [12, 15, 11], "rows": [{"name": "a", "tags": ["x", "y"]}]}),)

    def execute(self, params: HistParams, ctx: ExecutionContext) -> str:
        return "ok"


def bound(text: str) -> HistParams:
    parser = GadgetCallParser()
    events = [*parser.feed(text), *parser.finalize()]
    calls: list[ParsedCall] = [e.call for e in events if isinstance(e, GadgetCallEvent)]
    assert len(calls) == 1, text
    params = validate_params(Hist(), bind_call(Hist(), calls[0]))
    assert isinstance(params, HistParams)
    return params


def test_a_list_of_plain_values_is_one_line_of_json() -> None:
    text = render_call(Hist(), {"data": [12, 15, 11], "labels": ["a, b", "c"], "colors": ["red"]})
    assert text == (
        "!!!GADGET_START:Hist\n!!!ARG:data\n[12, 15, 11]\n!!!ARG:labels\n"
        '["a, b", "c"]\n!!!ARG:colors\n["red"]\n!!!GADGET_END'
    )


def test_lists_of_objects_and_of_unknown_values_keep_their_paths() -> None:
    text = render_call(Hist(), {"data": [1], "rows": [{"name": "a", "tags": ["x"]}], "loose": [1, "b"]})
    assert '!!!ARG:rows/0/name\na\n!!!ARG:rows/0/tags\n["x"]\n' in text
    # A field of unknown item type keeps a JSON line as a string, so its items stay paths.
    assert "!!!ARG:loose/0\n1\n!!!ARG:loose/1\nb\n" in text


def test_the_prompt_teaches_lists_as_one_line_of_json() -> None:
    prompt = Agent(model="mock", gadgets=[Hist]).system_prompt
    # The form shown first is the gadget's own example, written as a model should write it.
    assert "For example, to call Hist with data=[12, 15, 11]" in prompt
    assert "!!!ARG:data\n[12, 15, 11]\n" in prompt
    assert "A list of plain values is one line of JSON" in prompt
    assert "!!!ARG:data\n[12, 15, 11]\n" in render_gadget(Hist())


def test_a_value_with_a_marker_is_still_refused() -> None:
    try:
        render_call(Hist(), {"data": [1], "labels": ["say !!!GADGET_END"]})
    except ValueError as exc:
        assert "!!!GADGET_END" in str(exc)
    else:
        raise AssertionError("a marker inside a list item was written")


texts = st.text(max_size=8)
plain = st.fixed_dictionaries(
    {"data": st.lists(st.integers(-(10**20), 10**20), max_size=5)},
    optional={
        "weights": st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=4),
        "labels": st.lists(texts, max_size=4),
        "flags": st.lists(st.booleans(), max_size=3),
        "colors": st.lists(st.sampled_from(["red", "blue"]), max_size=3),
        "inner": st.builds(lambda tags: {"tags": tags}, st.lists(texts, max_size=3)),
        "rows": st.lists(st.fixed_dictionaries({"name": texts, "tags": st.lists(texts, max_size=3)}), max_size=3),
    },
)


@settings(max_examples=300, deadline=None)
@given(params=plain)
def test_every_call_written_binds_back_to_its_values(params: dict[str, Any]) -> None:
    try:
        text = render_call(Hist(), params)
    except ValueError:  # a value holding a marker: no block can hold it
        assume(False)
    expected = HistParams.model_validate(params)
    assert bound(text) == expected


async def test_a_repeated_failure_shows_lists_as_the_prompt_teaches() -> None:
    # `bins` is no parameter of Hist: the call fails twice, and the second answer shows the
    # call as read and as it would run, each list on one line of JSON.
    wrong = (
        '!!!GADGET_START:Hist\n!!!ARG:data/0\n1\n!!!ARG:data/1\n2\n!!!ARG:labels\n["a"]\n'
        "!!!ARG:bins\nfive\n!!!GADGET_END"
    )
    result = await Agent(model=MockModel([wrong, wrong, "done"]), gadgets=[Hist]).run("draw")
    second = [m.text for m in result.messages if m.role == "gadget_result"][-1]
    assert 'llmist read your call as:\n!!!GADGET_START:Hist\n!!!ARG:data\n[1, 2]\n!!!ARG:labels\n["a"]\n' in second
    assert "this call runs:\n!!!GADGET_START:Hist\n!!!ARG:data\n[1, 2]\n" in second
