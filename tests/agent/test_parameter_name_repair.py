"""A block call that misspells one of its gadget's parameters (issue 39): the name is read as that
parameter when exactly one it leaves unset is meant, a counted repair (``parameter_name``)
reported to ``on_repair`` and refused in strict mode; any other unknown name keeps its error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from llmist import ExecutionContext, Gadget, create_gadget, gadget
from llmist.agent.repairs import RepairRefused, misspelt_parameters
from tests.agent.repair_runs import run_with_repairs


@gadget(description="Start a game at a level.")
def start_game(player: str, starting_level: int = 1) -> str:
    return f"{player} starts at level {starting_level}"


@gadget(description="Current weather of a city.")
def get_weather(city: str, units: str = "metric") -> str:
    return f"{city}: sunny ({units})"


@gadget(description="The top entries.")
def top(count: int, key: str = "score") -> str:
    return f"top {count} by {key}"


@gadget(description="Compare two items.")
def compare(item_a: str, item_b: str = "", items_c: str = "") -> str:
    return f"{item_a} {item_b} {items_c}".strip()


def _ledger(params: dict[str, Any]) -> str:
    return f"balance {params.get('starting_balance')}, owner {params.get('owner')}"


# A gadget built from a JSON schema, as BFCL's functions and MCP tools are: without
# ``additionalProperties`` a name the schema lacks is dropped, so a misspelt one used to run the
# call with the parameter's default, without a word.
ledger = create_gadget(
    name="open_ledger",
    description="Open a ledger.",
    schema={
        "type": "object",
        "properties": {"owner": {"type": "string"}, "starting_balance": {"type": "number"}},
        "required": ["owner"],
    },
    execute=_ledger,
)

GADGETS = [start_game, get_weather, top, compare, ledger]


def _call(name: str, **values: object) -> str:
    lines = "".join(f"!!!ARG:{key}\n{value}\n" for key, value in values.items())
    return f"!!!GADGET_START:{name}\n{lines}!!!GADGET_END\n"


async def test_a_parameter_one_letter_short_is_read_as_that_parameter() -> None:
    result, events = await run_with_repairs(GADGETS, _call("start_game", player="Ada", startin_level=5), "done")
    [r] = result.gadget_results
    assert r.result == "Ada starts at level 5"
    assert result.repairs == {"parameter_name": 1}
    assert [(e.kind, e.detail) for e in events] == [
        ("parameter_name", "start_game: 'startin_level' read as 'starting_level'")
    ]


async def test_a_json_schema_gadget_no_longer_drops_a_misspelt_parameter() -> None:
    result, _ = await run_with_repairs(GADGETS, _call("open_ledger", owner="Bo", startin_balance=50.0), "done")
    assert result.gadget_results[0].result == "balance 50.0, owner Bo"
    assert result.repairs == {"parameter_name": 1}


async def test_the_other_values_keep_the_form_they_were_written_in() -> None:
    # Read without the schema, 00125648 is the number 125648: written back from that, the
    # account lost its zeros (Qwen2.5-Coder-1.5B's call on a BFCL case).
    result, _ = await run_with_repairs(GADGETS, _call("open_ledger", owner="00125648", startin_balance="0.0"), "done")
    assert result.gadget_results[0].result == "balance 0.0, owner 00125648"


async def test_a_list_written_item_by_item_under_a_misspelt_name_is_read() -> None:
    @gadget(description="Sum some numbers.")
    def total(numbers: list[int], starting_value: int = 0) -> str:
        return str(starting_value + sum(numbers))

    body = "!!!GADGET_START:total\n!!!ARG:numbrs/0\n1\n!!!ARG:numbrs/1\n2\n!!!ARG: startin_value \n3\n!!!GADGET_END\n"
    result, events = await run_with_repairs([total], body, "done")
    assert result.gadget_results[0].result == "6"
    assert [e.detail for e in events] == ["total: 'numbrs' read as 'numbers', 'startin_value' read as 'starting_value'"]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("startingLevel", "starting_level"),  # another case and separators
        ("starting-level", "starting_level"),
        ("startnig_level", "starting_level"),  # two neighbours swapped
        ("starting_levle", "starting_level"),
        ("startimg_level", "starting_level"),  # one changed
        ("starting__level", "starting_level"),  # one added
    ],
)
async def test_each_kind_of_slip_is_read(written: str, meant: str) -> None:
    result, _ = await run_with_repairs(GADGETS, _call("start_game", player="Ada", **{written: 3}), "done")
    assert result.gadget_results[0].result == "Ada starts at level 3"
    assert result.repairs == {"parameter_name": 1}


@pytest.mark.parametrize(
    ("call", "unknown"),
    [
        # Set already: the second is no misspelling of it.
        (_call("get_weather", city="Oslo", citty="Rome"), "citty"),
        # One slip from two unset parameters: which was meant is unknown.
        (_call("compare", item_a="x", item_c="y"), "item_c"),
        # Shorter than 4 characters: one slip turns such a name into another.
        (_call("top", count=3, kye="name"), "kye"),
        # Two slips.
        (_call("get_weather", city="Oslo", unts_x="imperial"), "unts_x"),
    ],
)
async def test_a_name_that_is_no_one_parameters_misspelling_keeps_its_error(call: str, unknown: str) -> None:
    result, _ = await run_with_repairs(GADGETS, call, "done")
    error = result.gadget_results[0].error
    assert error is not None and f"- {unknown}: unknown parameter" in error
    assert "parameter_name" not in result.repairs


async def test_two_misspellings_of_one_parameter_are_both_left() -> None:
    result, _ = await run_with_repairs(GADGETS, _call("get_weather", city="Oslo", unitss="a", unit_s="b"), "done")
    assert result.gadget_results[0].error is not None
    assert "parameter_name" not in result.repairs


async def test_a_reading_that_does_not_validate_keeps_the_calls_error() -> None:
    result, _ = await run_with_repairs(GADGETS, _call("start_game", player="Ada", startin_level="high"), "done")
    error = result.gadget_results[0].error
    assert error is not None and "startin_level: unknown parameter; did you mean 'starting_level'?" in error
    assert "parameter_name" not in result.repairs


async def test_a_gadget_that_takes_extra_names_gets_them_as_written() -> None:
    class Loose(Gadget):
        """Takes extra fields on purpose."""

        description = "Accept anything"

        class Params(BaseModel):
            model_config = ConfigDict(extra="allow")
            starting_level: int = 1

        def execute(self, params: Any, ctx: ExecutionContext) -> str:
            return f"{params.starting_level} {params.model_extra}"

    result, _ = await run_with_repairs([Loose()], _call("Loose", startin_level=5), "done")
    assert result.gadget_results[0].result == "1 {'startin_level': 5}"
    assert not result.repairs


async def test_a_misspelt_parameter_is_refused_in_strict_mode() -> None:
    with pytest.raises(RepairRefused, match="parameter_name"):
        await run_with_repairs(GADGETS, _call("start_game", player="Ada", startin_level=5), "done", strict=True)


def _slips(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: characters left out, added or changed, neighbours swapped."""
    d = [[max(i, j) if min(i, j) == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def _key(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


NAMES = st.text(alphabet="abcdeAB_-", min_size=1, max_size=10)


@given(NAMES, NAMES)
def test_a_name_is_read_as_a_parameter_it_is_one_slip_from_or_spelt_otherwise(written: str, name: str) -> None:
    assume(written != name)
    meant = _key(written) == _key(name) or (
        min(len(written), len(name)) >= 4 and _slips(written.lower(), name.lower()) == 1
    )
    assert misspelt_parameters([written], [name]) == ({written: name} if meant else {})


@given(st.lists(NAMES, min_size=1, max_size=4, unique=True), st.lists(NAMES, max_size=4, unique=True))
def test_a_reading_names_only_unset_parameters_and_never_two_names_one(written: list[str], fields: list[str]) -> None:
    meant = misspelt_parameters(written, fields)
    if len([name for name in written if name not in fields]) > len([f for f in fields if f not in written]):
        assert meant == {}
    assert all(name not in fields and field in fields and field not in written for name, field in meant.items())
    assert len(set(meant.values())) == len(meant)


def test_a_call_of_many_unknown_names_costs_a_look_at_the_parameters_alone() -> None:
    # More names unknown than parameters unset: no slip makes that, so none is read (and a body
    # of a hundred thousand names is not compared with each parameter).
    written = [f"startin_level{k}" for k in range(100_000)] + ["startin_level"]
    assert misspelt_parameters(written, ["player", "starting_level"]) == {}
    assert misspelt_parameters(["startin_level", "plyer"], ["player", "starting_level"]) == {
        "startin_level": "starting_level",
        "plyer": "player",
    }
