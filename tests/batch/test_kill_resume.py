"""A batch process killed with SIGKILL mid-batch resumes: no finished task runs twice, none is lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("scripted.py")
ROOT = Path(__file__).resolve().parents[2]
COUNT = 300


def start(out: Path, log: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), str(out), str(log), str(COUNT)], stdout=subprocess.PIPE, text=True, env=env
    )


@pytest.mark.slow
def test_a_batch_killed_mid_way_resumes_without_running_a_finished_task_twice(tmp_path: Path) -> None:
    out, first_log, second_log = tmp_path / "results.jsonl", tmp_path / "first.log", tmp_path / "second.log"
    first = start(out, first_log)
    assert first.stdout is not None
    for _ in range(100):  # each line is a result written to the file
        assert first.stdout.readline()
    first.send_signal(signal.SIGKILL)
    first.wait()
    finished_before = {json.loads(line)["id"] for line in out.read_text().splitlines() if line.endswith("}")}
    assert 100 <= len(finished_before) < COUNT

    second = start(out, second_log)
    second.communicate(timeout=120)
    assert second.returncode == 0

    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(int(r["id"]) for r in rows) == list(range(COUNT))
    assert all(r["error"] is None for r in rows)
    rerun = {line.split()[-1] for line in second_log.read_text().splitlines()}
    assert rerun & finished_before == set()
    assert rerun | finished_before == {str(n) for n in range(COUNT)}
