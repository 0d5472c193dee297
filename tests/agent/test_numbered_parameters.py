"""Block calls whose parameters carry numbers (``city1``, ``city2``): read as one call a number
(the ``numbered_parameters`` repair), counted, refused in strict mode, and left alone whenever
another reading is possible."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmist import gadget
from llmist.agent.repairs import RepairRefused, numbered_calls
from tests.agent.repair_runs import run_with_repairs

SEEN: list[tuple[str, str]] = []


@gadget(description="Current weather of a city.")
def get_weather(city: str, unit: str = "C") -> str:
    SEEN.append((city, unit))
    return f"{city}: 20 {unit}"


@gadget(description="Area of a triangle.")
def calculate_area(base: float, height: float) -> str:
    return f"{base * height / 2:g}"


@gadget(description="Distance between two points.")
def distance(point1: str, point2: str) -> str:
    return f"{point1} to {point2}"


def _call(name: str, **params: object) -> str:
    lines = [f"!!!GADGET_START:{name}"]
    for key, value in params.items():
        lines += [f"!!!ARG:{key}", str(value)]
    return "\n".join([*lines, "!!!GADGET_END"]) + "\n"


async def test_numbered_parameters_are_one_call_a_number_with_the_shared_ones_in_each() -> None:
    # Qwen2.5-Coder-0.5B asked for two cities' weather this way six times over.
    SEEN.clear()
    result, events = await run_with_repairs(
        [get_weather], _call("get_weather", city1="Tokyo", city2="Oslo", unit="F"), "ok"
    )
    assert sorted(SEEN) == [("Oslo", "F"), ("Tokyo", "F")]
    first, second = sorted(result.gadget_results, key=lambda r: r.invocation_id)
    assert (first.invocation_id, first.parameters) == ("gadget_1", {"city": "Tokyo", "unit": "F"})
    assert (second.invocation_id, second.parameters) == ("gadget_2", {"city": "Oslo", "unit": "F"})
    assert result.repairs == {"numbered_parameters": 1}
    assert [e.kind for e in events] == ["numbered_parameters"]


async def test_one_number_with_an_underscore_renames_the_parameters_of_one_call() -> None:
    result, _ = await run_with_repairs([calculate_area], _call("calculate_area", base_1=12, height_1=15), "ok")
    [r] = result.gadget_results
    assert (r.parameters, r.result) == ({"base": 12, "height": 15}, "90")


async def test_parameters_whose_names_hold_a_number_are_read_as_written() -> None:
    result, _ = await run_with_repairs([distance], _call("distance", point1="a", point2="b"), "ok")
    [r] = result.gadget_results
    assert r.result == "a to b" and result.repairs == {}


@pytest.mark.parametrize(
    "response",
    [
        _call("get_weather", city1="Tokyo", town2="Oslo"),  # town is no parameter
        _call("calculate_area", base1=12, height1="tall", base2=3, height2=4),  # a call that fails
        _call("get_weather", city1="Tokyo", city_1="Oslo"),  # one number sets city twice
    ],
)
async def test_a_numbered_reading_that_does_not_fit_leaves_the_call_to_fail_as_written(response: str) -> None:
    result, _ = await run_with_repairs([get_weather, calculate_area], response, "ok")
    [r] = result.gadget_results
    assert r.error is not None and "numbered_parameters" not in result.repairs


async def test_numbered_parameters_are_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="numbered_parameters"):
        await run_with_repairs([get_weather], _call("get_weather", city1="Tokyo", city2="Oslo"), "ok", strict=True)


@settings(max_examples=60, deadline=None)
@given(
    cities=st.lists(st.from_regex(r"[A-Za-z]{1,10}", fullmatch=True), min_size=1, max_size=6),
    underscore=st.booleans(),
    unit=st.none() | st.sampled_from(["C", "F"]),
)
def test_every_number_is_one_call_in_the_numbers_order(cities: list[str], underscore: bool, unit: str | None) -> None:
    sep = "_" if underscore else ""
    params: dict[str, object] = {f"city{sep}{n}": c for n, c in reversed(list(enumerate(cities, 1)))}
    if unit is not None:
        params["unit"] = unit
    shared = {} if unit is None else {"unit": unit}
    assert numbered_calls(get_weather, params) == [{**shared, "city": c} for c in cities]
