"""Every example under examples/agent runs, and every code sample in docs/agents.md and
docs/testing.md comes from one."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "agent").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(path), run_name="__main__")


@pytest.mark.parametrize("doc", ["agents.md", "testing.md"])
def test_every_doc_sample_is_part_of_an_example(doc: str) -> None:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    sources = [p.read_text(encoding="utf-8") for p in EXAMPLES]
    samples = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert samples
    missing = [s for s in samples if not any(s in source for source in sources)]
    assert missing == []
