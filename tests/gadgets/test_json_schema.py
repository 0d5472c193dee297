"""Gadgets whose schema is a JSON-schema dict (as MCP tools give): validation, binding, rendering."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmist import Agent, GadgetError, create_gadget, test_gadget
from llmist.testing import MockModel

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "timezone": {"type": "string", "description": "IANA time zone name"},
        "count": {"type": "integer", "default": 3},
        "from": {"type": "string", "description": "a Python keyword as a name"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "mode": {"enum": ["fast", "slow"]},
        "place": {"$ref": "#/$defs/Place"},
    },
    "required": ["timezone"],
    "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
}


def echo(params: dict[str, Any]) -> str:
    return repr(params)


GADGET = create_gadget(name="lookup", description="Look a time up.", schema=SCHEMA, execute=echo)


def test_dict_schema_gadget_receives_the_arguments_given_under_their_json_names() -> None:
    out = test_gadget(GADGET, {"timezone": "UTC", "from": "x", "count": "5", "place": {"city": "Oslo"}})
    assert out.error is None
    assert out.result == repr({"timezone": "UTC", "count": 5, "from": "x", "place": {"city": "Oslo"}})


def test_dict_schema_gadget_receives_the_schema_defaults_of_arguments_not_given() -> None:
    out = test_gadget(GADGET, {"timezone": "UTC"})
    assert out.result == repr({"timezone": "UTC", "count": 3})  # optional fields with no default stay absent


def test_dict_schema_defaults_are_filled_in_nested_objects_too() -> None:
    schema = {
        "type": "object",
        "properties": {
            "place": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zoom": {"type": "integer", "default": 10}},
                "required": ["city"],
            },
            "places": {
                "type": "array",
                "items": {"type": "object", "properties": {"city": {"type": "string"}, "pin": {"default": True}}},
            },
        },
    }
    gadget = create_gadget(name="map", description="Show a map.", schema=schema, execute=echo)
    out = test_gadget(gadget, {"place": {"city": "Oslo"}, "places": [{"city": "Rome"}]})
    assert out.result == repr({"place": {"city": "Oslo", "zoom": 10}, "places": [{"city": "Rome", "pin": True}]})


def test_dict_schema_gadget_names_missing_and_wrong_fields() -> None:
    out = test_gadget(GADGET, {"count": "many", "mode": "medium"})
    assert out.error is not None
    assert "timezone: missing (required)" in out.error
    assert "- count:" in out.error
    assert "- mode:" in out.error


def test_dict_schema_renders_descriptions_and_defaults_in_the_prompt() -> None:
    prompt = Agent(model="mock", gadgets=[GADGET]).system_prompt
    assert "- timezone (string, required): IANA time zone name" in prompt
    assert "- count (integer, default 3)" in prompt
    assert "- from (string): a Python keyword as a name" in prompt


async def test_block_call_binds_to_a_dict_schema_with_schema_aware_coercion() -> None:
    answer = "!!!GADGET_START:lookup\n!!!ARG:timezone\n007\n!!!ARG:tags/0\na\n!!!GADGET_END"
    result = await Agent(model=MockModel([answer, "done"]), gadgets=[GADGET]).run("go")
    assert result.gadget_results[0].result == repr({"timezone": "007", "count": 3, "tags": ["a"]})


async def test_emoji_call_fills_dict_schema_fields_in_order_and_body_last_string() -> None:
    answer = "🛠️[lookup Europe/Oslo 4]\nbody text\n🛠️[/end]"
    result = await Agent(model=MockModel([answer, "done"]), gadgets=[GADGET], syntax="emoji").run("go")
    assert result.gadget_results[0].result == repr({"timezone": "Europe/Oslo", "count": 4, "from": "body text"})


def test_dict_schema_must_describe_an_object() -> None:
    with pytest.raises(GadgetError, match="type 'object'"):
        create_gadget(name="bad", description="d", schema={"type": "string"}, execute=echo)


_KINDS = {
    # Binding drops one trailing "\r" from a string (CRLF answers), so such strings do not arrive unchanged.
    "string": st.text(max_size=20).filter(lambda t: not t.endswith("\r")),
    "integer": st.integers(-(10**9), 10**9),
    "number": st.floats(allow_nan=False, allow_infinity=False, width=32),
    "boolean": st.booleans(),
}
_PROP_NAMES = st.text(alphabet="abcxyz_-0 ", min_size=1, max_size=8).filter(lambda n: n.strip() == n)


@st.composite
def schema_and_arguments(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    names = draw(st.lists(_PROP_NAMES, min_size=1, max_size=5, unique=True))
    kinds = [draw(st.sampled_from(sorted(_KINDS))) for _ in names]
    properties = {n: {"type": k} for n, k in zip(names, kinds, strict=True)}
    arguments = {n: draw(_KINDS[k]) for n, k in zip(names, kinds, strict=True) if draw(st.booleans())}
    return {"type": "object", "properties": properties}, arguments


@settings(max_examples=60, deadline=None)
@given(schema_and_arguments())
def test_any_valid_arguments_reach_execute_unchanged_under_their_json_names(
    case: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    schema, arguments = case
    seen: list[dict[str, Any]] = []
    built = create_gadget(name="g", description="d", schema=schema, execute=lambda p: str(seen.append(p)))
    out = test_gadget(built, arguments)
    assert out.error is None
    assert seen == [arguments]
