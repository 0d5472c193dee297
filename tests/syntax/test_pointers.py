"""parse_block_params: pointers, arrays, coercion, schema-aware coercion, errors."""

from __future__ import annotations

from typing import Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from llmist.syntax import BlockParseError, parse_block_params
from llmist.syntax.pointers import coercion_agrees


def test_simple_parameters_are_coerced() -> None:
    content = "!!!ARG:filename\ncalculator.ts\n!!!ARG:count\n42\n!!!ARG:ratio\n3.14\n!!!ARG:ok\ntrue"
    assert parse_block_params(content) == {"filename": "calculator.ts", "count": 42, "ratio": 3.14, "ok": True}


def test_nested_objects_and_arrays_of_objects() -> None:
    content = (
        "!!!ARG:users/0/name\nAlice\n!!!ARG:users/0/age\n25\n"
        "!!!ARG:users/1/name\nBob\n!!!ARG:users/1/age\n30\n!!!ARG:config/timeout\n30\n"
    )
    assert parse_block_params(content) == {
        "users": [{"name": "Alice", "age": 25}, {"name": "Bob", "age": 30}],
        "config": {"timeout": 30},
    }


def test_deeply_nested_structure_from_the_reference() -> None:
    content = (
        "!!!ARG:data/settings/notifications/email/enabled\ntrue\n"
        "!!!ARG:data/settings/notifications/email/frequency\ndaily\n"
    )
    assert parse_block_params(content) == {
        "data": {"settings": {"notifications": {"email": {"enabled": True, "frequency": "daily"}}}}
    }


def test_multiline_values_are_never_coerced_and_lose_one_trailing_newline() -> None:
    content = "!!!ARG:code\n42\n43\n\n!!!ARG:n\n7\n"
    assert parse_block_params(content) == {"code": "42\n43\n", "n": 7}


def test_numeric_edge_cases_without_schema() -> None:
    values = {"a": "-17", "b": "007", "c": "1e5", "d": "+7", "e": "1.", "f": " 42 ", "g": "3.0"}
    content = "".join(f"!!!ARG:{k}\n{v}\n" for k, v in values.items())
    assert parse_block_params(content) == {"a": -17, "b": 7, "c": "1e5", "d": "+7", "e": "1.", "f": 42, "g": 3.0}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("!!!ARG:name\nAlice\n!!!ARG:name\nBob\n", "Duplicate pointer: name"),
        ("!!!ARG:items/0\nfirst\n!!!ARG:items/2\nthird\n", "Array index gap: expected 1, got 2"),
        ("!!!ARG:paths/0\na\n!!!ARG:paths/first\nb\n", "Invalid array index: first"),
    ],
)
def test_the_three_error_messages(content: str, message: str) -> None:
    with pytest.raises(BlockParseError) as info:
        parse_block_params(content)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_value_inside_a_scalar_is_a_clear_error() -> None:
    with pytest.raises(BlockParseError, match="already holds a value"):
        parse_block_params("!!!ARG:a\nx\n!!!ARG:a/b\ny\n")


def test_custom_arg_prefix() -> None:
    assert parse_block_params("@param:a\n5\n@param:b\nx\n", arg_prefix="@param:") == {"a": 5, "b": "x"}


class Inner(BaseModel):
    code: str
    limit: int


class Params(BaseModel):
    id: str
    amount: float
    flag: bool
    maybe: Optional[str] = None  # noqa: UP045 - Optional[X] must count as X
    inner: Inner
    tags: list[str] = []


def test_schema_keeps_strings_and_coerces_numbers() -> None:
    content = (
        "!!!ARG:id\n007\n!!!ARG:amount\n1e3\n!!!ARG:flag\ntrue\n!!!ARG:maybe\n12\n"
        "!!!ARG:inner/code\n0042\n!!!ARG:inner/limit\n 5 \n!!!ARG:tags/0\ntrue\n"
    )
    got = parse_block_params(content, schema=Params)
    assert got == {
        "id": "007",
        "amount": 1000.0,
        "flag": True,
        "maybe": "12",
        "inner": {"code": "0042", "limit": 5},
        "tags": ["true"],
    }


def test_schema_bool_field_only_takes_true_or_false() -> None:
    assert parse_block_params("!!!ARG:flag\nyes\n", schema=Params) == {"flag": "yes"}


def test_json_schema_dict_with_refs() -> None:
    schema = Params.model_json_schema()
    assert parse_block_params("!!!ARG:inner/code\n1\n!!!ARG:id\n2\n", schema=schema) == {
        "inner": {"code": "1"},
        "id": "2",
    }


def test_unknown_paths_and_unions_fall_back_to_schema_less_coercion() -> None:
    schema = {"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}
    assert parse_block_params("!!!ARG:u\n5\n!!!ARG:other\n6\n", schema=schema) == {"u": 5, "other": 6}


_FIELD_TYPES = {
    "string": {"type": "string"},
    "number": {"type": "number"},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
    "unknown": {},
    "list": {"type": "array", "items": {"type": "string"}},
}
_VALUES = st.sampled_from(
    ["3", "-2", "0.5", "1e3", "+5", " 7 ", "true", "false", "True", "yes", "", "a\nb", "12\n", "x"]
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d/e", "f/0"]),
        st.tuples(st.sampled_from(list(_FIELD_TYPES)), _VALUES),
        min_size=1,
        max_size=4,
    )
)
def test_coercion_agrees_only_when_a_schema_aware_parse_gives_the_same(fields: dict[str, tuple[str, str]]) -> None:
    schema = {"type": "object", "properties": {p.split("/")[0]: _FIELD_TYPES[t] for p, (t, _) in fields.items()}}
    content = "".join(f"!!!ARG:{p}\n{v}\n" for p, (_, v) in fields.items())
    try:
        plain = parse_block_params(content)
    except BlockParseError:
        return
    if coercion_agrees(plain, schema):
        assert parse_block_params(content, schema=schema) == plain


def test_coercion_agrees_for_the_common_cases() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}
    assert coercion_agrees({"n": 3, "s": "hello"}, schema)
    assert not coercion_agrees({"n": 3, "s": 42}, schema)  # the schema keeps "42" a string
    assert not coercion_agrees({"n": "1e3", "s": "x"}, schema)  # the schema makes 1e3 a number
    assert not coercion_agrees({"n": {"x": 1}}, schema)  # nested values: not decided here
