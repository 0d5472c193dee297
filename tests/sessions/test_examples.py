"""The long-run guides' examples run (tests/docs runs the guides' own samples)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from llmist.testing import block_real_models

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "long_runs"

EXPECTED = {
    "history.py": "Doubled, that is 10.",
    "sessions.py": "['Remember the number 42.', 'Noted: 42.', 'Which number?']",
    "compaction.py": "The end. True",
    "subagents.py": "  ResearchDogs: Dogs like walks.",
    "approvals.py": "Sent 'Lunch on Friday?' to ada@example.com.\nAda has the invitation.",
    "database.py": "On Friday.\n['ops']",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with block_real_models():
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    assert EXPECTED[name] in capsys.readouterr().out


def test_every_example_is_tested() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(EXPECTED)
