"""Bare words in an emoji header (issue 39): a call that can be read two ways never runs the
wrong way without a word. One text parameter takes the words that overflow (``joined_words``,
a counted repair); words that may be one value split over several text parameters are refused
with the quoted form."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmist import gadget
from llmist.agent import AgentResult
from llmist.agent.repairs import RepairEvent, RepairRefused
from llmist.gadgets import InvalidParametersError, bind_call
from llmist.syntax import ParsedCall
from tests.agent.repair_runs import run_with_repairs


@gadget(description="Find supermarkets in a city.")
def supermarket_find_in_city(city: str, state: str, openNow: bool = True) -> str:
    return f"supermarkets of {city}, {state}"


@gadget(description="Translate a text.")
def translate(text: str, lang: str) -> str:
    return f"{text} in {lang}"


@gadget(description="Search the web.")
def search(query: str, limit: int = 3) -> str:
    return f"{limit} results for {query}"


@gadget(description="Find restaurants in a city.")
def find_restaurants(city: str, limit: int) -> str:
    return f"{limit} restaurants in {city}"


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


GADGETS = [supermarket_find_in_city, translate, search, find_restaurants, add]


def _emoji(name: str, args: str) -> ParsedCall:
    return ParsedCall(name, "c1", "", None, None, (), "emoji", args, "", ())


async def _run(*responses: str, strict: bool = False) -> tuple[AgentResult, list[RepairEvent]]:
    return await run_with_repairs(GADGETS, *responses, strict=strict, syntax="emoji")


def test_words_that_may_be_one_split_value_are_refused_with_the_quoted_form() -> None:
    with pytest.raises(InvalidParametersError) as error:
        bind_call(supermarket_find_in_city, _emoji("supermarket_find_in_city", "Los Angeles"))
    assert "may have been split" in str(error.value)
    assert '🛠️[supermarket_find_in_city city="Los Angeles" state="..."]' in str(error.value)


@pytest.mark.parametrize(
    ("g", "args", "expected"),
    [
        (translate, "hello fr", {"text": "hello", "lang": "fr"}),  # every parameter one word
        (supermarket_find_in_city, '"Los Angeles" CA', {"city": "Los Angeles", "state": "CA"}),
        (supermarket_find_in_city, "city=Boston state=MA", {"city": "Boston", "state": "MA"}),
        (supermarket_find_in_city, "Boston MA false", {"city": "Boston", "state": "MA", "openNow": False}),
        (add, "1 2", {"a": 1, "b": 2}),  # numbers are not words
    ],
)
def test_unambiguous_words_bind(g: object, args: str, expected: dict[str, object]) -> None:
    from llmist.gadgets import validate_params

    model = validate_params(g, bind_call(g, _emoji(g.name, args)))  # type: ignore[arg-type, attr-defined]
    assert {k: getattr(model, k) for k in expected} == expected


async def test_the_split_city_is_not_run_and_the_model_is_told_the_quoted_form() -> None:
    result, _ = await _run("🛠️[supermarket_find_in_city Los Angeles]\n🛠️[/end]", "done")
    [r] = result.gadget_results
    assert r.result is None and 'city="Los Angeles"' in r.error
    assert result.repairs == {}


async def test_one_text_parameter_takes_the_words_that_overflow() -> None:
    result, events = await _run("🛠️[search Los Angeles]\n🛠️[/end]", "done")
    assert result.gadget_results[0].result == "3 results for Los Angeles"
    assert result.repairs == {"joined_words": 1}
    assert events[0].detail == "search: the words 'Los Angeles' read as '\"Los Angeles\"'"


async def test_the_parameters_around_the_text_one_take_the_words_at_either_end() -> None:
    result, _ = await _run("🛠️[find_restaurants New York City 5]\n🛠️[/end]", "done")
    assert result.gadget_results[0].result == "5 restaurants in New York City"
    assert result.repairs == {"joined_words": 1}


async def test_joined_words_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="joined_words"):
        await _run("🛠️[search Los Angeles]\n🛠️[/end]", "done", strict=True)


async def test_a_well_formed_call_is_not_repaired() -> None:
    result, _ = await _run('🛠️[search "Los Angeles" 2]\n🛠️[/end]', "done")
    assert result.gadget_results[0].result == "2 results for Los Angeles"
    assert result.repairs == {}


_WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), min_size=1, max_size=8)


@settings(max_examples=50, deadline=None)
@given(words=st.lists(_WORD, min_size=1, max_size=4), limit=st.integers(min_value=0, max_value=99))
def test_bare_words_never_bind_a_split_over_two_text_parameters(words: list[str], limit: int) -> None:
    # Whatever bare words come, a call binds city and state one word each only when the words
    # fill every parameter; else it is refused (or short of a required parameter).
    args = " ".join(words)
    try:
        raw = bind_call(supermarket_find_in_city, _emoji("supermarket_find_in_city", args))
    except InvalidParametersError:
        return
    assert len(words) == 3 or len(words) == 1
    assert raw["city"] == words[0]
