"""Pointer rules that hold whatever order the arguments come in: indices, conflicts, empty
names and nesting depth, through ``parse_block_params`` and the streaming parser alike."""

from __future__ import annotations

import pytest

from llmist.syntax import MAX_PARAMETER_DEPTH, BlockParseError, GadgetCallParser, parse_block_params


def error_of(content: str) -> str:
    with pytest.raises(BlockParseError) as info:
        parse_block_params(content)
    return str(info.value)


def streamed_error(content: str, chunk: int) -> str | None:
    """The parse error of ``content`` as one block fed ``chunk`` characters at a time."""
    text = f"!!!GADGET_START:G\n{content}!!!GADGET_END\n"
    parser = GadgetCallParser()
    events = [e for i in range(0, len(text), chunk) for e in parser.feed(text[i : i + chunk])]
    events += parser.finalize()
    (call,) = [e.call for e in events if e.type == "gadget_call"]
    return call.parse_error


@pytest.mark.parametrize(
    "content",
    ["!!!ARG:items/-1\nx\n", "!!!ARG:items/0\nx\n!!!ARG:items/-1\ny\n", "!!!ARG:a/b/-3/c\nx\n"],
)
def test_a_negative_index_is_invalid_in_any_order(content: str) -> None:
    assert error_of(content).startswith("Invalid array index: -")


@pytest.mark.parametrize(
    "content",
    ["!!!ARG:config/timeout\n30\n!!!ARG:config\nfast\n", "!!!ARG:config\nfast\n!!!ARG:config/timeout\n30\n"],
)
def test_a_value_and_a_nested_value_at_one_name_conflict_in_either_order(content: str) -> None:
    message = error_of(content)
    assert message.startswith("Pointer conflict: config")


def test_a_value_over_nested_values_names_the_pointer() -> None:
    message = error_of("!!!ARG:config/timeout\n30\n!!!ARG:config\nfast\n")
    assert message == (
        "Pointer conflict: config already holds nested values (config/...), so it cannot also be set to a value"
    )


def test_a_list_item_over_its_nested_values_conflicts() -> None:
    message = error_of("!!!ARG:items/0/name\na\n!!!ARG:items/0\nb\n")
    assert message.startswith("Pointer conflict: items/0 already holds nested values")


@pytest.mark.parametrize(
    "content",
    ["!!!ARG:items/0\nx\n!!!ARG:items/name\ny\n", "!!!ARG:items/name\ny\n!!!ARG:items/0\nx\n"],
)
def test_an_index_and_a_name_under_one_parent_conflict_in_either_order(content: str) -> None:
    message = error_of(content)
    assert message in (
        "Invalid array index: name",
        "Pointer conflict: items/0 uses 0 as an array index, but items is an object",
    )


@pytest.mark.parametrize("content", ["!!!ARG:\nlost\n", "!!!ARG:   \nlost\n", "!!!ARG:a\n1\n!!!ARG:\nlost\n"])
def test_an_argument_without_a_name_is_an_error(content: str) -> None:
    assert error_of(content).startswith("Empty pointer:")


@pytest.mark.parametrize("pointer", ["/", "a//b", "a/", "/a"])
def test_an_empty_segment_is_an_error(pointer: str) -> None:
    assert (
        error_of(f"!!!ARG:{pointer}\nx\n") == f"Empty segment in pointer: {pointer} (write names between the slashes)"
    )


@pytest.mark.parametrize("chunk", [1, 3, 1000])
@pytest.mark.parametrize(
    "content", ["!!!ARG:a\n1\n!!!ARG:\nlost\n", "!!!ARG:\nlost\n!!!ARG:a\n1\n", "!!!ARG:a//b\nx\n"]
)
def test_the_streaming_parser_reports_empty_names_too(content: str, chunk: int) -> None:
    assert streamed_error(content, chunk) == error_of(content)


def test_a_pointer_deeper_than_the_limit_names_the_limit() -> None:
    pointer = "/".join(["a"] * 3000)
    message = error_of(f"!!!ARG:{pointer}\n1\n")
    assert message == (
        f"Parameters nested too deep: a/a/a/a/... reaches level 3000; the limit is {MAX_PARAMETER_DEPTH} levels"
    )
    assert streamed_error(f"!!!ARG:{pointer}\n1\n", 7) == message


def test_a_pointer_at_the_limit_is_accepted() -> None:
    pointer = "/".join(["a"] * MAX_PARAMETER_DEPTH)
    value = parse_block_params(f"!!!ARG:{pointer}\n1\n")
    for _ in range(MAX_PARAMETER_DEPTH - 1):
        value = value["a"]
    assert value == {"a": 1}


def test_a_negative_number_as_a_top_level_name_is_still_a_name() -> None:
    # The first segment names a parameter of the call: the root is always an object.
    assert parse_block_params("!!!ARG:-1\nx\n") == {"-1": "x"}
