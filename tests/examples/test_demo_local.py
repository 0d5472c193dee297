"""``make demo-local``'s check of the run (examples/demo-local.sh): the demo succeeds only when the
agent stopped on its own answer, ``words.py`` prints the right count and the answer states it;
otherwise it exits 1 with one paragraph saying what failed. The check is run here on the output
of mock runs through the same CLI, so no model is needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = (ROOT / "examples" / "demo-local.sh").read_text()
CHECK = SCRIPT.split("<<'CHECK'\n", 1)[1].split("\nCHECK\n", 1)[0]
LLMIST = str(Path(sys.executable).with_name("llmist"))
WRITE = {"gadget": "WriteFile", "id": "w", "params": {"path": "words.py", "content": "print(13)"}}


def _demo(tmp_path: Path, turns: list[object], *, max_iterations: int = 5) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    cmd = [LLMIST, "agent", "count", "-m", f"mock:{script}", "--builtins", "--root", str(work), "--yes"]
    run = subprocess.run([*cmd, "--max-iterations", str(max_iterations)], capture_output=True, text=True)
    log = tmp_path / "log"
    log.write_text(run.stdout + run.stderr)
    args = [str(work), str(log), str(run.returncode), "13", "42"]
    return subprocess.run([sys.executable, "-", *args], input=CHECK, capture_output=True, text=True)


def test_a_task_done_passes(tmp_path: Path) -> None:
    check = _demo(tmp_path, [[WRITE], "The poem has 13 words."])
    assert check.returncode == 0, check.stderr
    assert "Done in 42 s" in check.stdout


@pytest.mark.parametrize(
    ("turns", "said"),
    [
        ([[WRITE], "The poem has 12 words."], "the model's answer does not state the count, 13"),
        (["The poem has 13 words."], "words.py was never written"),
        ([[{**WRITE, "params": {"path": "words.py", "content": "print(4)"}}], "13"], "printed '4'"),
        ([[WRITE]] * 3, "stopped on max_iterations"),
    ],
)
def test_a_task_not_done_exits_1_saying_why(tmp_path: Path, turns: list[object], said: str) -> None:
    check = _demo(tmp_path, turns, max_iterations=2)
    assert check.returncode == 1
    assert "The demo FAILED after 42 s" in check.stderr and said in check.stderr
