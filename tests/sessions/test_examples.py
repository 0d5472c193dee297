"""The long-run guides' examples run, and the guides show them verbatim."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from llmist.testing import block_real_models

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "long_runs"
GUIDES = ("sessions.md", "compaction.md", "subagents.md")

EXPECTED = {
    "history.py": "Doubled, that is 10.",
    "sessions.py": "['Remember the number 42.', 'Noted: 42.', 'Which number?']",
    "compaction.py": "The end. True",
    "subagents.py": "  ResearchDogs: Dogs like walks.",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with block_real_models():
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    assert EXPECTED[name] in capsys.readouterr().out


def test_every_example_is_tested() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize("guide", GUIDES)
def test_every_sample_of_the_guide_comes_from_an_example(guide: str) -> None:
    text = (ROOT / "docs" / guide).read_text(encoding="utf-8")
    shown = re.findall(r"<!-- example: (\S+) -->\n```python\n(.*?)```", text, flags=re.DOTALL)
    assert shown
    for path, sample in shown:
        assert sample in (ROOT / path).read_text(encoding="utf-8"), f"{guide}: sample of {path} differs"
    assert len(shown) == text.count("```python")
