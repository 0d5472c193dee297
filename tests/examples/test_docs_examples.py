"""Every example under examples/<guide>/ runs, and every code sample in docs/<guide>.md comes from one."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if (ROOT / "examples" / p.stem).is_dir())
# These guides' examples need a fixture (a fake provider server, a server process) and are run by their own tests.
RUN_ELSEWHERE = {"providers": "tests/providers/test_examples.py", "web": "tests/web/test_examples.py"}
EXAMPLES = sorted(p for guide in GUIDES if guide not in RUN_ELSEWHERE for p in (ROOT / "examples" / guide).glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[f"{p.parent.name}/{p.stem}" for p in EXAMPLES])
def test_example_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(path), run_name="__main__")


@pytest.mark.parametrize("guide", GUIDES)
def test_every_doc_sample_is_part_of_an_example(guide: str) -> None:
    doc = (ROOT / "docs" / f"{guide}.md").read_text(encoding="utf-8")
    sources = [p.read_text(encoding="utf-8") for p in (ROOT / "examples" / guide).glob("*.py")]
    samples = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    assert samples, f"docs/{guide}.md has no python samples"
    missing = [s for s in samples if not any(s in source for source in sources)]
    assert missing == []
