"""The remaining examples and rules of the block-format and emoji specs, one test each."""

from __future__ import annotations

from typing import Any

import pytest

from llmist.syntax import EmojiCallParser, GadgetCallParser, parse_block_params

from .helpers import calls, run, split, text


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("filename", {"filename": "v"}),
        ("config/timeout", {"config": {"timeout": "v"}}),
        ("items/0", {"items": ["v"]}),
        ("items/0/name", {"items": [{"name": "v"}]}),
    ],
)
def test_pointer_table(pointer: str, expected: dict[str, Any]) -> None:
    assert parse_block_params(f"!!!ARG:{pointer}\nv") == expected


def test_arrays_example() -> None:
    content = "!!!ARG:items/0\nfirst\n!!!ARG:items/1\nsecond\n!!!ARG:items/2\nthird\n"
    assert parse_block_params(content) == {"items": ["first", "second", "third"]}


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("false", False), ("42", 42), ("3.14", 3.14), ("-17", -17), ("hello", "hello")],
)
def test_coercion_table(value: str, expected: object) -> None:
    got = parse_block_params(f"!!!ARG:v\n{value}\n")["v"]
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("marker", ["!!!gadget_start:", "!!!Gadget_Start:", "!!GADGET_START:"])
def test_markers_are_case_sensitive_and_exact_in_typescript_compatible_mode(marker: str) -> None:
    stream = f"{marker}Calculator\n!!!ARG:a\n5\n!!!GADGET_END\n"
    events = run(GadgetCallParser(typescript_compat=True), split(stream, 3))
    assert calls(events) == [] and text(events) == stream


@pytest.mark.parametrize("marker", ["!!!gadget_start:", "!!!Gadget_Start:", "Note: !!GADGET_START:"])
def test_markers_are_case_sensitive_and_a_wrong_count_of_marks_counts_only_at_a_line_start(marker: str) -> None:
    stream = f"{marker}Calculator\n!!!ARG:a\n5\n!!!GADGET_END\n"
    events = run(GadgetCallParser(), split(stream, 3))
    assert calls(events) == [] and text(events) == stream


def test_lowercase_arg_marker_is_part_of_the_value() -> None:
    (call,) = calls(run(GadgetCallParser(), ["!!!GADGET_START:A\n!!!ARG:a\n5\n!!!Arg:b\n6\n!!!GADGET_END"]))
    assert call.parameters == {"a": "5\n!!!Arg:b\n6"}


def test_file_writing_example_keeps_code_verbatim() -> None:
    code = "export class Calculator {\n  add(a: number, b: number): number {\n    return a + b;\n  }\n}"
    head = "!!!GADGET_START:WriteFile\n!!!ARG:filePath\nsrc/utils/calculator.ts\n!!!ARG:content\n"
    stream = f"{head}{code}\n!!!GADGET_END"
    (call,) = calls(run(GadgetCallParser(), split(stream, 11)))
    assert call.parameters == {"filePath": "src/utils/calculator.ts", "content": code}


def test_emoji_run_query_header() -> None:
    (call,) = calls(run(EmojiCallParser(), ["🛠️[run-query main.sql 100]\nSELECT 1;\n🛠️[/end]"]))
    assert (call.gadget_name, call.raw_args, call.body) == ("run-query", "main.sql 100", "SELECT 1;\n")


def test_emoji_invalid_tool_name_is_passed_on_as_is() -> None:
    (call,) = calls(run(EmojiCallParser(), ["🛠️[2nd.tool! x]\n🛠️[/end]"]))
    assert (call.gadget_name, call.raw_args) == ("2nd.tool!", "x")


def test_emoji_body_may_hold_markdown_and_code_fences() -> None:
    body = "# Title\n\n```python\nprint('[x]')\n```\n- a list\n"
    (call,) = calls(run(EmojiCallParser(), split(f"🛠️[create-file README.md]\n{body}🛠️[/end]", 5)))
    assert call.body == body
