"""Block calls that write a parameter's argument line more than once (two ``location`` lines for
two cities): read as one call a line (the ``repeated_parameters`` repair), counted, refused in
strict mode, and left to the parser's error whenever the lines do not say so plainly."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmist import gadget
from llmist.agent.repairs import RepairRefused
from llmist.execution import GadgetExecutionResult
from tests.agent.repair_runs import run_with_repairs


@gadget(description="Current weather of a place.")
def weather(location: str, unit: str = "fahrenheit") -> str:
    return f"{location} in {unit}"


@gadget(description="Profit of a stock.")
def stock_profit(purchase_price: float, sale_price: float, dividend: float = 0.0) -> str:
    return f"{sale_price - purchase_price + dividend:g}"


@gadget(description="Tag a file.")
def tag(path: str, tags: list[str]) -> str:
    return f"{path}: {tags}"


def _in_call_order(results: Sequence[GadgetExecutionResult]) -> list[GadgetExecutionResult]:
    """The results in the order of their calls: they arrive as each call finishes, in parallel."""
    return sorted(results, key=lambda r: int(r.invocation_id.removeprefix("gadget_")))


def _block(name: str, *lines: tuple[str, object]) -> str:
    body = "".join(f"!!!ARG:{key}\n{value}\n" for key, value in lines)
    return f"!!!GADGET_START:{name}\n{body}!!!GADGET_END\n"


async def test_a_repeated_parameter_is_one_call_a_line_with_the_others_in_each() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's live_parallel_4): two cities' weather as one call.
    response = _block("weather", ("location", "Boston, USA"), ("unit", "celsius"), ("location", "San Francisco, USA"))
    result, events = await run_with_repairs([weather], response, "ok")
    assert [(r.invocation_id, r.result) for r in _in_call_order(result.gadget_results)] == [
        ("gadget_1", "Boston, USA in celsius"),
        ("gadget_2", "San Francisco, USA in celsius"),
    ]
    assert [(e.kind, e.detail) for e in events] == [
        ("repeated_parameters", "weather: the argument lines written more than once read as 2 calls, one a line")
    ]
    assert result.repairs == {"repeated_parameters": 1}


async def test_several_repeated_parameters_pair_up_in_the_order_written() -> None:
    # Qwen2.5-Coder-1.5B (BFCL's parallel_174): three stocks, each value written three times.
    lines = [(name, value) for trio in ((10, 15, 1), (20, 18, 2), (30, 40, 0)) for name, value in
             zip(("purchase_price", "sale_price", "dividend"), trio, strict=True)]  # fmt: skip
    result, _ = await run_with_repairs([stock_profit], _block("stock_profit", *lines), "ok")
    assert [r.result for r in _in_call_order(result.gadget_results)] == ["6", "0", "10"]


@pytest.mark.parametrize(
    "lines",
    [
        # Repeated names in different counts: which value goes with which is unknown.
        [("purchase_price", 1), ("purchase_price", 2), ("sale_price", 3), ("sale_price", 4), ("sale_price", 5)],
        # A name that is no parameter's.
        [("purchase_price", 1), ("purchase_price", 2), ("sale_price", 3), ("cost", 4)],
    ],
)
async def test_lines_that_do_not_pair_up_keep_the_parsers_error(lines: list[tuple[str, object]]) -> None:
    result, events = await run_with_repairs([stock_profit], _block("stock_profit", *lines), "ok")
    [r] = result.gadget_results
    assert r.error is not None and "Duplicate pointer" in r.error and not events


async def test_a_list_parameter_written_twice_is_not_read_as_two_calls() -> None:
    # Its lines may be items of the one list.
    response = _block("tag", ("path", "a.txt"), ("tags", "red"), ("tags", "blue"))
    result, events = await run_with_repairs([tag], response, "ok")
    [r] = result.gadget_results
    assert r.error is not None and "Duplicate pointer" in r.error and not events


async def test_a_part_that_does_not_validate_drops_the_reading() -> None:
    response = _block("stock_profit", ("purchase_price", 1), ("purchase_price", "lots"), ("sale_price", 3))
    result, events = await run_with_repairs([stock_profit], response, "ok")
    [r] = result.gadget_results
    assert r.error is not None and not events
    assert [r.invocation_id for r in result.gadget_results] == ["gadget_1"]  # no id was taken


async def test_the_reading_is_refused_in_strict_mode() -> None:
    response = _block("weather", ("location", "Boston"), ("location", "Oslo"))
    with pytest.raises(RepairRefused):
        await run_with_repairs([weather], response, "ok", strict=True)


@settings(max_examples=40, deadline=None)
@given(
    places=st.lists(
        st.text(alphabet="abc XYZ,", min_size=1, max_size=8).filter(str.strip), min_size=2, max_size=5, unique=True
    ),
    unit_at=st.integers(min_value=0, max_value=5),
)
async def test_any_number_of_repeats_gives_that_many_calls_in_order(places: list[str], unit_at: int) -> None:
    lines: list[tuple[str, object]] = [("location", place) for place in places]
    lines.insert(min(unit_at, len(lines)), ("unit", "kelvin"))
    result, _ = await run_with_repairs([weather], _block("weather", *lines), "ok")
    assert [r.result for r in _in_call_order(result.gadget_results)] == [f"{place} in kelvin" for place in places]
