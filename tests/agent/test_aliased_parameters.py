"""Parameters a JSON schema names with no Python name (``_from``, ``class``): the gadget holds
them as fields with aliases (``field_0``), and every reading of a call by its names goes by the
names the model sees and writes, never the Python ones."""

from __future__ import annotations

from typing import Any

from llmist.gadgets import create_gadget
from tests.agent.repair_runs import run_with_repairs

SEEN: list[dict[str, Any]] = []


async def _record(params: dict[str, Any]) -> str:
    SEEN.append(params)
    return "booked"


TICKETS = create_gadget(
    name="get_train_tickets",
    description="Book train tickets.",
    schema={
        "type": "object",
        "properties": {
            "_from": {"type": "string", "description": "Start city."},
            "to": {"type": "string", "description": "End city."},
            "class": {"type": "string", "description": "Fare class."},
        },
        "required": ["_from", "to"],
    },
    execute=_record,
)

CLASS_ONLY = create_gadget(
    name="set_class",
    description="Choose a fare class.",
    schema={"type": "object", "properties": {"class": {"type": "string"}}, "required": ["class"]},
    execute=_record,
)


def _call(name: str, body: str) -> str:
    return f"!!!GADGET_START:{name}\n{body}!!!GADGET_END\n"


async def test_a_misspelt_aliased_parameter_is_read_as_it() -> None:
    # Qwen2.5-Coder-0.5B (BFCL's live_multiple_905): `from` for `_from`.
    SEEN.clear()
    body = "!!!ARG:from\nPortland, OR\n!!!ARG:to\nSeattle, WA\n!!!ARG:class\nBusiness\n"
    result, events = await run_with_repairs([TICKETS], _call("get_train_tickets", body), "ok")
    assert result.gadget_results[0].error is None
    assert SEEN == [{"_from": "Portland, OR", "to": "Seattle, WA", "class": "Business"}]
    assert [e.kind for e in events] == ["parameter_name"]


async def test_readings_without_argument_lines_write_the_aliases() -> None:
    SEEN.clear()
    result, _ = await run_with_repairs([TICKETS], _call("get_train_tickets", "_from=Oslo\nto=Bergen\n"), "ok")
    assert result.gadget_results[0].error is None and SEEN == [{"_from": "Oslo", "to": "Bergen"}]
    result, _ = await run_with_repairs([TICKETS], _call("get_train_tickets", "Oslo\nBergen\n"), "ok")
    assert result.gadget_results[0].error is None and SEEN[-1] == {"_from": "Oslo", "to": "Bergen"}
    result, _ = await run_with_repairs([CLASS_ONLY], _call("set_class", "Business\n"), "ok")
    assert result.gadget_results[0].error is None and SEEN[-1] == {"class": "Business"}


async def test_an_error_shows_the_aliases_never_the_python_names() -> None:
    result, _ = await run_with_repairs([TICKETS], _call("get_train_tickets", "Oslo\n"), "ok")
    [r] = result.gadget_results
    assert r.error is not None and "field_" not in r.error and "!!!ARG:_from" in r.error
    body = "!!!ARG:_frm\nOslo\n!!!ARG:to\nBergen\n!!!ARG:klass\nx\n!!!ARG:extra_thing\ny\n"
    result, _ = await run_with_repairs([TICKETS], _call("get_train_tickets", body), "ok")
    assert "field_" not in str(result.gadget_results[0].error)
