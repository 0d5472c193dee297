"""Every example under examples/<guide>/ runs (tests/docs runs the guides' own samples)."""

from __future__ import annotations

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
