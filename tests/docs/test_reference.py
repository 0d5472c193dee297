"""The guides say what the code does: the reference tables list every command of ``llmist`` and
every value of ``--syntax`` and of the ``syntax`` key; from-typescript.md lists the prompt's
examples without their output; testing.md shows the script its command line runs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer

from llmist import GadgetExample, gadget
from llmist.cli._agent_options import SyntaxChoice
from llmist.cli.main import app
from llmist.gadgets import render_gadget

ROOT = Path(__file__).resolve().parents[2]


def _commands(group: Any, prefix: str = "llmist") -> list[str]:
    """Every command line's leading words: ``llmist agent``, ``llmist gadget run``..."""
    names: list[str] = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group (Typer's own copy of click's)
            names += _commands(command, f"{prefix} {name}")
        else:
            names.append(f"{prefix} {name}")
    return names


def _rows(page: str, heading: str) -> list[str]:
    """The table rows of ``page`` from its first table at or after the line ``heading``."""
    text = (ROOT / page).read_text(encoding="utf-8")
    after = text[text.index(heading) :]
    table = re.search(r"^\|.*?(?=^[^|]|\Z)", after, re.MULTILINE | re.DOTALL)
    assert table, f"{page}: no table after {heading!r}"
    return [line for line in table.group(0).splitlines() if line.startswith("|")]


def _cells(row: str) -> list[str]:
    """A table row's cells (a ``\\|`` inside a cell is not a border)."""
    return re.split(r"(?<!\\)\|", row)[1:-1]


def test_the_command_table_of_cli_md_lists_every_command() -> None:
    group = typer.main.get_command(app)
    first_cells = " ".join(_cells(row)[0] for row in _rows("docs/cli.md", "# The `llmist` command line"))
    missing = [c for c in _commands(group) if not re.search(re.escape(f"`{c}") + r"[` ]", first_cells)]
    assert missing == []


def test_the_syntax_option_of_cli_md_lists_every_value() -> None:
    row = next(r for r in _rows("docs/cli.md", "Options:") if r.startswith("| `--syntax"))
    values = _cells(row)[0].split("--syntax", 1)[1].split("`")[0]
    assert re.findall(r"\w+", values) == [c.value for c in SyntaxChoice]


def test_the_syntax_key_of_configuration_md_lists_every_value() -> None:
    row = next(r for r in _rows("docs/configuration.md", "| key |") if r.startswith("| `syntax`"))
    assert re.findall(r'`"(\w+)"`', _cells(row)[1]) == [c.value for c in SyntaxChoice]


def test_from_typescript_md_lists_that_an_examples_output_is_not_in_the_prompt() -> None:
    @gadget(description="Add two integers.", examples=[GadgetExample({"a": 15, "b": 23}, output="38")])
    def add(a: int, b: int) -> int:
        return a + b

    assert "38" not in render_gadget(add) and "23" in render_gadget(add)
    rows = [r for r in _rows("docs/from-typescript.md", "| TypeScript guide |") if "example's `output`" in r]
    assert len(rows) == 1 and "not shown" in _cells(rows[0])[1]


def test_testing_md_shows_the_mock_script_its_command_line_runs() -> None:
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    assert "-m mock:examples/cli/add-script.json" in text
    shown = [json.loads(b) for b in re.findall(r"^```json\n(.*?)^```", text, re.MULTILINE | re.DOTALL)]
    assert json.loads((ROOT / "examples" / "cli" / "add-script.json").read_text(encoding="utf-8")) in shown
