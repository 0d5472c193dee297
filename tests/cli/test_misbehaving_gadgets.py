"""``llmist agent`` with gadgets that misbehave: what a gadget prints (from Python or from a child
process) goes to standard error, so ``--json`` writes only JSON lines; a result that is not text,
or a gadget that ignores its cancellation, never keeps the command from ending."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import ROOT, llmist

pytestmark = pytest.mark.slow

TOOLS = ROOT / "tests" / "mcp" / "misbehaving_tools.py"


def test_a_gadget_printing_to_stdout_goes_to_stderr_in_json_mode(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    turns = [[{"gadget": "chatty", "params": {"text": "hi"}}], "done"]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    proc = llmist("agent", "go", "-m", f"mock:{script}", "-g", str(TOOLS), "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]  # every line is JSON
    assert lines[-1]["type"] == "run_end" and lines[-1]["output"] == "done"
    assert "chatty printed this" in proc.stderr and "chatty child wrote this" in proc.stderr


def test_a_gadget_that_ignores_its_cancellation_does_not_keep_the_command_from_ending(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [[{"gadget": "stubborn", "params": {}}], "done"]}), encoding="utf-8")
    proc = llmist("agent", "go", "-m", f"mock:{script}", "-g", str(TOOLS), "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (result,) = [line["result"] for line in lines if line["type"] == "gadget_result"]
    assert result["status"] == "timeout" and "left running" in result["error"]
    assert lines[-1]["output"] == "done"


def test_a_gadget_returning_a_result_that_is_not_text_does_not_hang_the_command(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    turns = [[{"gadget": "lookup", "params": {"key": "k"}}], "done"]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    proc = llmist("agent", "go", "-m", f"mock:{script}", "-g", str(TOOLS), "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (result,) = [line["result"] for line in lines if line["type"] == "gadget_result"]
    assert (result["result"], result["error"]) == ("42", None)
