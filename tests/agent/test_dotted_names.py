"""Gadget names with dots (``us_economy.gdp_by_state_year``), as many APIs name their functions
(issue 39): called by that name in every syntax, sent to native tool APIs without the dots and
mapped back, and resolved from the other spelling when one gadget matches (``gadget_name``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmist import Agent, gadget
from llmist.agent import Hooks, Observers
from llmist.agent.repairs import RepairEvent, RepairRefused
from llmist.execution.names import gadget_names, native_name, same_name
from llmist.gadgets import GadgetError, create_gadget
from llmist.testing import MockModel, MockReply, block_call, emoji_call, tool_call


@gadget(name="us_economy.gdp_by_state_year", description="GDP of a US state in a year.")
def gdp(state: str, year: int) -> str:
    return f"GDP of {state} in {year}"


@gadget(description="Current weather of a city.")
def get_weather(city: str) -> str:
    return f"{city}: sunny"


async def _run(
    *responses: str | MockReply, syntax: str = "block", strict: bool = False
) -> tuple[object, list[RepairEvent], MockModel]:
    events: list[RepairEvent] = []
    model = MockModel(list(responses))
    agent = Agent(
        model=model,
        gadgets=[gdp, get_weather],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        syntax=syntax,  # type: ignore[arg-type]
        strict=strict,
    )
    return await agent.run("task"), events, model


@pytest.mark.parametrize(
    ("syntax", "response"),
    [
        ("block", block_call("us_economy.gdp_by_state_year", state="Ohio", year=2020)),
        ("emoji", emoji_call("us_economy.gdp_by_state_year", "Ohio", "2020")),
    ],
)
async def test_a_dotted_name_is_called_in_the_text_syntaxes(syntax: str, response: str) -> None:
    result, _, _ = await _run(response, "done", syntax=syntax)
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.result) == ("us_economy.gdp_by_state_year", "GDP of Ohio in 2020")
    assert result.repairs == {}  # type: ignore[attr-defined]


async def test_native_tools_get_the_name_without_dots_and_calls_map_back() -> None:
    call = tool_call("us_economy_gdp_by_state_year", state="Ohio", year=2020, id="c1")
    result, _, model = await _run(MockReply("", [call]), "done", syntax="native")
    assert "us_economy_gdp_by_state_year" in {t.name for t in model.requests[0].tools}
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.result) == ("us_economy.gdp_by_state_year", "GDP of Ohio in 2020")
    assert result.repairs == {}  # type: ignore[attr-defined]  # the name llmist sent: no repair


async def test_the_other_spelling_resolves_to_the_one_gadget_it_matches() -> None:
    result, events, _ = await _run(block_call("us_economy_gdp_by_state_year", state="Ohio", year=2020), "done")
    assert result.gadget_results[0].result == "GDP of Ohio in 2020"  # type: ignore[attr-defined]
    assert result.repairs == {"gadget_name": 1}  # type: ignore[attr-defined]
    assert events[0].detail == "gadget 'us_economy_gdp_by_state_year' read as 'us_economy.gdp_by_state_year'"
    result, _, _ = await _run(block_call("get.weather", city="Oslo"), "done")
    assert result.gadget_results[0].result == "Oslo: sunny"  # type: ignore[attr-defined]
    with pytest.raises(RepairRefused, match="gadget_name"):
        await _run(block_call("get.weather", city="Oslo"), "done", strict=True)


def test_a_name_matching_two_gadgets_resolves_to_none() -> None:
    assert same_name("a_b", ["a.b", "a-b"]) is None
    assert gadget_names(["a.b", "a_b", "c.d"]) == {"c_d": "c.d"}


def test_gadget_names_take_dots_between_words_only() -> None:
    def run(params: object) -> str:
        return ""

    schema = {"type": "object", "properties": {}}
    assert create_gadget(name="api.v2.get", description="d", schema=schema, execute=run).name == "api.v2.get"
    for bad in ("api.", ".api", "api..get", "1api"):
        with pytest.raises(GadgetError, match="must start with a letter"):
            create_gadget(name=bad, description="d", schema=schema, execute=run)


_PART = st.text(st.sampled_from("abcxyz_-0123"), min_size=1, max_size=5)


@given(first=st.sampled_from("abcXYZ"), parts=st.lists(_PART, max_size=4))
def test_native_names_hold_no_dots_and_map_back(first: str, parts: list[str]) -> None:
    name = ".".join([first + "x", *parts])
    native = native_name(name)
    assert "." not in native
    assert gadget_names([name]).get(native, name) == name
