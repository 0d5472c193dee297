"""`null` written as an optional field's value means "no value" wherever the field takes no string."""

from __future__ import annotations

from typing import Literal

import pytest

from llmist import Agent, gadget
from llmist.testing import MockModel, collect_events


@gadget(description="Show what arrived.")
def show(
    name: str,
    tags: list[str] | None = None,
    limit: int | None = None,
    strict: bool | None = None,
    note: str | None = None,
) -> str:
    return repr((name, tags, limit, strict, note))


async def _result(call: str, syntax: Literal["block", "emoji"] = "block") -> tuple[str | None, str | None]:
    model = MockModel([call, "done"])
    events = await collect_events(Agent(model=model, gadgets=[show], syntax=syntax).stream("go"))
    (result,) = [e.result for e in events if e.type == "gadget_result"]
    return result.result, result.error


@pytest.mark.parametrize("word", ["null", "None", " null ", "    None    "])
async def test_null_leaves_out_an_optional_list_number_and_flag_in_the_block_syntax(word: str) -> None:
    call = (
        f"!!!GADGET_START:show\n!!!ARG:name\nx\n!!!ARG:tags\n{word}\n!!!ARG:limit\n{word}\n"
        f"!!!ARG:strict\n{word}\n!!!GADGET_END\n"
    )
    assert await _result(call) == ("('x', None, None, None, None)", None)


async def test_null_in_the_emoji_syntax() -> None:
    # The empty body fills `note`, the last string field, as every emoji call's body does.
    call = "🛠️[show name=x tags=null limit=null]\n🛠️[/end]\n"
    assert await _result(call, "emoji") == ("('x', None, None, None, '')", None)


async def test_a_required_field_that_takes_a_string_keeps_the_word() -> None:
    # An optional one is left out by the loop's `null_value` repair (tests/agent/test_argument_repairs.py).
    call = "!!!GADGET_START:show\n!!!ARG:name\nnull\n!!!ARG:note\nNone\n!!!GADGET_END\n"
    assert await _result(call) == ("('null', None, None, None, None)", None)


async def test_null_where_a_value_is_required_is_an_error_naming_the_field() -> None:
    @gadget(description="Sum the numbers.")
    def total(numbers: list[int]) -> str:
        return str(sum(numbers))

    model = MockModel(["!!!GADGET_START:total\n!!!ARG:numbers\nnull\n!!!GADGET_END\n", "done"])
    events = await collect_events(Agent(model=model, gadgets=[total]).stream("go"))
    (result,) = [e.result for e in events if e.type == "gadget_result"]
    assert result.result is None
    assert result.error is not None and "numbers" in result.error


async def test_a_list_still_binds_beside_a_null() -> None:
    call = '!!!GADGET_START:show\n!!!ARG:name\nx\n!!!ARG:tags\n["a", "b"]\n!!!ARG:limit\nnull\n!!!GADGET_END\n'
    assert await _result(call) == ("('x', ['a', 'b'], None, None, None)", None)
