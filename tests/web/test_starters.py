"""The example prompts ``/api/info`` offers the empty page, built from the agent's gadgets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import httpx2
from pydantic import Field

from llmist import Agent, GadgetExample, gadget
from llmist.testing import MockModel
from llmist.web import to_asgi
from tests.web.scripted import WriteNote, echo
from tests.web.servers import serving


@gadget(
    description="  Convert an amount between currencies.  ",
    examples=[GadgetExample(params={"amount": 12.5, "to": "EUR", "note": "x" * 61})],
)
def convert(
    amount: Annotated[float, Field(description="amount")],
    to: Annotated[str, Field(description="currency code")],
    note: Annotated[str, Field(description="a note")],
    rounding: Annotated[int, Field(description="digits")] = 2,
) -> str:
    return f"{amount} {to}"


@gadget(description="The time now.")
def now() -> str:
    return "noon"


def _starters(tmp_path: Path, gadgets: list[Any]) -> list[dict[str, str]]:
    agent = Agent(model=MockModel(["ok"]), gadgets=gadgets)
    with serving(to_asgi(agent, sessions=tmp_path / "s.db")) as url:
        starters: list[dict[str, str]] = httpx2.get(url + "/api/info", timeout=20).json()["starters"]
    return starters


def test_an_examples_short_values_fill_the_prompt_and_a_long_one_is_a_placeholder(tmp_path: Path) -> None:
    assert _starters(tmp_path, [convert]) == [
        {
            "gadget": "convert",
            "description": "Convert an amount between currencies.",
            "prompt": "Use convert with amount 12.5 and to EUR and note <note>",
        }
    ]


def test_gadgets_without_approval_and_with_examples_come_first_two_at_most(tmp_path: Path) -> None:
    names = [s["gadget"] for s in _starters(tmp_path, [WriteNote(), echo, now, convert])]
    assert names == ["convert", "echo"]


def test_a_gadget_without_parameters_is_just_named(tmp_path: Path) -> None:
    assert [s["prompt"] for s in _starters(tmp_path, [now])] == ["Use now"]


def test_a_long_description_is_cut_to_its_first_line_of_120_characters(tmp_path: Path) -> None:
    @gadget(description="Émoji 🛠️ " + "word " * 40 + "\nSecond line.")
    def wordy() -> str:
        return ""

    about = _starters(tmp_path, [wordy])[0]["description"]
    assert about.startswith("Émoji 🛠️ word") and about.endswith("…") and len(about) <= 120
    assert "Second" not in about


def test_an_agent_without_gadgets_offers_none(tmp_path: Path) -> None:
    assert _starters(tmp_path, []) == []
