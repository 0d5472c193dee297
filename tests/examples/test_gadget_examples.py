"""Every example under examples/gadgets runs, and every code sample in docs/gadgets.md comes from one."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "gadgets").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(path), run_name="__main__")


def test_every_doc_sample_is_part_of_an_example() -> None:
    doc = (ROOT / "docs" / "gadgets.md").read_text(encoding="utf-8")
    sources = [p.read_text(encoding="utf-8") for p in EXAMPLES]
    samples = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    assert samples
    missing = [s for s in samples if not any(s in source for source in sources)]
    assert missing == []
