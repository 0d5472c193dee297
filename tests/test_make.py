"""What ``make test`` tells a newcomer: what it is installing, and why tests were skipped."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make (apt-get install make)")
def test_installing_the_test_venv_says_what_it_installs() -> None:
    # -n prints the recipe without running it; -B as on a fresh clone, where nothing is installed yet.
    proc = subprocess.run(["make", "-n", "-B", ".venv/.installed-stamp"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "make: installing llmist and its dev tools" in proc.stdout


def test_the_project_pytest_settings_end_with_the_skip_reasons(tmp_path: Path) -> None:
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n\n@pytest.mark.skip(reason='needs the moon')\ndef test_x():\n    pass\n", encoding="utf-8"
    )
    command = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
    proc = subprocess.run([*command, "-p", "no:cacheprovider", str(tmp_path)], capture_output=True, text=True)
    assert "SKIPPED [1]" in proc.stdout and "test_skips.py:4: needs the moon" in proc.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make (apt-get install make)")
def test_the_readme_says_what_demo_local_needs_as_make_demo_local_does() -> None:
    """The README and the notice `make demo-local` prints first name the same compiler, cmake and
    build time, so a reader knows before the build starts."""
    proc = subprocess.run(["make", "-n", "demo-local-notice"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    for words in ("C/C++ compiler", "cmake", "6-10 minutes on two cores"):
        assert words in proc.stdout, words
        assert words in readme, words
    assert "need only Python 3.11+" not in readme.replace("`make test` and `make demo` need only", "")
