"""A number too long for ``int()`` (Python refuses more than ``sys.get_int_max_str_digits()``
digits, 4,300 by default) never makes a parser raise: it stays its digits, a string, and a
field that wants a number says so in the call's error."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from llmist.syntax import GadgetCallParser, native_call, parse_block_params

from .helpers import calls, run

LIMIT = sys.get_int_max_str_digits()

digits = st.integers(min_value=1, max_value=LIMIT + 300).flatmap(
    lambda n: st.text(alphabet="0123456789", min_size=n, max_size=n)
)
signed = st.tuples(st.sampled_from(["", "-"]), digits, st.sampled_from(["", ".5"])).map("".join)


def _expected(number: str) -> object:
    """What a single-line number becomes: an int or float when Python can hold it, else the text."""
    body = number.lstrip("-").split(".")[0]
    if len(body) > LIMIT:
        return number
    if "." in number:
        value = float(number)
        return value if value not in (float("inf"), float("-inf")) else number
    return int(number)


@given(signed)
def test_a_block_value_of_any_length_parses(number: str) -> None:
    assert parse_block_params(f"!!!ARG:a\n{number}") == {"a": _expected(number)}


@given(digits)
def test_a_number_past_the_int_limit_stays_text_in_a_streamed_block(number: str) -> None:
    (call,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:s\n!!!ARG:a\n{number}\n!!!GADGET_END\n"]))
    assert call.parse_error is None and call.parameters == {"a": _expected(number)}


def test_a_fused_value_past_the_int_limit_stays_text() -> None:
    big = "9" * 5000
    (call,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:s\n!!!ARG:a {big}\n!!!GADGET_END\n"]))
    assert call.parameters == {"a": big}


def test_an_array_index_past_the_int_limit_is_a_parse_error() -> None:
    big = "9" * 5000
    (call,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:s\n!!!ARG:a/{big}\nx\n!!!GADGET_END\n"]))
    assert call.parameters is None
    assert call.parse_error is not None and call.parse_error.startswith("Array index gap: expected 0, got 9999")
    assert "(5000 digits)" in call.parse_error


def test_a_schema_index_past_the_int_limit_is_a_parse_error() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array", "prefixItems": [{"type": "string"}]}}}
    big = "9" * 5000
    (call,) = calls(run(GadgetCallParser(), [f"!!!GADGET_START:s\n!!!ARG:a/{big}\nx\n!!!GADGET_END\n"]))
    assert call.parse_error is not None
    try:
        parse_block_params(f"!!!ARG:a/{big}\nx", schema=schema)
    except ValueError as exc:
        assert str(exc).startswith("Array index gap")
    else:
        raise AssertionError("an index gap must be refused")


@given(digits)
def test_a_native_number_of_any_length_is_read(number: str) -> None:
    number = number.lstrip("0") or "0"  # JSON has no leading zeros
    call = native_call("s", '{"a": ' + number + "}")
    assert call.parse_error is None and call.parameters == {"a": _expected(number)}
