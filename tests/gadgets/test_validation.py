"""From parsed calls to validated parameters, and the errors a model reads."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from llmist import ExecutionContext, Gadget, validate_gadget_params
from llmist.gadgets import InvalidParametersError, bind_call, validate_params
from llmist.syntax import GadgetCallEvent, GadgetCallParser, ParsedCall


class Item(BaseModel):
    name: str
    qty: int = 1


class Order(Gadget):
    description = "Place an order"

    class Params(BaseModel):
        code: str
        items: list[Item] = []
        tags: list[str] = []
        count: int = 1
        note: str | None = None

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return "ok"


class Write(Gadget):
    description = "Write a file"

    class Params(BaseModel):
        path: str
        mode: str = "w"
        content: Annotated[str, Field(json_schema_extra={"body": True})] = ""

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return "ok"


def block(raw: str, params: dict[str, object] | None = None) -> ParsedCall:
    return ParsedCall("Order", "o1", raw, params if params is not None else {}, None, ())


def emoji(name: str, raw_args: str, body: str | None) -> ParsedCall:
    return ParsedCall(name, "e1", body or "", None, None, (), syntax="emoji", raw_args=raw_args, body=body)


def test_block_string_field_keeps_leading_zeros() -> None:
    raw = bind_call(Order(), block("!!!ARG:code\n007", {"code": 7}))
    assert raw["code"] == "007"


def test_block_params_inside_markdown_fence_are_reparsed() -> None:
    raw = bind_call(Order(), block("```\n!!!ARG:code\n007\n```", {"code": 7}))
    assert raw["code"] == "007"


def test_custom_arg_prefix_is_used_for_reparsing() -> None:
    raw = bind_call(Order(), block("@@code\n007", {"code": 7}), arg_prefix="@@")
    assert raw["code"] == "007"


def test_parser_parameters_are_used_as_is_only_when_the_schema_would_agree() -> None:
    parser = GadgetCallParser()
    events = [
        *parser.feed("!!!GADGET_START:Order\n!!!ARG:code\nab\n!!!ARG:count\n3\n!!!GADGET_END"),
        *parser.finalize(),
    ]
    (call,) = [e.call for e in events if isinstance(e, GadgetCallEvent)]
    assert bind_call(Order(), call) == {"code": "ab", "count": 3}
    # A hand-made call whose parameters do not come from its raw text: the raw text wins.
    assert bind_call(Order(), block("!!!ARG:code\nxy\n!!!ARG:count\n4", {"code": "ab"})) == {"code": "xy", "count": 4}


def test_json_string_list_is_decoded() -> None:
    raw = bind_call(Order(), block("", {"code": "a", "tags": '["x", "y"]', "items": '[{"name": "n"}]'}))
    assert raw["tags"] == ["x", "y"]
    assert validate_params(Order(), raw).items[0].name == "n"  # type: ignore[attr-defined]


def test_invalid_json_for_list_stays_a_string_and_fails_validation() -> None:
    raw = bind_call(Order(), block("", {"code": "a", "tags": "[x"}))
    with pytest.raises(InvalidParametersError, match="tags"):
        validate_params(Order(), raw)


def test_trailing_carriage_return_is_dropped() -> None:
    raw = bind_call(Order(), block("", {"code": "abc\r"}))
    assert raw["code"] == "abc"


class Wave(Gadget):
    description = "Make a sound wave"

    class Params(BaseModel):
        kind: Literal["sine", "square", " padded "]
        label: str = ""

    def execute(self, params: Params, ctx: ExecutionContext) -> str:
        return "ok"


def test_a_choice_with_a_blank_line_after_it_is_that_choice() -> None:
    # Qwen2.5-Coder-1.5B left a blank line before the end marker: `sine` was "sine\n", refused.
    parser = GadgetCallParser()
    stream = "!!!GADGET_START:Wave\n!!!ARG:label\nA\n\n!!!ARG:kind\nsine\n\n!!!GADGET_END\n"
    (call,) = [e.call for e in [*parser.feed(stream), *parser.finalize()] if isinstance(e, GadgetCallEvent)]
    raw = bind_call(Wave(), call)
    assert raw == {"label": "A\n", "kind": "sine"}  # a string keeps its newline: it may mean it
    assert validate_params(Wave(), bind_call(Wave(), block("", {"kind": " square\t"}))).kind == "square"  # type: ignore[attr-defined]
    assert bind_call(Wave(), block("", {"kind": " padded "}))["kind"] == " padded "  # a choice as written
    with pytest.raises(InvalidParametersError, match="kind"):
        validate_params(Wave(), bind_call(Wave(), block("", {"kind": "sine wave"})))


def test_defaults_are_applied() -> None:
    result = validate_gadget_params(Order, {"code": "a"})
    assert result.success
    assert result.data == {"code": "a", "items": [], "tags": [], "count": 1, "note": None}


def test_validation_error_names_field_value_and_expectation() -> None:
    result = validate_gadget_params(Order, {"code": "a", "count": "many"})
    assert not result.success
    assert result.error is not None
    assert "- count: Input should be a valid integer" in result.error
    assert '(got "many")' in result.error
    assert "Expected parameters:\n- code (string, required)" in result.error


def test_missing_field_is_reported_as_required() -> None:
    result = validate_gadget_params(Order, {})
    assert result.error is not None and "- code: missing (required)" in result.error


def test_parse_error_shows_error_and_expected_format() -> None:
    call = ParsedCall("Order", "o1", "", None, "Duplicate pointer: code", ())
    with pytest.raises(InvalidParametersError) as info:
        bind_call(Order(), call)
    assert "Duplicate pointer: code" in str(info.value)
    assert "!!!ARG:<name>" in str(info.value)


def test_emoji_positional_args_fill_fields_in_order_and_body_fills_body_field() -> None:
    raw = bind_call(Write(), emoji("Write", "script.py a", 'print("hi")\n'))
    assert raw == {"path": "script.py", "mode": "a", "content": 'print("hi")'}


def test_emoji_body_fills_last_unfilled_string_field_without_marker() -> None:
    raw = bind_call(Order(), emoji("Order", "A1", "remember the milk\n"))
    assert raw == {"code": "A1", "note": "remember the milk"}


def test_emoji_named_args_and_quoting() -> None:
    raw = bind_call(Write(), emoji("Write", "'my file.txt' mode=a", ""))
    assert raw["path"] == "my file.txt" and raw["mode"] == "a"


def test_emoji_list_field_accepts_comma_separated_values() -> None:
    raw = bind_call(Order(), emoji("Order", "A1 tags=x,y", None))
    assert raw["tags"] == ["x", "y"]


def test_emoji_bad_quoting_is_a_clear_error() -> None:
    with pytest.raises(InvalidParametersError, match="close every quote"):
        bind_call(Write(), emoji("Write", "'unclosed", None))


def test_emoji_too_many_positional_args_is_an_error() -> None:
    with pytest.raises(InvalidParametersError, match="positional arguments"):
        bind_call(Write(), emoji("Write", "a b c d", None))
