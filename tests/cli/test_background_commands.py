"""``llmist agent`` with a command that starts a background job: the call ends with the shell and
says what it stopped, instead of a timeout (issue 29)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.cli.helpers import llmist
from tests.gadgets.processes import alive

pytestmark = pytest.mark.slow


def test_a_background_job_is_reported_and_stopped_not_timed_out(tmp_path: Path) -> None:
    command = "sleep 100 & echo $! > bg.pid; echo started"
    script = tmp_path / "script.json"
    turns = [[{"gadget": "RunCommand", "id": "bg", "params": {"command": command, "timeout_s": 3}}], "done"]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    started = time.monotonic()
    proc = llmist("agent", "go", "-m", f"mock:{script}", "--builtins", "--root", str(tmp_path), "--yes")
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 20
    out = proc.stdout
    assert "timed out" not in out
    assert "started" in out and "[exit code 0]" in out
    assert "1 process it started was still running and was stopped (sleep)" in out
    pid = int((tmp_path / "bg.pid").read_text())
    assert not alive(pid), "the background sleep is still running"
