"""``--help`` of every command reads well at 80 columns and in a pipe: whole words, no type noise."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer

from llmist.cli.main import app
from tests.cli.helpers import llmist


def _command_paths(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand (a group has ``commands``; typer's click is its own copy)."""
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += _command_paths(sub, (*path, name))
    return paths


COMMANDS = _command_paths(typer.main.get_command(app))
_TYPE_NOISE = re.compile(r"<(str|bool|int|float|path|list\[[^\]]*\])[^>]*>|\{[a-z_]+\}")


def test_every_command_is_checked() -> None:
    assert {"agent", "batch", "models", "parse"} <= {p[0] for p in COMMANDS if p}
    assert ("gadget", "validate") in COMMANDS and ("mcp", "serve") in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) or "llmist" for p in COMMANDS])
def test_help_fits_80_columns_in_whole_words_without_type_noise(path: tuple[str, ...]) -> None:
    proc = llmist(*path, "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert text.startswith(f"Usage: llmist {' '.join(path)}".rstrip())
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert too_long == []
    assert "…" not in text
    if "Commands:" in text:  # each command's summary whole, not cut with "..."
        assert not [line for line in text.split("Commands:")[1].splitlines() if line.endswith("...")]
    assert not _TYPE_NOISE.search(text), _TYPE_NOISE.search(text)
    assert "╭" not in text  # no boxes: the same plain text on a terminal and in a pipe
